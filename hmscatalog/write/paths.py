"""Committing a write into a directory that no table holds (``write_partitioned``).

Without a metastore the directory tree is all there is: a partition exists when its ``k=v``
directory holds files. The write's record (:mod:`hmscatalog.write.journal`) is kept under
``<path>/.hms-commits/`` as for a table, so that a write whose process dies is finished or
undone by the next write into the path (or ``hmscatalog recover-path``); reads do not
look for records.

On local disk and HDFS (:class:`PathCommit`) the tasks write into ``<path>/.hms-staging-<id>``
and the commit, under the path's commit lock, moves their files in:

- ``append`` moves each file into its partition directory under a name no file there has;
- ``overwrite`` replaces every partition that received rows: its directory goes to the trash
  and the staged one takes its place, one rename each, so a reader listing it sees the old
  files, none, or the new, never a mix (Spark's dynamic partition overwrite deletes the old
  directory and renames the new one in the same way);
- ``error`` commits only into a path that holds nothing yet.

On S3 (:class:`PathDirectCommit`) nothing can be renamed: the tasks write each file at its final
key through S3A's magic committer, invisible until the commit completes the uploads. An overwrite
then deletes what the replaced partitions held before; a reader listing one in between can see
both. A write that fails before its uploads complete leaves no file.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Literal

from hmscatalog import faults
from hmscatalog.errors import HmsCatalogError, RecoveryFailed, WriteFailed
from hmscatalog.storage.filesystems import Storage
from hmscatalog.write import direct, recovery, steps
from hmscatalog.write.commit import TRASH_PREFIX, StagedWrite, staged_partitions
from hmscatalog.write.journal import CommitRecord, Journal, Owner
from hmscatalog.write.lock import CommitLockTimeout, TableLock

log = logging.getLogger(__name__)

PathMode = Literal["append", "overwrite", "error"]
_PLACEHOLDER = re.compile(r"\{(i|uuid)\}")


def check_filename_pattern(pattern: str) -> None:
    """A pattern names files with ``{i}`` (a number) and ``{uuid}`` (a fresh UUID); the
    format's extension is added. Raises ``ValueError`` naming what is wrong."""
    if not _PLACEHOLDER.search(pattern):
        raise ValueError(f"filename_pattern {pattern!r} has neither {{i}} nor {{uuid}}: every "
                         "file of a partition would get the same name")
    leftover = _PLACEHOLDER.sub("", pattern)
    if "{" in leftover or "}" in leftover:
        raise ValueError(f"filename_pattern {pattern!r}: only {{i}} and {{uuid}} can be "
                         "replaced")
    if "/" in pattern or pattern.startswith((".", "_")):
        raise ValueError(f"filename_pattern {pattern!r}: a file name cannot hold '/', and one "
                         "starting with '.' or '_' is hidden from every reader")


def _extension(name: str) -> str:
    """A Spark file's extension: ``.snappy.parquet`` of ``part-0-x.c000.snappy.parquet``."""
    match = re.search(r"(?:\.c\d+)?((?:\.[A-Za-z0-9]+)*)$", name)
    return match.group(1) if match else ""


def _fill(number: int, match: re.Match[str]) -> str:
    return str(number) if match.group(1) == "i" else str(uuid.uuid4())


class _Names:
    """Final file names for one partition directory: Spark's own (they hold the write's id),
    or ``filename_pattern``'s with ``{i}`` counting from 0 past names already taken."""

    def __init__(self, pattern: str | None, taken: set[str]) -> None:
        self._pattern = pattern
        self._taken = taken
        self._counter: Iterator[int] = iter(range(10**9))

    def __call__(self, staged: str) -> str:
        name = staged
        while self._pattern is not None:
            number = next(self._counter)
            name = _PLACEHOLDER.sub(partial(_fill, number), self._pattern) + _extension(staged)
            if name not in self._taken:
                break
        if name in self._taken:  # never replace a file
            raise HmsCatalogError(f"a file named {name} is there already")
        self._taken.add(name)
        return name


def _visible(storage: Storage, directory: Path) -> list[Path]:
    """What readers see in a directory: entries not starting with ``.`` or ``_``."""
    return [Path(e.path) for e in storage.list(str(directory)) or ()
            if not e.name.startswith((".", "_"))]


def refuse_existing(storage: Storage, root: Path) -> None:
    """``mode='error'``: fail when the path holds anything readers see."""
    if _visible(storage, root):
        raise HmsCatalogError(f"path {storage.uri(str(root))} already exists and holds files "
                              "(mode='error'); write with mode='append' or "
                              "mode='overwrite_partitions'")


