"""The metastore client's partition calls: add, list, get (by values, names or filter), count,
drop and alter partitions, in the calls each metastore release answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hmscatalog.errors import (
    AlreadyExists,
    InvalidFilter,
    InvalidOperation,
    MetastoreError,
    NoSuchPartition,
)
from hmscatalog.metastore import convert
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.calls import DEFAULT_CATALOG, MetastoreCalls
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import check_static_value, make_part_name
from hmscatalog.storage.locations import local_path
from hmscatalog.storage.opening import created_directories

ADD_BATCH = 1000
GET_BATCH = 500
LIST_BATCH = 10_000  # partitions per reply when a whole large table is listed


def _refused_for_size(exc: MetastoreError) -> bool:
    """Whether the metastore refused a request for its size: more partitions than
    ``metastore.limit.partition.request``, or a reply over a message limit."""
    text = str(exc).lower()
    return any(word in text for word in ("limit", "too large", "exceed", "maxmessagesize",
                                         "frame size"))


class PartitionCalls(MetastoreCalls):
    """Partition calls of :class:`hmscatalog.metastore.client.MetastoreClient`."""

    def new_partition(
        self,
        table: Table,
        values: Sequence[Any] | Mapping[str, Any],
        location: str | None = None,
        parameters: Mapping[str, str] | None = None,
    ) -> Partition:
        """Build (not add) a partition of ``table`` from typed values.

        The location defaults to ``<table location>/<k1=v1/k2=v2>`` with Hive's escaping, and the
        storage format is the table's.

        Raises:
            InvalidPartitionValue: a value no directory can be named after (U+0000, too long).
        """
        spec = table.partition_spec
        typed = spec.values_from_mapping(values) if isinstance(values, Mapping) else values
        strings = spec.to_strings(typed)
        for column, value in zip(spec.names, strings, strict=True):
            check_static_value(table.qualified_name, column, value)
        if location is None and table.location:
            location = table.location.rstrip("/") + "/" + make_part_name(spec.names, strings)
        return table.partition_at(strings, location, parameters)

    def add_partitions(
        self,
        table: Table,
        partitions: Iterable[Partition],
        if_not_exists: bool = False,
        batch_size: int = ADD_BATCH,
        create_local_dirs: bool | None = None,
    ) -> int:
        """Register partitions in batches; returns how many were added.

        The metastore creates each new partition's directory. For ``file:`` locations on a
        metastore on this machine they are created first, through
        :func:`hmscatalog.storage.opening.created_directories` (many times faster than the
        server, which starts a process per directory); a batch that fails removes the
        directories created for it.

        Args:
            create_local_dirs: create ``file:`` directories on the client; by default only when
                every metastore address is a loopback address.

        Raises:
            AlreadyExists: if one exists and ``if_not_exists`` is false (that batch adds none).
        """
        if create_local_dirs is None:
            create_local_dirs = self._connection.is_loopback
        added = 0
        batch: list[t.Partition] = []

        def flush() -> int:
            local = [tp.sd.location for tp in batch if local_path(tp.sd.location)] if (
                create_local_dirs
            ) else []
            if local and not if_not_exists:
                # Checked here, not left to the server: on a batch it rejects, the server may
                # still create a directory after answering, behind the cleanup below.
                names = [make_part_name(table.partition_spec.names, tp.values) for tp in batch]
                found = self.get_partitions_by_names(table.database, table.name, names)
                if found:
                    raise AlreadyExists(
                        f"a partition of {table.qualified_name} in this batch already exists: "
                        f"{found[0].name(table.partition_spec)}")
            with created_directories(local):
                return register()

        def register() -> int:
            request = t.AddPartitionsRequest(
                dbName=table.database, tblName=table.name, parts=batch,
                ifNotExists=if_not_exists, needResult=True, catName=self._catalog_field(),
            )
            with self._errors(
                missing=self._missing_table(table.database, table.name),
                database=table.database,
                exists=f"a partition of {table.qualified_name} in this batch already exists",
            ):
                result = self._call("add_partitions_req", request)
            return len(result.partitions or []) if result else 0

        for part in partitions:
            batch.append(self._in_catalog(convert.partition_to_thrift(part, table)))
            if len(batch) >= batch_size:
                added += flush()
                batch = []
        if batch:
            added += flush()
        return added

    def add_partitions_if_absent(self, table: Table, partitions: Sequence[Partition]) -> list[
            Partition]:
        """Register partitions in one request, skipping those that exist (another writer may
        have added one meanwhile); returns the partitions this call added."""
        if not partitions:
            return []
        request = t.AddPartitionsRequest(
            dbName=table.database, tblName=table.name, ifNotExists=True, needResult=True,
            parts=[self._in_catalog(convert.partition_to_thrift(p, table)) for p in partitions],
            catName=self._catalog_field(),
        )
        with self._errors(missing=self._missing_table(table.database, table.name),
                          database=table.database):
            result = self._call("add_partitions_req", request)
        return convert.partitions_from_thrift(result.partitions or [])

    def list_partition_names(self, database: str, table: str, limit: int = -1) -> list[str]:
        """Partition names (``k1=v1/k2=v2``, escaped) of a table."""
        with self._errors(missing=self._missing_table(database, table), database=database):
            return list(self._call("get_partition_names", self._db(database), table,
                                  _max_parts(limit)))

    def list_partitions(self, database: str, table: str, limit: int = -1) -> list[Partition]:
        """The table's partitions (at most ``limit``). A table of more than
        :data:`LIST_BATCH` is listed by name, then fetched by name in batches of that many,
        on every connection of the pool at once: no reply holds the whole table (Thrift's
        message limits, the metastore's heap, ``metastore.limit.partition.request``)."""
        wanted = LIST_BATCH + 1 if limit < 0 or limit > LIST_BATCH else limit
        with self._errors(missing=self._missing_table(database, table), database=database):
            parts = self._call("get_partitions", self._db(database), table, wanted)
        if len(parts) <= LIST_BATCH:
            return convert.partitions_from_thrift(parts)
        names = self.list_partition_names(database, table, limit)
        return self.get_partitions_by_names(database, table, names, LIST_BATCH,
                                            parallel=True)

    def get_partition(self, database: str, table: str, values: Sequence[str]) -> Partition:
        """One partition by its value strings."""
        with self._errors(
            missing=lambda _: NoSuchPartition(
                f"partition {list(values)} of table {database}.{table} does not exist"
            ),
            database=database,
        ):
            return convert.partition_from_thrift(
                self._call("get_partition", self._db(database), table, list(values))
            )

    def get_partitions_by_names(
        self, database: str, table: str, names: Sequence[str], batch_size: int = GET_BATCH,
        parallel: bool = False,
    ) -> list[Partition]:
        """Partitions by name, fetched in batches (with ``parallel``, as many at once as the
        pool has connections); names that do not exist are left out. A batch the metastore
        refuses (a request limit, a reply too large) is fetched again as two halves."""
        batches = [list(names[start:start + batch_size])
                   for start in range(0, len(names), batch_size)]
        if not parallel or len(batches) < 2:
            return [part for chunk in batches
                    for part in self._by_names(database, table, chunk)]
        workers = min(self._connection.size, len(batches))
        with ThreadPoolExecutor(workers, thread_name_prefix="hms-by-names") as pool:
            found = list(pool.map(lambda chunk: self._by_names(database, table, chunk),
                                  batches))
        return [part for chunk in found for part in chunk]

    def _by_names(self, database: str, table: str, chunk: list[str]) -> list[Partition]:
        try:
            with self._errors(missing=self._missing_table(database, table), database=database):
                if self._dialect().requests:
                    request = t.GetPartitionsByNamesRequest(
                        db_name=self._db(database), tbl_name=table, names=chunk)
                    parts = self._call("get_partitions_by_names_req", request).partitions
                else:
                    parts = self._call("get_partitions_by_names", self._db(database), table,
                                       chunk)
        except MetastoreError as exc:
            if len(chunk) < 2 or not _refused_for_size(exc):
                raise
            half = len(chunk) // 2
            return (self._by_names(database, table, chunk[:half])
                    + self._by_names(database, table, chunk[half:]))
        return convert.partitions_from_thrift(parts)

    def _invalid_filter(
        self, database: str, table: str, text: str
    ) -> Callable[[str], InvalidFilter]:
        return lambda message: InvalidFilter(
            f"partition filter {text!r} on {database}.{table} was rejected: {message}"
        )

    def get_partitions_by_filter(
        self, database: str, table: str, filter: str, limit: int = -1
    ) -> list[Partition]:
        """Partitions matching a metastore filter string (``dt = "2024-01-05" and hr > 3``).

        Raises:
            InvalidFilter: naming the filter when the metastore cannot parse or evaluate it.
        """
        with self._errors(
            missing=self._missing_table(database, table),
            database=database,
            invalid=self._invalid_filter(database, table, filter),
        ):
            if self._dialect().requests:
                request = t.GetPartitionsByFilterRequest(
                    # Required here (the server does not default it), as in Hive's own client.
                    catName=self._catalog or DEFAULT_CATALOG, dbName=database, tblName=table,
                    filter=filter,
                    maxParts=_max_parts(limit))
                parts = self._call("get_partitions_by_filter_req", request)
            else:
                parts = self._call("get_partitions_by_filter", self._db(database), table, filter,
                                   _max_parts(limit))
        return convert.partitions_from_thrift(parts)

    def count_partitions(self, database: str, table: str, filter: str | None = None) -> int:
        """How many partitions match ``filter`` (all partitions when ``None``)."""
        if not filter:
            # An empty filter counts every partition on the server, default partitions included.
            with self._errors(missing=self._missing_table(database, table), database=database):
                return int(self._call("get_num_partitions_by_filter", self._db(database), table,
                                      ""))
        with self._errors(
            missing=self._missing_table(database, table),
            database=database,
            invalid=self._invalid_filter(database, table, filter),
        ):
            return int(self._call("get_num_partitions_by_filter", self._db(database), table,
                                  filter))

    def drop_partitions(
        self,
        database: str,
        table: str,
        names: Sequence[str],
        delete_data: bool = False,
        if_exists: bool = False,
    ) -> int:
        """Drop partitions by name in one request; returns how many were dropped.

        Raises:
            NoSuchPartition: if one does not exist and ``if_exists`` is false (none is dropped).
        """
        if not names:
            return 0
        request = t.DropPartitionsRequest(
            dbName=database, tblName=table, parts=t.RequestPartsSpec(names=list(names)),
            catName=self._catalog_field(),
            deleteData=delete_data, ifExists=if_exists, needResult=True,
        )
        with self._errors(
            missing=lambda m: NoSuchPartition(
                f"cannot drop partitions of {database}.{table}: {m}"
            ),
            database=database,
        ):
            result = self._call("drop_partitions_req", request)
        return len(result.partitions or []) if result else 0

    def alter_partitions(self, database: str, table: str, partitions: Sequence[Partition]) -> None:
        """Replace partitions' storage and parameters (matched by their values)."""
        if not partitions:
            return
        tbl = self.get_table(database, table)
        with self._errors(
            missing=self._missing_table(database, table),
            database=database,
            invalid=InvalidOperation,
        ):
            self._call("alter_partitions", self._db(database), table,
                       [self._in_catalog(convert.partition_to_thrift(p, tbl)) for p in partitions])


    def rename_partition(self, database: str, table: str, values: Sequence[str],
                         renamed: Partition) -> None:
        """Give the partition of ``values`` the values of ``renamed`` (Hive's
        ``rename_partition``). The metastore moves a managed table's partition directory to
        the new values' place under the table, in its own transaction; an external table's
        partition keeps its location."""
        tbl = self.get_table(database, table)
        with self._errors(
            missing=self._missing_table(database, table),
            database=database,
            invalid=InvalidOperation,
        ):
            self._call("rename_partition", self._db(database), table, list(values),
                       self._in_catalog(convert.partition_to_thrift(renamed, tbl)))


def _max_parts(limit: int) -> int:
    # The Thrift field is an i16: -1 means "all"; larger limits are capped at its maximum.
    return -1 if limit < 0 else min(limit, 32767)
