"""What Hive hands a SerDe: the properties a table's or a partition's deserializer is
initialized with, built from the metastore record as Hive builds them
(``MetaStoreUtils.getSchema``: storage classes, name, location, columns and their types, the
partition columns, then the SerDe parameters and the table's or partition's parameters)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hmscatalog.metastore.model import Column, Partition, Storage, Table
from hmscatalog.metastore.spark_schema import spark_names

# The SerDes whose columns are the metastore's (the default of Hive's
# hive.serdes.using.metastore.for.schema). Every other one reads a table with columns of its own,
# which Hive and Spark's built-in catalog take from it (Table.getCols): Avro's from its schema,
# OpenCSV's all strings, JSON's the metastore's types with the comment "from deserializer".
_HIVE = "org.apache.hadoop.hive"
METASTORE_SCHEMA_SERDES = frozenset({
    f"{_HIVE}.ql.io.orc.OrcSerde", f"{_HIVE}.serde2.lazy.LazySimpleSerDe",
    f"{_HIVE}.serde2.columnar.ColumnarSerDe", f"{_HIVE}.serde2.dynamic_type.DynamicSerDe",
    f"{_HIVE}.serde2.MetadataTypedColumnsetSerDe",
    f"{_HIVE}.serde2.columnar.LazyBinaryColumnarSerDe",
    f"{_HIVE}.ql.io.parquet.serde.ParquetHiveSerDe", f"{_HIVE}.serde2.lazybinary.LazyBinarySerDe",
})
AVRO_SERDE = f"{_HIVE}.serde2.avro.AvroSerDe"
AVRO_SCHEMA_KEYS = ("avro.schema.literal", "avro.schema.url")


def _properties(table: Table, storage: Storage, columns: Sequence[Column],
                parameters: Mapping[str, str]) -> dict[str, str]:
    # Columns named in the case Spark stored them, as the built-in catalog names them to a
    # SerDe: Avro's matches the fields of its files by name, case-sensitively (aB, not ab).
    cased = {name.lower(): name for name in spark_names(table) or ()}

    def named(column: Column) -> str:
        return cased.get(column.name.lower(), column.name)

    props = {
        "file.inputformat": storage.input_format or "",
        "file.outputformat": storage.output_format or "",
        "name": table.qualified_name,
        "bucket_count": str(storage.num_buckets),
        "columns": ",".join(named(c) for c in columns),
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
        props["partition_columns"] = "/".join(named(c) for c in table.partition_keys)
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


def columns_from_serde(table: Table) -> bool:
    """Whether ``table``'s columns are what its SerDe says rather than the metastore's (Hive's
    ``Table.getCols``). A Spark data source table's SerDe is a placeholder."""
    serde = table.storage.serde
    provider = table.parameters.get("spark.sql.sources.provider", "hive").lower()
    return bool(serde) and serde not in METASTORE_SCHEMA_SERDES and provider == "hive"


def schema_property(table: Table) -> str | None:
    """The property an Avro table's schema comes from (``avro.schema.literal`` or
    ``avro.schema.url``), as the table's SerDe looks for them; None without either."""
    if table.storage.serde != AVRO_SERDE:
        return None
    given = {**table.storage.serde_parameters, **table.parameters}
    return next((key for key in AVRO_SCHEMA_KEYS
                 if given.get(key) and given[key] != "none"), None)
