"""Writes into tables on HDFS (a mini cluster): the same statements as on local disk, with the
crash-safe commit's guarantees (HDFS renames are atomic), checked against Spark's built-in
catalog writing an identical table on the same HDFS; and a killed write recovered by the next
read. Tables on S3 are refused by name, with nothing changed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from remote import Remote

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]

CHILD = Path(__file__).with_name("spark_child.py")


@pytest.fixture
def on_hdfs(spark: Any, hdfs: Any) -> Remote:
    from remote import unique_root

    return Remote("hdfs", unique_root("w", f"{hdfs.uri}/warehouse"), spark)


def _rows(spark: Any, table: str, columns: str = "*") -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT {columns} FROM {table}").collect())


STATEMENTS = [
    "INSERT INTO {t} PARTITION (dt='2024-01-01', n) SELECT id, concat('a', id), id % 2 "
    "FROM range(6)",
    "INSERT INTO {t} PARTITION (dt, n) SELECT id, 'b', concat('2024-01-0', id % 3 + 1), 1 "
    "FROM range(9)",
    "INSERT OVERWRITE {t} PARTITION (dt='2024-01-02', n=1) SELECT 100, 'c'",
    "INSERT OVERWRITE {t} PARTITION (dt, n) SELECT id, 'd', '2024-01-03', id % 2 "
    "FROM range(4)",
]


@pytest.mark.builtin
def test_inserts_match_the_builtin_catalog_and_each_reads_the_other(
        spark: Any, db: str, on_hdfs: Remote) -> None:
    ours, theirs = f"hms.{db}.ours", f"spark_catalog.{db}.theirs"
    for table, name in ((ours, "ours"), (theirs, "theirs")):
        spark.sql(f"CREATE TABLE {table} (a BIGINT, b STRING) PARTITIONED BY (dt STRING, n INT) "
                  f"STORED AS PARQUET LOCATION '{on_hdfs.location(name)}'")
    for statement in STATEMENTS:
        for table in (ours, theirs):
            spark.sql(statement.format(t=table))
        assert _rows(spark, ours) == _rows(spark, theirs), statement
    # Each catalog reads what the other wrote, partitions and all.
    assert _rows(spark, f"spark_catalog.{db}.ours") == _rows(spark, theirs)
    assert _rows(spark, f"hms.{db}.theirs") == _rows(spark, theirs)
    assert sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {ours}").collect()) == \
        sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {theirs}").collect())
    files = on_hdfs.files("ours")
    assert files and all(f.split("/")[-1].startswith(("part-", ".hms-commits")) or
                         f.startswith(".hms-commits/") for f in files), files
    assert not any(".hms-staging" in f or ".hms-trash" in f for f in files), files


def test_ctas_write_to_and_msck_on_hdfs(spark: Any, db: str, on_hdfs: Remote,
                                        tmp_path: Path) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.made LOCATION '{on_hdfs.location('made')}' "
              "PARTITIONED BY (k) AS SELECT id AS v, CAST(id % 3 AS INT) AS k FROM range(12)")
    assert _rows(spark, f"hms.{db}.made", "v, k") == [(i, i % 3) for i in range(12)]
    spark.range(12, 15).selectExpr("id AS v", "CAST(id % 3 AS INT) AS k") \
        .writeTo(f"hms.{db}.made").append()
    assert _rows(spark, f"hms.{db}.made", "v, k") == [(i, i % 3) for i in range(15)]
    # A directory copied in by hand is registered by MSCK.
    spark.range(3).selectExpr("id + 100 AS v").write.parquet(str(tmp_path / "k=7"))
    on_hdfs.upload(tmp_path / "k=7", "made/k=7")
    spark.sql(f"MSCK REPAIR TABLE hms.{db}.made")
    assert _rows(spark, f"hms.{db}.made WHERE k = 7", "v") == [(100,), (101,), (102,)]


@pytest.mark.parametrize(("faults", "finished"), [("kill@move:3", False),
                                                  ("kill@committed", True)])
def test_a_killed_insert_on_hdfs_is_recovered_by_the_next_read(
        spark: Any, db: str, metastore_uri: str, on_hdfs: Remote, faults: str,
        finished: bool) -> None:
    """A real INSERT in another Spark driver, killed holding the table's commit lock (a file on
    HDFS): the next read takes the dead writer's lock over, and finishes or undoes its write."""
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"LOCATION '{on_hdfs.location('t')}' "
              "TBLPROPERTIES ('hmscatalog.write.keep-replaced-seconds'='0')")
    spark.sql(f"INSERT INTO {table} SELECT id, CAST(id % 2 AS INT) FROM range(10)")
    before = _rows(spark, table)
    statement = (f"INSERT INTO {table} SELECT /*+ REPARTITION(3) */ id + 100, "
                 "CAST(id % 4 AS INT) FROM range(20)")
    child = subprocess.run([sys.executable, str(CHILD), metastore_uri, statement],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    records = [f for f in on_hdfs.files("t") if f.startswith(".hms-commits/")]
    assert ".hms-commits/lock" in records and any(f.endswith(".json") for f in records)
    added = sorted((i + 100, i % 4) for i in range(20))
    expected = sorted(before + added) if finished else before
    assert _rows(spark, table) == expected  # this read recovers
    assert [f for f in on_hdfs.files("t") if ".hms-" in f] == []
    spark.sql(statement)
    assert _rows(spark, table) == sorted(expected + added)


def test_a_table_on_s3_is_refused_by_name_and_left_unchanged(
        spark: Any, db: str, s3a_jars: Any, s3a_bucket: str) -> None:
    location = f"s3a://{s3a_bucket}/refused-{db}"
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"LOCATION '{location}'")
    with pytest.raises(Exception) as refused:
        spark.sql(f"INSERT INTO hms.{db}.t SELECT 1, 2")
    first = str(refused.value).strip().splitlines()[0]
    assert f"hms cannot write table {db}.t at {location}" in first, first
    assert spark.sql(f"SHOW PARTITIONS hms.{db}.t").count() == 0
