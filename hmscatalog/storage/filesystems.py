"""One interface over local disk and S3: listings, and every change hmscatalog makes to files.

Listing goes through ``pyarrow.fs`` on both, so that discovery, globs and repair have one code
path; every directory listing is counted, so EXPLAIN and the tests can say how many list calls a
scan made. Changes (directories made, files moved, deleted, written) go through ``pyarrow.fs``
here and through ``os`` on local disk (:class:`~hmscatalog.storage.local.LocalStorage`), where
the commit relies on what POSIX promises (an atomic rename, fsync). Paths inside a
:class:`Storage` are what pyarrow uses: ``/abs/dir`` locally, ``bucket/key`` on S3.
:meth:`Storage.uri` turns them back into locations the metastore and Spark understand;
:func:`~hmscatalog.storage.opening.open_storage` is how callers get the storage of a location.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from hmscatalog.errors import StorageError
from hmscatalog.storage.locations import local_path

LIST_THREADS = 16  # concurrent list calls on an object store


@dataclass(frozen=True)
class Entry:
    """One child of a listed directory."""

    name: str  # the last path segment, as stored (never URL-decoded)
    path: str  # the storage path of the entry
    is_dir: bool
    size: int = 0


class Storage:
    """A file system plus a counter of list calls; reads and changes through ``pyarrow.fs``
    (local disk: :class:`~hmscatalog.storage.local.LocalStorage`, from :func:`open_storage`).

    Attributes:
        scheme: ``file`` or ``s3``.
        parallel: whether listing many directories at once pays off (object stores).
        renames: whether :meth:`rename` is one atomic step that never replaces a file (local
            disk, HDFS): the commit moves files into place only on such storage.
    """

    def __init__(self, filesystem: Any, scheme: str) -> None:
        self.filesystem = filesystem
        self.scheme = scheme
        self.parallel = scheme != "file"
        self.renames = scheme == "file"
        self._lock = threading.Lock()
        self.list_calls = 0

    def list(self, path: str) -> list[Entry] | None:
        """The entries directly under directory ``path``, or ``None`` if there is no directory
        there (nothing under the prefix on S3; missing, or not a directory, on local disk).

        On S3 this costs one ListObjectsV2 request per 1,000 children and nothing else: with
        ``allow_not_found=False`` pyarrow decides "missing" from that same response (a bare
        ``dir/`` marker object still makes an empty directory), whereas an empty listing
        followed by :meth:`exists` would add a HEAD and a second List per missing directory.
        """
        import pyarrow.fs as pafs

        with self._lock:
            self.list_calls += 1
        selector = pafs.FileSelector(path.rstrip("/") or "/", recursive=False)
        try:
            infos = self.filesystem.get_file_info(selector)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError) as exc:
            raise StorageError(f"cannot list {self.uri(path)}: {exc}") from exc
        return [Entry(info.base_name, info.path, info.type == pafs.FileType.Directory,
                      info.size or 0)
                for info in infos]

    def list_many(self, paths: Sequence[str]) -> builtins.list[builtins.list[Entry] | None]:
        """:meth:`list` of each path, in order; concurrently on object stores, where each list
        call is a network round trip."""
        if self.parallel and len(paths) > 1:
            with ThreadPoolExecutor(max_workers=min(LIST_THREADS, len(paths))) as pool:
                return list(pool.map(self.list, paths))
        return [self.list(path) for path in paths]

    def exists(self, path: str, follow_links: bool = True) -> bool:
        """Whether a file or directory is at ``path``. On S3 this takes a HEAD and, when no
        object has that exact key, a List as well, which is why :meth:`list` avoids it.

        Args:
            follow_links: a symbolic link counts only when what it points to exists; with
                ``False`` the link itself counts (local disk; S3 has no links).
        """
        import pyarrow.fs as pafs

        return self.filesystem.get_file_info(path).type != pafs.FileType.NotFound

    def read_text(self, path: str) -> str:
        """The contents of the (small, UTF-8) file at ``path``.

        Raises:
            FileNotFoundError: nothing is there.
        """
        with self.filesystem.open_input_stream(path) as stream:
            return bytes(stream.read()).decode("utf-8")

    def open_input(self, path: str) -> Any:
        """A seekable binary file over the file at ``path`` (for reading a data file's
        footer)."""
        return self.filesystem.open_input_file(path)

    def modified(self, path: str) -> float:
        """When the file at ``path`` was last changed, in seconds since the epoch.

        Raises:
            FileNotFoundError: nothing is there.
        """
        import pyarrow.fs as pafs

        info = self.filesystem.get_file_info(path)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(errno.ENOENT, "no such file", self.uri(path))
        return float(info.mtime.timestamp())

    # -- changes -----------------------------------------------------------------------------

    def missing_dirs(self, path: str) -> builtins.list[str]:
        """``path`` and those of its ancestors that do not exist, outermost first."""
        missing = []
        while path and not self.exists(path):
            missing.append(path)
            path = path.rpartition("/")[0]
        return missing[::-1]

    def make_dirs(self, path: str) -> builtins.list[str]:
        """Create the directory ``path`` and its missing ancestors; returns the directories
        this call created, outermost first (one that another process makes meanwhile is not
        among them). On S3, where directories are only prefixes, an empty ``dir/`` object
        marks each new one."""
        missing = self.missing_dirs(path)
        if missing:
            self.filesystem.create_dir(path, recursive=True)
        return missing

    @contextlib.contextmanager
    def created_dirs(self, paths: Sequence[str]) -> Iterator[None]:
        """Make sure the directories ``paths`` exist for the block: the missing ones are made
        first (:meth:`make_dirs`); if the block raises, those made here are removed again, as
        far as they are still empty."""
        created: builtins.list[str] = []
        try:
            for path in paths:
                created += self.make_dirs(path)
            yield
        except BaseException:
            for directory in reversed(created):
                with contextlib.suppress(OSError):
                    self.remove_dir(directory)
            raise

    def remove_dir(self, path: str) -> None:
        """Remove the empty directory ``path``.

        Raises:
            FileNotFoundError: there is no directory at ``path``.
            OSError: it is not empty.
        """
        entries = self.list(path)
        if entries is None:
            raise FileNotFoundError(errno.ENOENT, "no such directory", self.uri(path))
        if entries:
            raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), self.uri(path))
        self.filesystem.delete_dir(path)

    def rename(self, source: str, target: str) -> None:
        """Move the file at ``source`` to ``target``. On local disk one atomic rename; on S3 a
        copy, then a delete."""
        self.filesystem.move(source, target)

    def delete(self, path: str) -> None:
        """Delete the file at ``path``, or the directory with everything in it; nothing when
        there is nothing. A directory goes as far as it can (what cannot be deleted stays,
        silently); a file that cannot be deleted raises :class:`OSError`."""
        import pyarrow.fs as pafs

        kind = self.filesystem.get_file_info(path).type
        if kind == pafs.FileType.Directory:
            with contextlib.suppress(OSError):
                self.filesystem.delete_dir(path)
        elif kind != pafs.FileType.NotFound:
            self.filesystem.delete_file(path)

    def write_atomically(self, path: str, text: str) -> None:
        """Replace the file at ``path`` by ``text`` in one step (making its directory if
        needed): a reader sees the old contents or the new, never a part. On S3 a single PUT
        does that; on local disk see :class:`~hmscatalog.storage.local.LocalStorage`."""
        self.make_dirs(path.rpartition("/")[0])
        with self.filesystem.open_output_stream(path) as out:
            out.write(text.encode("utf-8"))

    def create(self, path: str, text: str) -> None:
        """Write a new file at ``path`` in one step that fails, with :class:`FileExistsError`,
        when a file is there (file systems with an exclusive create: HDFS)."""
        raise StorageError(f"cannot create {self.uri(path)} exclusively on {self.scheme}")

    def touch(self, path: str) -> None:
        """Set the modification time of the file at ``path`` to now (local disk only: an
        object's time changes only with its contents)."""
        raise StorageError(f"cannot touch {self.uri(path)}: {self.scheme} objects keep no "
                           "modification time apart from their contents")

    def path_of(self, location: str) -> str | None:
        """The path of ``location`` in this storage, or ``None`` when it lives on another
        kind of storage (or one hmscatalog cannot list)."""
        try:
            scheme, path = split_location(location)
        except StorageError:
            return None
        same = scheme == "file" if self.scheme == "file" else scheme in S3_SCHEMES
        return path if same else None

    def uri(self, path: str) -> str:
        """The location (``file:/...``, ``s3://bucket/...``) of a storage path."""
        if self.scheme == "file":
            return f"file:{path}"
        return f"{self.scheme}://{path}"


def s3_options(options: Mapping[str, str]) -> dict[str, Any]:
    """pyarrow ``S3FileSystem`` arguments from catalog/read options; unset ones fall back to
    the AWS SDK's usual sources (environment, ``~/.aws``). Keys: ``s3.endpoint``,
    ``s3.region``, ``s3.access-key-id``, ``s3.secret-access-key``, ``s3.session-token``."""
    args: dict[str, Any] = {}
    endpoint = options.get("s3.endpoint")
    if endpoint:
        parsed = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}")
        args["endpoint_override"] = parsed.netloc
        args["scheme"] = parsed.scheme
    for key, arg in (("s3.region", "region"), ("s3.access-key-id", "access_key"),
                     ("s3.secret-access-key", "secret_key"),
                     ("s3.session-token", "session_token")):
        if options.get(key):
            args[arg] = options[key]
    return args


