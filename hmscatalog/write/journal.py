"""The durable record of a write, kept next to the table it changes.

Each write into a table keeps one JSON file, ``<table>/.hms-commits/<write id>.json``, from the
moment it is set up until everything it did is final. The file is replaced atomically (written
beside, flushed to disk, renamed over) whenever the write reaches a new state:

``writing``
    tasks are writing into the write's staging directory; nothing visible has changed.
``committing``
    the plan is fixed and about to be applied: every file move in order (old files of replaced
    partitions into the trash, then staged files into partition directories), the directories
    to create, the partitions to register and those that receive files, and the metastore
    parameters that rolling back would restore.
``committed``
    every move is done; the metastore is being updated. A write whose process dies from here on
    is finished by recovery, never undone.
``aborting``
    a raised error (the metastore failing, say) is being undone; the record names the
    partitions this write registered.
``done``
    the write is complete; the files of the partitions it replaced are kept until
    ``retire_after`` for queries that planned before the switch, then deleted.

A record whose owner is gone (the process died, or on another host its heartbeat stopped) is
finished or undone by :mod:`hmscatalog.write.recovery`. The record lives on storage rather than
in the metastore so that it works on every metastore version, is written with the data it
describes, and costs no metastore call; ``.hms-commits`` is hidden from Hive, Spark, Trino and
Arrow as every name starting with a dot is.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from hmscatalog.errors import HmsCatalogError, StorageError
from hmscatalog.storage.filesystems import Storage, on_object_store
from hmscatalog.storage.opening import open_storage

COMMITS_DIR = ".hms-commits"
# Replaced files are written to <directory>/hms-v<write id> (see hmscatalog.write.commit).
VERSION_PREFIX = "hms-v"
HEARTBEAT_S = 10.0
# Owners on another host are taken for dead once their heartbeat is this old.
STALE_AFTER_S = 120.0
_FORMAT = 1
_TEMPORARY = ".json.tmp"

State = Literal["writing", "committing", "committed", "aborting", "done"]


def _process_start(pid: int) -> str | None:
    """The kernel's start time of process ``pid`` (tells a reused pid apart), if it runs: a
    zombie, dead but not yet waited for by its parent, does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if stat[0] in ("Z", "X") else stat[19]


@dataclass(frozen=True)
class Owner:
    """The process a write belongs to."""

    host: str
    pid: int
    started: str | None

    @classmethod
    def this_process(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid(), _process_start(os.getpid()))

    def alive(self, heartbeat_age_s: float) -> bool:
        if self.host != socket.gethostname():
            return heartbeat_age_s < STALE_AFTER_S
        started = _process_start(self.pid)
        if started is not None or self.started is not None:
            return started is not None and started == self.started
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