def _checksums(storage: Storage, renamed: list[tuple[Path, Path]]) -> list[tuple[str, str]]:
    """The moves that keep Hadoop's checksum files (``.<name>.crc``, local disk only) beside
    the files renamed in a directory that moves whole."""
    if storage.scheme != "file":
        return []
    moves = []
    for old, new in renamed:
        checksum = old.parent / f".{old.name}.crc"
        if old != new and storage.exists(str(checksum)):
            moves.append((str(checksum), str(new.parent / f".{new.name}.crc")))
    return moves


class PathCommit(StagedWrite):
    """Commit the staged output of one write into the directory ``root`` of ``storage``,
    which renames atomically (local disk, HDFS)."""

    def __init__(self, storage: Storage, root: Path, write_id: str, mode: PathMode,
                 depth: int, filename_pattern: str | None = None) -> None:
        self.label = f"path {storage.uri(str(root))}"
        super().__init__(storage, root, write_id, self.label, mode)
        self._mode = mode
        self._depth = depth
        self._pattern = filename_pattern

    def begin(self) -> None:
        """End the path's writes whose process died, then save this one's record."""
        recover_path(self._storage, self._root)
        super().begin()

    def commit(self) -> list[str]:
        """Move the staged files into place (see the module's docstring); returns the
        partitions (``k=v/...``, ``""`` for the path itself) that received files."""
        record = self._record
        try:
            with TableLock(self._storage, self._root, self.label, record.write_id):
                faults.reached("locked")
                recover_path(self._storage, self._root, locked=True)
                self._commit()
        except CommitLockTimeout:
            self._finish()
            raise
        finally:
            self._end()
        return list(record.targets)

    def _commit(self) -> None:
        record = self._record
        try:
            if self._mode == "error":
                refuse_existing(self._storage, self._root)
            staged = staged_partitions(self._storage, self.staging, self._depth)
            if self._mode == "overwrite" and self._depth == 0:
                staged.setdefault("", [])  # the path's files are replaced, even by no rows
            published = self._plan(staged)
            self._journal.save(record)
            faults.reached("commit-record")
            steps.move_files(self._storage, record)
            steps.check_published(self._storage, published,
                                  sum(len(files) for files in staged.values()))
            record.state = "committed"
            faults.reached("committed")
            self._journal.save(record)
        except BaseException as exc:
            problems = [] if record.state == "writing" else \
                steps.undo_moves(self._storage, record)
            if problems:
                raise WriteFailed(
                    f"the write into {self.label} failed ({exc}) and could not be undone "
                    f"completely ({problems[0]}); its record "
                    f"{self._journal.path(record.write_id)} is kept, and the next write into "
                    "the path undoes the rest") from exc
            self._finish()
            raise
        self._finish()

    def _plan(self, staged: dict[str, list[Path]]) -> list[str]:
        """Fill the record with every step of the commit; returns where the staged files go.

        Raises:
            HmsCatalogError: a move would replace a file (:func:`steps.check_moves`).
        """
        storage, record = self._storage, self._record
        trash = Path(record.trash)
        created: dict[str, None] = {}
        published: list[str] = []

        def create(directory: Path) -> None:
            if str(directory) not in created:
                created.update(dict.fromkeys(storage.missing_dirs(str(directory))))

        for name, files in staged.items():
            target = self._root / name if name else self._root
            record.targets[name] = str(target)
            replace_dir = self._mode == "overwrite" and name != ""
            taken = set() if replace_dir else \
                {e.name for e in storage.list(str(target)) or ()}
            names = _Names(self._pattern, taken)
            try:
                renamed = [(f, f.parent / names(f.name)) for f in files]
            except HmsCatalogError as exc:
                raise HmsCatalogError(f"cannot write into {storage.uri(str(target))}: {exc}; "
                                      "append never replaces a file") from exc
            published += [str(target / b.name) for _, b in renamed]
            if replace_dir:
                # Name the files in the staging directory, then swap whole directories.
                record.moves += [(str(a), str(b)) for a, b in renamed if a != b]
                record.moves += _checksums(storage, renamed)
                if storage.exists(str(target)):
                    create((trash / name).parent)  # the directory itself moves there
                    record.moves.append((str(target), str(trash / name)))
                create(target.parent)
                record.moves.append((str(self.staging / name), str(target)))
                continue
            if self._mode == "overwrite":  # the path itself: its visible entries go
                old = _visible(storage, target)
                if old:
                    create(trash / "_path")
                record.moves += [(str(p), str(trash / "_path" / p.name)) for p in old]
            create(target)
            record.moves += [(str(a), str(target / b.name)) for a, b in renamed]
        record.created_dirs = list(created)
        steps.check_moves(storage, record)
        record.state = "committing"
        return published


