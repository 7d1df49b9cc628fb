"""The steps of a commit, driven by its :class:`~hmscatalog.write.journal.CommitRecord`.

The process that commits a write and the recovery of a write whose process died run the same
functions on the same record: :func:`move_files` applies the planned moves, :func:`publish`
makes the metastore match the moved files, :func:`roll_back` puts files and metastore back as
they were. Each step can be run again after it was interrupted: a move already made, a
partition already registered or dropped is skipped. Files are moved, listed and deleted through
the table's :class:`~hmscatalog.storage.filesystems.Storage`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from hmscatalog import faults
from hmscatalog.errors import HmsCatalogError, NoSuchPartition
from hmscatalog.metastore import model
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import (
    SPARK_STATISTICS,
    Partition,
    StorageFormat,
    Table,
    without_spark_statistics,
)
from hmscatalog.partitions.codec import make_part_name, parse_part_name
from hmscatalog.storage.filesystems import Entry, Storage
from hmscatalog.write.journal import CommitRecord, Journal
from hmscatalog.write.parquet import parquet_row_count

log = logging.getLogger(__name__)

REGISTER_BATCH = 500


def _data_entries(storage: Storage, directory: Path) -> list[Entry]:
    """Visible files of a directory (Hive and Spark skip names starting with ``_`` or ``.``),
    by name; none when there is no directory."""
    return sorted((e for e in storage.list(str(directory)) or ()
                   if not e.is_dir and not e.name.startswith(("_", "."))),
                  key=lambda e: e.name)


def data_files(storage: Storage, directory: Path) -> list[Path]:
    """The paths of :func:`_data_entries`."""
    return [Path(e.path) for e in _data_entries(storage, directory)]


def statistics(storage: Storage, table: Table, directory: Path) -> dict[str, str]:
    """Hive's basic statistics of a partition (or unpartitioned table) directory."""
    files = _data_entries(storage, directory)
    stats = {"numFiles": str(len(files)),
             "totalSize": str(sum(f.size for f in files))}
    if table.format is StorageFormat.PARQUET and storage.scheme == "file":
        rows = [parquet_row_count(Path(f.path)) for f in files]
        if all(r is not None for r in rows):
            stats["numRows"] = str(sum(r for r in rows if r is not None))
    return stats


def _done(storage: Storage, source: str, target: str) -> bool:
    return (not storage.exists(source, follow_links=False)
            and storage.exists(target, follow_links=False))


def moves_done(storage: Storage, record: CommitRecord) -> bool:
    """Whether every planned move has been made (the write is then finished, not undone).
    Moves are made in order, so that is whether the last one was: an earlier move's source
    may be taken again by a later move (a directory swapped for a new one)."""
    return not record.moves or _done(storage, *record.moves[-1])


def check_moves(storage: Storage, record: CommitRecord) -> None:
    """Refuse a plan that would move anything onto a name already taken: two moves to one
    target, or a target that exists when its move is made (a directory the plan creates
    among them) and that no earlier move takes away. One listing per target directory, none
    for the directories the plan creates.

    Raises:
        HmsCatalogError: naming both files.
    """
    created = set(record.created_dirs)
    listed: dict[str, set[str]] = {}
    planned: dict[str, str] = {}  # target -> the source moved there
    moved_away: set[str] = set()
    for source, target in record.moves:
        if target in planned:
            raise HmsCatalogError(
                f"two files would be moved to {storage.uri(target)}: "
                f"{storage.uri(planned[target])} and {storage.uri(source)}; the write is "
                "refused rather than let one replace the other")
        directory, _, name = target.rpartition("/")
        if directory not in listed:
            listed[directory] = set() if directory in created else \
                {e.name for e in storage.list(directory) or ()}
        if (name in listed[directory] or target in created) and target not in moved_away:
            raise HmsCatalogError(
                f"{storage.uri(source)} would be moved to {storage.uri(target)}, which exists; "
                "the write is refused rather than replace it")
        planned[target] = source
        moved_away.add(source)


