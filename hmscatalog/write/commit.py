"""Committing a write: staged files into partition directories, partitions into the metastore.

Tasks write into a hidden staging directory under the table location
(``<table>/.hms-staging-<write id>/<k=v>/...``). The commit then, for each partition written:

1. moves the files a replaced partition held into a hidden trash directory (overwrite only);
2. moves the staged files into the partition's directory, named
   ``part-<write id>-<task>-<n><suffix>`` so that no write replaces another's file;
3. registers new partitions in the metastore in batches and updates existing ones, with basic
   statistics (numFiles, totalSize, numRows for Parquet).

Every move is journaled. If any step fails (storage, metastore, a limit), the moves are undone in
reverse order, partitions this commit registered are dropped again, statistics it changed are
restored, and staging and trash are removed: the table's files and metastore state are as before
the write. Only then is the error raised. After a successful commit the trash is deleted.

Partitions a commit creates become visible to readers only when the metastore registers them;
files appended to a partition that already exists are visible once moved, one rename each.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from hmscatalog.errors import HmsCatalogError, NoSuchPartition
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.locations import local_path, missing_directories
from hmscatalog.metastore.model import Partition, StorageFormat, Table
from hmscatalog.partitions.codec import make_part_name, parse_part_name
from hmscatalog.write.parquet import parquet_row_count

log = logging.getLogger(__name__)

STAGING_PREFIX = ".hms-staging-"
TRASH_PREFIX = ".hms-trash-"
REGISTER_BATCH = 500

# Spark names a task's files part-<task:05d>-<job id>[_<bucket:05d>][.c<n>]<suffix>.
_SPARK_FILE = re.compile(r"part-(\d+)-[0-9a-f-]+?(_\d{5})?(?:\.c(\d+))?(\..*|)")

Mode = Literal["append", "overwrite"]


@dataclass
class _Journal:
    """What a commit has changed so far, to undo it."""

    moves: list[tuple[Path, Path]] = field(default_factory=list)  # (from, to), in order
    created_dirs: list[Path] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)  # names of partitions added
    altered: list[Partition] = field(default_factory=list)  # existing partitions, as they were
    table_parameters: dict[str, str] | None = None  # an unpartitioned table's, as they were

    def move(self, source: Path, target: Path) -> None:
        os.rename(source, target)
        self.moves.append((source, target))

    def make_dirs(self, directory: Path) -> None:
        for path in missing_directories(directory):
            path.mkdir()
            self.created_dirs.append(path)


@dataclass(frozen=True)
class CommitResult:
    """What a commit did, for callers and logs."""

    added: list[str]  # partition names registered by this write
    updated: list[str]  # existing partitions that received files (or were replaced)
    files: int


def _writable(location: str) -> Path:
    """The local directory of a location hms writes to."""
    path = local_path(location)
    if path is None:
        raise HmsCatalogError(f"hms writes only to local file: locations, not {location!r}")
    return path


def staging_dir(table: Table, write_id: str) -> Path:
    return _writable((table.location or "").rstrip("/")) / f"{STAGING_PREFIX}{write_id}"


def _target_name(write_id: str, name: str, counter: Iterator[int]) -> str:
    match = _SPARK_FILE.fullmatch(name)
    if match is None:
        return f"part-{write_id}-{next(counter):05d}-{name}"
    task, bucket, number, suffix = match.groups()
    # A bucket mark tells apart files of rows with '' in a string partition column (see
    # hmscatalog.spark.write); the usual bucket 0 needs no mark.
    mark = bucket if bucket and bucket != "_00000" else ""
    return f"part-{write_id}-{int(task):05d}-{int(number or 0)}{mark}{suffix}"


def _data_files(directory: Path) -> list[Path]:
    """Visible files of a directory (Hive and Spark skip names starting with ``_`` or ``.``)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir()
                  if p.is_file() and not p.name.startswith(("_", ".")))


def staged_partitions(staging: Path, depth: int) -> dict[str, list[Path]]:
    """Partition name (``k=v/...``, as written by Spark) → its staged data files."""
    found: dict[str, list[Path]] = {}
    if depth == 0:
        files = _data_files(staging)
        return {"": files} if files else {}
    for directory in sorted(staging.glob("/".join(["*"] * depth))):
        if directory.is_dir() and not directory.name.startswith(("_", ".")):
            files = _data_files(directory)
            if files:
                found[directory.relative_to(staging).as_posix()] = files
    return found


