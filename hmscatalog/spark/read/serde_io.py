"""Tables stored with a Hive SerDe (text, OpenCSV, Avro, SequenceFile, RCFile...).

Reads: the selected partitions go to ``io.hmscatalog.spark.HiveSerdeScan``, which reads each
one with its own input format, SerDe and columns, as Hive does. (Spark's built-in Hive catalog
reads every partition with the table's input format and columns and the partition's SerDe.)
Parquet and ORC partitions among them (a table whose format changed) are read by Spark's own
file scans, as hms reads Parquet and ORC tables, within the same scan.

Writes: files of the table's output format and SerDe, through Spark's ``HiveFileFormat`` as the
built-in writes them (:func:`hmscatalog.spark.internals.write.prepare_file_write`), committed
by hms as every other write."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hmscatalog import config
from hmscatalog.metastore.kinds import PROVIDER, Kind, kind_of
from hmscatalog.metastore.model import NATIVE_FORMATS, Column, Partition, StorageFormat, Table
from hmscatalog.metastore.serde import (
    columns_from_serde,
    partition_properties,
    schema_property,
    table_properties,
)
from hmscatalog.metastore.spark_schema import partition_column_names
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.sources.source import Selection
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals.session import char_varchar_as_string, sql_conf, time_zone
from hmscatalog.spark.read.rows import checked_partition_row
from hmscatalog.spark.read.statistics import TableStatistics

SCAN_CLASS = "io.hmscatalog.spark.HiveSerdeScan"
COLUMNS_CLASS = "io.hmscatalog.spark.SerdeColumns"
# Where Spark keeps the schema of a table it created (one property, or numbered parts).
_SPARK_SCHEMA = ("spark.sql.sources.schema", "spark.sql.sources.schema.numParts")
# Table properties Hive honours and the SerDe readers here do not.
_UNREAD = {"skip.footer.line.count": "its files' last lines are footers Spark's reader keeps"}


def _partitions(table: Table, selection: Selection) -> list[Partition]:
    if not table.partition_keys:
        return [table.partition_at((), table.location, {})]
    return [chosen.partition or table.partition_at(chosen.values, chosen.location)
            for chosen in selection.partitions]


def serde_columns(jvm: Jvm, table: Table) -> tuple[Table, str | None]:
    """``table`` with the columns its SerDe reads it with, where they are the SerDe's own (see
    :func:`~hmscatalog.metastore.serde.columns_from_serde`), as Hive and the built-in catalog
    take them: an Avro table's from its schema literal or URL, an OpenCSV table's all strings.
    Where Spark created the table and its SerDe agrees with the metastore on names and types,
    the metastore's columns stay (their comments), as the built-in keeps the schema it stored.

    Also why the SerDe could not say (the error it refused the table's properties with), or
    None: reads and writes are refused with that (:func:`serde_refusal`), and the metastore's
    columns stand in until the table is fixed."""
    if not columns_from_serde(table):
        return table, None
    found = json.loads(str(jvm.cls(COLUMNS_CLASS).of(
        jvm.jsession, table.storage.serde, json.dumps(table_properties(table)))))
    if found.get("missing"):
        return table, None  # check_readable names the class
    if "error" in found:
        return table, str(found["error"])
    columns = tuple(Column(c["name"].lower(), c["type"], c["comment"]) for c in found["columns"])
    if any(key in table.parameters for key in _SPARK_SCHEMA) and (
            [(c.name, c.type) for c in columns]
            == [(c.name.lower(), c.type) for c in table.columns]):
        return table, None
    return replace(table, columns=columns), None


def partition_names(jvm: Jvm, table: Table) -> list[str]:
    """``table``'s partition columns named as Spark sees them: in the case Spark stored them,
    unless the columns its SerDe reads (see :func:`serde_columns`) contradict that schema, and
    the metastore's lower-case names stand, as for the built-in catalog (an OpenCSV table
    Spark created with a BINARY column)."""
    return partition_column_names(serde_columns(jvm, table)[0])


def serde_refusal(table: Table, error: str, verb: str) -> str:
    """The one line refusing to ``verb`` ``table``, whose SerDe refused its properties with
    ``error``."""
    # Hive's AvroSerDe says "Encountered ... Returning signal schema to indicate problem: <why>".
    error = error.split("to indicate problem: ", 1)[-1]
    key = schema_property(table)
    if key is not None:
        return (f"hms cannot {verb} table {table.qualified_name}: its property {key} does not "
                f"give an Avro schema ({error})")
    return (f"hms cannot {verb} table {table.qualified_name}: its SerDe {table.storage.serde} "
            f"refused its properties ({error})")


def columns_for_create(jvm: Jvm, table: Table) -> Table:
    """``table`` as CREATE TABLE stores it: without columns of its own, with its SerDe's (an
    Avro table's from its schema literal or URL), as Hive and the built-in catalog store them.
    Refused, naming the table and the property, where its Avro schema property gives no schema
    (a column list or not)."""
    if not columns_from_serde(table) or (table.columns and schema_property(table) is None):
        return table
    filled, error = serde_columns(jvm, table)
    if error is not None:
        jvm.illegal_argument(serde_refusal(table, error, "create"))
    if table.columns:
        return table
    if not filled.columns:
        jvm.illegal_argument(f"hms cannot create table {table.qualified_name}: it has no "
                             f"columns, and its SerDe {table.storage.serde} gives none")
    return filled


def check_readable(jvm: Jvm, table: Table, partitions: list[Partition] | None = None) -> None:
    """Refuse, naming the table, what the SerDe reader cannot read exactly: a property it does
    not honour, a partition or table without a SerDe, classes Spark's class path lacks, and
    Spark data source tables, whose storage descriptor is a placeholder."""
    if kind_of(table).kind is Kind.SPARK_DATA_SOURCE:
        provider = table.parameters.get(PROVIDER, "").strip()
        jvm.unsupported(f"hms cannot read table {table.qualified_name}: it is a Spark data "
                        f"source table (USING {provider}), whose files and options are in "
                        "Spark's own table properties, not in its Hive storage descriptor")
    for key, why in _UNREAD.items():
        value = table.parameters.get(key, "0").strip()
        if value not in ("", "0"):
            jvm.unsupported(f"hms cannot read table {table.qualified_name}: its property "
                            f"{key}={value} is not supported ({why})")
    storages = [table.storage, *(p.storage for p in partitions or [])]
    for storage in storages:
        if not storage.serde or not storage.input_format:
            where = storage.location or table.qualified_name
            jvm.unsupported(f"hms cannot read table {table.qualified_name}: {where} has no "
                            f"{'SerDe' if not storage.serde else 'input format'} in the metastore")
    names = sorted({n for s in storages for n in (s.serde or "", s.input_format or "")})
    missing = jvm.cls(SCAN_CLASS).missingClass(",".join(names))
    if missing is not None:
        kind = "SerDe" if any(s.serde == missing for s in storages) else "input format"
        jvm.unsupported(f"hms cannot read table {table.qualified_name}: its {kind} {missing} "
                        "is not on Spark's class path")


def check_writable(jvm: Jvm, table: Table) -> None:
    """Refuse, naming the table, writes whose files Hive or hms would not read back as
    written."""
    if _count(jvm, table, "skip.header.line.count"):
        jvm.unsupported(f"hms cannot write table {table.qualified_name}: its property "
                        "skip.header.line.count makes readers skip the first lines of each "
                        "file, which would lose written rows")
    check_readable(jvm, table)
    output = table.storage.output_format
    if not output:
        jvm.unsupported(f"hms cannot write table {table.qualified_name}: it has no output "
                        "format in the metastore")
    if jvm.cls(SCAN_CLASS).missingClass(output) is not None:
        jvm.unsupported(f"hms cannot write table {table.qualified_name}: its output format "
                        f"{output} is not on Spark's class path")


# Spark's own scan of some partitions (a Selection) stored in a format of NATIVE_FORMATS,
# reading the columns of a StructType.
FileScans = Callable[[Selection, StorageFormat, Any], Any]


def serde_scan(jvm: Jvm, table: Table, selection: Selection, required: Any,
               statistics: TableStatistics, file_scan: FileScans, *,
               partition_values_used: bool) -> Any:
    """A ``HiveSerdeScan`` of the selected partitions of ``table`` (all of it, unpartitioned),
    reading the columns of ``required`` (a ``StructType``), reporting ``statistics``. The scan
    reads whole structs, whatever fields of them ``required`` names (Spark's nested schema
    pruning): it reports their whole types, and Spark takes the fields it needs by name.

    Partitions stored as Parquet or ORC are read by ``file_scan``'s scans of them, one per
    format, not through their SerDe (Hive's ParquetHiveSerDe cannot read a DECIMAL that Spark
    wrote as an INT32 or INT64): each partition is read as a table of its format is.

    ``partition_values_used``: the query reads a partition column or filters on one. Only
    then does the built-in cast the partition values (``HadoopTableReader``, and its pruning),
    and under ``spark.sql.ansi.enabled`` fail on one its cast refuses, as this scan does."""
    by_format: dict[StorageFormat | None, list[Any]] = {}
    for chosen in selection.partitions if table.partition_keys else []:
        stored = chosen.partition.storage.format if chosen.partition else table.format
        by_format.setdefault(stored if stored in NATIVE_FORMATS else None, []).append(chosen)
    serde_chosen = by_format.pop(None, [])
    whole = jvm.cls(SCAN_CLASS).whole(required, jvm.struct_type(table.columns))
    file_scans = [file_scan(replace(selection, partitions=chosen), stored, whole)
                  for stored, chosen in by_format.items() if stored is not None]
    if by_format:
        selection = replace(selection, partitions=serde_chosen)
    partitions = _partitions(table, selection)
    check_readable(jvm, table, partitions)
    zone = time_zone(jvm)
    if partition_values_used and sql_conf(jvm).ansiEnabled():  # the scan casts leniently
        for part in partitions:
            checked_partition_row(jvm, table.qualified_name, table.partition_spec,
                                  part.values, zone, ansi=True)
    spec = {
        "table": table.qualified_name,
        "timeZone": zone,
        "skipHeader": _count(jvm, table, "skip.header.line.count"),
        "recursive": recursive_directories(table),
        "tableSerde": table.storage.serde,
        "tableProperties": table_properties(table),
        "sizeInBytes": statistics.size,
        "numRows": statistics.rows,
        "partitions": [{
            "location": part.location or "",
            "inputFormat": part.storage.input_format,
            "serde": part.storage.serde,
            "properties": partition_properties(table, part),
            "values": [None if v == DEFAULT_PARTITION_NAME else v for v in part.values],
        } for part in partitions],
    }
    # Partition values as the metastore's texts, CHAR and VARCHAR ones as strings: Spark pads
    # a CHAR column when it reads it, and a cast to CHAR(1) refused a text another engine
    # registered longer (the built-in reads it as it is).
    partition_schema = char_varchar_as_string(jvm, jvm.struct_type(table.partition_keys))
    return jvm.cls(SCAN_CLASS)(jvm.jsession, required, jvm.struct_type(table.columns),
                               partition_schema, json.dumps(spec),
                               jvm.array(jvm.cls("org.apache.spark.sql.connector.read.Scan"),
                                         file_scans))


def recursive_directories(table: Table) -> bool:
    """Whether reads of ``table`` take the files in subdirectories of its partitions too."""
    return config.read_flag(table.parameters, config.READ_RECURSIVE_DIRECTORIES,
                            f"Table {table.qualified_name}")


def _count(jvm: Jvm, table: Table, key: str) -> int:
    text = table.parameters.get(key, "0").strip() or "0"
    try:
        return max(int(text), 0)
    except ValueError:
        jvm.illegal_argument(f"hms cannot read table {table.qualified_name}: its property "
                             f"{key}={text!r} is not a number of lines")
