"""``SHOW CREATE TABLE <hms table> AS SERDE``: the Hive DDL that makes the table again, in the
built-in catalog's words (its ``SHOW CREATE TABLE ... AS SERDE``), so that running it through
either catalog stores the same definition: columns, partition columns, buckets, SerDe and its
properties, input and output formats, an external table's location, and table properties."""

from __future__ import annotations

from hmscatalog.metastore.model import SPARK_STATISTICS, Column, Table
from hmscatalog.spark.bridge.jvm import Jvm, quoted, sql_string

# Properties the built-in keeps to itself (statistics, Spark's schema) or shows elsewhere.
_HIDDEN = frozenset({"comment", "EXTERNAL", "numFiles", "numPartitions", "totalSize",
                     "rawDataSize", "numRows", "COLUMN_STATS_ACCURATE",
                     "spark.sql.create.version", "spark.sql.partitionProvider"})
_HIDDEN_PREFIXES = ("spark.sql.sources.", SPARK_STATISTICS)


def _pairs(items: list[tuple[str, str]]) -> str:
    return _lines([f"{sql_string(k)} = {sql_string(v)}" for k, v in items])


def _lines(items: list[str]) -> str:
    return "(\n  " + ",\n  ".join(items) + ")\n"


def _ddl(jvm: Jvm, columns: list[Column]) -> list[str]:
    return [str(field.toDDL()) for field in jvm.struct_type(columns, comments=True).fields()]


def show_create_as_serde(jvm: Jvm, catalog: str, table: Table) -> str:
    storage = table.storage
    out = [f"CREATE {'EXTERNAL ' if table.is_external else ''}TABLE "
           f"{quoted(catalog, table.database, table.name)} "]
    if table.columns:
        out.append(_lines(_ddl(jvm, list(table.columns))))
    if "comment" in table.parameters:
        out.append(f"COMMENT {sql_string(table.parameters['comment'])}\n")
    if table.partition_keys:
        out.append("PARTITIONED BY (" + ", ".join(_ddl(jvm, list(table.partition_keys)))
                   + ")\n")
    if storage.bucketed:
        out.append(f"CLUSTERED BY ({', '.join(storage.bucket_columns)})\n")
        if storage.sort_columns:
            out.append("SORTED BY (" + ", ".join(
                f"{name} {'ASC' if order == 1 else 'DESC'}"
                for name, order in storage.sort_columns) + ")\n")
        out.append(f"INTO {storage.num_buckets} BUCKETS\n")
    if storage.serde:
        out.append(f"ROW FORMAT SERDE {sql_string(storage.serde)}\n")
        out.append("WITH SERDEPROPERTIES " + _pairs(sorted(storage.serde_parameters.items())))
    if storage.input_format or storage.output_format:
        out.append("STORED AS\n")
        if storage.input_format:
            out.append(f"  INPUTFORMAT {sql_string(storage.input_format)}\n")
        if storage.output_format:
            out.append(f"  OUTPUTFORMAT {sql_string(storage.output_format)}\n")
    if table.is_external and table.location:
        out.append(f"LOCATION {sql_string(table.location)}\n")
    shown = sorted((k, v) for k, v in table.parameters.items()
                   if k not in _HIDDEN and not k.startswith(_HIDDEN_PREFIXES))
    if shown:
        out.append("TBLPROPERTIES " + _pairs(shown))
    return "".join(out)
