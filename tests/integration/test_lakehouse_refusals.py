"""Lakehouse tables registered in the metastore as their own catalogs register them (Iceberg's
HiveCatalog with and without Hive's engine, Delta through Spark's session catalog, Hudi's Hive
sync of copy-on-write and merge-on-read tables, Paimon's Hive catalog), with data files in
their directories that a raw read would return: without a catalog to redirect them to, every
statement is refused with one first line naming the table, the format and the setting, and the
table and its files are left as they were. DESCRIBE, SHOW TABLES and SHOW CREATE TABLE work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hmscatalog.errors import LakehouseTable
from hmscatalog.maintenance.partitions import drop_partitions, register_partition
from hmscatalog.maintenance.repair import repair_table
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import EXTERNAL_TABLE, MANAGED_TABLE, Column, Storage, Table

pytestmark = [pytest.mark.integration, pytest.mark.spark]

LAZY = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
PARQUET_OUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
HUDI_COW = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
HUDI_MOR = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"

# name: (format title, what the refusal names as the evidence, how the table is registered)
SHAPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "iceberg": ("Iceberg", "table_type=ICEBERG", dict(
        kind=EXTERNAL_TABLE, storage=("org.apache.hadoop.mapred.FileInputFormat",
                                      "org.apache.hadoop.mapred.FileOutputFormat", LAZY),
        params={"table_type": "ICEBERG", "EXTERNAL": "TRUE",
                "metadata_location": "{loc}/metadata/00001-a.metadata.json"})),
    "delta": ("Delta", "spark.sql.sources.provider=delta", dict(
        kind=MANAGED_TABLE, columns=[Column("col", "array<string>")],
        storage=("org.apache.hadoop.mapred.SequenceFileInputFormat",
                 "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat", LAZY),
        serde_params={"path": "{loc}"},
        params={"spark.sql.sources.provider": "delta", "spark.sql.partitionProvider":
                "catalog"})),
    "iceberg_hive_engine": ("Iceberg", "table_type=ICEBERG", dict(
        kind=EXTERNAL_TABLE, storage=("org.apache.iceberg.mr.hive.HiveIcebergInputFormat",
                                      "org.apache.iceberg.mr.hive.HiveIcebergOutputFormat",
                                      "org.apache.iceberg.mr.hive.HiveIcebergSerDe"),
        params={"table_type": "ICEBERG", "EXTERNAL": "TRUE",
                "storage_handler": "org.apache.iceberg.mr.hive.HiveIcebergStorageHandler",
                "metadata_location": "{loc}/metadata/00001-a.metadata.json"})),
    "hudi_cow": ("Hudi", f"input format {HUDI_COW}", dict(
        kind=EXTERNAL_TABLE, partitioned=True, storage=(HUDI_COW, PARQUET_OUT, PARQUET_SERDE),
        params={"EXTERNAL": "TRUE", "last_commit_time_sync": "20240101000000000"})),
    "paimon": ("Paimon", "table_type=PAIMON", dict(
        kind=MANAGED_TABLE, storage=("org.apache.paimon.hive.mapred.PaimonInputFormat",
                                     "org.apache.paimon.hive.mapred.PaimonOutputFormat",
                                     "org.apache.paimon.hive.PaimonSerDe"),
        params={"table_type": "PAIMON",
                "storage_handler": "org.apache.paimon.hive.PaimonStorageHandler"})),
    "hudi_mor_rt": ("Hudi", "spark.sql.sources.provider=hudi", dict(
        kind=EXTERNAL_TABLE, partitioned=True, storage=(HUDI_MOR, PARQUET_OUT, PARQUET_SERDE),
        params={"EXTERNAL": "TRUE", "spark.sql.sources.provider": "hudi",
                "hoodie.query.as.ro.table": "false"})),
}


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def _register(spark: Any, client: MetastoreClient, db: str, shape: str, tmp: Path) -> Table:
    """``db.<shape>`` registered as its catalog registers it, with a Parquet file of 3 rows in
    its directory (in partition ``p=1`` for the partitioned shapes, which is registered)."""
    _, _, how = SHAPES[shape]
    loc = f"file:{tmp / shape}"
    data = f"{loc}/p=1" if how.get("partitioned") else loc
    spark.range(3).selectExpr("id", "'x' AS s").coalesce(1).write.parquet(data)
    columns = how.get("columns", [Column("id", "bigint"), Column("s", "string")])
    input_format, output_format, serde = how["storage"]
    table = Table(db, shape, columns,
                  partition_keys=[Column("p", "int")] if how.get("partitioned") else (),
                  storage=Storage(loc, input_format, output_format, serde,
                                  {k: v.format(loc=loc) for k, v in
                                   how.get("serde_params", {}).items()}),
                  table_type=how["kind"],
                  parameters={k: v.format(loc=loc) for k, v in how["params"].items()})
    client.create_table(table)
    created = client.get_table(db, shape)
    if how.get("partitioned"):
        client.add_partitions(created, [created.partition_at(["1"], data)])
    return created


def _files(tmp: Path, shape: str) -> list[str]:
    return sorted(str(p.relative_to(tmp)) for p in (tmp / shape).rglob("*") if p.is_file())


STATEMENTS = [  # (statement, verb in the refusal, shapes it applies to; None: every shape)
    ("SELECT * FROM {t}", "read", None),
    ("SELECT count(*) FROM {t}", "read", None),
    ("INSERT INTO {t} SELECT * FROM {t}", "write", None),
    ("INSERT OVERWRITE {t} SELECT * FROM {t}", "write", None),
    ("DELETE FROM {t} WHERE true", "write", None),
    ("UPDATE {t} SET s = 'y'", "write", None),
    ("TRUNCATE TABLE {t}", "truncate", None),
    ("ANALYZE TABLE {t} COMPUTE STATISTICS", "analyze", None),
    ("ANALYZE TABLE {t} COMPUTE STATISTICS FOR ALL COLUMNS", "analyze", None),
    ("MSCK REPAIR TABLE {t}", "repair", None),
    ("SHOW PARTITIONS {t}", "list the partitions of", None),
    ("ALTER TABLE {t} SET TBLPROPERTIES ('k' = 'v')", "alter", None),
    ("ALTER TABLE {t} ADD COLUMNS (c INT)", "alter", None),
    ("ALTER TABLE {t} SET LOCATION '/tmp/elsewhere'", "alter", None),
    ("ALTER TABLE {t} RENAME TO {db}.renamed", "rename", None),
    ("DROP TABLE {t}", "drop", None),
    ("SELECT * FROM {t} VERSION AS OF 1", "time travel in", None),
    ("INSERT INTO {t} PARTITION (p = 2) SELECT 1, 'a'", "write", ("hudi_cow", "hudi_mor_rt")),
    ("ALTER TABLE {t} ADD PARTITION (p = 2)", "change the partitions of",
     ("hudi_cow", "hudi_mor_rt")),
    ("ALTER TABLE {t} DROP PARTITION (p = 1)", "drop partitions of",
     ("hudi_cow", "hudi_mor_rt")),
    # Spark 4.2 on describes a partition itself, listing the partitions first
    ("DESCRIBE TABLE {t} PARTITION (p = 1)", "describe a partition of|list the partitions of",
     ("hudi_cow", "hudi_mor_rt")),
    ("CALL hms.system.sync_partition_metadata('{db}', '{name}', 'FULL')",
     "run procedures on", None),
    ("CALL hms.system.analyze_table('{db}', '{name}')", "run procedures on", None),
]


@pytest.mark.cases(2)  # Iceberg and Hudi (partitioned); every other shape in the thorough tier
@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_statement_is_refused_naming_table_format_and_setting(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path, shape: str) -> None:
    title, evidence, _ = SHAPES[shape]
    before = _register(spark, client, db, shape, tmp_path)
    files = _files(tmp_path, shape)
    setting = f"spark.hmscatalog.hms.redirect.{title.lower()}"
    article = "an" if title == "Iceberg" else "a"
    checked = 0
    for statement, verb, shapes in STATEMENTS:
        if shapes is not None and shape not in shapes:
            continue
        sql = statement.format(t=f"hms.{db}.{shape}", db=db, name=shape)
        with pytest.raises(Exception) as raised:
            spark.sql(sql).collect()
        line = _first_line(raised.value)
        assert any(line.startswith(f"[HMS_LAKEHOUSE_TABLE] hms cannot {one} table "
                                   f"{db}.{shape}: it is {article} {title} table ({evidence}), "
                                   "whose live files only ") for one in verb.split("|")), (
            sql, line)
        assert line.endswith(f"; set {setting} to a Spark catalog that reads {title} tables to "
                             "use it through hms"), (sql, line)
        checked += 1
    assert checked >= 17
    assert client.get_table(db, shape) == before  # nothing changed in the metastore
    assert _files(tmp_path, shape) == files  # nor in storage
    names = client.list_partition_names(db, shape)
    assert names == (["p=1"] if before.partition_keys else [])


@pytest.mark.parametrize("shape", ["iceberg", "delta", "hudi_cow"])
def test_the_table_is_listed_and_described_with_its_kind(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path, shape: str) -> None:
    title = SHAPES[shape][0]
    _register(spark, client, db, shape, tmp_path)
    assert shape in [r.tableName for r in spark.sql(f"SHOW TABLES IN hms.{db}").collect()]
    described = {r.col_name: r.data_type
                 for r in spark.sql(f"DESCRIBE TABLE EXTENDED hms.{db}.{shape}").collect()}
    assert described["Provider"] == title.lower()
    assert "id" in described or "col" in described
    extended = spark.sql(f"SHOW TABLE EXTENDED IN hms.{db} LIKE '{shape}'").collect()
    assert f"Provider: {title.lower()}" in extended[0].information
    assert f"USING {title.lower()}" in spark.sql(
        f"SHOW CREATE TABLE hms.{db}.{shape}").collect()[0][0]


def test_python_maintenance_is_refused(spark: Any, db: str, client: MetastoreClient,
                                       tmp_path: Path) -> None:
    """The same refusal from the Python API (no catalog to name: the format's own catalog is
    what reads it)."""
    table = _register(spark, client, db, "hudi_cow", tmp_path)
    calls = [(lambda: repair_table(client, f"{db}.hudi_cow"), "repair"),
             (lambda: register_partition(client, table, ["p"], ["2"]),
              "register a partition of"),
             (lambda: drop_partitions(client, table, ["p=1"], if_exists=False),
              "drop partitions of")]
    for call, verb in calls:
        with pytest.raises(LakehouseTable) as raised:
            call()
        assert str(raised.value).startswith(
            f"hms cannot {verb} table {db}.hudi_cow: it is a Hudi table (input format "
            f"{HUDI_COW}), whose live files only its timeline (.hoodie) lists")
        assert str(raised.value).endswith("read it through a Spark catalog of Hudi's")
    assert client.list_partition_names(db, "hudi_cow") == ["p=1"]


@pytest.mark.parametrize(("marker", "title"), [
    ("_delta_log/00000000000000000000.json", "Delta"), (".hoodie/hoodie.properties", "Hudi"),
    ("metadata/00001-a.metadata.json", "Iceberg"), ("snapshot/snapshot-1", "Paimon")])
def test_read_partitioned_refuses_a_lakehouse_directory(spark: Any, hms: Any, tmp_path: Path,
                                                        marker: str, title: str) -> None:
    from hmscatalog.spark import read_partitioned

    spark.range(3).write.parquet(str(tmp_path / "t" / "p=1"))
    (tmp_path / "t" / marker).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "t" / marker).write_text("{}")
    if title == "Paimon":
        (tmp_path / "t" / "schema").mkdir()
    with pytest.raises(LakehouseTable) as raised:
        read_partitioned(spark, str(tmp_path / "t"))
    assert str(raised.value).startswith(
        f"read of {tmp_path / 't'}: file:{tmp_path / 't'} is the directory of "
        f"{'an' if title == 'Iceberg' else 'a'} {title} table (")
    assert str(raised.value).endswith(f"read it through {title}'s own reader")
