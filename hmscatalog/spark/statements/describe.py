"""``DESCRIBE TABLE [EXTENDED] <hms table> PARTITION (...)``, answered from the metastore in the
rows Spark 4.2+ prints for a partition of a catalog plugin's table. Spark 4.0 and 4.1 refuse a
PARTITION clause on every table outside their own catalog, so hms answers it on every release
(from :mod:`hmscatalog.spark.session.hooks`), the same way on each."""

from __future__ import annotations

from typing import Any

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.statements.partitions import named_partition

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
    part = named_partition(jvm, client, catalog, table, given, time_zone)
    strings = list(part.values)
    described = jvm.struct_type([*table.columns, *table.partition_keys], comments=True)
    fields = {str(f.name()).lower(): f for f in described.fields()}
    rows = [_field_row(f) for f in described.fields()]
    rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
    rows += [_field_row(fields[name]) for name in spec.names]
    if extended:
        names = [c.name for c in table.partition_keys]  # as Spark sees them (Dt, not dt)
        shown = ", ".join(f"{name}={'null' if value == DEFAULT_PARTITION_NAME else value}"
                          for name, value in zip(names, strings, strict=True))
        rows += [("", "", ""), ("# Detailed Partition Information", "", ""),
                 ("Partition Values", f"[{shown}]", "")]
        rows += [(key, value, "") for key, value in sorted(partition_metadata(part).items())]
    return rows


def _field_row(field: Any) -> Row:
    comment = field.getComment()
    return (str(field.name()), str(field.dataType().simpleString()),
            str(comment.get()) if comment.isDefined() else None)
