"""Local disk: listings through ``pyarrow.fs`` as everywhere, changes through ``os``.

The write commit keeps its journal and moves its files here, and relies on what POSIX promises:
a rename is atomic, and data (or a directory entry) is on disk once it was fsynced. The
directories and files it makes get the permissions Hadoop's umask gives
(``fs.permissions.umask-mode``, 022 unless set), as those Spark's tasks write do; the process's
own umask may narrow them further.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from hmscatalog import faults
from hmscatalog.errors import InvalidSetting
from hmscatalog.storage.filesystems import Storage

UMASK_KEY = "fs.permissions.umask-mode"
HADOOP_UMASK = 0o022  # the key's default in Hadoop
_WHO = {"u": 0o700, "g": 0o070, "o": 0o007}
_WHAT = {"r": 0o444, "w": 0o222, "x": 0o111}


def umask(text: str | None) -> int:
    """The umask ``fs.permissions.umask-mode`` gives, as Hadoop reads it: octal (``077``) or
    what each class may keep (``u=rwx,g=rx,o=``); Hadoop's default when unset.

    Raises:
        InvalidSetting: for another text, naming the setting and the value.
    """
    if text is None or not text.strip():
        return HADOOP_UMASK
    text = text.strip()
    if re.fullmatch(r"[0-7]{1,4}", text):
        return int(text, 8) & 0o777
    allowed: dict[str, int] = {}
    for part in text.split(","):
        found = re.fullmatch(r"([ugoa]+)=([rwx]*)", part.strip())
        if found is None:
            break
        bits = 0
        for letter in found.group(2):
            bits |= _WHAT[letter]
        for who in found.group(1).replace("a", "ugo"):
            allowed[who] = bits & _WHO[who]
    else:
        if set(allowed) == set(_WHO):
            return 0o777 & ~sum(allowed.values())
    raise InvalidSetting(
        f"{UMASK_KEY} {text!r} is not a umask: give it in octal (022, 077) or as what each of "
        "user, group and others keeps (u=rwx,g=rx,o=)")


def umask_option(get: Callable[[str], str | None]) -> dict[str, str]:
    """The storage option of Hadoop's umask, from a Hadoop configuration's ``get``, when set."""
    text = get(UMASK_KEY)
    return {UMASK_KEY: text} if text else {}


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LocalStorage(Storage):
    """The local file system; paths are absolute (``/abs/dir``). ``umask``: Hadoop's, for
    the directories and files this makes (see :func:`umask`)."""

    def __init__(self, umask: int = HADOOP_UMASK) -> None:
        import pyarrow.fs as pafs

        super().__init__(pafs.LocalFileSystem(), "file")
        self.dir_mode = 0o777 & ~umask
        self.file_mode = 0o666 & ~umask

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
                    os.mkdir(directory, self.dir_mode)
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
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, self.file_mode),
                  "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        faults.reached("record-replace")  # tests kill a save here
        os.replace(temporary, path)
        _fsync_dir(directory)

    def touch(self, path: str) -> None:
        os.utime(path)