def check_published(storage: Storage, published: Sequence[str], staged: int) -> None:
    """After the moves: the files published (their final paths) are as many as were staged,
    and every one is in place. One listing per directory.

    Raises:
        HmsCatalogError: naming a file that is not in place.
    """
    if len(set(published)) != staged:
        raise HmsCatalogError(f"{staged} files were staged but the commit would publish "
                              f"{len(set(published))}")
    names: dict[str, set[str]] = {}
    for path in published:
        directory, _, name = path.rpartition("/")
        if directory not in names:
            names[directory] = {e.name for e in storage.list(directory) or ()}
        if name not in names[directory]:
            raise HmsCatalogError(
                f"{storage.uri(path)} is not in place after the commit's moves ({staged} "
                "files were staged); the write is undone rather than publish fewer")


def make_planned_dirs(storage: Storage, record: CommitRecord) -> None:
    """Create the directories the commit planned (each partition's new one among them), those
    that do not exist yet."""
    for directory in record.created_dirs:
        storage.make_dirs(directory)


def move_files(storage: Storage, record: CommitRecord) -> None:
    """Create the planned directories and make every move not made yet, in order."""
    make_planned_dirs(storage, record)
    for source, target in record.moves:
        if _done(storage, source, target):
            continue
        faults.reached("move")
        storage.rename(source, target)


def publish(client: MetastoreClient, storage: Storage, table: Table, record: CommitRecord,
            registered: list[str], existing: Sequence[Partition] | None = None) -> None:
    """Register the write's new partitions (those another writer added meanwhile are left to
    it), and record the statistics of every partition or unpartitioned table that changed.

    ``registered`` receives the names of partitions this call added; a registration call that
    fails may still have been applied, so all of its batch is counted."""
    spec = table.partition_spec
    batch: list[Partition] = []

    def flush() -> None:
        faults.reached("register")
        names = [make_part_name(spec.names, list(p.values)) for p in batch]
        try:
            added = client.add_partitions_if_absent(table, batch)
        except BaseException:
            registered.extend(names)
            raise
        registered.extend(make_part_name(spec.names, list(p.values)) for p in added)
        batch.clear()

    for name in record.new:
        strings = [value for _, value in parse_part_name(name)]
        target = record.targets[name]
        part = client.new_partition(table, spec.from_strings(strings), location=storage.uri(target))
        batch.append(replace(part, parameters={**part.parameters,
                                               **statistics(storage, table, Path(target))}))
        if len(batch) == REGISTER_BATCH:
            flush()
    if batch:
        flush()
    faults.reached("statistics")
    if record.updated:
        parts = existing if existing is not None else client.get_partitions_by_names(
            table.database, table.name, list(record.updated))
        _alter(client, table, parts, lambda name, part: replace(
            part, storage=_placed(storage, part, record.targets[name], name in record.relocated),
            parameters={**without_spark_statistics(part.parameters),
                        **statistics(storage, table, Path(record.targets[name]))}))
    stale = [key for key in table.parameters if key.startswith(SPARK_STATISTICS)]
    if record.table_parameters is not None:
        stats = statistics(storage, table, Path(record.targets[""]))
        if "" not in record.relocated:
            client.alter_table_parameters(table.database, table.name, stats, unset=stale)
        else:  # the new location and statistics in one call
            current = client.get_table(table.database, table.name)
            client.alter_table(replace(
                current, parameters={**without_spark_statistics(current.parameters), **stats},
                storage=_placed(storage, current, record.targets[""], True)))
    elif stale and (record.new or record.updated):
        # The table's totals from ANALYZE TABLE no longer hold; the built-in drops them too.
        client.alter_table_parameters(table.database, table.name, unset=stale)


def _placed(storage: Storage, part: Partition | Table, location: str,
            moved: bool) -> model.Storage:
    """The partition's (or table's) storage descriptor, at ``location`` (a path in
    ``storage``, or a location as the metastore had it) when ``moved``."""
    if not moved:
        return part.storage
    return replace(part.storage,
                   location=location if ":" in location else storage.uri(location))


