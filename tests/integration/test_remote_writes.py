"""Writes into tables on HDFS (a mini cluster) and S3 (moto, through S3A): the same statements as
on local disk, checked against Spark's built-in catalog writing an identical table on the same
storage. On HDFS the commit renames (atomic there); on S3 each file is written once at its final
name through S3A's magic committer and shows only when the write commits. Failed and killed
writes leave nothing visible, on both."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from remote import Remote

# Only test_ctas_write_to_and_msck runs again against every metastore release (.ci/run): the
# others check the commit, which is the same whatever the release.
pytestmark = [pytest.mark.integration, pytest.mark.spark]

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
    # Appends into partitions the overwrites replaced (on S3 they moved to hms-v<id>/).
    "INSERT INTO {t} PARTITION (dt, n) SELECT id, 'e', concat('2024-01-0', id % 2 + 2), 1 "
    "FROM range(4)",
]


@pytest.mark.builtin
@pytest.mark.thorough
def test_inserts_match_the_builtin_catalog_and_each_reads_the_other(
        spark: Any, db: str, remote: Remote) -> None:
    on_hdfs = remote
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


@pytest.mark.metastore
@pytest.mark.cases(2)
def test_ctas_write_to_and_msck(spark: Any, db: str, remote: Remote, tmp_path: Path) -> None:
    on_hdfs = remote
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
@pytest.mark.thorough
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


@pytest.fixture
def on_s3(spark: Any, s3a_jars: list[str], moto_s3: Any, s3a_bucket: str) -> Remote:
    from remote import unique_root

    return Remote("s3a", unique_root("w", f"s3a://{s3a_bucket}"), spark, moto_s3)


def _pending_uploads(moto: Any, bucket: str) -> list[str]:
    return [u["Key"] for u in moto.client.list_multipart_uploads(Bucket=bucket)
            .get("Uploads", [])]


@pytest.mark.thorough
def test_an_s3_write_that_fails_leaves_nothing(spark: Any, db: str, on_s3: Remote,
                                               s3a_bucket: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Three failures on S3, each after the tasks wrote their files: too many dynamic
    partitions and a partition stored outside the table's directory (both before the uploads
    complete), and the metastore failing after the uploads completed. Each time the table reads as
    before, and no file, pending upload or record of the write is left."""
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"LOCATION '{on_s3.location('t')}'")
    spark.sql(f"INSERT INTO {table} SELECT id, 0 FROM range(3)")
    before, files = _rows(spark, table), on_s3.files("t")
    spark.sql("SET hive.exec.max.dynamic.partitions=2")
    with pytest.raises(Exception, match="Number of dynamic partitions created is 5"):
        spark.sql(f"INSERT INTO {table} SELECT id, CAST(id AS INT) FROM range(5)")
    spark.sql("RESET hive.exec.max.dynamic.partitions")
    assert (_rows(spark, table), on_s3.files("t")) == (before, files)
    assert _pending_uploads(on_s3.moto, s3a_bucket) == []

    elsewhere = on_s3.location("elsewhere/k=1")
    spark.sql(f"ALTER TABLE {table} ADD PARTITION (k=1) LOCATION '{elsewhere}'")
    with pytest.raises(Exception) as refused:
        spark.sql(f"INSERT INTO {table} SELECT id, 1 FROM range(2)")
    first = str(refused.value).strip().splitlines()[0]
    assert f"hms cannot append to partition k=1 of {db}.t on S3: its location {elsewhere} " \
        "is not " in first, first
    assert (_rows(spark, table), on_s3.files("t")) == (before, files)
    assert _pending_uploads(on_s3.moto, s3a_bucket) == []

    monkeypatch.setenv("HMSCATALOG_FAULTS", "fail@register")
    with pytest.raises(Exception, match="injected"):
        spark.sql(f"INSERT INTO {table} SELECT id, CAST(id % 3 + 2 AS INT) FROM range(6)")
    monkeypatch.delenv("HMSCATALOG_FAULTS")
    assert (_rows(spark, table), on_s3.files("t")) == (before, files)
    assert spark.sql(f"SHOW PARTITIONS {table}").count() == 2  # k=0 and the added k=1


@pytest.mark.builtin
@pytest.mark.thorough
def test_s3_inserts_send_fewer_requests_than_the_builtin_catalog(
        spark: Any, db: str, on_s3: Remote) -> None:
    """The same dynamic insert of ten new partitions into a table of each catalog: hms writes
    each file once (an upload completed at commit), the built-in catalog writes and copies."""
    counts = {}
    for catalog in ("hms", "spark_catalog"):
        table = f"{catalog}.{db}.t_{catalog}"
        spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
                  f"LOCATION '{on_s3.location(catalog)}'")
        mark = on_s3.moto.mark()
        spark.sql(f"INSERT INTO {table} SELECT id, CAST(id % 10 AS INT) FROM range(100)")
        requests = on_s3.moto.requests(mark)
        counts[catalog] = len(requests)
        assert not [r for r in requests if r.status >= 500], requests
    assert _rows(spark, f"hms.{db}.t_hms") == _rows(spark, f"spark_catalog.{db}.t_spark_catalog")
    assert counts["hms"] < counts["spark_catalog"], counts


