"""Guess Hive types for the values in ``key=value`` directory names, and read those values.

Without a table in the metastore, a path read only has directory names. Values are given as
they are written in the names (*raw*: still escaped, ``k=a%20b`` has the raw value ``a%20b``);
the raw value ``__HIVE_DEFAULT_PARTITION__`` is NULL, while an escaped spelling of it
(``%5F_HIVE_DEFAULT_PARTITION__``) is that string, as in Spark. Two ways to infer are offered.

``"spark"`` (the default) infers what Spark infers with
``spark.sql.sources.partitionColumnTypeInference.enabled`` (its default), so that a path read
and ``spark.read.parquet`` of one tree have one schema. Each raw value gets the first type it
fits, in Spark's order:

* INT, then BIGINT: ``[+-]?digits`` in range (Java's ``parseLong``: ``007``, ``+1`` and ``-0``
  are integers, so ``month=07`` is INT 7);
* DECIMAL(p,0): a Java ``BigDecimal`` without a fraction once its exponent is applied (``1e5``,
  ``1.5e1``, ``7.``, integers beyond BIGINT), up to 38 digits;
* DOUBLE: anything Java's ``Double.parseDouble`` reads (``1.5``, ``.5``, ``1d``, ``NaN``, blanks
  around the number);
* TIMESTAMP: ``yyyy-MM-dd HH:mm:ss`` with at most one fraction digit, read unescaped
  (``2024-01-01 10%3A00%3A00``); DATE: ``yyyy-MM-dd``; both must name a real date and time
  (from year 1: Spark also takes year 0, which Python cannot represent);
* STRING otherwise. Spark 4.3 also infers TIME for ``HH:mm:ss[.ffffff]``; Hive has no TIME
  type, so such values are STRING here.

A key's type is the widest of its values' types, by Spark's rules: INT and BIGINT widen to
BIGINT, integers and decimals to a wide enough DECIMAL, INT and DOUBLE to DOUBLE, DATE and
TIMESTAMP to TIMESTAMP, and every other mix (BIGINT or DECIMAL with DOUBLE, numbers with dates)
to STRING. NULLs never decide a type; a key with only NULLs is STRING (Spark says VOID, which
no Hive column can be).

``"keep_spelling"`` infers a type only when every value is written exactly as that type writes
it back, so a value always names its directory again (DuckDB and Spark differ from it):

* BIGINT: ``0`` or ``-?[1-9]digits`` in range; ``01``, ``007``, ``-0`` and ``+1`` are STRING;
* DOUBLE: such an integer part with an optional ``.digits`` fraction and exponent, finite; a
  key mixing integers with fractions, or holding larger integers, is DOUBLE;
* DATE ``yyyy-MM-dd``; TIMESTAMP ``yyyy-MM-dd HH:mm:ss`` with up to 9 fraction digits (``T``
  may replace the blank); dates mixed with timestamps make TIMESTAMP;
* STRING otherwise; a key with only NULLs is STRING, and so is one holding an empty value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME, unescape_path_name
from hmscatalog.partitions.types import INTEGRAL_RANGES, HiveType, parse_hive_type, parse_value

Inference = Literal["spark", "keep_spelling"]
INFERENCES: tuple[Inference, ...] = ("spark", "keep_spelling")

STRING = parse_hive_type("string")


def infer_partition_types(
    values: Mapping[str, Iterable[str | None]],
    explicit: Mapping[str, str] | None = None,
    autocast: bool = True,
    inference: Inference = "spark",
) -> dict[str, HiveType]:
    """Give a Hive type to each partition key in ``values``, keeping the keys' order.

    ``values`` maps each key to the raw directory values seen for it (``None`` is NULL too).
    ``explicit`` maps keys (matched without regard to case) to Hive type text; an explicit type
    beats inference. Explicit types for keys that were not seen are still checked, then left
    out of the result. With ``autocast`` off, every key without an explicit type is STRING.

    Raises:
        InvalidPartitionValue: if an explicit type is not a Hive type that can partition, if
            two spellings of one key get different types, if a seen value does not parse as
            its key's explicit type, or if ``inference`` is not one of :data:`INFERENCES`.
    """
    if inference not in INFERENCES:
        raise InvalidPartitionValue(f"type inference {inference!r} is not one of {INFERENCES}")
    declared = _explicit_types(explicit or {})
    types: dict[str, HiveType] = {}
    for key, seen in values.items():
        present = [value for value in seen if value is not None and value != DEFAULT_PARTITION_NAME]
        hive_type = declared.get(key.lower())
        if hive_type is not None:
            for value in present:
                try:
                    directory_value(value, hive_type)
                except InvalidPartitionValue as error:
                    raise InvalidPartitionValue(
                        f"partition key {key!r}: value {value!r} does not parse as its "
                        f"explicit type {hive_type}: {error}"
                    ) from None
            types[key] = hive_type
        elif not autocast:
            types[key] = STRING
        elif inference == "spark":
            types[key] = _infer_as_spark(present)
        else:
            types[key] = _infer_keeping_spelling([unescape_path_name(v) for v in present])
    return types


def directory_value(raw: str | None, hive_type: HiveType) -> Any:
    """The typed value of a raw directory value, read as Spark reads it for a path: numbers
    and dates from the raw text, strings and timestamps unescaped; the raw
    ``__HIVE_DEFAULT_PARTITION__`` (and ``None``) is NULL.

    Where Spark would turn a value it cannot read into NULL (a bad date) or wrap it (300 as a
    TINYINT), this raises instead.

    Raises:
        InvalidPartitionValue: naming the value and the type.
    """
    if raw is None or raw == DEFAULT_PARTITION_NAME:
        return None
    kind = hive_type.kind
    text = unescape_path_name(raw)
    if hive_type.is_string:
        return text
    if hive_type.is_integral:
        if not _INT.fullmatch(raw):
            raise _bad(text, hive_type)
        return parse_value(raw, hive_type)
    if kind in ("double", "float"):
        if not _DOUBLE.fullmatch(raw):
            raise _bad(text, hive_type)
        return parse_value(_python_float_text(raw), hive_type)
    if kind == "decimal" and not _DECIMAL.fullmatch(raw):
        raise _bad(text, hive_type)
    return parse_value(text if kind == "timestamp" else raw, hive_type)


def _bad(text: str, hive_type: HiveType) -> InvalidPartitionValue:
    return InvalidPartitionValue(f"value {text!r} is not a {hive_type}")


def _explicit_types(explicit: Mapping[str, str]) -> dict[str, HiveType]:
    """Parse the explicit types and key them by lower-cased key, the way Hive keys are named."""
    declared: dict[str, HiveType] = {}
    for key, text in explicit.items():
        try:
            hive_type = parse_hive_type(text)
        except InvalidPartitionValue as error:
            raise InvalidPartitionValue(
                f"partition key {key!r}: explicit type {text!r} is invalid: {error}"
            ) from None
        if not hive_type.can_partition:
            raise InvalidPartitionValue(
                f"partition key {key!r}: explicit type {text!r} cannot hold a partition value"
            )
        previous = declared.setdefault(key.lower(), hive_type)
        if previous != hive_type:
            raise InvalidPartitionValue(
                f"partition key {key!r} has two explicit types, {previous} and {hive_type}"
            )
    return declared


# -- Spark's inference -----------------------------------------------------------------------

# Java's Integer.parseInt/Long.parseLong (any Unicode decimal digit, as Character.digit takes).
_INT = re.compile(r"[+-]?\d+")
# java.math.BigDecimal(String): a mantissa with an optional point, an optional exponent.
_DECIMAL = re.compile(r"[+-]?(?P<whole>\d*)(?:\.(?P<fraction>\d*))?(?:[eE](?P<exp>[+-]?\d+))?")
# Java's Double.parseDouble: ASCII digits, hexadecimal with a binary exponent, NaN, Infinity,
# a type suffix, and characters up to the blank trimmed from both ends.
_DOUBLE = re.compile(
    r"[\x00-\x20]*[+-]?(?:NaN|Infinity|(?:"
    r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
    r")[fFdD]?)[\x00-\x20]*")
# Spark's partition timestamp pattern "yyyy-MM-dd HH:mm:ss[.S]" and date pattern "yyyy-MM-dd".
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})"
                        r"(?:\.[0-9])?")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_JAVA_BLANKS = "".join(map(chr, range(0x21)))  # what Java's String.trim removes
_MAX_DECIMAL_DIGITS = 38
_INT_RANGE = INTEGRAL_RANGES["int"]
_BIGINT_RANGE = INTEGRAL_RANGES["bigint"]

# A value's Spark type while widening: a kind, and the precision of a decimal.
_SparkType = tuple[str, int]
_NULL: _SparkType = ("null", 0)
_TEXT: _SparkType = ("string", 0)


def _infer_as_spark(present: list[str]) -> HiveType:
    widest = _NULL
    for raw in present:
        widest = _wider(widest, _spark_type(raw))
    kind, precision = widest
    if kind == "decimal":
        return parse_hive_type(f"decimal({precision},0)")
    return STRING if kind == "null" else parse_hive_type(kind)


def _spark_type(raw: str) -> _SparkType:
    """The type Spark infers for one raw value (``PartitioningUtils.inferPartitionColumnValue``),
    with TIME as STRING."""
    if _INT.fullmatch(raw):
        number = int(raw)
        if _INT_RANGE[0] <= number <= _INT_RANGE[1]:
            return ("int", 0)
        if _BIGINT_RANGE[0] <= number <= _BIGINT_RANGE[1]:
            return ("bigint", 0)
    precision = _decimal_precision(raw)
    if precision is not None:
        return ("decimal", precision)
    if _DOUBLE.fullmatch(raw):
        return ("double", 0)
    if _is_timestamp(unescape_path_name(raw)):
        return ("timestamp", 0)
    if _is_date(raw):
        return ("date", 0)
    return _TEXT


def _decimal_precision(raw: str) -> int | None:
    """The precision Spark gives a raw value read as a ``BigDecimal`` of scale 0 or less (the
    unscaled digits, plus the zeros a negative scale stands for), or ``None`` when it is not
    one or needs more than 38 digits."""
    match = _DECIMAL.fullmatch(raw)
    if match is None or not (match["whole"] or match["fraction"]):
        return None
    fraction = match["fraction"] or ""
    scale = len(fraction) - int(match["exp"] or 0)
    if scale > 0:
        return None
    digits = len(((match["whole"] or "") + fraction).lstrip("0")) or 1
    precision = digits - scale
    return precision if precision <= _MAX_DECIMAL_DIGITS else None


def _is_timestamp(text: str) -> bool:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(part) for part in match.groups())
    return _is_real_date(year, month, day) and hour < 24 and minute < 60 and second < 60


def _is_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    return match is not None and _is_real_date(*(int(part) for part in match.groups()))


def _is_real_date(year: int, month: int, day: int) -> bool:
    """In the proleptic Gregorian calendar. Spark also has a year 0, which Python's dates do not,
    so values in it are STRING here rather than dates no Python worker could read."""
    if year < 1 or not 1 <= month <= len(_MONTH_DAYS):
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= day <= _MONTH_DAYS[month - 1] + (month == 2 and leap)


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _wider(one: _SparkType, other: _SparkType) -> _SparkType:
    """Spark's ``findWiderTypeForPartitionColumn`` over the types a value can get."""
    if one == _NULL:
        return other
    if other == _NULL or one == other:
        return one
    kinds = {one[0], other[0]}
    if "string" in kinds:
        return _TEXT
    if kinds == {"int", "bigint"}:
        return ("bigint", 0)
    if kinds == {"decimal"}:
        return ("decimal", max(one[1], other[1]))
    if kinds in ({"int", "decimal"}, {"bigint", "decimal"}):
        integer_digits = 10 if "int" in kinds else 20
        return ("decimal", min(_MAX_DECIMAL_DIGITS, max(one[1], other[1], integer_digits)))
    if kinds == {"int", "double"}:
        return ("double", 0)
    if kinds == {"date", "timestamp"}:
        return ("timestamp", 0)
    return _TEXT


