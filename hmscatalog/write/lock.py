"""One commit at a time per table.

Commits into a table (and recovery of its interrupted writes) hold an exclusive lock on
``<table>/.hms-commits/lock``: an advisory ``flock`` that the kernel releases when its process
ends, however it ends, so a killed writer never leaves the table locked. Tasks of concurrent
writes still run side by side; only the commits, which take seconds, wait for each other. The
lock file holds the current holder's write id and process, for the message a waiting writer
gives up with. It works on every metastore version (it needs none of the metastore's
transaction tables); the object-store commit will need a lock of its own kind (an exclusive
create on HDFS, a conditional put on S3) behind the same interface.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import asdict
from pathlib import Path
from types import TracebackType

from hmscatalog.errors import HmsCatalogError
from hmscatalog.storage.filesystems import Storage
from hmscatalog.write.journal import COMMITS_DIR, Owner

LOCK_TIMEOUT_S = 600.0
_POLL_S = 0.05


class CommitLockTimeout(HmsCatalogError):
    """Another write held the table's commit lock for longer than the caller waits."""


class TableLock:
    """``with TableLock(storage, root, table, write_id):`` holds the commit lock of the table
    at ``root``, waiting at most ``timeout_s`` seconds for it. The lock is the kernel's: the
    table is on local disk."""

    def __init__(self, storage: Storage, root: Path, table: str, write_id: str,
                 timeout_s: float = LOCK_TIMEOUT_S) -> None:
        self._storage = storage
        self._path = root / COMMITS_DIR / "lock"
        self._table = table
        self._write_id = write_id
        self._timeout_s = timeout_s
        self._fd: int | None = None

    def __enter__(self) -> TableLock:
        self._storage.make_dirs(str(self._path.parent))
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = self._holder()
                    os.close(fd)
                    raise CommitLockTimeout(
                        f"table {self._table} is being committed by {holder}; gave up waiting "
                        f"for its commit lock ({self._path}) after {self._timeout_s:g} s"
                    ) from None
                time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"write_id": self._write_id,
                                  "owner": asdict(Owner.this_process()),
                                  "since": time.time()}).encode(), 0)
        self._fd = fd
        return self

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
