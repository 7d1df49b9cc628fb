"""Committing a write: staged files into partition directories, partitions into the metastore.

Tasks write into a hidden staging directory under the table location
(``<table>/.hms-staging-<write id>/<k=v>/...``). Before they start, the write's durable record
(:mod:`hmscatalog.write.journal`) is saved in the ``writing`` state. The commit then

1. finishes or undoes every write into the table whose process died (:mod:`.recovery`);
2. plans every step and saves the plan (state ``committing``): the files each replaced partition
   holds go to a hidden trash directory (overwrite only), then the staged files go into the
   partition directories, named ``part-<write id>-<task>-<n><suffix>`` so that no write
   replaces another's file; a plan that would still move a file onto a name already taken
   (two files to one name, or onto a file that is there) fails the write;
3. makes the moves, checks that every staged file is in place (as many published as
   staged), then saves the record as ``committed``: the write is now final;
4. registers new partitions in the metastore in batches and updates existing ones, with basic
   statistics (numFiles, totalSize, numRows for Parquet);
5. deletes the trash and staging directories, then the record.

A raised error before step 3 ends, or in step 4, undoes everything (the record is saved as
``aborting`` first, naming the partitions registered so far) and the table's files and metastore
state are as before the write. A killed process leaves its record: the next write, a read, or
``hmscatalog recover`` finishes the write when every move was made and undoes it otherwise.

Partitions a commit creates become visible to readers only when the metastore registers them;
files appended to a partition that already exists are visible once moved, one rename each.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hmscatalog import config, faults
from hmscatalog.errors import HmsCatalogError, WriteFailed
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.metastore.spark_schema import directory_names
from hmscatalog.partitions.codec import make_part_name, with_keys
from hmscatalog.storage.filesystems import Storage
from hmscatalog.write import recovery, steps
from hmscatalog.write.journal import (
    VERSION_PREFIX,
    CommitRecord,
    Heartbeat,
    Journal,
    Owner,
    table_home,
)
from hmscatalog.write.lock import LOCK_TIMEOUT_S, CommitLockTimeout, TableLock
from hmscatalog.write.rules import check_partition_formats

log = logging.getLogger(__name__)

STAGING_PREFIX = ".hms-staging-"
TRASH_PREFIX = ".hms-trash-"

# Spark names a task's files part-<task:05d>-<job id>[_<bucket:05d>]<counter><suffix>, where
# the counter tells apart the files of one task (spark.sql.files.maxRecordsPerFile): -c<n>
# when the write has no partition columns, .c<n> when it has. The job id (hex digits and
# dashes) is taken as long as it goes: a part of it such as -c12345678901 is no counter.
_SPARK_FILE = re.compile(r"part-(\d+)-[0-9a-f-]+(_\d{5})?[-.]c(\d+)(\..*|)")

Mode = Literal["append", "overwrite"]


@dataclass(frozen=True)
class CommitResult:
    """What a commit did, for callers and logs."""

    added: list[str]  # partition names registered by this write
    updated: list[str]  # existing partitions that received files (or were replaced)
    files: int


def _home(table: Table, options: Mapping[str, str] | None) -> tuple[Storage, Path]:
    """Where a table's writes keep their records and staging (see :func:`table_home`).

    Raises:
        HmsCatalogError: the table is on storage hms does not commit to, naming it.
    """
    home = table_home(table.location, options)
    if home is None:
        raise HmsCatalogError(
            f"hms cannot write table {table.qualified_name} at {table.location}: it writes "
            "to local disk (file:) and HDFS (hdfs://), where a rename is atomic")
    return home


def new_write_id() -> str:
    """A fresh write id: its start time (UTC), then a random part."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:12]}"


def target_name(write_id: str, name: str, counter: Iterator[int]) -> str:
    match = _SPARK_FILE.fullmatch(name)
    if match is None:
        return f"part-{write_id}-{next(counter):05d}-{name}"
    task, bucket, number, suffix = match.groups()
    # A bucket mark tells apart files of rows with '' in a string partition column (see
    # hmscatalog.spark.write.table_write); the usual bucket 0 needs no mark.
    mark = bucket if bucket and bucket != "_00000" else ""
    return f"part-{write_id}-{int(task):05d}-{int(number)}{mark}{suffix}"


def staged_partitions(storage: Storage, staging: Path, depth: int) -> dict[str, list[Path]]:
    """Partition name (``k=v/...``, as written by Spark) → its staged data files."""
    found: dict[str, list[Path]] = {}
    if depth == 0:
        files = steps.data_files(storage, staging)
        return {"": files} if files else {}
    # The directories ``depth`` levels down (any name on the way), in path order.
    level = [staging]
    for _ in range(depth):
        level = [Path(e.path) for directory in level
                 for e in storage.list(str(directory)) or () if e.is_dir]
    for directory in sorted(level):
        if not directory.name.startswith(("_", ".")):
            files = steps.data_files(storage, directory)
            if files:
                found[directory.relative_to(staging).as_posix()] = files
    return found