class PathDirectCommit(direct.RecordedWrite):
    """Commit the files one write put at their final keys under ``root`` on S3."""

    def __init__(self, storage: Storage, root: Path, write_id: str, mode: PathMode) -> None:
        self._storage = storage
        self._root = root
        self._mode = mode
        self.base_uri = storage.uri(str(root))
        self.label = f"path {self.base_uri}"
        super().__init__(storage, root, CommitRecord(
            write_id=write_id, table=self.label, mode=mode, owner=Owner.this_process(),
            staging=str(root / f"{direct.MAGIC_PREFIX}{write_id}"),
            trash=str(root / f"{TRASH_PREFIX}{write_id}")))

    def begin(self) -> None:
        recover_path(self._storage, self._root)
        super().begin()

    def commit(self, written: Sequence[str], complete: Callable[[], None]) -> None:
        """Complete the uploads of the files the tasks wrote into ``written`` partitions
        (``k=v/...``; ``""`` for the path itself), then delete what an overwrite replaces."""
        record, storage = self._record, self._storage
        try:
            if self._mode == "error":
                refuse_existing(storage, self._root)
            for name in written:
                target = self._root / name if name else self._root
                record.targets[name] = str(target)
                if self._mode == "overwrite":  # the uploads are not visible yet
                    record.retire += [str(p) for p in _visible(storage, target)]
            record.state = "committing"
            self._complete(complete)
        except BaseException as exc:
            problems = [] if record.state == "writing" else \
                direct.delete_written(storage, record)
            if problems:
                self._end()
                raise WriteFailed(
                    f"the write into {self.label} failed ({exc}) and could not be undone "
                    f"completely ({problems[0]}); its record "
                    f"{self._journal.path(record.write_id)} is kept") from exc
            self.abort()
            raise
        self._end()
        faults.reached("retire")
        steps.retire(storage, record)
        steps.remove_leftovers(storage, record)
        self._journal.remove(record.write_id)

    def abort(self) -> None:
        """End a write that will not be committed: abort its pending uploads, delete its
        magic committer's work directory and its record."""
        self._end()
        direct.abort_uploads(self.base_uri, self.write_id)
        self._storage.delete(self._record.staging)
        self._journal.remove(self._record.write_id)


def recover_path(storage: Storage, root: Path, locked: bool = False) -> list[str]:
    """Finish or undo every write into the directory ``root`` whose process died, and delete
    what a save of a record killed halfway left (see :func:`recovery.abandoned`); returns the
    ids of the writes ended. On local disk and HDFS a write whose every move was made is finished,
    others are undone (under the path's commit lock, taken unless ``locked``); on S3 a write
    whose uploads were completed is finished, others are deleted and their uploads aborted.

    Raises:
        RecoveryFailed: naming the path when an interrupted write cannot be undone.
    """
    journal = Journal(storage, root)
    label = f"path {storage.uri(str(root))}"
    under_lock = locked and storage.renames
    every, unsaved = journal.scan()
    records = [r for r, age in every if recovery.is_dead(r, age, under_lock)]
    stale = recovery.abandoned(unsaved, under_lock)
    if not records and not stale:
        return []
    if storage.renames and not locked:
        with TableLock(storage, root, label, "recovery"):
            return recover_path(storage, root, locked=True)
    for record in records:
        if storage.renames:
            forward = record.state == "committed" or (
                record.state == "committing" and steps.moves_done(storage, record))
            problems = [] if forward else steps.undo_moves(storage, record)
        else:
            forward = record.state == "committed"
            problems = [] if forward else direct.delete_written(storage, record)
            if not forward and direct.abort_uploads(storage.uri(str(root)),
                                                    record.write_id) is None:
                log.warning("write %s into %s was undone; uploads it left pending (invisible) "
                            "can only be aborted from a Spark driver with S3A",
                            record.write_id, label)
        if problems:
            raise RecoveryFailed(f"write {record.write_id} into {label} could not be undone "
                                 f"({problems[0]}); its record {journal.path(record.write_id)} "
                                 "is kept")
        if forward:
            steps.retire(storage, record)
        steps.remove_leftovers(storage, record)
        journal.remove(record.write_id)
        log.warning("%s write %s into %s, whose process died",
                    "finished" if forward else "undid", record.write_id, label)
    for found in stale:
        storage.delete(str(found.path))
        log.warning("removed %s, left by a process killed while it saved the record of a "
                    "write into %s", storage.uri(str(found.path)), label)
    return [r.write_id for r in records]
