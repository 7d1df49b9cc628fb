"""Guess Hive types for the values in ``key=value`` directory names.

Without a table in the metastore, a path read only has directory names. This works like DuckDB's
``hive_types_autocast`` and Spark's ``spark.sql.sources.partitionColumnTypeInference.enabled``.
For each key, the first of BIGINT, DOUBLE, DATE and TIMESTAMP that every non-NULL value fits is
chosen, and STRING otherwise. A value fits a type only if :func:`parse_value` reads it as that
type *and* it is written the way that type is written:

* Numbers are ``-?digits`` with an optional ``.digits`` fraction and ``e``/``E`` exponent. The
  integer part has no leading zero unless it is just ``0``, so ``01``, ``007``, ``-05``, ``00``
  and ``007.5`` make the key STRING. ``-0`` does too, since it reads back as ``0``. Spark infers
  INT and DuckDB BIGINT for ``month=01``, but the value ``1`` no longer names the directory, and
  formatting it back gives ``1``, not ``01``. ``+1``, ``1.``, ``.5``, blanks around a value,
  ``NaN``, ``Infinity``, hex, non-ASCII digits and values beyond a double's range (``1e999``)
  are STRING as well.
* BIGINT takes integers in the signed 64-bit range. A key whose values are all such integers is
  never DOUBLE. A key mixing integers with fractions, or holding a larger integer, is DOUBLE.
* DATE is ``yyyy-MM-dd`` with a real date: ``2024-02-30`` makes the key STRING.
* TIMESTAMP is ``yyyy-MM-dd HH:mm:ss`` with an optional fraction of up to 9 digits. A ``T`` may
  replace the blank, as both :func:`parse_value` and Spark accept it. A key that mixes dates with
  timestamps is TIMESTAMP, with each date read as midnight.
* NULLs (``None``, i.e. ``__HIVE_DEFAULT_PARTITION__``) never decide a type. A key that has only
  NULLs is STRING. The empty string fits no type except STRING.

These rules mean BIGINT and DATE values format back to their original text, and every value
parses as the type inferred for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions.types import HiveType, parse_hive_type, parse_value

STRING = parse_hive_type("string")

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


def infer_partition_types(
    values: Mapping[str, Iterable[str | None]],
    explicit: Mapping[str, str] | None = None,
    autocast: bool = True,
) -> dict[str, HiveType]:
    """Give a Hive type to each partition key in ``values``, keeping the keys' order.

    ``values`` maps each key to the unescaped directory values seen for it, with ``None`` for
    NULL. ``explicit`` maps keys (matched without regard to case) to Hive type text. An explicit
    type beats inference. Explicit types for keys that were not seen are still checked, then
    left out of the result. With ``autocast`` off, every key without an explicit type is STRING.

    Raises:
        InvalidPartitionValue: if an explicit type is not a Hive type that can partition, if
            two spellings of one key get different types, or if a seen value does not parse as
            its key's explicit type.
    """
    declared = _explicit_types(explicit or {})
    types: dict[str, HiveType] = {}
    for key, seen in values.items():
        present = [value for value in seen if value is not None]
        hive_type = declared.get(key.lower())
        if hive_type is not None:
            for value in present:
                try:
                    parse_value(value, hive_type)
                except InvalidPartitionValue as error:
                    raise InvalidPartitionValue(
                        f"partition key {key!r}: value {value!r} does not parse as its "
                        f"explicit type {hive_type}: {error}"
                    ) from None
            types[key] = hive_type
        else:
            types[key] = _infer(present) if autocast else STRING
    return types


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


def _infer(present: list[str]) -> HiveType:
    """The first candidate type that every value fits, else STRING (also when none are seen)."""
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
