"""Tables stored with a Hive SerDe (text, OpenCSV, Avro, SequenceFile, RCFile...).

Reads: the selected partitions go to ``io.hmscatalog.spark.HiveSerdeScan``, which reads each
one with its own input format, SerDe and columns, as Hive does. (Spark's built-in Hive catalog
reads every partition with the table's input format and columns and the partition's SerDe.)

Writes: files of the table's output format and SerDe, through Spark's ``HiveFileFormat`` as the
built-in writes them (:func:`hmscatalog.spark.internals.write.prepare_file_write`), committed
by hms as every other write."""

from __future__ import annotations

import json
from typing import Any

from hmscatalog import config
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.metastore.serde import partition_properties, table_properties
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.sources.source import Selection
from hmscatalog.spark.internals.session import time_zone
from hmscatalog.spark.jvm import Jvm
from hmscatalog.spark.statistics import TableStatistics

SCAN_CLASS = "io.hmscatalog.spark.HiveSerdeScan"
# Table properties Hive honours and the SerDe readers here do not.
_UNREAD = {"skip.footer.line.count": "its files' last lines are footers Spark's reader keeps"}


def _partitions(table: Table, selection: Selection) -> list[Partition]:
    if not table.partition_keys:
        return [table.partition_at((), table.location, {})]
    return [chosen.partition or table.partition_at(chosen.values, chosen.location)
            for chosen in selection.partitions]


def check_readable(jvm: Jvm, table: Table, partitions: list[Partition] | None = None) -> None:
    """Refuse, naming the table, what the SerDe reader cannot read exactly: a property it does
    not honour, a partition or table without a SerDe, classes Spark's class path lacks, and
    Spark data source tables, whose storage descriptor is a placeholder."""
    provider = table.parameters.get("spark.sql.sources.provider")
    if provider and provider.lower() != "hive":
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


def serde_scan(jvm: Jvm, table: Table, selection: Selection, required: Any,
               statistics: TableStatistics) -> Any:
    """A ``HiveSerdeScan`` of the selected partitions of ``table`` (all of it, unpartitioned),
    reading the columns of ``required`` (a ``StructType``), reporting ``statistics``. The scan
    reads whole structs, whatever fields of them ``required`` names (Spark's nested schema
    pruning): it reports their whole types, and Spark takes the fields it needs by name."""
    partitions = _partitions(table, selection)
    check_readable(jvm, table, partitions)
    spec = {
        "table": table.qualified_name,
        "timeZone": time_zone(jvm),
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
    return jvm.cls(SCAN_CLASS)(jvm.jsession, required, jvm.struct_type(table.columns),
                               jvm.struct_type(table.partition_keys), json.dumps(spec))


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
