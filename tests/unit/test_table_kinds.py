"""The table-kind decision, from metastore entries shaped as each engine writes them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hmscatalog.metastore.kinds import (
    Kind,
    directory_kind,
    kind_of,
    redirect_key,
    refusal,
)
from hmscatalog.metastore.model import (
    EXTERNAL_TABLE,
    VIRTUAL_VIEW,
    Column,
    Storage,
    StorageFormat,
    Table,
)

LAZY = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
PARQUET = Storage.of(StorageFormat.PARQUET, "file:/w/t")


def table(params: dict[str, str] | None = None, storage: Storage = PARQUET,
          table_type: str = EXTERNAL_TABLE) -> Table:
    return Table("db", "t", [Column("id", "int")], storage=storage, table_type=table_type,
                 parameters=params or {})


def classes(input_format: str, serde: str = LAZY) -> Storage:
    return Storage("file:/w/t", input_format, "org.apache.hadoop.mapred.FileOutputFormat", serde)


@pytest.mark.parametrize(("entry", "kind", "evidence"), [
    (table(), Kind.HIVE, "a Hive storage descriptor"),
    (table(table_type=VIRTUAL_VIEW), Kind.VIEW, "tableType=VIRTUAL_VIEW"),
    # Iceberg's HiveCatalog without Hive's engine: FileInputFormat and LazySimpleSerDe
    (table({"table_type": "ICEBERG", "metadata_location": "file:/w/t/metadata/1.json"},
           classes("org.apache.hadoop.mapred.FileInputFormat")),
     Kind.ICEBERG, "table_type=ICEBERG"),
    (table({"table_type": "iceberg"}), Kind.ICEBERG, "table_type=iceberg"),
    (table({"storage_handler": "org.apache.iceberg.mr.hive.HiveIcebergStorageHandler"}),
     Kind.ICEBERG, "storage handler org.apache.iceberg.mr.hive.HiveIcebergStorageHandler"),
    (table({"spark.sql.sources.provider": "DELTA"}), Kind.DELTA,
     "spark.sql.sources.provider=DELTA"),
    (table(storage=classes("io.delta.hive.DeltaInputFormat")), Kind.DELTA,
     "input format io.delta.hive.DeltaInputFormat"),
    (table(storage=classes("org.apache.hudi.hadoop.HoodieParquetInputFormat")), Kind.HUDI,
     "input format org.apache.hudi.hadoop.HoodieParquetInputFormat"),
    (table(storage=classes("org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat")),
     Kind.HUDI, "input format org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"),
    (table(storage=classes("com.uber.hoodie.hadoop.HoodieInputFormat")), Kind.HUDI,
     "input format com.uber.hoodie.hadoop.HoodieInputFormat"),
    (table({"spark.sql.sources.provider": "hudi"}), Kind.HUDI, "spark.sql.sources.provider=hudi"),
    (table({"table_type": "PAIMON"}, classes("org.apache.paimon.hive.mapred.PaimonInputFormat",
                                            "org.apache.paimon.hive.PaimonSerDe")),
     Kind.PAIMON, "table_type=PAIMON"),
    (table(storage=classes(LAZY, "org.apache.paimon.hive.PaimonSerDe")), Kind.PAIMON,
     "SerDe org.apache.paimon.hive.PaimonSerDe"),
    (table({"transactional": "true"}), Kind.HIVE_ACID, "transactional=true"),
    (table({"transactional": "TRUE", "transactional_properties": "insert_only"}),
     Kind.HIVE_ACID, "transactional=true, transactional_properties=insert_only"),
    # An Iceberg table is Iceberg whatever else its parameters say
    (table({"table_type": "ICEBERG", "transactional": "true"}), Kind.ICEBERG,
     "table_type=ICEBERG"),
    (table({"spark.sql.sources.provider": "json"}), Kind.SPARK_DATA_SOURCE,
     "spark.sql.sources.provider=json"),
    (table({"spark.sql.sources.provider": "hive"}), Kind.HIVE, "a Hive storage descriptor"),
    # another marker value, an unknown handler: not a lakehouse table
    (table({"table_type": "MATERIALIZED_VIEW"}), Kind.HIVE, "a Hive storage descriptor"),
])
def test_each_kind_is_recognised_from_its_entry(entry: Table, kind: Kind, evidence: str) -> None:
    found = kind_of(entry)
    assert (found.kind, found.evidence) == (kind, evidence)
    assert found.lakehouse == (kind in (Kind.ICEBERG, Kind.DELTA, Kind.HUDI, Kind.PAIMON))


def test_the_refusal_names_table_format_and_setting() -> None:
    entry = table({"table_type": "ICEBERG"})
    assert redirect_key("lake", Kind.ICEBERG) == "spark.hmscatalog.lake.redirect.iceberg"
    assert str(refusal(entry, kind_of(entry), "read", "lake")) == (
        "hms cannot read table db.t: it is an Iceberg table (table_type=ICEBERG), whose live "
        "files only its metadata files (metadata_location) lists, so its directory is not read "
        "as a Hive table; set spark.hmscatalog.lake.redirect.iceberg to a Spark catalog that "
        "reads Iceberg tables to use it through lake")
    hudi = replace(entry, parameters={"spark.sql.sources.provider": "hudi"})
    assert str(refusal(hudi, kind_of(hudi), "repair", None)).endswith(
        "a Hudi table (spark.sql.sources.provider=hudi), whose live files only its timeline "
        "(.hoodie) lists, so its directory is not read as a Hive table; read it through a "
        "Spark catalog of Hudi's")


@pytest.mark.parametrize(("names", "below", "kind"), [
    ({"_delta_log", "part-0.parquet"}, set(), Kind.DELTA),
    ({".hoodie", "p=1"}, set(), Kind.HUDI),
    ({"snapshot", "schema", "bucket-0"}, set(), Kind.PAIMON),
    ({"metadata", "data"}, {"00001-a.metadata.json", "snap-1.avro"}, Kind.ICEBERG),
    ({"metadata", "data"}, {"notes.txt"}, None),  # a directory that happens to be so named
    ({"schema", "p=1"}, set(), None),
    ({"dt=2024-01-01"}, set(), None),
])
def test_lakehouse_directories(names: set[str], below: set[str], kind: Kind | None) -> None:
    found = directory_kind(names, lambda sub: below if sub == "metadata" else set())
    assert (found.kind if found else None) == kind
