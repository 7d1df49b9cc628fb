"""Metastore locations on the local file system.

Locations are Hadoop paths, taken literally: ``a%2Fb`` is a directory of that name (as Hive and
Spark wrote it), never URL-decoded.
"""

from __future__ import annotations

import re
from pathlib import Path


def local_path(location: str | None) -> Path | None:
    """The local path of a ``file:`` location (``file:/x``, ``file:///x``, ``file://localhost/x``),
    or ``None`` for any other file system or host."""
    path = local_path_text(location)
    return None if path is None else Path(path)


def local_path_text(location: str | None) -> str | None:
    """:func:`local_path` as a string (no ``Path`` made: a query checks thousands)."""
    if not location or not location.startswith("file:"):
        return None
    path = location[5:]
    if path.startswith("//"):
        authority, slash, rest = path[2:].partition("/")
        if authority not in ("", "localhost"):
            return None
        path = slash + rest
    return path


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_PREFIX = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*:)(?P<authority>//[^/]*)?")


def resolve_location(path: str, base: str) -> str:
    """``path`` as a location, resolved against the location ``base`` as Hadoop resolves a
    path against its parent: one with a scheme stays as it is; an absolute path takes the
    scheme and authority of ``base`` (``/data/x`` against ``hdfs://nn/w/t`` is
    ``hdfs://nn/data/x``, against ``file:/w/t`` it is ``file:/data/x``); any other is below
    ``base``."""
    if _SCHEME.match(path):
        return path
    prefix = _PREFIX.match(base)
    if path.startswith("//"):  # a network path: the scheme only
        return (prefix["scheme"] if prefix else "") + path
    if path.startswith("/"):
        return (prefix.group(0) if prefix else "") + path
    return base.rstrip("/") + "/" + path
