"""Bring a predicate's literal to its partition column's Python type."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.expressions.instants import Instant
from hmscatalog.partitions.types import HiveType, as_float32, parse_value


class Uncomparable(Exception):
    """The literal cannot be compared with values of the column's type."""


def coerce_literal(value: Any, hive_type: HiveType) -> Any:
    """Return ``value`` as the Python type that :func:`parse_value` gives for ``hive_type``.

    Raises:
        Uncomparable: when no faithful conversion exists (a fraction for an int column...).
    """
    if value is None:
        return None
    kind = hive_type.kind
    if hive_type.is_string:
        if isinstance(value, str):
            return value
        raise Uncomparable(value)
    if isinstance(value, str):
        try:
            return parse_value(value, hive_type)
        except InvalidPartitionValue:
            raise Uncomparable(value) from None
    if hive_type.is_integral:
        if isinstance(value, bool):
            raise Uncomparable(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float | decimal.Decimal) and value == int(value):
            return int(value)
        raise Uncomparable(value)
    if kind in ("double", "float", "decimal"):
        if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
            raise Uncomparable(value)
        if kind == "decimal":
            return decimal.Decimal(value)
        # A FLOAT literal reaches Python as the double its text names (py4j sends 0.1f as
        # "0.1"): rounded back to single precision, as parse_value reads a FLOAT value.
        return as_float32(float(value)) if kind == "float" else float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if kind == "timestamp" and isinstance(value, dt.datetime | Instant):
        return value
    raise Uncomparable(value)
