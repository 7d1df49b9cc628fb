"""Metastore locations on the local file system.

Locations are Hadoop paths, taken literally: ``a%2Fb`` is a directory of that name (as Hive and
Spark wrote it), never URL-decoded.
"""

from __future__ import annotations

from pathlib import Path


def local_path(location: str | None) -> Path | None:
    """The local path of a ``file:`` location (``file:/x``, ``file:///x``, ``file://localhost/x``),
    or ``None`` for any other file system or host."""
    if not location or not location.startswith("file:"):
        return None
    path = location.removeprefix("file:")
    if path.startswith("//"):
        authority, slash, rest = path[2:].partition("/")
        if authority not in ("", "localhost"):
            return None
        path = slash + rest
    return Path(path)
