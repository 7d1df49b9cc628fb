"""The case of column names, which the metastore does not keep and Spark does.

The metastore stores column names in lower case. Spark's built-in Hive catalog therefore keeps
the schema of each table it creates, with its names as written (``Id``, ``Dt``), in table
properties (``spark.sql.sources.schema``, or ``...schema.numParts`` and ``...schema.part.N``
when long; the partition columns in ``...schema.numPartCols`` and ``...schema.partCol.N``), and
reads a table with that schema whenever it agrees with the metastore's columns, ignoring case
and nullability (``HiveExternalCatalog.restoreHiveSerdeTable``); otherwise, with the
metastore's lower-case names. hms reads the same properties the same way
(:func:`spark_names`, :func:`with_spark_case`), and writes them for tables it creates with
names that are not all lower case (:func:`schema_properties`).

Spark's own file writers name a partition's directory after its columns' names in their own
case (``Dt=x/HR=5``), and the built-in catalog does so for the directories of the partitions it
adds, and of those its Parquet and ORC writes create; its writes through a table's Hive SerDe
(text and the other formats) leave Hive to make the directory, in lower case (``dt=x/hr=5``).
:func:`directory_names` gives the names hms's writes use, the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from hmscatalog.metastore.model import NATIVE_FORMATS, Table

SCHEMA = "spark.sql.sources.schema"
SCHEMA_NUM_PARTS = f"{SCHEMA}.numParts"
SCHEMA_PART = f"{SCHEMA}.part."
NUM_PARTITION_COLUMNS = f"{SCHEMA}.numPartCols"
PARTITION_COLUMN = f"{SCHEMA}.partCol."
CREATE_VERSION = "spark.sql.create.version"
# Spark's spark.sql.sources.schemaStringLengthThreshold, the longest schema in one property.
SCHEMA_LENGTH_THRESHOLD = 4000

# Spark's JSON names of atomic types, as Hive names them (DataType.catalogString).
_ATOMIC = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint",
           "float": "float", "double": "double", "boolean": "boolean", "string": "string",
           "binary": "binary", "date": "date", "timestamp": "timestamp",
           "timestamp_ntz": "timestamp_ntz", "void": "void"}
_CHAR = re.compile(r"\b(?:var)?char\(\d+\)")
_BARE_DECIMAL = re.compile(r"\bdecimal\b(?!\()")


def is_schema_property(key: str) -> bool:
    """Whether ``key`` is one of the properties Spark keeps a table's schema in."""
    return key in (CREATE_VERSION, SCHEMA) or key.startswith(f"{SCHEMA}.")


def stored_schema(parameters: Mapping[str, str]) -> list[dict[str, Any]] | None:
    """The fields of the schema Spark stored in a table's ``parameters`` (Spark's JSON, one
    dict per column: name, type, nullable, metadata), ``None`` without one (or one that is
    not JSON, or misses a part)."""
    text = parameters.get(SCHEMA)
    if text is None and SCHEMA_NUM_PARTS in parameters:
        try:
            count = int(parameters[SCHEMA_NUM_PARTS])
            text = "".join(parameters[f"{SCHEMA_PART}{i}"] for i in range(count))
        except (KeyError, ValueError):
            return None
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    fields = parsed.get("fields") if isinstance(parsed, dict) else None
    if not isinstance(fields, list) or not all(
            isinstance(f, dict) and isinstance(f.get("name"), str) for f in fields):
        return None
    return fields


def _stored_partition_columns(parameters: Mapping[str, str]) -> list[str] | None:
    try:
        count = int(parameters.get(NUM_PARTITION_COLUMNS, "0"))
        return [parameters[f"{PARTITION_COLUMN}{i}"] for i in range(count)]
    except (KeyError, ValueError):
        return None


def _hive_type(data_type: Any) -> str | None:
    """The Hive type string of a type in Spark's JSON (``None`` for one Hive has not)."""
    if isinstance(data_type, str):
        if data_type in _ATOMIC:
            return _ATOMIC[data_type]
        if data_type.startswith(("decimal", "char(", "varchar(")):
            return data_type
        return None
    if not isinstance(data_type, dict):
        return None
    kind = data_type.get("type")
    if kind == "struct":
        fields = [(f.get("name"), _hive_type(f.get("type")))
                  for f in data_type.get("fields", [])]
        if any(t is None for _, t in fields):
            return None
        return "struct<" + ",".join(f"{name}:{t}" for name, t in fields) + ">"
    if kind == "array":
        element = _hive_type(data_type.get("elementType"))
        return None if element is None else f"array<{element}>"
    if kind == "map":
        key, value = _hive_type(data_type.get("keyType")), _hive_type(data_type.get("valueType"))
        return None if key is None or value is None else f"map<{key},{value}>"
    if kind == "udt":
        return _hive_type(data_type.get("sqlType"))
    return None


