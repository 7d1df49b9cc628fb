"""A typed client for the Hive Metastore's Thrift API.

Thrift stays inside this package: callers pass and receive :mod:`hmscatalog.metastore.model`
objects and catch :mod:`hmscatalog.errors` exceptions. Connection handling (failover, timeouts,
retries) lives in :mod:`hmscatalog.metastore.connection`, and the pool of connections that
concurrent calls share in :mod:`hmscatalog.metastore.pool`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from thrift.Thrift import TException

from hmscatalog.errors import (
    AlreadyExists,
    HmsCatalogError,
    InvalidFilter,
    InvalidObject,
    InvalidOperation,
    MetastoreError,
    NoSuchNamespace,
    NoSuchObject,
    NoSuchPartition,
    NoSuchTable,
)
from hmscatalog.metastore import convert
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.connection import (
    DEFAULT_BACKOFF_S,
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    parse_uris,
)
from hmscatalog.metastore.model import (
    EXTERNAL_TABLE,
    MANAGED_TABLE,
    Column,
    Database,
    Partition,
    Storage,
    StorageFormat,
    Table,
)
from hmscatalog.metastore.pool import DEFAULT_POOL_SIZE, MetastorePool
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.storage.filesystems import created_directories
from hmscatalog.storage.locations import local_path

__all__ = ["MetastoreClient", "parse_uris", "ping"]

ADD_BATCH = 1000
GET_BATCH = 500


class MetastoreClient:
    """A typed Hive Metastore client, safe to share between threads.

    Concurrent calls each use a connection of their own from a pool of up to ``pool_size``
    (opened as calls overlap); calls beyond that wait for a free connection.

    Args:
        uris: ``thrift://host:port`` addresses, tried in order (see
            :mod:`hmscatalog.metastore.connection` for failover and retries).
        timeout_s: socket timeout for each call.
        connect_timeout_s: socket timeout while connecting.
        retries: how many times a call is retried after transport errors.
        backoff_s: first delay between retries, doubled each time.
        pool_size: how many connections concurrent calls may open (a whole number >= 1).

    Raises:
        InvalidUri: at construction for malformed URIs; nothing connects until the first call.
        InvalidSetting: at construction for a ``pool_size`` that is not a whole number >= 1.
    """

    def __init__(
        self,
        uris: str | Sequence[str],
        timeout_s: float = DEFAULT_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
        backoff_s: float = DEFAULT_BACKOFF_S,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        self._connection = MetastorePool(uris, timeout_s, connect_timeout_s, retries, backoff_s,
                                         pool_size)
        self._call = self._connection.call

    @property
    def uris(self) -> list[str]:
        return self._connection.uris

    @property
    def connected_to(self) -> str | None:
        """The address of the server the client is connected to (by the connection used
        last), if any."""
        return self._connection.connected_to

    def __enter__(self) -> MetastoreClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every connection (calls under way finish first; the next call reconnects)."""
        self._connection.close()

    @contextlib.contextmanager
    def _errors(
        self,
        missing: Callable[[str], HmsCatalogError] | None = None,
        exists: str | None = None,
        database: str | None = None,
        invalid: Callable[[str], HmsCatalogError] | None = None,
    ) -> Iterator[None]:
        """Translate Thrift exceptions into hmscatalog's own, with messages naming the object."""
        try:
            yield
        except HmsCatalogError:
            raise
        except (t.NoSuchObjectException, t.UnknownTableException, t.UnknownDBException,
                t.UnknownPartitionException, t.InvalidPartitionException) as exc:
            message = convert.message_of(exc)
            if database is not None and not isinstance(exc, t.UnknownTableException):
                self._require_database(database, exc)
            if missing is not None:
                raise missing(message) from exc
            raise NoSuchObject(message) from exc
        except t.AlreadyExistsException as exc:
            raise AlreadyExists(exists or convert.message_of(exc)) from exc
        except t.InvalidObjectException as exc:
            message = convert.message_of(exc)
            if database is not None:
                self._require_database(database, exc)
            raise InvalidObject(message) from exc
        except t.InvalidOperationException as exc:
            raise InvalidOperation(convert.message_of(exc)) from exc
        except t.MetaException as exc:
            message = convert.message_of(exc)
            if database is not None:
                self._require_database(database, exc)
            if invalid is not None:
                raise invalid(message) from exc
            raise MetastoreError(message) from exc
        except TException as exc:
            raise MetastoreError(convert.message_of(exc)) from exc

    def _require_database(self, database: str, cause: Exception) -> None:
        try:
            self._call("get_database", database)
        except t.NoSuchObjectException:
            raise NoSuchNamespace(f"database {database!r} does not exist") from cause
        except Exception:
            return  # the check itself failed: the caller reports the original error

    # -- databases -------------------------------------------------------------------------

    def list_databases(self, pattern: str | None = None) -> list[str]:
        """Database names, optionally matching a Hive pattern (``*`` wildcards, ``|`` choices)."""
        with self._errors():
            if pattern is None:
                return list(self._call("get_all_databases"))
            return list(self._call("get_databases", pattern))

    def get_database(self, name: str) -> Database:
        with self._errors(missing=lambda _: NoSuchNamespace(f"database {name!r} does not exist")):
            return convert.database_from_thrift(self._call("get_database", name))

    def database_exists(self, name: str) -> bool:
        try:
            self.get_database(name)
        except NoSuchNamespace:
            return False
        return True

    def create_database(
        self,
        name: str,
        location: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, str] | None = None,
        owner: str | None = None,
        if_not_exists: bool = False,
    ) -> None:
        """Create a database (its location defaults to ``<warehouse>/<name>.db``).

        Raises:
            AlreadyExists: if it exists and ``if_not_exists`` is false.
        """
        db = Database(name, location, description, dict(parameters or {}), owner)
        try:
            with self._errors(exists=f"database {name!r} already exists"):
                self._call("create_database", convert.database_to_thrift(db))
        except AlreadyExists:
            if not if_not_exists:
                raise

    def alter_database(self, database: Database) -> None:
        """Replace a database's parameters and owner (Hive 2.3 ignores description changes).

        Raises:
            NoSuchNamespace: if it does not exist (checked first: the 2.3 server accepts an
                alter of a missing database silently).
        """
        self.get_database(database.name)
        with self._errors(
            missing=lambda _: NoSuchNamespace(f"database {database.name!r} does not exist")
        ):
            self._call("alter_database", database.name, convert.database_to_thrift(database))

    def drop_database(
        self, name: str, cascade: bool = False, delete_data: bool = True, if_exists: bool = False
    ) -> None:
        """Drop a database; ``cascade`` drops its tables too.

        Raises:
            NoSuchNamespace: if it does not exist and ``if_exists`` is false.
            InvalidOperation: if it holds tables and ``cascade`` is false.
        """
        try:
            missing = lambda _: NoSuchNamespace(f"database {name!r} does not exist")  # noqa: E731
            # The metastore answers an unknown database here with a bare MetaException.
            with self._errors(missing=missing, database=name):
                self._call("drop_database", name, delete_data, cascade)
        except NoSuchNamespace:
            if not if_exists:
                raise

    # -- tables ----------------------------------------------------------------------------

    def _missing_table(self, database: str, name: str) -> Callable[[str], HmsCatalogError]:
        return lambda _: NoSuchTable(f"table {database}.{name} does not exist")

    def create_table(self, table: Table, if_not_exists: bool = False) -> Table:
        """Create ``table`` and return it as the metastore stored it (location filled in).

        Raises:
            NoSuchNamespace: if its database does not exist.
            AlreadyExists: if it exists and ``if_not_exists`` is false.
            InvalidObject: if the metastore rejects the definition.
        """
        try:
            with self._errors(
                exists=f"table {table.qualified_name} already exists", database=table.database
            ):
                self._call("create_table", convert.table_to_thrift(table))
        except AlreadyExists:
            if not if_not_exists:
                raise
        return self.get_table(table.database, table.name)

    def new_table(
        self,
        database: str,
        name: str,
        columns: Iterable[Column | tuple[str, str]],
        partition_keys: Iterable[Column | tuple[str, str]] = (),
        format: StorageFormat | str = StorageFormat.PARQUET,
        location: str | None = None,
        external: bool = False,
        parameters: Mapping[str, str] | None = None,
        if_not_exists: bool = False,
    ) -> Table:
        """Create a table from plain arguments; see :meth:`create_table`."""
        cols = tuple(c if isinstance(c, Column) else Column(*c) for c in columns)
        keys = tuple(c if isinstance(c, Column) else Column(*c) for c in partition_keys)
        params = dict(parameters or {})
        if external:
            params.setdefault("EXTERNAL", "TRUE")
        table = Table(
            database=database,
            name=name,
            columns=cols,
            partition_keys=keys,
            storage=Storage.of(StorageFormat.parse(format), location),
            table_type=EXTERNAL_TABLE if external else MANAGED_TABLE,
            parameters=params,
        )
        return self.create_table(table, if_not_exists=if_not_exists)

    def get_table(self, database: str, name: str) -> Table:
        with self._errors(missing=self._missing_table(database, name), database=database):
            return convert.table_from_thrift(self._call("get_table", database, name))

    def table_exists(self, database: str, name: str) -> bool:
        try:
            self.get_table(database, name)
        except NoSuchTable:
            return False
        return True

    def list_tables(self, database: str, pattern: str | None = None) -> list[str]:
        """Table names in ``database``, optionally matching a Hive pattern."""
        missing = lambda _: NoSuchNamespace(f"database {database!r} does not exist")  # noqa: E731
        with self._errors(missing=missing, database=database):
            names = (
                self._call("get_all_tables", database)
                if pattern is None
                else self._call("get_tables", database, pattern)
            )
        if not names:
            # The metastore answers an unknown database with an empty list.
            self.get_database(database)
        return list(names)

    def alter_table(self, table: Table, cascade: bool = False) -> None:
        """Replace a table's definition (columns, storage, parameters; a new name renames it)."""
        with self._errors(
            missing=self._missing_table(table.database, table.name),
            database=table.database,
            invalid=InvalidOperation,
        ):
            self._call("alter_table_with_cascade", table.database, table.name,
                       convert.table_to_thrift(table), cascade)

    def rename_table(self, database: str, name: str, new_database: str, new_name: str) -> None:
        table = self.get_table(database, name)
        thrift_table = convert.table_to_thrift(replace(table, database=new_database, name=new_name))
        with self._errors(
            missing=self._missing_table(database, name),
            database=database,
            invalid=InvalidOperation,
        ):
            self._call("alter_table", database, name, thrift_table)

    def alter_table_parameters(
        self,
        database: str,
        name: str,
        set: Mapping[str, str] | None = None,
        unset: Iterable[str] = (),
    ) -> Table:
        """Set and unset table parameters; returns the table as stored afterwards."""
        table = self.get_table(database, name)
        params = dict(table.parameters)
        params.update(set or {})
        for key in unset:
            params.pop(key, None)
        self.alter_table(table.with_parameters(params))
        return self.get_table(database, name)

    def drop_table(
        self, database: str, name: str, delete_data: bool = True, if_exists: bool = False
    ) -> None:
        """Drop a table; for a managed table ``delete_data`` also deletes its files.

        Raises:
            NoSuchTable: if it does not exist and ``if_exists`` is false.
        """
        try:
            with self._errors(missing=self._missing_table(database, name), database=database):
                self._call("drop_table", database, name, delete_data)
        except NoSuchTable:
            if not if_exists:
                raise

    # -- partitions ------------------------------------------------------------------------

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
        """
        spec = table.partition_spec
        typed = spec.values_from_mapping(values) if isinstance(values, Mapping) else values
        strings = spec.to_strings(typed)
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
        :func:`hmscatalog.storage.filesystems.created_directories` (many times faster than the
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
                ifNotExists=if_not_exists, needResult=True,
            )
            with self._errors(
                missing=self._missing_table(table.database, table.name),
                database=table.database,
                exists=f"a partition of {table.qualified_name} in this batch already exists",
            ):
                result = self._call("add_partitions_req", request)
            return len(result.partitions or []) if result else 0

        for part in partitions:
            batch.append(convert.partition_to_thrift(part, table))
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
            parts=[convert.partition_to_thrift(p, table) for p in partitions],
        )
        with self._errors(missing=self._missing_table(table.database, table.name),
                          database=table.database):
            result = self._call("add_partitions_req", request)
        return [convert.partition_from_thrift(p) for p in (result.partitions or [])]

    def list_partition_names(self, database: str, table: str, limit: int = -1) -> list[str]:
        """Partition names (``k1=v1/k2=v2``, escaped) of a table."""
        with self._errors(missing=self._missing_table(database, table), database=database):
            return list(self._call("get_partition_names", database, table, _max_parts(limit)))

    def list_partitions(self, database: str, table: str, limit: int = -1) -> list[Partition]:
        with self._errors(missing=self._missing_table(database, table), database=database):
            parts = self._call("get_partitions", database, table, _max_parts(limit))
        return [convert.partition_from_thrift(p) for p in parts]

    def get_partition(self, database: str, table: str, values: Sequence[str]) -> Partition:
        """One partition by its value strings."""
        with self._errors(
            missing=lambda _: NoSuchPartition(
                f"partition {list(values)} of table {database}.{table} does not exist"
            ),
            database=database,
        ):
            return convert.partition_from_thrift(
                self._call("get_partition", database, table, list(values))
            )

    def get_partitions_by_names(
        self, database: str, table: str, names: Sequence[str], batch_size: int = GET_BATCH
    ) -> list[Partition]:
        """Partitions by name, fetched in batches; names that do not exist are left out."""
        result: list[Partition] = []
        for start in range(0, len(names), batch_size):
            chunk = list(names[start:start + batch_size])
            with self._errors(missing=self._missing_table(database, table), database=database):
                parts = self._call("get_partitions_by_names", database, table, chunk)
            result.extend(convert.partition_from_thrift(p) for p in parts)
        return result

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
            parts = self._call(
                "get_partitions_by_filter", database, table, filter, _max_parts(limit)
            )
        return [convert.partition_from_thrift(p) for p in parts]

    def count_partitions(self, database: str, table: str, filter: str | None = None) -> int:
        """How many partitions match ``filter`` (all partitions when ``None``)."""
        if not filter:
            # An empty filter counts every partition on the server, default partitions included.
            with self._errors(missing=self._missing_table(database, table), database=database):
                return int(self._call("get_num_partitions_by_filter", database, table, ""))
        with self._errors(
            missing=self._missing_table(database, table),
            database=database,
            invalid=self._invalid_filter(database, table, filter),
        ):
            return int(self._call("get_num_partitions_by_filter", database, table, filter))

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
            self._call("alter_partitions", database, table,
                       [convert.partition_to_thrift(p, tbl) for p in partitions])

    def get_config_value(self, name: str, default: str = "") -> str:
        """A configuration value of the metastore server."""
        with self._errors():
            return str(self._call("get_config_value", name, default))


def _max_parts(limit: int) -> int:
    # The Thrift field is an i16: -1 means "all"; larger limits are capped at its maximum.
    return -1 if limit < 0 else min(limit, 32767)


def ping(uri: str, timeout_s: float = 5.0) -> bool:
    """Whether a metastore at ``uri`` answers ``get_all_databases`` within ``timeout_s``."""
    client = MetastoreClient(uri, timeout_s=timeout_s, connect_timeout_s=timeout_s, retries=0)
    try:
        client.list_databases()
    except HmsCatalogError:
        return False
    finally:
        client.close()
    return True
