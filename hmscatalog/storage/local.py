"""Local disk: listings through ``pyarrow.fs`` as everywhere, changes through ``os``.

The write commit keeps its journal and moves its files here, and relies on what POSIX promises:
a rename is atomic, and data (or a directory entry) is on disk once it was fsynced.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from hmscatalog.storage.filesystems import Storage
from hmscatalog.write import faults


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LocalStorage(Storage):
    """The local file system; paths are absolute (``/abs/dir``)."""

    def __init__(self) -> None:
        import pyarrow.fs as pafs

        super().__init__(pafs.LocalFileSystem(), "file")

    def exists(self, path: str, follow_links: bool = True) -> bool:
        if follow_links:
            return super().exists(path)
        return os.path.lexists(path)

    def read_text(self, path: str) -> str:
        with open(path, encoding="utf-8") as stream:
            return stream.read()

    def modified(self, path: str) -> float:
        return os.stat(path).st_mtime

    def missing_dirs(self, path: str) -> list[str]:
        directory = Path(path)
        missing = []
        while not directory.exists():
            missing.append(str(directory))
            directory = directory.parent
        return missing[::-1]

    def make_dirs(self, path: str) -> list[str]:
        """See :meth:`Storage.make_dirs`; if it fails partway, the directories it had made
        are removed again (while still empty) before the error is raised."""
        created: list[str] = []
        try:
            for directory in self.missing_dirs(path):
                try:
                    os.mkdir(directory)
                except FileExistsError:
                    continue
                created.append(directory)
        except BaseException:
            for directory in reversed(created):
                with contextlib.suppress(OSError):
                    os.rmdir(directory)
            raise
        return created

    def remove_dir(self, path: str) -> None:
        os.rmdir(path)

    def rename(self, source: str, target: str) -> None:
        os.rename(source, target)

    def delete(self, path: str) -> None:
        """See :meth:`Storage.delete`; a symbolic link is deleted, never what it points to."""
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def write_atomically(self, path: str, text: str) -> None:
        """Replace the file at ``path`` by ``text`` durably: the text goes to a temporary file
        beside it (``.<name>.tmp``), which is fsynced and renamed over ``path``; then the
        directory is fsynced, so that the rename is on disk when this returns. A directory this
        makes for the file is made durable the same way (its parent fsynced)."""
        directory, _, name = path.rpartition("/")
        directory = directory or "/"
        for created in self.make_dirs(directory):
            _fsync_dir(os.path.dirname(created))
        temporary = f"{directory.rstrip('/')}/.{name}.tmp"
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        faults.reached("record-replace")  # tests kill a save here
        os.replace(temporary, path)
        _fsync_dir(directory)

    def touch(self, path: str) -> None:
        os.utime(path)