@dataclass
class CommitRecord:
    """What one write does to one table; see the module's docstring for the states."""

    write_id: str
    table: str
    mode: str
    owner: Owner
    staging: str
    trash: str
    state: State = "writing"
    moves: list[tuple[str, str]] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)
    targets: dict[str, str] = field(default_factory=dict)  # partition name -> directory
    new: list[str] = field(default_factory=list)  # partitions to register
    updated: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> old parameters
    relocated: dict[str, str] = field(default_factory=dict)  # name -> old location
    retire: list[str] = field(default_factory=list)  # replaced files and directories
    retire_after: float = 0.0  # when they may be deleted (seconds since the epoch)
    table_parameters: dict[str, str] | None = None  # an unpartitioned table's, as they were
    registered: list[str] = field(default_factory=list)  # when aborting: what was added

    def to_json(self) -> str:
        return json.dumps({"format": _FORMAT, **asdict(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, path: Path) -> CommitRecord:
        try:
            data = json.loads(text)
            if data.pop("format") != _FORMAT:
                raise ValueError("unknown format")
            data["owner"] = Owner(**data["owner"])
            data["moves"] = [tuple(m) for m in data["moves"]]
            return cls(**data)
        except (ValueError, KeyError, TypeError) as exc:
            raise HmsCatalogError(f"commit record {path} cannot be read ({exc}); it was not "
                                  "written by this version of hmscatalog") from exc


def records_home(location: Path) -> Path:
    """The directory of a table's records for its location's path: the location, or the
    directory above when an overwrite has moved an unpartitioned table's files into a version
    directory of it."""
    return location.parent if location.name.startswith(VERSION_PREFIX) else location


def table_home(location: str | None, options: Mapping[str, str] | None = None
               ) -> tuple[Storage, Path] | None:
    """The storage and directory (:func:`records_home`) that hold a table's commit records,
    lock and staging. ``None`` where hmscatalog does not commit by renaming (object stores,
    told by the location alone), or cannot open the storage here (``hdfs://`` outside a Spark
    driver). ``options``: storage options (the umask of what a commit makes on local disk)."""
    text = (location or "").rstrip("/")
    if not text or on_object_store(text):
        return None
    try:
        storage, path = open_storage(text, options)
    except StorageError:
        return None
    return (storage, records_home(Path(path))) if storage.renames else None


class Journal:
    """The commit records of the table stored at ``root`` in ``storage``."""

    def __init__(self, storage: Storage, root: Path) -> None:
        self.storage = storage
        self.directory = root / COMMITS_DIR

    def path(self, write_id: str) -> Path:
        return self.directory / f"{write_id}.json"

    def temporary(self, write_id: str) -> Path:
        """Where a save writes the record before renaming it over :meth:`path` (see
        :meth:`save`); a process killed in between leaves it."""
        return self.directory / f".{write_id}{_TEMPORARY}"

    def save(self, record: CommitRecord) -> None:
        """Replace the record on disk in one step; it is durable when this returns (see
        :meth:`~hmscatalog.storage.local.LocalStorage.write_atomically`)."""
        self.storage.write_atomically(str(self.path(record.write_id)), record.to_json())

    def remove(self, write_id: str) -> None:
        """Delete the record, and what a save of it killed halfway left beside it (first: a
        process killed in between leaves the record, which recovery ends again)."""
        if self.storage.renames:  # where a save writes beside (not on object stores)
            self.storage.delete(str(self.temporary(write_id)))
        self.storage.delete(str(self.path(write_id)))

    def _paths(self) -> tuple[list[Path], list[Path]]:
        """The record files, and the temporary files of saves (:meth:`temporary`)."""
        entries = self.storage.list(str(self.directory)) or []
        return (sorted(Path(e.path) for e in entries if e.name.endswith(".json")),
                sorted(Path(e.path) for e in entries
                       if e.name.startswith(".") and e.name.endswith(_TEMPORARY)))

    def has_records(self) -> bool:
        """Whether any record, or file a save left, is there (one listing)."""
        records, temporaries = self._paths()
        return bool(records or temporaries)

    def records(self) -> list[tuple[CommitRecord, float]]:
        """Every record with the age of its heartbeat in seconds, oldest write first."""
        return self.scan()[0]

    def scan(self) -> tuple[list[tuple[CommitRecord, float]], list[Unsaved]]:
        """:meth:`records`, and the temporary files of saves whose record is not there (one
        listing)."""
        paths, temporaries = self._paths()
        found = []
        for path in paths:
            try:
                text = self.storage.read_text(str(path))
                modified = self.storage.modified(str(path))
            except FileNotFoundError:
                continue  # finished meanwhile
            found.append((CommitRecord.from_json(text, path), time.time() - modified))
        saved = {path.name for path in paths}
        unsaved = []
        for path in temporaries:
            if path.name[1:].removesuffix(".tmp") in saved:
                continue  # ends with its record (see remove)
            try:
                text = self.storage.read_text(str(path))
                modified = self.storage.modified(str(path))
            except FileNotFoundError:
                continue  # saved or removed meanwhile
            try:
                record: CommitRecord | None = CommitRecord.from_json(text, path)
            except HmsCatalogError:
                record = None  # written in part
            unsaved.append(Unsaved(path, record, time.time() - modified))
        return found, unsaved


@dataclass(frozen=True)
class Unsaved:
    """The temporary file of a save (:meth:`Journal.temporary`) whose record is not there: a
    first save under way, or one whose process was killed."""

    path: Path
    record: CommitRecord | None  # what it holds; None when that was written only in part
    age_s: float


class Heartbeat:
    """Touches a record every :data:`HEARTBEAT_S` seconds while its write runs, so that
    processes on other hosts can tell the owner is alive."""

    def __init__(self, storage: Storage, path: Path) -> None:
        self._storage = storage
        self._path = path
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"hms-heartbeat-{path.stem}",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                self._storage.touch(str(self._path))
            except FileNotFoundError:
                return

    def stop(self) -> None:
        self._stop.set()