class StagedWrite:
    """A write whose tasks write into ``<root>/.hms-staging-<write id>`` on storage that
    renames, with its record in ``<root>/.hms-commits/`` kept fresh by a heartbeat."""

    def __init__(self, storage: Storage, root: Path, write_id: str, label: str, mode: str) -> None:
        """``label``: what the record names as written (a table, ``path <uri>``)."""
        self._storage = storage
        self._root = root
        self.staging = root / f"{STAGING_PREFIX}{write_id}"
        self.staging_uri = storage.uri(str(self.staging))
        self._journal = Journal(storage, root)
        self._record = CommitRecord(
            write_id=write_id, table=label, mode=mode, owner=Owner.this_process(),
            staging=str(self.staging), trash=str(root / f"{TRASH_PREFIX}{write_id}"))
        self._heartbeat: Heartbeat | None = None

    def begin(self) -> None:
        """Save the write's record before any task writes into the staging directory."""
        if self._heartbeat is not None:
            return
        recovery.ACTIVE.add(self._record.write_id)
        self._journal.save(self._record)
        self._heartbeat = Heartbeat(self._storage, self._journal.path(self._record.write_id))
        faults.reached("begin")

    def abort(self) -> None:
        """Remove the staged output of a write that will not be committed."""
        try:
            self._finish()
        finally:
            self._end()

    def _finish(self) -> None:
        steps.remove_leftovers(self._storage, self._record)
        self._journal.remove(self._record.write_id)

    def _end(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
        recovery.ACTIVE.discard(self._record.write_id)


class TableCommit(StagedWrite):
    """Commit the staged output of one write into ``table``; ``options``: storage options
    (the umask of what it makes on local disk); ``directories``: the names a new partition's
    directory gives its columns, as the built-in's write would (default: see
    :func:`~hmscatalog.metastore.spark_schema.directory_names`)."""

    def __init__(self, client: MetastoreClient, table: Table, write_id: str,
                 options: Mapping[str, str] | None = None,
                 directories: Sequence[str] | None = None) -> None:
        self._client = client
        self._table = table
        # How a new partition's directory names its columns (Dt=x, or dt=x).
        self._directories = list(directory_names(table) if directories is None else directories)
        super().__init__(*_home(table, options), write_id, table.qualified_name, "append")
        self.lock_timeout_s = LOCK_TIMEOUT_S
        self._published: list[str] = []  # where the staged files go, as planned

    def commit(self, mode: Mode, static: Mapping[str, str] | None = None,
               check: Callable[[int], None] | None = None,
               emptied: Sequence[str] = ()) -> CommitResult:
        """Move the staged files into place and register the partitions.

        Args:
            mode: ``append`` adds files; ``overwrite`` replaces the files of every partition
                that received rows. When ``static`` names every partition column, that
                partition is replaced (overwrite) or made (append) even if no row was written
                (Hive's INSERT ... PARTITION with every column static).
            static: the write's static partition values (column → metastore string).
            check: called with the number of partitions written before anything moves; what
                it raises aborts the commit (the staged files are removed).
            emptied: with ``overwrite``, names of partitions replaced by no files even if no
                row was written to them (TRUNCATE TABLE ... PARTITION).
        """
        self.begin()
        try:
            with TableLock(self._storage, self._root, self._table.qualified_name,
                           self._record.write_id, self.lock_timeout_s):
                faults.reached("locked")
                recovery.recover(self._client, self._table, locked=True)
                return self._commit(mode, static, check, emptied)
        except CommitLockTimeout:
            self._finish()
            raise
        finally:
            self._end()

    # -- the steps --------------------------------------------------------------------------

    def _commit(self, mode: Mode, static: Mapping[str, str] | None,
                check: Callable[[int], None] | None, emptied: Sequence[str]) -> CommitResult:
        names = self._table.partition_spec.names
        # Spark names the directories as the columns are named (Dt=x): by the metastore's names.
        staged = {with_keys(path, names): files for path, files
                  in staged_partitions(self._storage, self.staging, len(names)).items()}
        for name in emptied if mode == "overwrite" else ():
            staged.setdefault(name, [])
        if mode == "overwrite" and not names:
            staged.setdefault("", [])  # an unpartitioned table is replaced, even by no rows
        elif names and static is not None and set(static) == set(names):
            staged.setdefault(make_part_name(names, [static[n] for n in names]), [])
        record = self._record
        registered: list[str] = []
        # Read before anything changes: a bad value fails the write, not a finished commit.
        keep = config.read_count(self._table.parameters, config.WRITE_KEEP_REPLACED_SECONDS,
                                 f"Table {self._table.qualified_name}")
        try:
            if check is not None:
                check(len(staged))
            existing = self._plan(mode, staged)
            self._journal.save(record)
            faults.reached("commit-record")
            steps.move_files(self._storage, record)
            steps.check_published(self._storage, self._published,
                                  sum(len(files) for files in staged.values()))
            record.state = "committed"
            faults.reached("committed")
            self._journal.save(record)
            steps.publish(self._client, self._storage, self._table, record, registered,
                          existing=list(existing.values()))
        except BaseException as exc:
            if record.state == "writing" or self._undo(registered):
                self._finish()
                raise
            raise WriteFailed(
                f"the write into {self._table.qualified_name} failed ({exc}) and could not be "
                f"undone completely; its record {self._journal.path(record.write_id)} is kept, "
                "and the next write or read of the table, or hmscatalog recover, undoes the "
                "rest") from exc
        result = CommitResult(list(record.new), list(record.updated),
                              sum(len(f) for f in staged.values()))
        self._keep_replaced(keep)
        return result

    def _keep_replaced(self, keep: int) -> None:
        """Keep the files of replaced partitions ``keep`` seconds
        (``hmscatalog.write.keep-replaced-seconds``), see :func:`steps.keep_replaced`. The
        write is complete: if this fails, its ``committed`` record stays, and recovery ends it
        the same way."""
        try:
            steps.keep_replaced(self._journal, self._record, keep)
        except OSError as exc:
            log.error("write %s into %s is complete, but its replaced files could not be "
                      "recorded for deletion (%s); recovery will", self._record.write_id,
                      self._table.qualified_name, exc)

    def _plan(self, mode: Mode, staged: dict[str, list[Path]]) -> dict[str, Partition]:
        """Fill the record with every step of the commit; returns the existing partitions that
        receive files, by name.

        Raises:
            HmsCatalogError: a move would replace a file (:func:`steps.check_moves`).
        """
        table, record = self._table, self._record
        names = table.partition_spec.names
        existing: dict[str, Partition] = {}
        if names and staged:
            for found in self._client.get_partitions_by_names(
                    table.database, table.name, list(staged)):
                existing[make_part_name(names, list(found.values))] = found
        check_partition_formats(table, {n: p for n, p in existing.items() if staged[n]})
        counter = iter(range(1_000_000))
        trash = Path(record.trash)
        created: dict[str, None] = {}  # in order, outermost first

        def create(directory: Path) -> None:
            if str(directory) not in created:
                created.update(dict.fromkeys(self._storage.missing_dirs(str(directory))))

        # An unpartitioned table's location as it is now, under the lock.
        current = None if names else self._client.get_table(table.database, table.name)
        directories = self._directories
        for name, files in staged.items():
            part = existing.get(name)
            location = part.location if part is not None else \
                current.location if current is not None else None
            target = self._writable(location) if location is not None else \
                self._root / with_keys(name, directories)
            old = steps.data_files(self._storage, target) if mode == "overwrite" else []
            if location is not None and old:
                # Replaced: the new files go to a directory of their own and the partition's
                # (or table's) location switches to it in one metastore call; the old files
                # stay for the queries that planned before the switch (see _keep_replaced).
                versioned = target.name.startswith(VERSION_PREFIX)
                record.relocated[name] = str(location)
                record.retire += [str(target)] if versioned else [str(p) for p in old]
                base = target.parent if versioned else target
                target, old = base / f"{VERSION_PREFIX}{record.write_id}", []
            record.targets[name] = str(target)
            if old:
                create(trash / (name or "_table"))
                record.moves += [(str(p), str(trash / (name or "_table") / p.name)) for p in old]
            create(target)
            moves = [(str(p), str(target / target_name(record.write_id, p.name, counter)))
                     for p in files]
            record.moves += moves
            self._published += [published for _, published in moves]
        record.created_dirs = list(created)
        steps.check_moves(self._storage, record)
        record.new = [name for name in staged if names and name not in existing]
        record.updated = {name: dict(part.parameters) for name, part in existing.items()}
        if current is not None:
            record.table_parameters = dict(current.parameters)
        record.mode = mode
        record.state = "committing"
        return existing

    def _writable(self, location: str) -> Path:
        """The path of a partition's (or the table's) location in the table's storage."""
        path = self._storage.path_of(location.rstrip("/"))
        if path is None:
            raise HmsCatalogError(
                f"hms cannot write into {location} of table {self._table.qualified_name}: "
                f"it is not on the table's storage ({self._storage.uri(str(self._root))})")
        return Path(path)

    def _undo(self, registered: list[str]) -> bool:
        """Put everything back as it was after a raised error; whether that worked. Once the
        metastore may have changed, the record is saved as ``aborting`` first, so that a crash
        while undoing is undone by recovery."""
        record = self._record
        if record.state == "committed":
            record.state = "aborting"
            record.registered = registered
            try:
                faults.reached("abort-record")
                self._journal.save(record)
            except (OSError, HmsCatalogError) as exc:
                log.error("could not save the record of write %s: %s", record.write_id, exc)
        return not steps.roll_back(self._client, self._storage, self._table, record)
