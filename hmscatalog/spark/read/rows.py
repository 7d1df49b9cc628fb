"""Partition values between the metastore's strings and Spark's ``InternalRow``."""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import zoneinfo
from collections.abc import Sequence
from typing import Any

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME, make_part_name
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import HiveType, NumberText, format_value, parse_value
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals.catalyst import cast_strings, decimal_value

_EPOCH_DAY = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def java_number_text(jvm: Jvm) -> NumberText:
    """FLOAT and DOUBLE values written by this JVM's ``Float.toString``/``Double.toString``,
    as Spark's cast to STRING writes them when it names a partition (for
    :func:`~hmscatalog.partitions.types.use_number_text`); one call per distinct value."""
    java_float, java_double = jvm.cls("java.lang.Float"), jvm.cls("java.lang.Double")

    @functools.lru_cache(maxsize=4096)
    def text(value: float, single: bool) -> str:
        return str((java_float if single else java_double).toString(value))
    return text


def parsed_as_cast(spec: PartitionSpec, partitions: Sequence[Sequence[str]]) -> bool:
    """Whether Spark's partition directory parser reads every value of ``partitions`` (each a
    partition's value strings) as its cast reads it, where the parser does not refuse it:

    * a TINYINT or SMALLINT value within its type's range: the parser reads the text as an INT
      and narrows it, so another engine's ``'128'`` in a TINYINT column would read as -128,
      where the cast fails (or gives NULL without ANSI);
    * a DECIMAL value written as Spark writes its column's values: within its precision, with
      exactly its scale's digits after the point and no exponent. The parser keeps a text's
      own scale: it would read ``'123456789.12'`` into a DECIMAL(10,2) column as it is, where
      the cast gives NULL (or an error under ANSI), and ``'1.005'`` or ``'1e2'`` into a
      DECIMAL(38,6) one as 0.001005 or 0.000100."""
    kinds = ("tinyint", "smallint", "decimal")
    positions = [i for i, column in enumerate(spec.columns) if column.type.kind in kinds]
    for values in partitions if positions else ():
        for i in positions:
            text, hive_type = values[i], spec.columns[i].type
            if text == DEFAULT_PARTITION_NAME:
                continue
            try:
                parse_value(text, hive_type)  # in range, within the precision
            except InvalidPartitionValue:
                return False
            if hive_type.kind != "decimal":
                continue
            try:
                exponent = decimal.Decimal(text).as_tuple().exponent
            except decimal.InvalidOperation:
                return False
            if "e" in text.lower() or exponent != -(hive_type.scale or 0):
                return False
    return True


def internal_row(jvm: Jvm, spec: PartitionSpec, strings: Sequence[str], time_zone: str,
                 *, default_name_in_strings: bool = False, ansi: bool = False) -> Any:
    """An ``InternalRow`` of a partition's values, typed by the partition columns.

    The value strings are cast by Spark itself: by its non-ANSI cast (a malformed value is
    NULL), or with ``ansi`` by its ANSI cast, which raises for a malformed value, as when Spark
    reads partition values of its own Hive tables under ``spark.sql.ansi.enabled``. Building
    the row in the JVM matters: boxed values returned to Python come back as Python numbers,
    and py4j would send a BIGINT's small value as an ``Integer``.

    ``__HIVE_DEFAULT_PARTITION__`` is NULL, except in STRING-family columns when
    ``default_name_in_strings`` is set: partition identifiers keep the name the metastore
    stores, so that Spark's SHOW PARTITIONS prints it as the built-in catalog does rather than
    as ``null``, which is also how it prints the partition of the string 'null'. (Hive stores
    both a NULL and the string ``__HIVE_DEFAULT_PARTITION__`` as that one partition, so the
    identifier still names exactly it.)
    """
    values = [None if text is None or (text == DEFAULT_PARTITION_NAME and not (
        default_name_in_strings and column.type.is_string)) else text
        for text, column in zip(strings, spec.columns, strict=True)]
    types = ["string" if c.type.is_string else str(c.type) for c in spec.columns]
    return cast_strings(jvm, values, types, time_zone, ansi=ansi)


def checked_partition_row(jvm: Jvm, table: str, spec: PartitionSpec, values: Sequence[str],
                          time_zone: str, ansi: bool) -> Any:
    """:func:`internal_row` of the partition with ``values`` of table ``table`` (its qualified
    name) partitioned by ``spec``, cast as the built-in catalog casts partition values when it
    reads: by the session's ``spark.sql.ansi.enabled`` (``ansi``), strictly or leniently
    (``'7.9'`` in an INT column is 7, an overflow NULL).

    Raises:
        InvalidPartitionValue: under ANSI, a value Spark's cast refuses (naming the table, the
            partition and Spark's reason).
    """
    try:
        return internal_row(jvm, spec, values, time_zone, ansi=ansi)
    except Exception as exc:  # Spark's CAST_INVALID_INPUT, CAST_OVERFLOW...
        if not ansi:
            raise
        message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InvalidPartitionValue(
            f"table {table}: partition {make_part_name(spec.names, list(values))} cannot be "
            f"read as its columns' types "
            f"({', '.join(f'{c.name} {c.type}' for c in spec.columns)}) "
            f"with spark.sql.ansi.enabled=true: {message}") from None


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
        value = decimal_value(row.getDecimal(index, hive_type.precision, hive_type.scale))
        return parse_value(str(value), hive_type)
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
