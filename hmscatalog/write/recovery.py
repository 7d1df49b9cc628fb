"""Finishing or undoing the writes of processes that died.

A write whose process is gone leaves its record in ``<table>/.hms-commits/``, and maybe a
staging directory, a trash directory and partly moved files. :func:`recover` brings such a table
to the state before the write or after it, never a mix:

* ``writing``: nothing visible changed; the staging directory is deleted;
* ``committing``: finished if every planned move was made (the table already shows all the new
  files), undone otherwise: the moved files go back, old files come back from the trash;
* ``committed``: finished: missing partitions are registered and statistics recorded;
* ``aborting``: undone, as the dead process had begun to.

Then staging and trash directories that no live write owns are deleted, and so are the files a
save of a record left when its process was killed halfway (``.hms-commits/.<id>.json.tmp``).
Writes whose owner is alive are left alone. A retried write therefore never finds another
write's files in directories it is about to register.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hmscatalog import config
from hmscatalog.errors import RecoveryFailed
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Table
from hmscatalog.storage.filesystems import on_object_store
from hmscatalog.storage.opening import open_storage
from hmscatalog.write import direct, steps
from hmscatalog.write.journal import (
    STALE_AFTER_S,
    CommitRecord,
    Journal,
    Owner,
    Unsaved,
    records_home,
    table_home,
)
from hmscatalog.write.lock import TableLock

log = logging.getLogger(__name__)

# Writes of this process that are under way (their owner is alive).
ACTIVE: set[str] = set()
_LEFTOVER_PREFIXES = (".hms-staging-", ".hms-trash-")


@dataclass
class Recovery:
    """What :func:`recover` did to one table."""

    table: str
    finished: list[str] = field(default_factory=list)  # write ids
    undone: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)  # owners alive: left alone
    retired: list[str] = field(default_factory=list)  # done writes whose replaced files went
    removed: list[str] = field(default_factory=list)  # leftover directories deleted
    unsaved: list[str] = field(default_factory=list)  # files of killed saves deleted

    def __str__(self) -> str:
        parts = [f"{len(self.finished)} interrupted write(s) finished",
                 f"{len(self.undone)} undone",
                 f"{len(self.removed)} leftover director{'y' if len(self.removed) == 1 else 'ies'}"
                 " removed"]
        if self.unsaved:
            parts.append(f"{len(self.unsaved)} half-saved record(s) removed")
        if self.retired:
            parts.append(f"replaced files of {len(self.retired)} write(s) deleted")
        if self.running:
            parts.append(f"{len(self.running)} running write(s) left alone")
        return f"{self.table}: " + ", ".join(parts)


def is_dead(record: CommitRecord, heartbeat_age_s: float, locked: bool) -> bool:
    """Whether the record's write will never go on. Past the ``writing`` state a write holds
    the commit lock until it is done or has given up, so under the lock such a record is dead
    whatever its process is doing."""
    if locked and record.state != "writing":
        return True
    if record.owner == Owner.this_process():
        return record.write_id not in ACTIVE
    return not record.owner.alive(heartbeat_age_s)


def abandoned(unsaved: list[Unsaved], locked: bool) -> list[Unsaved]:
    """The temporary files of saves (whose record is not there) that no live write will
    finish: as :func:`is_dead` says of the write they hold, or, when what they hold was
    written only in part, once they are :data:`STALE_AFTER_S` old (a save takes moments)."""
    return [u for u in unsaved if (u.age_s >= STALE_AFTER_S if u.record is None
                                   else is_dead(u.record, u.age_s, locked))]


def needs_recovery(table: Table) -> bool:
    """Whether the table's location holds commit records (one listing; false where hms does
    not commit, see :func:`table_home`)."""
    home = table_home(table.location)
    return home is not None and Journal(*home).has_records()


def recover(client: MetastoreClient, table: Table, locked: bool = False,
            storage_options: Mapping[str, str] | None = None) -> Recovery:
    """Finish or undo every write into ``table`` whose process died; delete leftovers.

    Takes the table's commit lock when there is something to do, unless the caller holds it
    (``locked``); running writes are never waited for otherwise. On S3 (see
    :mod:`hmscatalog.write.direct`, ``storage_options`` to reach it) there is no lock: a write
    whose files were all completed is finished, any other is undone (its files deleted, its
    pending uploads aborted where a Spark driver can list them).

    Raises:
        RecoveryFailed: naming the table (and write) when an interrupted write cannot be
            finished or undone (its record is kept for the next attempt).
    """
    result = Recovery(table.qualified_name)
    if on_object_store(table.location):
        return _recover_direct(client, table, storage_options, result)
    home = table_home(table.location, storage_options)
    if home is None:
        return result
    storage, root = home
    journal = Journal(storage, root)
    # Directories first, records second: a write saves its record before it makes its staging
    # directory, so a directory without a record in the later listing belongs to no live write.
    entries = storage.list(str(root))
    if entries is None:
        return result
    leftovers = [e.path for e in entries if e.name.startswith(_LEFTOVER_PREFIXES)]
    now = time.time()
    every, unsaved = journal.scan()
    records = [(r, age) for r, age in every if r.state != "done"]
    due = [r for r, _ in every if r.state == "done" and r.retire_after <= now]
    live = [r for r, age in records if not is_dead(r, age, locked)]
    owned = {path for r in live for path in (r.staging, r.trash)}
    result.running = [r.write_id for r in live]
    stale = abandoned(unsaved, locked)
    if not due and not stale and len(live) == len(records) and \
            all(p in owned for p in leftovers):
        return result
    if not locked:
        try:
            with TableLock(storage, root, table.qualified_name, "recovery"):
                return recover(client, table, locked=True)
        except OSError as exc:  # say which table and how to finish, not only "Permission denied"
            raise RecoveryFailed(
                f"table {table.qualified_name} has writes whose process died, and they cannot "
                f"be finished or undone from here ({exc}); run hmscatalog recover <metastore "
                f"uri> {table.qualified_name} where the table's directory is writable") from exc
    keep = config.read_count(table.parameters, config.WRITE_KEEP_REPLACED_SECONDS,
                             f"Table {table.qualified_name}")
    for record in due:
        steps.retire(storage, record)
        journal.remove(record.write_id)
        result.retired.append(record.write_id)
    for record in (r for r, _ in records if r not in live):
        forward = record.state == "committed" or (
            record.state == "committing" and steps.moves_done(storage, record))
        if forward:
            # A commit with nothing to move (a TRUNCATE, an overwrite by no rows) can die
            # before it made its partitions' new, empty directories.
            steps.make_planned_dirs(storage, record)
            steps.publish(client, storage, table, record, [])
        elif record.state != "writing":
            problems = steps.roll_back(client, storage, table, record)
            if problems:
                raise RecoveryFailed(
                    f"write {record.write_id} into {table.qualified_name} could not be undone "
                    f"({problems[0]}); its record {journal.path(record.write_id)} is kept")
        (result.finished if forward else result.undone).append(record.write_id)
        log.warning("%s write %s into %s, whose process died", "finished" if forward else
                    "undid", record.write_id, table.qualified_name)
        if forward:
            steps.keep_replaced(journal, record, keep)
        else:
            steps.remove_leftovers(storage, record)
            journal.remove(record.write_id)
    for path in leftovers:
        if path not in owned and storage.exists(path):
            storage.delete(path)
            result.removed.append(path.rpartition("/")[2])
    for found in stale:
        storage.delete(str(found.path))
        result.unsaved.append(found.path.name)
        log.warning("removed %s, left by a process killed while it saved the record of a "
                    "write into %s", storage.uri(str(found.path)), table.qualified_name)
    return result


def _recover_direct(client: MetastoreClient, table: Table,
                    storage_options: Mapping[str, str] | None, result: Recovery) -> Recovery:
    storage, location = open_storage((table.location or "").rstrip("/"), storage_options)
    journal = Journal(storage, records_home(Path(location)))
    if not journal.has_records():
        return result
    keep = config.read_count(table.parameters, config.WRITE_KEEP_REPLACED_SECONDS,
                             f"Table {table.qualified_name}")
    for record, age in journal.records():
        if record.state == "done":
            if record.retire_after <= time.time():
                steps.retire(storage, record)
                journal.remove(record.write_id)
                result.retired.append(record.write_id)
            continue
        if not is_dead(record, age, locked=False):
            result.running.append(record.write_id)
            continue
        if record.state == "committed":
            steps.publish(client, storage, table, record, [])
            steps.keep_replaced(journal, record, keep)
            result.finished.append(record.write_id)
            continue
        problems = steps.roll_back(client, storage, table, record) + \
            direct.delete_written(storage, record)
        aborted = direct.abort_uploads(storage.uri(str(Path(record.staging).parent)),
                                       record.write_id)
        if problems:
            raise RecoveryFailed(
                f"write {record.write_id} into {table.qualified_name} could not be undone "
                f"({problems[0]}); its record {journal.path(record.write_id)} is kept")
        if aborted is None:
            log.warning("write %s into %s was undone; uploads it left pending (invisible) can "
                        "only be aborted from a Spark driver with S3A, or by the bucket's "
                        "lifecycle rule", record.write_id, table.qualified_name)
        journal.remove(record.write_id)
        result.undone.append(record.write_id)
        log.warning("undid write %s into %s, whose process died", record.write_id,
                    table.qualified_name)
    return result
