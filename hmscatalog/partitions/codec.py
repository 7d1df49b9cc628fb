"""Hive's partition path codec.

Directory names of partitions are ``key=value`` segments joined by ``/``. Keys and values are
escaped exactly as Hive's ``FileUtils.escapePathName`` (mirrored by Spark's
``ExternalCatalogUtils``) does: the control characters U+0001..U+001F, the characters
``"#%'*/:=?\\``, U+007F and ``{[]^`` become ``%XX`` with uppercase hex digits; everything else,
non-ASCII included, is kept as it is. (Hive 2.3 also escapes U+0000; Spark does not, and
hmscatalog writes the names Spark writes.) NULL and the empty string are written as
``__HIVE_DEFAULT_PARTITION__``.

Unescaping decodes ``%`` followed by two ASCII hex digits (either case) and keeps every other
``%`` as it is, as Spark 4's ``ExternalCatalogUtils.unescapePathName`` does. Hive 2.3's
``FileUtils.unescapePathName`` parses the two characters with ``Integer.parseInt`` and so also
decodes oddities such as ``%+1``, ``%-0`` or non-ASCII digits; no escaped name contains them, and
hmscatalog follows Spark there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hmscatalog.errors import InvalidPartitionSpec, InvalidPartitionValue

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

ESCAPED_CHARACTERS = frozenset(
    [chr(c) for c in range(0x01, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^")
)


def escape_path_name(text: str) -> str:
    """Escape one key or value for use in a partition directory name."""
    if not any(ch in ESCAPED_CHARACTERS for ch in text):
        return text
    return "".join(f"%{ord(ch):02X}" if ch in ESCAPED_CHARACTERS else ch for ch in text)


_ESCAPE_SEQUENCE = re.compile(r"%([0-9A-Fa-f]{2})")


def unescape_path_name(text: str) -> str:
    """Undo :func:`escape_path_name` (see the module docstring for malformed input)."""
    if "%" not in text:
        return text
    return _ESCAPE_SEQUENCE.sub(lambda m: chr(int(m.group(1), 16)), text)


def make_part_name(keys: Sequence[str], values: Sequence[str | None]) -> str:
    """The metastore partition name (and relative path) for partition value strings.

    Keys are lower-cased as Hive does; a ``None`` or empty value becomes
    ``__HIVE_DEFAULT_PARTITION__``.

    Raises:
        InvalidPartitionSpec: if ``keys`` and ``values`` differ in length or a key is empty.
    """
    return partition_path([key.lower() for key in keys], values)


def partition_path(keys: Sequence[str], values: Sequence[str | None]) -> str:
    """The relative path of a partition's directory, ``k1=v1/k2=v2``, keys as given: Spark
    names a partition's directory after its columns' names in their own case (``Dt=x``),
    where the metastore's name of the partition is lower case (``dt=x``). Escaped and
    defaulted as :func:`make_part_name`.

    Raises:
        InvalidPartitionSpec: if ``keys`` and ``values`` differ in length or a key is empty.
    """
    if len(keys) != len(values):
        raise InvalidPartitionSpec(
            f"partition spec has {len(values)} values for {len(keys)} columns {list(keys)}"
        )
    segments = []
    for key, value in zip(keys, values, strict=True):
        if not key:
            raise InvalidPartitionSpec("partition column name is empty")
        segment_value = DEFAULT_PARTITION_NAME if not value else escape_path_name(value)
        segments.append(f"{escape_path_name(key)}={segment_value}")
    return "/".join(segments)


def with_keys(name: str, keys: Sequence[str]) -> str:
    """The partition name or path ``name`` (``k1=v1/k2=v2``) with its keys replaced, in order,
    by ``keys``: a directory Spark wrote (``Dt=x``) to the metastore's name of its partition
    (``dt=x``), or back. ``""`` (no partition columns) stays ``""``.

    Raises:
        InvalidPartitionSpec: ``name`` is not of the form ``k=v/...`` with one segment per key.
    """
    if not name and not keys:
        return name
    return partition_path(keys, [value for _, value in parse_part_name(name)])


def parse_part_name(name: str) -> list[tuple[str, str]]:
    """Split a partition name (``k1=v1/k2=v2``) into unescaped ``(key, value)`` pairs.

    Each segment is split at its first unescaped ``=`` (escaped ones are ``%3D``), as Spark does.

    Raises:
        InvalidPartitionSpec: if a segment has no ``=`` or an empty key.
    """
    pairs = []
    for segment in name.strip("/").split("/"):
        key, sep, value = segment.partition("=")
        if not sep or not key:
            raise InvalidPartitionSpec(
                f"partition name {name!r}: segment {segment!r} is not of the form key=value"
            )
        pairs.append((unescape_path_name(key), unescape_path_name(value)))
    return pairs


# The longest file or directory name local file systems and HDFS accept, in bytes.
MAX_NAME_BYTES = 255


def check_static_value(table: str, column: str, value: str) -> None:
    """Refuse a partition value (of a PARTITION clause, a partition added) that no partition
    directory can be named after, before anything is written (Spark would fail in a task with
    "Mkdirs failed" and no word of the value; Python with "embedded null byte").

    Raises:
        InvalidPartitionValue: the value holds U+0000, or its directory name is too long.
    """
    if "\0" in value:
        raise InvalidPartitionValue(
            f"partition value {value!r} of column {column} of table {table} contains U+0000 "
            "(NUL), which a partition directory name cannot hold")
    name = make_part_name([column], [value])
    size = len(name.encode("utf-8"))
    if size > MAX_NAME_BYTES:
        raise InvalidPartitionValue(
            f"partition value {value[:40]!r}... of column {column} of table {table} makes a "
            f"directory name of {size} bytes, over the {MAX_NAME_BYTES} bytes file systems "
            "allow")
