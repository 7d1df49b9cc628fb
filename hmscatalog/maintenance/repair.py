"""Partition repair: make a table's registered partitions agree with its directories.

This is ``MSCK REPAIR TABLE`` for any client of the metastore, with Spark's rules (its
``RepairTableCommand``): the table's location is walked for ``key=value/`` directories, one
partition column per level, hidden names (``_SUCCESS``, ``_temporary``, ``.hive-staging...``) and
names without ``=`` skipped, a directory whose key is not the expected column skipped with a
warning. Directories not yet registered are added (if absent, with the directory as location and
the values spelt as found); with ``drop``, partitions whose location no longer exists are
unregistered, their data untouched. Dropping comes first, so a SYNC re-points a partition whose
registered location is gone but whose directory exists under the table.

Where this departs from Spark, it is to fail before changing anything: an empty value
(``dt=/``), two directories that mean the same partition (``dt=a/`` and ``DT=a/``) or a missing
table location are reported up front, whereas Spark fails in the middle of its batches. Spark
also records file counts and sizes of each new partition, which takes one more listing per
partition; here they are left to the metastore.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from hmscatalog.errors import (
    HmsCatalogError,
    InvalidOperation,
    InvalidPartitionSpec,
    StorageError,
)
from hmscatalog.expressions.predicates import AlwaysTrue
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.kinds import refuse_lakehouse
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import make_part_name, parse_part_name
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.sources.discovery import (
    DiscoveryLimits,
    FoundPartition,
    discover,
    split_directory,
)
from hmscatalog.storage.filesystems import Storage
from hmscatalog.storage.opening import open_storage

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 500
# A repair has to see every partition: the caps that protect queries do not apply.
_UNCAPPED = DiscoveryLimits(warn_partitions=sys.maxsize, max_partitions=sys.maxsize,
                            max_list_calls=sys.maxsize)
_CHECK_THREADS = 8

Progress = Callable[[int, int], None]
_T = TypeVar("_T")


@dataclass(frozen=True)
class RepairResult:
    """What a repair changed (or, for a dry run, would change).

    Attributes:
        table: ``database.table``.
        added: names (``k1=v1/k2=v2``) of the partitions added, in path order.
        dropped: names of the partitions dropped.
        found: partition directories found under the table's location.
        list_calls: directory listings made while walking the location.
        location_checks: existence checks of single locations (partitions the walk cannot
            vouch for, and the table's location when nothing was found under it).
        dry_run: nothing was changed.
    """

    table: str
    added: list[str]
    dropped: list[str]
    found: int
    list_calls: int
    location_checks: int
    dry_run: bool


def repair_table(client: MetastoreClient, table: Table | str, add: bool = True,
                 drop: bool = False, dry_run: bool = False,
                 storage_options: Mapping[str, str] | None = None,
                 progress: Progress | None = None,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> RepairResult:
    """Register the partition directories of ``table`` that the metastore lacks (``add``) and
    unregister partitions whose location is gone (``drop``); both is Spark's SYNC.

    Args:
        table: the table, or its name as ``database.table``.
        dry_run: change nothing; the result says what would change.
        storage_options: S3 settings (``s3.endpoint``, ``s3.region``, ``s3.access-key-id``,
            ``s3.secret-access-key``) for ``s3://`` locations.
        progress: called with ``(done, total)`` partitions before the first metastore batch
            and after each one.
        batch_size: partitions per metastore request.

    Raises:
        NoSuchTable: the table does not exist.
        InvalidOperation: the table is not partitioned or has no location.
        InvalidPartitionSpec: a directory to add has an empty value, or two directories to add
            are the same partition.
        StorageError: the location cannot be listed, or (when adding) does not exist.
    """
    if isinstance(table, str):
        database, dot, name = table.partition(".")
        if not dot:
            raise InvalidOperation(f"cannot repair table {table!r}: name it as database.table")
        table = client.get_table(database, name)
    refuse_lakehouse(table, "repair")
    with _naming(table.qualified_name):
        return _Repair(client, table, storage_options or {}).run(
            add, drop, dry_run, progress or (lambda done, total: None), max(1, batch_size))


@contextlib.contextmanager
def _naming(table: str) -> Iterator[None]:
    """Make every error say which table was being repaired."""
    try:
        yield
    except HmsCatalogError as exc:
        if table in str(exc):
            raise
        raise type(exc)(f"cannot repair table {table}: {exc}") from exc


class _Repair:
    def __init__(self, client: MetastoreClient, table: Table,
                 storage_options: Mapping[str, str]) -> None:
        name = table.qualified_name
        if not table.partition_keys:
            raise InvalidOperation(f"cannot repair table {name}: it is not partitioned")
        if not table.location:
            raise InvalidOperation(f"cannot repair table {name}: it has no location")
        self.client = client
        self.table = table
        self.spec = table.partition_spec
        self.options = storage_options
        self.storage, self.root = open_storage(table.location, storage_options)
        self.location_checks = 0

    def run(self, add: bool, drop: bool, dry_run: bool, progress: Progress,
            batch_size: int) -> RepairResult:
        table = self.table
        registered = {_values_of(name): name for name in
                      self.client.list_partition_names(table.database, table.name)}
        walk = discover(self.storage, self.root, self.spec, AlwaysTrue(), _UNCAPPED,
                        where=f"table {table.qualified_name}", skip_bad_keys=True)
        found = walk.partitions
        if add and not found:
            self._require_location()
        gone = self._gone(registered, {p.path for p in found}) if drop else []
        kept = set(registered).difference(_values_of(name) for name in gone)
        missing = self._missing(found, kept) if add else []
        total = len(gone) + len(missing)
        done = 0
        progress(done, total)
        dropped: list[str] = []
        for batch in _batches(gone, batch_size):
            if not dry_run:
                self.client.drop_partitions(table.database, table.name, batch,
                                            delete_data=False, if_exists=True)
            dropped.extend(batch)
            done += len(batch)
            progress(done, total)
        added: list[str] = []
        for chunk in _batches(missing, batch_size):
            # Another writer may have added some meanwhile: report only what this call added.
            new = chunk if dry_run else self.client.add_partitions_if_absent(table, chunk)
            added.extend(make_part_name(self.spec.names, list(p.values)) for p in new)
            done += len(chunk)
            progress(done, total)
        log.info("repair of %s: %d partitions added, %d dropped%s", table.qualified_name,
                 len(added), len(dropped), " (dry run)" if dry_run else "")
        return RepairResult(table.qualified_name, added, dropped, len(found), walk.list_calls,
                            self.location_checks, dry_run)

    def _require_location(self) -> None:
        """Spark fails a repair that adds when the location is missing; so does this, before
        dropping anything."""
        self.location_checks += 1
        if not self._exists(self.storage, self.root):
            raise StorageError(f"cannot repair table {self.table.qualified_name}: its location "
                               f"{self.storage.uri(self.root)} does not exist")

    def _missing(self, found: Sequence[FoundPartition],
                 registered: set[tuple[str, ...]]) -> list[Partition]:
        """Partitions for the directories whose values are not registered."""
        table = self.table
        first_of: dict[tuple[str, ...], str] = {}
        partitions = []
        for part in found:
            values = part.strings
            uri = self.storage.uri(part.path)
            if "" in values:
                column = self.spec.columns[values.index("")].name
                raise InvalidPartitionSpec(
                    f"cannot repair table {table.qualified_name}: directory {uri} has an empty "
                    f"value for partition column {column!r}")
            if values in registered:
                continue
            if values in first_of:
                raise InvalidPartitionSpec(
                    f"cannot repair table {table.qualified_name}: directories {first_of[values]} "
                    f"and {uri} are the same partition "
                    f"{make_part_name(self.spec.names, list(values))}; remove or rename one")
            first_of[values] = uri
            partitions.append(table.partition_at(values, uri))
        return partitions

    def _gone(self, registered: Mapping[tuple[str, ...], str], walked: set[str]) -> list[str]:
        """Names of registered partitions whose location does not exist.

        A location the walk would have reached (under the root, one ``column=value`` directory
        per level) exists exactly when the walk found it; any other is checked on its own.
        A partition without a location is kept, as Spark keeps it.
        """
        if not registered:
            return []
        table = self.table
        partitions = self.client.get_partitions_by_names(table.database, table.name,
                                                         sorted(registered.values()))
        gone: list[str] = []
        to_check: list[tuple[str, Storage, str]] = []
        storages = {self.storage.scheme: self.storage}
        for partition in partitions:
            if not partition.location:
                continue
            values = list(partition.values)
            name = registered.get(tuple(values)) or make_part_name(self.spec.names, values)
            path = self.storage.path_of(partition.location)
            if path is not None and _walk_reaches(self.root, path, self.spec):
                if path not in walked:
                    gone.append(name)
                continue
            storage, path = self._storage_of(partition.location, storages)
            to_check.append((name, storage, path))
        self.location_checks += len(to_check)
        if to_check:
            with ThreadPoolExecutor(min(_CHECK_THREADS, len(to_check))) as pool:
                present = list(pool.map(lambda item: self._exists(item[1], item[2]), to_check))
            gone.extend(name for (name, _, _), there in zip(to_check, present, strict=True)
                        if not there)
        return sorted(gone)

    def _storage_of(self, location: str, storages: dict[str, Storage]) -> tuple[Storage, str]:
        """The storage holding ``location`` (one per scheme, opened once) and its path there."""
        for storage in storages.values():
            path = storage.path_of(location)
            if path is not None:
                return storage, path
        storage, path = open_storage(location, self.options)
        storages[storage.scheme] = storage
        return storage, path

    def _exists(self, storage: Storage, path: str) -> bool:
        try:
            return storage.exists(path)
        except OSError as exc:
            raise StorageError(f"cannot check {storage.uri(path)}: {exc}") from exc


def _values_of(name: str) -> tuple[str, ...]:
    """The value strings of a partition name as the metastore spells it."""
    return tuple(value for _, value in parse_part_name(name))


def _walk_reaches(root: str, path: str, spec: PartitionSpec) -> bool:
    """Whether a directory at ``path`` would have been found by the walk from ``root``."""
    prefix = root.rstrip("/") + "/"
    if not path.startswith(prefix):
        return False
    segments = path[len(prefix):].split("/")
    if len(segments) != len(spec):
        return False
    for segment, column in zip(segments, spec.columns, strict=True):
        parts = split_directory(segment)
        if parts is None or parts[0].lower() != column.name:
            return False
    return True


def _batches(items: Sequence[_T], size: int) -> Iterator[list[_T]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])