@pytest.mark.parametrize(("faults", "finished"), [("kill@commit-record", False),
                                                  ("kill@register", True)])
@pytest.mark.thorough
def test_a_killed_insert_on_s3_is_ended_by_the_next_write(
        spark: Any, db: str, metastore_uri: str, on_s3: Remote, s3a_jars: list[str],
        s3a_bucket: str, faults: str, finished: bool) -> None:
    """Killed before its uploads complete, a write leaves pending uploads and nothing visible;
    killed after, its files are complete but its new partitions unregistered. The next write
    into the table undoes the first (aborting the uploads) or finishes it (registering)."""
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"LOCATION '{on_s3.location('t')}'")
    spark.sql(f"INSERT INTO {table} SELECT id, 0 FROM range(4)")
    before = _rows(spark, table)
    conf = {"spark.jars": ",".join(s3a_jars),
            **{f"spark.hadoop.{k}": v for k, v in on_s3.moto.hadoop_settings.items()}}
    statement = f"INSERT INTO {table} SELECT id + 100, CAST(id % 3 + 1 AS INT) FROM range(9)"
    child = subprocess.run([sys.executable, str(CHILD), metastore_uri, statement],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults,
                                "HMSCATALOG_CHILD_CONF": json.dumps(conf)},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    assert any(f.startswith(".hms-commits/") for f in on_s3.files("t"))
    assert _rows(spark, table) == before  # nothing of the killed write shows
    assert bool(_pending_uploads(on_s3.moto, s3a_bucket)) != finished
    spark.sql(f"INSERT INTO {table} SELECT 7, 0")
    added = sorted((i + 100, i % 3 + 1) for i in range(9)) if finished else []
    assert _rows(spark, table) == sorted([*before, (7, 0), *added])
    assert _pending_uploads(on_s3.moto, s3a_bucket) == []
    assert not any(f.startswith((".hms-commits/", "__magic")) or "/__magic" in f
                   for f in on_s3.files("t")), on_s3.files("t")


@pytest.mark.thorough
def test_executors_in_their_own_jvms_read_and_write_hdfs_and_s3(
        spark: Any, db: str, metastore_uri: str, on_hdfs: Remote, s3a_jars: list[str],
        moto_s3: Any, s3a_bucket: str, tmp_path: Path) -> None:
    """``local-cluster[2,1,1024]``: two executors, each its own JVM, with S3A from spark.jars.
    hms writes an HDFS table (dynamic insert, then a static overwrite) and an S3 table (each
    executor's uploads completed by the driver's commit), and reads them and another S3 table
    back, pruned, in a driver of its own."""
    local = tmp_path / "daily"
    spark.range(30).selectExpr("id AS v", "concat('2024-01-0', id % 3 + 1) AS dt") \
        .write.partitionBy("dt").parquet(str(local))
    moto_s3.upload_tree(s3a_bucket, local, f"cluster-{db}")
    spark.sql(f"CREATE TABLE hms.{db}.on_s3 (v BIGINT) PARTITIONED BY (dt STRING) STORED AS "
              f"PARQUET LOCATION 's3a://{s3a_bucket}/cluster-{db}' "
              "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    child = subprocess.run(
        [sys.executable, str(CHILD.with_name("cluster_child.py")), metastore_uri, db,
         on_hdfs.root, f"s3a://{s3a_bucket}/cluster-{db}", ",".join(s3a_jars),
         json.dumps(moto_s3.hadoop_settings)],
        capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr[-3000:]
    found = json.loads(child.stdout.strip().splitlines()[-1])
    assert found["executors"] == 2
    assert [tuple(r) for r in found["hdfs"]] == [
        (3, 200, sum(i for i in range(1000) if i % 5 == 3)), (4, 3, 3)]
    assert "partitions=1/5" in found["hdfs_plan"], found["hdfs_plan"]
    assert [tuple(r) for r in found["s3a"]] == [("2024-01-02", 10)]
    assert [tuple(r) for r in found["s3a_written"]] == [(0, 100), (1, 100), (2, 100)]
    assert "partitions=1/" in found["s3a_plan"], found["s3a_plan"]
    assert _rows(spark, f"hms.{db}.on_hdfs WHERE k = 4", "v") == [(0,), (1,), (2,)]