def _alter(client: MetastoreClient, table: Table, parts: Sequence[Partition],
           change: Callable[[str, Partition], Partition]) -> None:
    """Alter partitions in one call (one metastore transaction: readers see all or none)."""
    names = table.partition_spec.names
    changed = [change(make_part_name(names, list(part.values)), part) for part in parts]
    client.alter_partitions(table.database, table.name, changed)


def roll_back(client: MetastoreClient, storage: Storage, table: Table,
              record: CommitRecord) -> list[str]:
    """Undo the write: drop the partitions it registered, move every file back, remove the
    directories it created, restore the statistics it changed. Keeps going past individual
    failures; returns what could not be undone (empty when the table is as before)."""
    problems: list[str] = []
    if record.registered:
        try:
            client.drop_partitions(table.database, table.name, record.registered,
                                   delete_data=False, if_exists=True)
        except (HmsCatalogError, NoSuchPartition) as exc:
            problems.append(f"could not drop partitions {record.registered}: {exc}")
    problems += undo_moves(storage, record)
    # After the files are back: the metastore may recount them when statistics change. A
    # write still in the "committing" state has not reached the metastore.
    try:
        if record.state == "aborting" and record.updated:
            parts = client.get_partitions_by_names(table.database, table.name,
                                                   list(record.updated))
            _alter(client, table, parts, lambda name, part: replace(
                part, parameters=record.updated[name],
                storage=_placed(storage, part, record.relocated.get(name, ""),
                                name in record.relocated)))
        if record.state == "aborting" and record.table_parameters is not None:
            current = client.get_table(table.database, table.name)
            client.alter_table(replace(
                current, parameters=record.table_parameters,
                storage=_placed(storage, current, record.relocated.get("", ""),
                                "" in record.relocated)))
    except HmsCatalogError as exc:
        problems.append(f"could not restore the statistics of {table.qualified_name}: {exc}")
    for problem in problems:
        log.error("undoing write %s into %s: %s", record.write_id, table.qualified_name, problem)
    return problems


def undo_moves(storage: Storage, record: CommitRecord) -> list[str]:
    """Move back every file (or directory) the write moved, newest first, and remove the
    directories it created; returns what could not be undone."""
    problems: list[str] = []
    for source, target in reversed(record.moves):
        if not _done(storage, source, target):
            continue
        faults.reached("undo-move")
        try:
            storage.make_dirs(str(Path(source).parent))
            storage.rename(target, source)
        except OSError as exc:
            problems.append(f"could not move {target} back to {source}: {exc}")
    for directory in reversed(record.created_dirs):
        try:
            storage.remove_dir(directory)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if storage.list(directory) == []:  # an empty directory that stayed
                problems.append(f"could not remove {directory}: {exc}")
    return problems


def retire(storage: Storage, record: CommitRecord) -> None:
    """Delete the files and directories of the partitions the write replaced."""
    for path in record.retire:
        storage.delete(path)


def keep_replaced(journal: Journal, record: CommitRecord, keep_s: int) -> None:
    """End a finished write: staging and trash go; the files it replaced stay ``keep_s``
    seconds for queries that planned before the switch (the record is saved as ``done`` for
    recovery to delete them then), or go now when ``keep_s`` is 0, with the record."""
    remove_leftovers(journal.storage, record)
    if record.retire and keep_s:
        record.state, record.retire_after = "done", time.time() + keep_s
        record.moves, record.created_dirs, record.updated = [], [], {}
        journal.save(record)
        return
    retire(journal.storage, record)
    journal.remove(record.write_id)


def remove_leftovers(storage: Storage, record: CommitRecord) -> None:
    """Delete the write's staging and trash directories."""
    faults.reached("cleanup")
    storage.delete(record.trash)
    storage.delete(record.staging)