# Hadoop's S3A settings that say what a storage option says, most specific first: a session
# configured for Spark's s3a:// reads lists S3 with the same endpoint and credentials.
_S3A_KEYS = {"s3.endpoint": ("fs.s3a.endpoint",),
             "s3.region": ("fs.s3a.endpoint.region", "fs.s3a.region"),
             "s3.access-key-id": ("fs.s3a.access.key",),
             "s3.secret-access-key": ("fs.s3a.secret.key",),
             "s3.session-token": ("fs.s3a.session.token",)}


def s3a_storage_options(get: Callable[[str], str | None]) -> dict[str, str]:
    """Storage options from Hadoop's S3A settings (``get`` reads a Hadoop configuration): an
    endpoint without a scheme takes ``http`` when ``fs.s3a.connection.ssl.enabled`` is
    false, as S3A does."""
    found = {}
    for option, keys in _S3A_KEYS.items():
        value = next((v for v in map(get, keys) if v), None)
        if value:
            found[option] = value
    endpoint = found.get("s3.endpoint")
    if endpoint and "://" not in endpoint:
        secure = (get("fs.s3a.connection.ssl.enabled") or "true").strip().lower() != "false"
        found["s3.endpoint"] = f"{'https' if secure else 'http'}://{endpoint}"
    return found


