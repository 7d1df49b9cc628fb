"""Hive column types and partition values as typed Python values.

The metastore stores every partition value as a string. :func:`parse_value` reads such a string as
its column's Hive type and :func:`format_value` writes a typed value back in the canonical form
Spark and Hive produce when they cast a value to the column type (``'07'`` into an ``int`` column
is ``7``, written ``7``). ``None`` stands for SQL NULL.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hmscatalog.errors import InvalidPartitionValue

INTEGRAL_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
STRING_KINDS = frozenset({"string", "varchar", "char"})
PRIMITIVE_KINDS = frozenset(
    {*INTEGRAL_RANGES, *STRING_KINDS, "decimal", "float", "double", "boolean", "date",
     "timestamp", "binary"}
)
COMPLEX_KINDS = frozenset({"array", "map", "struct", "uniontype"})
_ALIASES = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint",
            "dec": "decimal", "numeric": "decimal", "real": "float"}

_TYPE_RE = re.compile(r"^\s*([a-z_]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True)
class HiveType:
    """A Hive column type: its kind plus length, precision and scale where they apply."""

    kind: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    text: str = ""

    @property
    def is_integral(self) -> bool:
        return self.kind in INTEGRAL_RANGES

    @property
    def is_string(self) -> bool:
        return self.kind in STRING_KINDS

    @property
    def can_partition(self) -> bool:
        """Whether values of this type can name a partition directory."""
        return self.kind in PRIMITIVE_KINDS and self.kind != "binary"

    def __str__(self) -> str:
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.kind in ("varchar", "char"):
            return f"{self.kind}({self.length})"
        return self.text or self.kind


def parse_hive_type(text: str) -> HiveType:
    """Parse a Hive type name such as ``int``, ``decimal(10,2)``, ``varchar(20)``.

    Complex types (``array<...>``, ``map<...>``, ``struct<...>``) parse to a type whose
    ``kind`` is the outer name, kept whole in ``text``.

    Raises:
        InvalidPartitionValue: for a name that is not a Hive type.
    """
    lowered = text.strip().lower()
    outer = lowered.split("<", 1)[0].strip()
    if outer in COMPLEX_KINDS:
        return HiveType(kind=outer, text=lowered)
    match = _TYPE_RE.match(lowered)
    if not match:
        raise InvalidPartitionValue(f"unknown Hive type {text!r}")
    kind = _ALIASES.get(match.group(1), match.group(1))
    args = [a.strip() for a in match.group(2).split(",")] if match.group(2) else []
    try:
        if kind == "decimal":
            precision = int(args[0]) if args else 10
            scale = int(args[1]) if len(args) > 1 else 0
            if not (1 <= precision <= 38 and 0 <= scale <= precision):
                raise ValueError
            return HiveType(kind, precision=precision, scale=scale, text=lowered)
        if kind in ("varchar", "char"):
            if len(args) != 1:
                raise ValueError
            return HiveType(kind, length=int(args[0]), text=lowered)
    except (ValueError, IndexError):
        raise InvalidPartitionValue(f"malformed Hive type {text!r}") from None
    if kind not in PRIMITIVE_KINDS or args:
        raise InvalidPartitionValue(f"unknown Hive type {text!r}")
    return HiveType(kind, text=kind)


_TRUE = frozenset({"t", "true", "y", "yes", "1"})
_FALSE = frozenset({"f", "false", "n", "no", "0"})
_DATE_RE = re.compile(r"^([+-]?\d{4,6})-(\d{1,2})-(\d{1,2})$")
_TS_RE = re.compile(
    r"^([+-]?\d{4,6})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?$"
)


def _bad(value: str, hive_type: HiveType, why: str = "") -> InvalidPartitionValue:
    suffix = f": {why}" if why else ""
    return InvalidPartitionValue(f"value {value!r} is not a valid {hive_type}{suffix}")


def parse_value(text: str | None, hive_type: HiveType) -> Any:
    """Read a partition value string as ``hive_type``; ``None`` stays ``None``.

    Leading and trailing blanks are ignored for non-string types, as in Spark's casts.

    Raises:
        InvalidPartitionValue: naming the value and the type when the string does not parse.
    """
    if text is None:
        return None
    kind = hive_type.kind
    if hive_type.is_string:
        return text
    stripped = text.strip()
    if hive_type.is_integral:
        if not re.fullmatch(r"[+-]?\d+", stripped):
            raise _bad(text, hive_type)
        number = int(stripped)
        low, high = INTEGRAL_RANGES[kind]
        if not low <= number <= high:
            raise _bad(text, hive_type, "out of range")
        return number
    if kind == "decimal":
        try:
            number_d = decimal.Decimal(stripped)
        except decimal.InvalidOperation:
            raise _bad(text, hive_type) from None
        if not number_d.is_finite():
            raise _bad(text, hive_type)
        quantum = decimal.Decimal(1).scaleb(-(hive_type.scale or 0))
        rounded = number_d.quantize(quantum, rounding=decimal.ROUND_HALF_UP,
                                  context=decimal.Context(prec=80))
        if len(rounded.as_tuple().digits) > (hive_type.precision or 38) and rounded != 0:
            raise _bad(text, hive_type, "too many digits")
        return rounded
    if kind in ("double", "float"):
        try:
            number_f = float(stripped)
        except ValueError:
            raise _bad(text, hive_type) from None
        return as_float32(number_f) if kind == "float" else number_f
    if kind == "boolean":
        lowered = stripped.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise _bad(text, hive_type)
    if kind == "date":
        match = _DATE_RE.match(stripped)
        try:
            if not match:
                raise ValueError
            return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            raise _bad(text, hive_type) from None
    if kind == "timestamp":
        match = _TS_RE.match(stripped)
        try:
            if not match:
                raise ValueError
            y, mo, d, h, mi, s, frac = match.groups()
            micros = int((frac or "0").ljust(9, "0")[:6])
            return dt.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
                               micros)
        except ValueError:
            raise _bad(text, hive_type) from None
    raise InvalidPartitionValue(f"type {hive_type} cannot hold a partition value")


def as_float32(value: float) -> float:
    """``value`` rounded to the nearest single-precision float (as Java's ``(float)`` cast)."""
    return struct.unpack("f", struct.pack("f", value))[0]


NumberText = Callable[[float, bool], str]
"""``(value, single)`` → the text of a DOUBLE (a FLOAT when ``single``) value."""

_number_text: NumberText | None = None


def use_number_text(text: NumberText | None) -> None:
    """Write FLOAT and DOUBLE partition values with ``text``: the Spark layer installs its
    JVM's own ``Float.toString``/``Double.toString``, since that is how Spark names such a
    partition, and their digits depend on the Java release (before Java 19 they are not always
    the shortest: 8.41E21 is ``8.409999999999999E21``). ``None``: the shortest digits, as
    Java 19 and later write them."""
    global _number_text
    _number_text = text


def _java_double_string(value: float, single: bool) -> str:
    """Java's ``Double.toString``/``Float.toString`` layout over Python's shortest digits (the
    digits of Java 19 and later)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if single:
        for digits in range(1, 10):
            candidate = f"{value:.{digits}g}"
            if struct.unpack("f", struct.pack("f", float(candidate)))[0] == value:
                value_text = candidate
                break
        else:  # pragma: no cover - 9 digits always round-trip a float32
            value_text = repr(value)
    else:
        value_text = repr(value)
    sign = "-" if value_text.startswith("-") else ""
    dec = decimal.Decimal(value_text.lstrip("-"))
    mantissa_digits = "".join(map(str, dec.as_tuple().digits)).rstrip("0") or "0"
    exponent = dec.adjusted()
    if -3 <= exponent < 7:
        plain = format(dec, "f")
        if "." not in plain:
            plain += ".0"
        whole, frac = plain.split(".")
        frac = frac.rstrip("0") or "0"
        return f"{sign}{whole}.{frac}"
    frac = mantissa_digits[1:] or "0"
    return f"{sign}{mantissa_digits[0]}.{frac}E{exponent}"


def format_value(value: Any, hive_type: HiveType) -> str | None:
    """Write a typed value in the canonical string form for ``hive_type``.

    Raises:
        InvalidPartitionValue: if the value does not fit the type.
    """
    if value is None:
        return None
    kind = hive_type.kind
    if isinstance(value, str) and not hive_type.is_string:
        value = parse_value(value, hive_type)
    if hive_type.is_string:
        return str(value)
    if hive_type.is_integral:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(repr(value), hive_type)
        low, high = INTEGRAL_RANGES[kind]
        if not low <= value <= high:
            raise _bad(str(value), hive_type, "out of range")
        return str(value)
    if kind == "decimal":
        return format(parse_value(str(decimal.Decimal(value)), hive_type), "f")
    if kind in ("double", "float"):
        single = kind == "float"
        number = as_float32(float(value)) if single else float(value)
        if _number_text is not None and math.isfinite(number) and number != 0:
            return _number_text(number, single)
        return _java_double_string(number, single)
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "date":
        if isinstance(value, dt.datetime):
            value = value.date()
        if not isinstance(value, dt.date):
            raise _bad(repr(value), hive_type)
        return value.isoformat()
    if kind == "timestamp":
        if not isinstance(value, dt.datetime):
            raise _bad(repr(value), hive_type)
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        if value.microsecond:
            text += "." + f"{value.microsecond:06d}".rstrip("0")
        return text
    raise InvalidPartitionValue(f"type {hive_type} cannot hold a partition value")
