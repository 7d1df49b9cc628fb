"""Committing a write into an object store, where nothing can be renamed: each file is written
once, at its final name, and becomes visible only when the write commits.

On S3 the tasks write through S3A's magic committer (:mod:`hmscatalog.spark.internals.write`):
every file is a multipart upload to its final key, completed only by the job's commit. The
write's layout is fixed before any task runs:

- an append writes into the table's own ``k=v/`` directories (a partition the write adds
  becomes visible when the metastore registers it; files added to an existing partition when
  their uploads complete);
- an overwrite writes each partition into a directory of its own below the partition's,
  ``<table>/k=v/hms-v<write id>/`` (``<table>/hms-v<write id>/`` for an unpartitioned table),
  as on local disk and HDFS, and the partitions it replaces switch to them in one metastore
  call: readers see the old files or the new, never a mix. The replaced files are deleted once
  ``hmscatalog.write.keep-replaced-seconds`` have passed, as on local disk. (Releases before
  put the whole write below ``<table>/hms-v<write id>/k=v/``, a second tree beside the
  table's, which no reader of the table's tree can follow.)

The write's record (:mod:`hmscatalog.write.journal`) is saved under ``<table>/.hms-commits/``
before the tasks start (one PUT, atomic on S3) and passes the same states. A write that fails
before its uploads complete leaves no file; one that fails after is undone by deleting the
files named with its write id, and the metastore is put back as it was. A killed write's
record is finished or undone by :func:`recover` (its pending uploads are aborted by the caller,
which has S3A). There is no commit lock on S3: appends never touch each other's files (their
names hold the write id); of two overwrites of one partition the later switch wins.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from hmscatalog import config, faults
from hmscatalog.errors import HmsCatalogError, WriteFailed
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.metastore.spark_schema import directory_names
from hmscatalog.partitions.codec import make_part_name, with_keys
from hmscatalog.storage.filesystems import Storage
from hmscatalog.storage.opening import open_storage
from hmscatalog.write import steps
from hmscatalog.write.journal import (
    HEARTBEAT_S,
    VERSION_PREFIX,
    CommitRecord,
    Journal,
    Owner,
    records_home,
)
from hmscatalog.write.rules import check_partition_formats

log = logging.getLogger(__name__)

MAGIC_PREFIX = "__magic_job-"

# Aborts the uploads under a location (``s3a://bucket/table``) whose keys hold a write id;
# returns how many. Installed by the Spark layer (:func:`use_upload_aborter`), which has S3A.
_upload_aborter: Callable[[str, str], int] | None = None


def use_upload_aborter(aborter: Callable[[str, str], int] | None) -> None:
    global _upload_aborter
    _upload_aborter = aborter


def abort_uploads(location: str, write_id: str) -> int | None:
    """Abort the uploads of write ``write_id`` still pending under ``location``: how many, or
    ``None`` where nothing can list them (no Spark driver here)."""
    return None if _upload_aborter is None else _upload_aborter(location, write_id)


def _same(location: str | None, expected: str) -> bool:
    """Whether a stored location is ``expected`` (``s3``/``s3a``/``s3n`` alike)."""
    def strip(text: str) -> str:
        return text.rstrip("/").split("://", 1)[-1]
    return location is not None and strip(location) == strip(expected)


class RecordedWrite:
    """A write into an object store that keeps its record (:mod:`~hmscatalog.write.journal`)
    in ``<root>/.hms-commits/``, saved again every ``HEARTBEAT_S`` seconds while it runs (an
    object's time changes only with its contents), so that other hosts can tell it is alive."""

    def __init__(self, storage: Storage, root: Path, record: CommitRecord) -> None:
        self._journal = Journal(storage, root)
        self._record = record
        self._saving = threading.Lock()
        self._stop = threading.Event()

    @property
    def write_id(self) -> str:
        return self._record.write_id

    def begin(self) -> None:
        """Save the write's record before any task writes, and start renewing it."""
        self._save()
        threading.Thread(target=self._beat, name=f"hms-heartbeat-{self.write_id}",
                         daemon=True).start()
        faults.reached("begin")

    def _save(self) -> None:
        with self._saving:
            if not self._stop.is_set():
                self._journal.save(self._record)

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                self._save()
            except (OSError, HmsCatalogError) as exc:
                log.warning("could not renew the record of write %s: %s", self.write_id, exc)

    def _complete(self, complete: Callable[[], None]) -> None:
        """Save the planned (``committing``) record, complete the uploads, save it as
        ``committed``: from then on the write is finished, never undone."""
        self._save()
        faults.reached("commit-record")
        complete()
        self._record.state = "committed"
        faults.reached("committed")
        self._save()

    def _end(self) -> None:
        """Stop renewing the record; a renewal under way ends before this returns."""
        self._stop.set()
        with self._saving:
            pass


class DirectCommit(RecordedWrite):
    """Commit the files one write put at their final names into ``table``.

    Args:
        mode: ``append`` or ``overwrite`` (see the module's docstring).
        options: S3 settings for listing and the write's record (pyarrow).
        directories: as :class:`~hmscatalog.write.commit.TableCommit`'s.
    """

    def __init__(self, client: MetastoreClient, table: Table, write_id: str, mode: str,
                 options: Mapping[str, str] | None = None,
                 directories: Sequence[str] | None = None) -> None:
        self._client = client
        self._table = table
        self._storage: Storage
        self._storage, location = open_storage((table.location or "").rstrip("/"), options)
        self._root = records_home(Path(location))
        self._mode = mode
        # An unpartitioned table an overwrite moved into a version directory appends there; an
        # overwrite's files go to <k=v>/hms-v<write id>/ below the table's directory.
        base = Path(location) if mode == "append" else self._root
        self.version_directory = None if mode == "append" else f"{VERSION_PREFIX}{write_id}"
        self.base = base
        self.base_uri = self._storage.uri(str(base))
        self._elsewhere: dict[str, str] = {}  # partition name -> its directory, off base/k=v
        # How the tasks name a partition's directory below base (Dt=x, or dt=x).
        self._directories = list(directory_names(table) if directories is None else directories)
        super().__init__(self._storage, self._root, CommitRecord(
            write_id=write_id, table=table.qualified_name, mode=mode,
            owner=Owner.this_process(), staging=str(base / f"{MAGIC_PREFIX}{write_id}"),
            trash=str(self._root / f".hms-trash-{write_id}")))

    def partitions_elsewhere(self, static: Mapping[str, str]) -> list[tuple[dict[str, str], str]]:
        """For an append: the existing partitions (those matching the static values) stored
        elsewhere under the table's directory than ``<table>/k=v`` (an overwrite moved them
        into a version directory), as ``(values by column, location)``; the tasks write their
        files there. A partition stored outside the table's directory is not among them: a
        write into it is refused before its uploads complete (see :meth:`commit`)."""
        table = self._table
        names = table.partition_spec.names
        if self._mode != "append" or not names:
            return []
        found = []
        for part in self._client.list_partitions(table.database, table.name):
            values = dict(zip(names, part.values, strict=True))
            if any(values.get(k) != v for k, v in static.items()):
                continue
            name = make_part_name(names, list(part.values))
            path = self._storage.path_of((part.location or "").rstrip("/"))
            if path is None or Path(path) == self.base / with_keys(name, self._directories) \
                    or not Path(path).is_relative_to(self._root):
                continue
            self._elsewhere[name] = path
            # Keyed as the tasks name the partition's columns.
            found.append((dict(zip(self._directories, part.values, strict=True)),
                          self._storage.uri(path)))
        return found

    def commit(self, written: Sequence[str], complete: Callable[[], None],
               static: Mapping[str, str] | None = None,
               check: Callable[[int], None] | None = None) -> None:
        """Make the write visible.

        Args:
            written: the partition names (``k=v/...``) the tasks wrote files into; ``[""]``
                for an unpartitioned table that received files.
            complete: completes the uploads (the job's commit); files are visible after it.
            static: the write's static partition values (with every partition column
                static, that partition is replaced, or made by an append, even when no row
                was written).
            check: called with the number of partitions written before anything is visible.
        """
        table, record = self._table, self._record
        names = table.partition_spec.names
        # The tasks' directories (Dt=x/...) by the metastore's names of their partitions.
        targets = dict.fromkeys(with_keys(name, names) for name in written)
        filled = set(targets)
        if self._mode == "overwrite" and not names:
            targets.setdefault("")
        elif names and static is not None and set(static) == set(names):
            targets.setdefault(make_part_name(names, [static[n] for n in names]))
        keep = config.read_count(table.parameters, config.WRITE_KEEP_REPLACED_SECONDS,
                                 f"Table {table.qualified_name}")
        registered: list[str] = []
        try:
            if check is not None:
                check(len(targets))
            existing = self._plan(list(targets), filled)
            self._complete(complete)
            steps.publish(self._client, self._storage, table, record, registered,
                          existing=list(existing.values()))
        except BaseException as exc:
            if self._undo(registered):
                raise
            self._stop.set()
            raise WriteFailed(
                f"the write into {table.qualified_name} failed ({exc}) and could not be undone "
                f"completely; its record {self._journal.path(record.write_id)} is kept") \
                from exc
        self._end()  # a renewal under way ends before the record changes for good
        try:
            steps.keep_replaced(self._journal, record, keep)
        except OSError as exc:
            log.error("write %s into %s is complete, but its replaced files could not be "
                      "recorded for deletion (%s)", record.write_id, table.qualified_name, exc)

    def abort(self) -> None:
        """End a write that will not be committed: abort the uploads it left pending, delete
        its magic committer's work directory, then its record."""
        self._end()
        abort_uploads(self.base_uri, self.write_id)
        self._journal.storage.delete(self._record.staging)
        self._journal.remove(self._record.write_id)

    def _plan(self, written: list[str], filled: set[str]) -> dict[str, Partition]:
        """``written``: the partitions the write makes or changes; ``filled``: those of them
        that received files."""
        table, record = self._table, self._record
        names = table.partition_spec.names
        existing: dict[str, Partition] = {}
        if names and written:
            for found in self._client.get_partitions_by_names(table.database, table.name,
                                                             written):
                existing[make_part_name(names, list(found.values))] = found
        check_partition_formats(table, existing)
        current = None if names else self._client.get_table(table.database, table.name)
        for name in written:
            target = Path(self._elsewhere[name]) if name in self._elsewhere else \
                self.base / with_keys(name, self._directories) if name else self.base
            if self.version_directory is not None:
                target = target / self.version_directory
            record.targets[name] = str(target)
            held = existing.get(name) if names else current
            if held is None:
                continue
            location = held.location
            if self._mode == "append":
                if name in filled and not _same(location, self._storage.uri(str(target))):
                    raise HmsCatalogError(
                        f"hms cannot append to {'partition ' + name if name else 'table'} of "
                        f"{table.qualified_name} on S3: its location {location} is not "
                        f"{self._storage.uri(str(target))}, where this write's files went")
                continue
            old = self._storage.path_of((location or "").rstrip("/"))
            record.relocated[name] = str(location)
            if old is not None:
                versioned = Path(old).name.startswith(VERSION_PREFIX)
                record.retire += [old] if versioned else [
                    str(p) for p in steps.data_files(self._storage, Path(old))]
            self._storage.make_dirs(str(target))  # an overwrite by no rows: an empty partition
        record.new = [name for name in written if names and name not in existing]
        record.updated = {name: dict(part.parameters) for name, part in existing.items()}
        if current is not None:
            record.table_parameters = dict(current.parameters)
        record.state = "committing"
        return existing

    def _undo(self, registered: list[str]) -> bool:
        """Put the metastore back and delete this write's files; whether that worked."""
        record = self._record
        if record.state == "committed":
            record.state = "aborting"
            record.registered = registered
            try:
                self._save()
            except (OSError, HmsCatalogError) as exc:
                log.error("could not save the record of write %s: %s", record.write_id, exc)
        problems = steps.roll_back(self._client, self._storage, self._table, record)
        problems += delete_written(self._storage, record)
        if problems:
            return False
        self.abort()
        return True


def delete_written(storage: Storage, record: CommitRecord) -> list[str]:
    """Delete what a write put on storage: its own version directory (an overwrite's), or the
    files it put into its target directories (their names hold its id), and its magic
    committer's work directory; returns what could not be deleted."""
    problems = []
    base = Path(record.staging).parent
    own = f"{VERSION_PREFIX}{record.write_id}"
    if base.name == own:  # the whole write below one directory (releases before)
        paths = [str(base)]
    else:
        paths = [target for target in record.targets.values() if Path(target).name == own]
        paths += [str(path) for target in record.targets.values() if Path(target).name != own
                  for path in steps.data_files(storage, Path(target))
                  if record.write_id in path.name]
    for path in [*paths, record.staging]:
        try:
            storage.delete(path)
        except OSError as exc:
            problems.append(f"could not delete {storage.uri(path)}: {exc}")
    return problems