def _python_float_text(raw: str) -> str:
    """A Java ``Double.parseDouble`` spelling as Python's ``float`` reads it."""
    text = raw.strip(_JAVA_BLANKS)
    if text[-1:] in ("f", "F", "d", "D"):  # a type suffix (NaN and Infinity take none)
        text = text[:-1]
    if "x" in text.lower():
        return repr(float.fromhex(text))
    return text


# -- inference that keeps the spelling --------------------------------------------------------

# Each candidate type, in the order tried, with the exact spellings that may infer it. ASCII
# digits only: int() also reads other scripts' digits, which would not format back the same.
_CANDIDATES: tuple[tuple[HiveType, re.Pattern[str]], ...] = (
    (parse_hive_type("bigint"), re.compile(r"0|-?[1-9]\d*", re.ASCII)),
    (parse_hive_type("double"),
     re.compile(r"(?!-0\Z)-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?", re.ASCII)),
    (parse_hive_type("date"), re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)),
    (parse_hive_type("timestamp"),
     re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)?", re.ASCII)),
)


def _infer_keeping_spelling(present: list[str]) -> HiveType:
    """The first candidate type that every (unescaped) value fits, else STRING (also when
    none are seen)."""
    if present:
        for hive_type, spelling in _CANDIDATES:
            if all(_fits(value, hive_type, spelling) for value in present):
                return hive_type
    return STRING


def _fits(value: str, hive_type: HiveType, spelling: re.Pattern[str]) -> bool:
    """Whether ``value`` is spelled as ``hive_type`` allows and parses as a finite value."""
    if not spelling.fullmatch(value):
        return False
    try:
        parsed = parse_value(value, hive_type)
    except InvalidPartitionValue:
        return False
    return not isinstance(parsed, float) or math.isfinite(parsed)
