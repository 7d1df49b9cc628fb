"""Spark's casts of partition values, where their result is certain.

Used to evaluate conditions on ``CAST(column AS type)``. A cast whose outcome depends on settings
or on formatting rules not modelled here (ANSI overflow, float formatting, time zones) gives
:data:`UNKNOWN`, so the condition is unknown and the partition is kept.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from hmscatalog.partitions.types import INTEGRAL_RANGES, HiveType

UNKNOWN = object()

_DATE = re.compile(r"\s*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\s*")
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")
_EXACT_DOUBLE = 2**53


def cast_value(value: Any, source: HiveType, target: HiveType) -> Any:
    """``CAST(value AS target)`` for a typed partition value of type ``source``, or UNKNOWN."""
    if value is None:
        return None
    if target.kind == source.kind and target.kind not in ("decimal", "varchar", "char"):
        return value
    if target.kind == "string":
        return _to_string(value, source)
    if target.kind == "date":
        if source.is_string:
            match = _DATE.fullmatch(value)
            if match:
                try:
                    return dt.date(*(int(part) for part in match.groups()))
                except ValueError:
                    return UNKNOWN
        return UNKNOWN
    if target.is_integral:
        low, high = INTEGRAL_RANGES[target.kind]
        number: Any = UNKNOWN
        if source.is_integral:
            number = value
        elif source.is_string and _INTEGER.fullmatch(value):
            number = int(value)
        return number if number is not UNKNOWN and low <= number <= high else UNKNOWN
    if target.kind in ("double", "float") and source.is_integral:
        return float(value) if abs(value) <= _EXACT_DOUBLE else UNKNOWN
    return UNKNOWN


def _to_string(value: Any, source: HiveType) -> Any:
    if source.is_string:
        return value
    if source.is_integral:
        return str(value)
    if source.kind == "date":
        return value.isoformat()
    if source.kind == "boolean":
        return "true" if value else "false"
    return UNKNOWN