class TableCommit:
    """Commit the staged output of one write into ``table``."""

    def __init__(self, client: MetastoreClient, table: Table, write_id: str) -> None:
        self._client = client
        self._table = table
        self._write_id = write_id
        self._root = _writable((table.location or "").rstrip("/"))
        self.staging = staging_dir(table, write_id)
        self._trash = self._root / f"{TRASH_PREFIX}{write_id}"

    def commit(self, mode: Mode, static: Mapping[str, str] | None = None,
               check: Callable[[int], None] | None = None) -> CommitResult:
        """Move the staged files into place and register the partitions.

        Args:
            mode: ``append`` adds files; ``overwrite`` replaces the files of every partition
                that received rows, and, when ``static`` names every partition column, of that
                partition even if no row was written (Hive's INSERT OVERWRITE).
            static: the write's static partition values (column → metastore string).
            check: called with the number of partitions written before anything moves; what
                it raises aborts the commit (the staged files are removed).
        """
        table = self._table
        names = table.partition_spec.names
        staged = staged_partitions(self.staging, len(names))
        if mode == "overwrite" and not names:
            staged.setdefault("", [])  # an unpartitioned table is replaced, even by no rows
        elif mode == "overwrite" and static is not None and set(static) == set(names):
            staged.setdefault(make_part_name(names, [static[n] for n in names]), [])
        journal = _Journal()
        try:
            if check is not None:
                check(len(staged))
            result = self._apply(mode, staged, journal)
        except BaseException:
            self._undo(journal)
            raise
        finally:
            shutil.rmtree(self.staging, ignore_errors=True)
        shutil.rmtree(self._trash, ignore_errors=True)
        return result

    def abort(self) -> None:
        """Remove the staged output of a write that will not be committed."""
        shutil.rmtree(self.staging, ignore_errors=True)

    # -- the steps --------------------------------------------------------------------------

    def _apply(self, mode: Mode, staged: dict[str, list[Path]],
               journal: _Journal) -> CommitResult:
        table = self._table
        names = table.partition_spec.names
        existing: dict[str, Partition] = {}
        if names and staged:
            for found in self._client.get_partitions_by_names(
                    table.database, table.name, list(staged)):
                existing[make_part_name(names, list(found.values))] = found
        counter = iter(range(1_000_000))
        targets: dict[str, Path] = {}
        for name, files in staged.items():
            part = existing.get(name)
            target = (_writable((part.location or "").rstrip("/")) if part is not None
                      else self._root / name if name else self._root)
            targets[name] = target
            if mode == "overwrite":
                self._move_away(name, target, journal)
            journal.make_dirs(target)
            for source in files:
                journal.move(source, target / _target_name(self._write_id, source.name, counter))
        new = [name for name in staged if names and name not in existing]
        self._register(new, targets, journal)
        updated = [name for name in staged if name in existing]
        self._update_statistics([existing[name] for name in updated], targets, journal)
        if not names:
            self._update_table_statistics(targets.get("", self._root), journal)
        return CommitResult(new, updated, sum(len(f) for f in staged.values()))

    def _move_away(self, name: str, target: Path, journal: _Journal) -> None:
        old = _data_files(target)
        if not old:
            return
        trash = self._trash / (name or "_table")
        journal.make_dirs(trash)
        for path in old:
            journal.move(path, trash / path.name)

    def _register(self, new: Sequence[str], targets: Mapping[str, Path],
                  journal: _Journal) -> None:
        table = self._table
        spec = table.partition_spec
        batch: list[Partition] = []
        for name in new:
            strings = [value for _, value in parse_part_name(name)]
            part = self._client.new_partition(table, spec.from_strings(strings),
                                              location=f"file:{targets[name]}")
            batch.append(replace(part, parameters={**part.parameters,
                                                   **_statistics(table, targets[name])}))
            if len(batch) == REGISTER_BATCH:
                self._add(batch, journal)
                batch = []
        if batch:
            self._add(batch, journal)

    def _add(self, batch: list[Partition], journal: _Journal) -> None:
        """Register a batch. Partitions another writer added meanwhile are left to it (our
        files are already in their directories). A call that fails may still have been applied
        by the server: its whole batch is then journaled for removal."""
        names = self._table.partition_spec.names
        try:
            added = self._client.add_partitions_if_absent(self._table, batch)
        except BaseException:
            journal.registered.extend(make_part_name(names, list(p.values)) for p in batch)
            raise
        journal.registered.extend(make_part_name(names, list(p.values)) for p in added)

    def _update_statistics(self, parts: Sequence[Partition], targets: Mapping[str, Path],
                           journal: _Journal) -> None:
        if not parts:
            return
        names = self._table.partition_spec.names
        changed = []
        for part in parts:
            target = targets[make_part_name(names, list(part.values))]
            changed.append(replace(part, parameters={**part.parameters,
                                                     **_statistics(self._table, target)}))
        journal.altered.extend(parts)  # before the call: a failed call may have been applied
        self._client.alter_partitions(self._table.database, self._table.name, changed)

    def _update_table_statistics(self, directory: Path, journal: _Journal) -> None:
        table = self._table
        journal.table_parameters = dict(self._client.get_table(table.database,
                                                               table.name).parameters)
        self._client.alter_table_parameters(table.database, table.name,
                                            _statistics(table, directory))

    def _undo(self, journal: _Journal) -> None:
        """Put everything back as it was; keep going past individual failures."""
        table = self._table
        if journal.registered:
            try:
                self._client.drop_partitions(table.database, table.name, journal.registered,
                                             delete_data=False, if_exists=True)
            except (HmsCatalogError, NoSuchPartition) as exc:
                log.error("could not drop partitions of %s while undoing a write: %s",
                          table.qualified_name, exc)
        for source, target in reversed(journal.moves):
            try:
                os.rename(target, source)
            except OSError as exc:
                log.error("could not move %s back to %s: %s", target, source, exc)
        for directory in reversed(journal.created_dirs):
            try:
                directory.rmdir()
            except OSError as exc:
                log.error("could not remove %s: %s", directory, exc)
        # After the files are back: the metastore may recount them when statistics change.
        try:
            if journal.altered:
                self._client.alter_partitions(table.database, table.name, journal.altered)
            if journal.table_parameters is not None:
                current = self._client.get_table(table.database, table.name)
                self._client.alter_table(current.with_parameters(journal.table_parameters))
        except HmsCatalogError as exc:
            log.error("could not restore the statistics of %s while undoing a write: %s",
                      table.qualified_name, exc)
        shutil.rmtree(self._trash, ignore_errors=True)


def _statistics(table: Table, directory: Path) -> dict[str, str]:
    """Hive's basic statistics of a partition (or unpartitioned table) directory."""
    files = _data_files(directory)
    stats = {"numFiles": str(len(files)),
             "totalSize": str(sum(f.stat().st_size for f in files))}
    if table.format is StorageFormat.PARQUET:
        rows = [parquet_row_count(f) for f in files]
        if all(r is not None for r in rows):
            stats["numRows"] = str(sum(r for r in rows if r is not None))
    return stats
