"""One commit at a time per table.

Commits into a table (and recovery of its interrupted writes) hold an exclusive lock on
``<table>/.hms-commits/lock``: an advisory ``flock`` that the kernel releases when its process
ends, however it ends, so a killed writer never leaves the table locked. Tasks of concurrent
writes still run side by side; only the commits, which take seconds, wait for each other. The
lock file holds the current holder's write id and process, for the message a waiting writer
gives up with. It works on every metastore version (it needs none of the metastore's
transaction tables).

On HDFS (any storage other than local disk) the lock is the file itself, made by an exclusive
create: the name node lets one writer create it. Nothing releases it when its process is killed,
so a waiting writer takes a lock over when its holder is dead: the holder's process is gone (same
host), or its heartbeat, a touch every ``HEARTBEAT_S`` seconds, stopped (another host, after
``STALE_AFTER_S``). Taking over is a rename of the stale lock to a name of the taker's, which
one taker wins; the taker then checks it took the lock it judged stale and gives back one that
changed meanwhile.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import NoReturn

from hmscatalog.errors import HmsCatalogError
from hmscatalog.storage.filesystems import Storage
from hmscatalog.storage.local import LocalStorage
from hmscatalog.write.journal import COMMITS_DIR, STALE_AFTER_S, Heartbeat, Owner

log = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 600.0
_POLL_S = 0.05


class CommitLockTimeout(HmsCatalogError):
    """Another write held the table's commit lock for longer than the caller waits."""


class TableLock:
    """``with TableLock(storage, root, table, write_id):`` holds the commit lock of the table
    at ``root``, waiting at most ``timeout_s`` seconds for it: the kernel's on local disk, a
    file made by an exclusive create elsewhere (see the module's docstring)."""

    def __init__(self, storage: Storage, root: Path, table: str, write_id: str,
                 timeout_s: float = LOCK_TIMEOUT_S) -> None:
        self._storage = storage
        self._path = root / COMMITS_DIR / "lock"
        self._table = table
        self._write_id = write_id
        self._timeout_s = timeout_s
        self._fd: int | None = None
        self._heartbeat: Heartbeat | None = None

    def _text(self) -> str:
        return json.dumps({"write_id": self._write_id, "owner": asdict(Owner.this_process()),
                           "since": time.time()})

    def __enter__(self) -> TableLock:
        self._storage.make_dirs(str(self._path.parent))
        if self._storage.scheme != "file":
            return self._create()
        assert isinstance(self._storage, LocalStorage)
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, self._storage.file_mode)
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    self._give_up()
                time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, self._text().encode(), 0)
        self._fd = fd
        return self

    def _give_up(self) -> NoReturn:
        raise CommitLockTimeout(
            f"table {self._table} is being committed by {self._holder()}; gave up waiting for "
            f"its commit lock ({self._storage.uri(str(self._path))}) after {self._timeout_s:g} s")

    def _create(self) -> TableLock:
        path = str(self._path)
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                self._storage.create(path, self._text())
                break
            except FileExistsError:
                if self._take_over_stale():
                    continue
                if time.monotonic() >= deadline:
                    self._give_up()
                time.sleep(_POLL_S * 4)
        self._heartbeat = Heartbeat(self._storage, self._path)
        return self

    def _take_over_stale(self) -> bool:
        """Remove the lock file if its holder is dead; whether it was removed."""
        path = str(self._path)
        try:
            text = self._storage.read_text(path)
            age = time.time() - self._storage.modified(path)
        except FileNotFoundError:
            return True  # released meanwhile
        try:
            holder = json.loads(text)
            alive = Owner(**holder["owner"]).alive(age)
        except (ValueError, KeyError, TypeError):
            # Being written, or left half-written by a writer killed while creating it.
            holder, alive = {}, age < STALE_AFTER_S
        if alive:
            return False
        taken = f"{path}.stale-{self._write_id}"
        try:
            self._storage.rename(path, taken)
        except OSError:
            return True  # another writer took it over first
        if self._storage.read_text(taken) != text:  # replaced between our read and rename
            try:
                self._storage.rename(taken, path)
                return False
            except OSError:
                log.error("commit lock %s of table %s was taken from a live writer and could "
                          "not be given back", path, self._table)
        log.warning("took over the commit lock of table %s from write %s, whose process "
                    "died", self._table, holder.get("write_id"))
        self._storage.delete(taken)
        return True

    def _holder(self) -> str:
        try:
            holder = json.loads(self._storage.read_text(str(self._path)) or "{}")
            owner, since = holder["owner"], time.gmtime(holder["since"])
        except (OSError, ValueError, KeyError, TypeError):
            return "another write"
        return (f"write {holder['write_id']} (pid {owner['pid']} on {owner['host']}, since "
                f"{time.strftime('%H:%M:%S', since)} UTC)")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
            self._storage.delete(str(self._path))
