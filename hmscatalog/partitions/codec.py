"""Hive's partition path codec.

Directory names of partitions are ``key=value`` segments joined by ``/``. Keys and values are
escaped exactly as Hive's ``FileUtils.escapePathName`` (mirrored by Spark's
``ExternalCatalogUtils``) does: the control characters U+0001..U+001F, the characters
``"#%'*/:=?\\``, U+007F and ``{[]^`` become ``%XX`` with uppercase hex digits; everything else,
non-ASCII included, is kept as it is. NULL and the empty string are written as
``__HIVE_DEFAULT_PARTITION__``.

Unescaping follows Hive's ``unescapePathName`` to the letter, including its quirks: it works on
UTF-16 code units, decodes ``%`` followed by two characters that Java's ``Integer.parseInt(s, 16)``
accepts as a non-negative number (so ``%+1`` and ``%-0`` decode too), and leaves any other ``%``
alone.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from hmscatalog.errors import InvalidPartitionSpec

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

_ESCAPED = frozenset(
    [chr(c) for c in range(0x01, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^")
)


def escape_path_name(text: str) -> str:
    """Escape one key or value for use in a partition directory name."""
    if not any(ch in _ESCAPED for ch in text):
        return text
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in text)


def _java_digit(unit: int) -> int:
    """``Character.digit(unit, 16)`` for one UTF-16 code unit."""
    if 0x30 <= unit <= 0x39:
        return unit - 0x30
    if 0x41 <= unit <= 0x46 or 0x61 <= unit <= 0x66:
        return (unit | 0x20) - 0x61 + 10
    if 0xFF21 <= unit <= 0xFF26:  # fullwidth A-F
        return unit - 0xFF21 + 10
    if 0xFF41 <= unit <= 0xFF46:  # fullwidth a-f
        return unit - 0xFF41 + 10
    if 0xD800 <= unit <= 0xDFFF:
        return -1
    value = unicodedata.decimal(chr(unit), -1)
    return int(value)


def _java_parse_hex2(first: int, second: int) -> int:
    """``Integer.parseInt`` in base 16 of a two-unit string; -1 where Java would throw."""
    if first in (0x2B, 0x2D):  # '+' or '-' followed by one digit
        digit = _java_digit(second)
        if digit < 0:
            return -1
        return -digit if first == 0x2D else digit
    high, low = _java_digit(first), _java_digit(second)
    if high < 0 or low < 0:
        return -1
    return high * 16 + low


def unescape_path_name(text: str) -> str:
    """Undo :func:`escape_path_name` the way Hive does (see the module docstring)."""
    if "%" not in text:
        return text
    units = memoryview(text.encode("utf-16-le", "surrogatepass")).cast("H")
    out: list[int] = []
    i, n = 0, len(units)
    while i < n:
        unit = units[i]
        if unit == 0x25 and i + 2 < n:
            code = _java_parse_hex2(units[i + 1], units[i + 2])
            # A negative code other than "-0" fails; "-0" parses to 0 and is decoded.
            if code >= 0:
                out.append(code)
                i += 3
                continue
        out.append(unit)
        i += 1
    raw = b"".join(u.to_bytes(2, "little") for u in out)
    return raw.decode("utf-16-le", "surrogatepass")


def make_part_name(keys: Sequence[str], values: Sequence[str | None]) -> str:
    """The metastore partition name (and relative path) for partition value strings.

    Keys are lower-cased as Hive does; a ``None`` or empty value becomes
    ``__HIVE_DEFAULT_PARTITION__``.

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
        segments.append(f"{escape_path_name(key.lower())}={segment_value}")
    return "/".join(segments)


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
