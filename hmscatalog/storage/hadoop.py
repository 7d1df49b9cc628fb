"""Storage through Hadoop's ``FileSystem`` in the Spark driver's JVM: ``hdfs://`` and every other
file system Spark's Hadoop opens (``abfs://``, ``gs://``, ``viewfs://``...) but pyarrow does not.

Listings and changes go through the same :class:`~hmscatalog.storage.filesystems.Storage`
interface, counted the same way, with the session's Hadoop configuration. A listing is one call
into the JVM (:file:`hmscatalog/spark/bridge/java/FileSystems.java` encodes it as one string). Paths
are the absolute paths of one file system (``/warehouse/t``); :meth:`HadoopStorage.uri` puts
scheme and authority back. HDFS renames are atomic, and a rename never replaces a file, which
the commit relies on as it does on POSIX's.
"""

from __future__ import annotations

import builtins
import errno
import io
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from hmscatalog.errors import StorageError
from hmscatalog.storage.filesystems import Entry, Storage

_HELPER = "io.hmscatalog.spark.FileSystems"
_RENAMING = frozenset({"hdfs", "viewfs", "webhdfs", "swebhdfs"})


class HadoopStorage(Storage):
    """One Hadoop file system (scheme and authority) of a JVM.

    Args:
        java_class: gives the Java class of a name (``Jvm.cls`` of the Spark layer).
        conf: the Hadoop ``Configuration`` to open it with.
        location: any location on it (``hdfs://nn:8020/warehouse``).
    """

    def __init__(self, java_class: Callable[[str], Any], conf: Any, location: str) -> None:
        parsed = urlparse(location)
        super().__init__(None, parsed.scheme)
        self.authority = parsed.netloc
        self._new_path = java_class("org.apache.hadoop.fs.Path")
        self._conf = conf
        self._helper = java_class(_HELPER)
        try:
            self._fs = self._new_path(self.uri("/")).getFileSystem(conf)
        except Exception as exc:
            raise StorageError(f"cannot open {location}: {_reason(exc)}") from exc
        self.parallel = True
        # HDFS renames a file in one step, and never over another; object stores behind
        # Hadoop (s3a, gs, abfs without hierarchical namespace) copy.
        self.renames = self.scheme in _RENAMING

    def _path(self, path: str) -> Any:
        return self._new_path(self.uri(path))

    def _call(self, what: str, path: str, call: Any) -> Any:
        """``call()``, with Hadoop's exceptions as Python's."""
        try:
            return call()
        except Exception as exc:
            java = getattr(exc, "java_exception", None)
            if java is None:
                raise
            name = java.getClass().getName()
            reason = f"cannot {what} {self.uri(path)}: {_reason(exc)}"
            if name == "java.io.FileNotFoundException":
                raise FileNotFoundError(errno.ENOENT, reason) from None
            if name == "org.apache.hadoop.fs.FileAlreadyExistsException":
                raise FileExistsError(errno.EEXIST, reason) from None
            raise OSError(errno.EIO, reason) from None

    def list(self, path: str) -> list[Entry] | None:
        with self._lock:
            self.list_calls += 1
        base = path.rstrip("/") or "/"
        try:
            text = self._call("list", base, lambda: self._helper.list(self._fs, self.uri(base)))
        except OSError as exc:
            raise StorageError(str(exc)) from exc
        if text is None:
            return None
        entries = []
        for line in text.splitlines():
            kind, size, name = line.split("\t", 2)
            entries.append(Entry(name, f"{base.rstrip('/')}/{name}", kind == "d", int(size)))
        return entries

    def exists(self, path: str, follow_links: bool = True) -> bool:
        return bool(self._call("check", path, lambda: self._fs.exists(self._path(path))))

    def read_text(self, path: str) -> str:
        return str(self._call("read", path, lambda: self._helper.readText(self._fs,
                                                                         self.uri(path))))

    def open_input(self, path: str) -> Any:
        size = self._call("stat", path, lambda: self._fs.getFileStatus(self._path(path))).getLen()
        return _RangeReader(lambda offset, length: bytes(self._call(
            "read", path, lambda: self._helper.read(self._fs, self.uri(path), offset, length))),
            int(size))

    def modified(self, path: str) -> float:
        status = self._call("stat", path, lambda: self._fs.getFileStatus(self._path(path)))
        return int(status.getModificationTime()) / 1000.0

    def make_dirs(self, path: str) -> builtins.list[str]:
        missing = self.missing_dirs(path)
        if missing:
            self._call("create", path, lambda: self._fs.mkdirs(self._path(path)))
        return missing

    def remove_dir(self, path: str) -> None:
        entries = self.list(path)
        if entries is None:
            raise FileNotFoundError(errno.ENOENT, "no such directory", self.uri(path))
        if entries:
            raise OSError(errno.ENOTEMPTY, "directory not empty", self.uri(path))
        self._call("remove", path, lambda: self._fs.delete(self._path(path), False))

    def rename(self, source: str, target: str) -> None:
        """One rename; fails, changing nothing, when ``target`` exists or ``source`` does not
        (HDFS's ``rename`` answers false then)."""
        done = self._call("rename", source,
                          lambda: self._fs.rename(self._path(source), self._path(target)))
        if not done:
            raise OSError(errno.EEXIST if self.exists(source) else errno.ENOENT,
                          f"cannot rename {self.uri(source)} to {self.uri(target)}")

    def delete(self, path: str) -> None:
        self._call("delete", path, lambda: self._fs.delete(self._path(path), True))

    def write_atomically(self, path: str, text: str) -> None:
        """The text goes to ``.<name>.tmp`` beside ``path``, which one rename then puts over
        ``path`` (atomic on HDFS; closing a file on HDFS makes its data durable)."""
        directory, _, name = path.rpartition("/")
        self.make_dirs(directory or "/")
        temporary = f"{directory}/.{name}.tmp"
        self.delete(temporary)
        self.create(temporary, text)
        self._call("replace", path, lambda: self._helper.replace(
            self._fs, self._conf, self.uri(temporary), self.uri(path)))

    def create(self, path: str, text: str) -> None:
        """Write a new file at ``path``, in one step that fails when a file is there
        (:class:`FileExistsError`): HDFS's exclusive create."""
        self._call("create", path, lambda: self._helper.create(self._fs, self.uri(path), text))

    def touch(self, path: str) -> None:
        now = int(time.time() * 1000)
        self._call("touch", path, lambda: self._fs.setTimes(self._path(path), now, -1))

    def path_of(self, location: str) -> str | None:
        parsed = urlparse(location)
        if parsed.scheme != self.scheme or parsed.netloc != self.authority:
            return None
        return parsed.path.rstrip("/") or "/"

    def uri(self, path: str) -> str:
        return f"{self.scheme}://{self.authority}{path}"


class _RangeReader(io.RawIOBase):
    """A seekable file whose reads are byte ranges fetched by ``read(offset, length)``: the
    footer of a Parquet or ORC file costs a few calls into the JVM, not the whole file."""

    def __init__(self, read: Callable[[int, int], bytes], size: int) -> None:
        self._read = read
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        length = min(len(buffer), self._size - self._position)
        if length <= 0:
            return 0
        data = self._read(self._position, length)
        buffer[:len(data)] = data
        self._position += len(data)
        return len(data)


def _reason(exc: BaseException) -> str:
    """The first line of a Java exception's message (its class when it has none)."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    message = java.getMessage()
    text = str(message) if message is not None else str(java.getClass().getName())
    return text.splitlines()[0] if text else str(java.getClass().getName())
