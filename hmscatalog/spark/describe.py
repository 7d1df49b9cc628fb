"""``DESCRIBE TABLE [EXTENDED] <hms table> PARTITION (...)``, answered from the metastore in the
rows Spark 4.2+ prints for a partition of a catalog plugin's table. Spark 4.0 and 4.1 refuse a
PARTITION clause on every table outside their own catalog, so hms answers it on every release
(from :mod:`hmscatalog.spark.hooks`), the same way on each."""

from __future__ import annotations

from typing import Any

from hmscatalog.errors import InvalidPartitionValue, NoSuchPartition
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.types import HiveType, format_value, parse_value
from hmscatalog.spark.internals import plans
from hmscatalog.spark.jvm import Jvm, quoted
from hmscatalog.spark.rows import internal_row

Row = tuple[str, str, str | None]
DESCRIBE_COLUMNS = "col_name STRING, data_type STRING, comment STRING"


def partition_metadata(part: Partition) -> dict[str, str]:
    """What a partition's metadata is to Spark (``loadPartitionMetadata``, DESCRIBE): its
    parameters and its location."""
    return {**part.parameters, "location": part.location or ""}


def describe_partition(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                       given: dict[str, str], extended: bool, time_zone: str) -> list[Row]:
    """The rows of DESCRIBE for the partition ``given`` names (column → the clause's value)."""
    spec = table.partition_spec
    qualified = quoted(catalog, table.database, table.name)
    by_name = {key.lower(): value for key, value in given.items()}
    if sorted(by_name) != sorted(spec.names):
        jvm.throw(plans.analysis_error(jvm, "_LEGACY_ERROR_TEMP_1232", {
            "specKeys": ", ".join(given), "partitionColumnNames": ", ".join(spec.names),
            "tableName": qualified}))
    strings = [_canonical(by_name[name], spec.column(name).type, qualified, name, jvm)
               for name in spec.names]
    try:
        part = client.get_partition(table.database, table.name, strings)
    except NoSuchPartition:
        schema = jvm.struct_type(table.partition_keys)
        jvm.analysis_error("NoSuchPartitionException", qualified,
                           internal_row(jvm, spec, strings, time_zone,
                                        default_name_in_strings=True), schema)
    described = jvm.struct_type([*table.columns, *table.partition_keys], comments=True)
    fields = {str(f.name()): f for f in described.fields()}
    rows = [_field_row(f) for f in described.fields()]
    rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
    rows += [_field_row(fields[name]) for name in spec.names]
    if extended:
        shown = ", ".join(f"{name}={'null' if value == DEFAULT_PARTITION_NAME else value}"
                          for name, value in zip(spec.names, strings, strict=True))
        rows += [("", "", ""), ("# Detailed Partition Information", "", ""),
                 ("Partition Values", f"[{shown}]", "")]
        rows += [(key, value, "") for key, value in sorted(partition_metadata(part).items())]
    return rows


def _field_row(field: Any) -> Row:
    comment = field.getComment()
    return (str(field.name()), str(field.dataType().simpleString()),
            str(comment.get()) if comment.isDefined() else None)


def _canonical(text: str, hive_type: HiveType, qualified: str, column: str, jvm: Jvm) -> str:
    """The metastore's string for a value written in a PARTITION clause."""
    try:
        return format_value(parse_value(text, hive_type), hive_type) or DEFAULT_PARTITION_NAME
    except InvalidPartitionValue:
        jvm.throw(jvm.bare_error(f"partition value {text!r} of column {column} of {qualified} "
                                 f"is not a valid {hive_type}", None))
