"""Partition values between the metastore's strings and Spark's ``InternalRow``."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Sequence
from typing import Any

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import HiveType, format_value, parse_value
from hmscatalog.spark.jvm import Jvm

_EPOCH_DAY = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _java_value(jvm: Jvm, text: str | None, hive_type: HiveType, time_zone: str) -> Any:
    """A partition value string in Spark's internal representation (``None`` for NULL)."""
    if text is None or text == DEFAULT_PARTITION_NAME:
        return None
    try:
        value = parse_value(text, hive_type)
    except InvalidPartitionValue:
        return None  # as Spark's cast of a malformed string: NULL
    kind = hive_type.kind
    if hive_type.is_string:
        return jvm.cls("org.apache.spark.unsafe.types.UTF8String").fromString(value)
    boxed = {"tinyint": "Byte", "smallint": "Short", "int": "Integer", "bigint": "Long",
             "float": "Float", "double": "Double"}
    if kind in boxed:
        text = repr(value) if isinstance(value, float) else str(value)
        return jvm.cls(f"java.lang.{boxed[kind]}").valueOf(text)
    if kind == "boolean":
        return jvm.cls("java.lang.Boolean").valueOf(bool(value))
    if kind == "date":
        return jvm.cls("java.lang.Integer").valueOf(str((value - _EPOCH_DAY).days))
    if kind == "timestamp":
        aware = value.replace(tzinfo=zoneinfo.ZoneInfo(time_zone))
        micros = (aware - _EPOCH) // dt.timedelta(microseconds=1)
        return jvm.cls("java.lang.Long").valueOf(str(micros))
    if kind == "decimal":
        return jvm.cls("org.apache.spark.sql.types.Decimal").apply(
            jvm.cls("java.math.BigDecimal")(format(value, "f")), hive_type.precision,
            hive_type.scale)
    return None


def internal_row(jvm: Jvm, spec: PartitionSpec, strings: Sequence[str], time_zone: str) -> Any:
    """A ``GenericInternalRow`` of a partition's values, typed by the partition columns."""
    values = [_java_value(jvm, text, col.type, time_zone)
              for text, col in zip(strings, spec.columns, strict=True)]
    row_class = jvm.cls("org.apache.spark.sql.catalyst.expressions.GenericInternalRow")
    return row_class(jvm.array(jvm.cls("java.lang.Object"), values))


def _python_value(row: Any, index: int, hive_type: HiveType, time_zone: str) -> Any:
    if row.isNullAt(index):
        return None
    kind = hive_type.kind
    if hive_type.is_string:
        return str(row.getUTF8String(index).toString())
    getters = {"tinyint": row.getByte, "smallint": row.getShort, "int": row.getInt,
               "bigint": row.getLong, "float": row.getFloat, "double": row.getDouble,
               "boolean": row.getBoolean}
    if kind in getters:
        return getters[kind](index)
    if kind == "date":
        return _EPOCH_DAY + dt.timedelta(days=row.getInt(index))
    if kind == "timestamp":
        instant = _EPOCH + dt.timedelta(microseconds=row.getLong(index))
        return instant.astimezone(zoneinfo.ZoneInfo(time_zone)).replace(tzinfo=None)
    if kind == "decimal":
        decimal_value = row.getDecimal(index, hive_type.precision, hive_type.scale)
        return parse_value(str(decimal_value.toJavaBigDecimal().toPlainString()), hive_type)
    raise InvalidPartitionValue(f"type {hive_type} cannot hold a partition value")


def partition_strings(
    row: Any, spec: PartitionSpec, time_zone: str, names: Sequence[str] | None = None
) -> dict[str, str]:
    """Partition value strings, as the metastore stores them, of an ``InternalRow`` over the
    columns ``names`` (all partition columns by default), keyed by column name."""
    names = list(spec.names) if names is None else [n.lower() for n in names]
    result = {}
    for index, name in enumerate(names):
        hive_type = spec.column(name).type
        text = format_value(_python_value(row, index, hive_type, time_zone), hive_type)
        result[name] = text or DEFAULT_PARTITION_NAME
    return result
