"""The storage that holds a location: local disk (:class:`~hmscatalog.storage.local.LocalStorage`),
S3 through pyarrow, and in a Spark driver every other Hadoop file system (installed by
:func:`~hmscatalog.storage.filesystems.use_hadoop`)."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator, Mapping, Sequence

from hmscatalog.errors import StorageError
from hmscatalog.storage.filesystems import (
    S3_SCHEMES,
    Storage,
    hadoop_opener,
    s3_options,
    split_location,
)
from hmscatalog.storage.local import UMASK_KEY, LocalStorage, umask


def open_storage(uri: str, options: Mapping[str, str] | None = None) -> tuple[Storage, str]:
    """The storage holding ``uri`` and the path of ``uri`` inside it.

    Accepts local paths, ``file:`` locations, and ``s3://``/``s3a://``/``s3n://`` URIs
    (listed with pyarrow), and in a Spark driver any other Hadoop file system's
    (:mod:`hmscatalog.storage.hadoop`).
    """
    import pyarrow.fs as pafs

    scheme, path = split_location(uri)
    if scheme == "file":
        return LocalStorage(umask((options or {}).get(UMASK_KEY))), path
    hadoop = hadoop_opener()
    if scheme not in S3_SCHEMES and hadoop is not None:
        return hadoop(uri), path
    try:
        filesystem = pafs.S3FileSystem(**s3_options(options or {}))
    except (OSError, ValueError, TypeError) as exc:
        raise StorageError(f"cannot open S3 for {uri!r}: {exc}") from exc
    return Storage(filesystem, scheme), path


@contextlib.contextmanager
def created_directories(locations: Sequence[str],
                        options: Mapping[str, str] | None = None) -> Iterator[None]:
    """:meth:`Storage.created_dirs` for locations (``file:/...``, ``s3://...``): the missing
    directories are made before the block and removed again, while still empty, if it raises.
    """
    groups: dict[str, tuple[Storage, builtins.list[str]]] = {}
    for location in locations:
        scheme, path = split_location(location)
        if scheme not in groups:
            groups[scheme] = (open_storage(location, options)[0], [])
        groups[scheme][1].append(path)
    with contextlib.ExitStack() as stack:
        for storage, paths in groups.values():
            stack.enter_context(storage.created_dirs(paths))
        yield
