"""What Hive hands a SerDe: the properties a table's or a partition's deserializer is
initialized with, built from the metastore record as Hive builds them
(``MetaStoreUtils.getSchema``: storage classes, name, location, columns and their types, the
partition columns, then the SerDe parameters and the table's or partition's parameters)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hmscatalog.metastore.model import Column, Partition, Storage, StorageFormat, Table

# The formats Spark reads with its own Parquet and ORC readers; every other is read through
# the table's Hive SerDe.
NATIVE_FORMATS = (StorageFormat.PARQUET, StorageFormat.ORC)


def _properties(table: Table, storage: Storage, columns: Sequence[Column],
                parameters: Mapping[str, str]) -> dict[str, str]:
    props = {
        "file.inputformat": storage.input_format or "",
        "file.outputformat": storage.output_format or "",
        "name": table.qualified_name,
        "bucket_count": str(storage.num_buckets),
        "columns": ",".join(c.name for c in columns),
        "columns.types": ":".join(c.type for c in columns),
        "columns.comments": "\0".join(c.comment or "" for c in columns),
    }
    if storage.location:
        props["location"] = storage.location
    if storage.bucket_columns:
        props["bucket_field_name"] = storage.bucket_columns[0]
    if storage.serde:
        props["serialization.lib"] = storage.serde
    if table.partition_keys:
        props["partition_columns"] = "/".join(c.name for c in table.partition_keys)
        props["partition_columns.types"] = ":".join(c.type for c in table.partition_keys)
    props.update(storage.serde_parameters)
    props.update(parameters)
    return props


def table_properties(table: Table) -> dict[str, str]:
    """The properties of ``table``'s own SerDe (the schema rows are converted to)."""
    return _properties(table, table.storage, table.columns, table.parameters)


def partition_properties(table: Table, partition: Partition) -> dict[str, str]:
    """The properties of ``partition``'s SerDe: its own storage, columns and parameters."""
    return _properties(table, partition.storage, partition.columns or table.columns,
                       partition.parameters)