def _normal(hive_type: str) -> str:
    """A Hive type string as Spark compares types here: ignoring case, blanks and quotes,
    CHAR and VARCHAR as STRING (Spark reads them as strings), DECIMAL as DECIMAL(10,0)."""
    text = re.sub(r"[\s`]", "", hive_type.lower())
    text = _CHAR.sub("string", text).replace("integer", "int")
    return _BARE_DECIMAL.sub("decimal(10,0)", text)


def spark_names(table: Table) -> list[str] | None:
    """The names of ``table``'s columns, then partition columns, in the case Spark stored them
    (see the module docstring), or ``None`` where it stored none, or a schema that no longer
    agrees with the metastore's columns (names ignoring case, types, the partition columns):
    the metastore's names then stand, as for the built-in catalog."""
    fields = stored_schema(table.parameters)
    if fields is None:
        return None
    partition_names = _stored_partition_columns(table.parameters)
    if partition_names is None:
        return None
    by_name = {f["name"]: f for f in fields}
    if any(name not in by_name for name in partition_names):
        return None
    # Spark reads a schema that lists partition columns elsewhere with them last.
    ordered = [f for f in fields if f["name"] not in partition_names]
    ordered += [by_name[name] for name in partition_names]
    metastore = [*table.columns, *table.partition_keys]
    if len(ordered) != len(metastore) or [n.lower() for n in partition_names] != [
            c.name.lower() for c in table.partition_keys]:
        return None
    for field, column in zip(ordered, metastore, strict=True):
        spark_type = _hive_type(field.get("type"))
        if (field["name"].lower() != column.name.lower() or spark_type is None
                or _normal(spark_type) != _normal(column.type)):
            return None
    return [f["name"] for f in ordered]


def with_spark_case(table: Table) -> Table:
    """``table`` with its columns and partition columns named as Spark stored them (see
    :func:`spark_names`); ``table`` itself where the metastore's names stand."""
    names = spark_names(table)
    if names is None or names == [c.name for c in [*table.columns, *table.partition_keys]]:
        return table
    count = len(table.columns)
    return replace(
        table,
        columns=tuple(replace(c, name=n) for c, n in zip(table.columns, names, strict=False)),
        partition_keys=tuple(replace(c, name=n) for c, n in
                             zip(table.partition_keys, names[count:], strict=True)))


def partition_column_names(table: Table) -> list[str]:
    """``table``'s partition columns in Spark's case (the metastore's where it has none)."""
    return [c.name for c in with_spark_case(table).partition_keys]


def directory_names(table: Table, spark_writers: bool = True) -> list[str]:
    """The names hms gives the ``k=v`` directories of partitions its writes create, as the
    built-in catalog's writes name them: in Spark's case for Parquet and ORC tables, which it
    writes with Spark's own writers, in the metastore's (lower) case for tables it writes
    through their Hive SerDe. ``spark_writers=False``: the built-in writes this session's
    Parquet and ORC tables through their SerDe too (``spark.sql.hive.convertMetastoreParquet``,
    ``...convertMetastoreOrc`` or ``...convertInsertingPartitionedTable`` off)."""
    if table.format in NATIVE_FORMATS and spark_writers:
        return partition_column_names(table)
    return [c.name for c in table.partition_keys]


def needs_schema_properties(names: Sequence[str]) -> bool:
    """Whether a table with columns ``names`` needs Spark's schema properties to keep them:
    one of them is not lower case."""
    return any(name != name.lower() for name in names)


def schema_properties(schema_json: str, partition_names: Sequence[str],
                      spark_version: str) -> dict[str, str]:
    """The properties the built-in catalog stores a table's Spark schema in
    (``HiveExternalCatalog.tableMetaToTableProps``): ``schema_json`` (Spark's JSON of the
    schema, data columns then partition columns, CHAR and VARCHAR as strings), split into parts
    when longer than :data:`SCHEMA_LENGTH_THRESHOLD`; the partition columns' names; the Spark
    version."""
    props = {CREATE_VERSION: spark_version}
    if len(schema_json) <= SCHEMA_LENGTH_THRESHOLD:
        props[SCHEMA] = schema_json
    else:
        parts = [schema_json[i:i + SCHEMA_LENGTH_THRESHOLD]
                 for i in range(0, len(schema_json), SCHEMA_LENGTH_THRESHOLD)]
        props[SCHEMA_NUM_PARTS] = str(len(parts))
        props.update({f"{SCHEMA_PART}{i}": part for i, part in enumerate(parts)})
    if partition_names:
        props[NUM_PARTITION_COLUMNS] = str(len(partition_names))
        props.update({f"{PARTITION_COLUMN}{i}": name for i, name in enumerate(partition_names)})
    return props


def without_schema_properties(parameters: Mapping[str, str]) -> dict[str, str]:
    """``parameters`` without the properties of Spark's schema (see
    :func:`is_schema_property`)."""
    return {k: v for k, v in parameters.items() if not is_schema_property(k)}