S3_SCHEMES = frozenset({"s3", "s3a", "s3n"})


def on_object_store(location: str | None) -> bool:
    """Whether ``location`` is on S3 (``s3://``, ``s3a://``, ``s3n://``)."""
    scheme, _, rest = (location or "").partition("://")
    return bool(rest) and scheme.lower() in S3_SCHEMES


def split_location(uri: str) -> tuple[str, str]:
    """``(scheme, path)`` of a location: ``("file", "/abs/dir")`` or ``("s3a", "bucket/key")``.

    Raises:
        StorageError: an S3 URI without a bucket, or a scheme hmscatalog cannot list.
    """
    if "://" not in uri and not uri.startswith("file:"):
        return "file", uri.rstrip("/") or "/"
    path = local_path(uri)
    if path is not None:
        return "file", str(path).rstrip("/") or "/"
    parsed = urlparse(uri)
    if parsed.scheme in S3_SCHEMES:
        if not parsed.netloc:
            raise StorageError(f"no bucket in {uri!r}")
        return parsed.scheme, f"{parsed.netloc}{parsed.path}".rstrip("/")
    if parsed.scheme and _hadoop_opener is not None:
        return parsed.scheme, parsed.path.rstrip("/") or "/"
    raise StorageError(f"unsupported storage scheme {parsed.scheme!r} in {uri!r}; "
                       "hmscatalog lists local paths, file: and s3:// locations, and those of "
                       "every other Hadoop file system (hdfs://...) in a Spark driver")


# Opens locations pyarrow cannot (hdfs://, abfs://...) through Hadoop's FileSystem in the
# Spark driver's JVM; hmscatalog.spark installs it (use_hadoop) when it first meets a session.
_hadoop_opener: Callable[[str], Storage] | None = None


def use_hadoop(opener: Callable[[str], Storage] | None) -> None:
    """Open every scheme other than ``file`` and S3's with ``opener`` from now on."""
    global _hadoop_opener
    _hadoop_opener = opener


def hadoop_opener() -> Callable[[str], Storage] | None:
    """What :func:`use_hadoop` installed, if anything."""
    return _hadoop_opener
