"""Tables on S3 (moto's server, through Spark's S3A) and HDFS (a mini cluster): registered
partitions, discovery tables and projection tables read by Spark's own scans with the same
pruning as on local disk, checked against the built-in catalog and against Spark's path read.

Discovery lists S3 with pyarrow and HDFS with Hadoop's ``FileSystem`` in the driver; both count
list calls the same way, so each query's count is asserted to equal the local one.
"""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from remote import Remote

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _scan_text(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


def _events(spark: Any, root: Path) -> None:
    """dt=.../hr=... directories written by Spark, plus one spelt hr=007 and a hidden one."""
    (spark.range(120)
     .selectExpr("id AS a", "concat('v', id) AS b", "concat('2024-01-0', id % 3 + 1) AS dt",
                 "CAST(id % 4 AS INT) AS hr")
     .write.partitionBy("dt", "hr").parquet(str(root)))
    source = next((root / "dt=2024-01-01" / "hr=3").glob("*.parquet"))
    (root / "dt=2024-01-01" / "hr=007").mkdir()
    shutil.copy(source, root / "dt=2024-01-01" / "hr=007" / "part-00000-copy.parquet")
    (root / "dt=2024-01-02" / ".hive-staging_1").mkdir()
    shutil.copy(source, root / "dt=2024-01-02" / ".hive-staging_1" / "x.parquet")


@pytest.mark.builtin
@pytest.mark.cases(1)
def test_registered_partitions_prune_as_the_builtin_catalog_reads(
        spark: Any, hms: Any, remote: Remote, unique_db: str) -> None:
    location = remote.location("sales")
    spark.sql(f"CREATE TABLE spark_catalog.{unique_db}.sales (a INT, b STRING) "
              f"PARTITIONED BY (dt STRING, n INT) STORED AS PARQUET LOCATION '{location}'")
    spark.sql(f"INSERT INTO spark_catalog.{unique_db}.sales PARTITION (dt, n) "
              "SELECT id, concat('v', id), concat('2024-02-0', id % 3), id % 2 FROM range(30)")
    for where, figures in [("dt = '2024-02-01'", "2/6"), ("n = 1 AND dt > '2024-02-00'", "2/6"),
                           ("a > 10", "6/6"), ("dt = 'x'", "0/6")]:
        ours = spark.sql(f"SELECT * FROM hms.{unique_db}.sales WHERE {where}")
        theirs = spark.sql(f"SELECT * FROM spark_catalog.{unique_db}.sales WHERE {where}")
        assert _rows(ours) == _rows(theirs), where
        text = _scan_text(ours)
        assert f"partitions={figures} " in text, (where, text)
        if not figures.startswith("0/"):  # Spark's own scan of the remote files
            assert "Location: InMemoryFileIndex" in text and f"[{remote.scheme}://" in text


@pytest.mark.thorough
def test_discovery_table_lists_as_on_local_disk(spark: Any, db: str, remote: Remote,
                                               tmp_path: Path) -> None:
    local = tmp_path / "events"
    _events(spark, local)
    location = remote.upload(local, "events")
    for name, where in (("on_disk", f"file:{local}"), ("remote", location)):
        spark.sql(f"CREATE TABLE hms.{db}.{name} (a BIGINT, b STRING) "
                  "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET "
                  f"LOCATION '{where}' TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    path_read = spark.read.schema("a BIGINT, b STRING, dt STRING, hr INT").parquet(location)
    path_read.createOrReplaceTempView(f"by_path_{remote.scheme}")
    for where in ["dt = '2024-01-02' AND hr = 1", "hr = 3", "hr = 7",
                  "dt IN ('2024-01-01', '2024-01-03') AND hr < 2", "a > 100", "dt = 'nope'"]:
        ours = spark.sql(f"SELECT a, b, dt, hr FROM hms.{db}.remote WHERE {where}")
        local_text = _scan_text(spark.sql(f"SELECT * FROM hms.{db}.on_disk WHERE {where}"))
        theirs = spark.sql(f"SELECT a, b, dt, hr FROM by_path_{remote.scheme} WHERE {where}")
        assert _rows(ours) == _rows(theirs), where
        # The selection and the listing's calls, to their end; how old a cached answer was
        # differs.
        figures = local_text.split("partitions=", 1)[1].split(")", 1)[0].split("; metadata")[0]
        assert re.search(re.escape(f"partitions={figures}") + "[;)]", _scan_text(ours)), (
            where, local_text)
    assert spark.sql(f"SELECT * FROM hms.{db}.remote").count() == path_read.count() > 120


@pytest.mark.cases(1)
def test_projection_table_reads_computed_partitions(spark: Any, db: str, remote: Remote,
                                                    tmp_path: Path) -> None:
    local = tmp_path / "hourly"
    (spark.range(48).selectExpr("id AS v", "concat('2024-03-0', id % 4 + 1) AS dt")
     .write.partitionBy("dt").parquet(str(local)))
    location = remote.upload(local, "hourly")
    spark.sql(f"CREATE TABLE hms.{db}.hourly (v BIGINT) PARTITIONED BY (dt STRING) "
              f"STORED AS PARQUET LOCATION '{location}' TBLPROPERTIES ("
              "'projection.enabled'='true', 'projection.dt.type'='date', "
              "'projection.dt.format'='yyyy-MM-dd', 'projection.dt.range'='2024-03-01,2024-03-31')")
    found = spark.sql(f"SELECT v, dt FROM hms.{db}.hourly WHERE dt BETWEEN '2024-03-02' AND "
                      "'2024-03-03'")
    assert _rows(found) == _rows(spark.read.schema("v BIGINT, dt STRING").parquet(location).where(
        "dt BETWEEN '2024-03-02' AND '2024-03-03'").select("v", "dt"))
    assert "partitions=2/31" in _scan_text(found)


@pytest.mark.cases(1)
def test_a_discovery_table_over_nothing_yet_is_empty(spark: Any, db: str,
                                                     remote: Remote) -> None:
    location = remote.location(f"absent-{uuid.uuid4().hex[:6]}")
    spark.sql(f"CREATE TABLE hms.{db}.gone (a INT) PARTITIONED BY (dt STRING) STORED AS "
              f"PARQUET LOCATION '{location}' "
              "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    assert spark.sql(f"SELECT * FROM hms.{db}.gone").count() == 0
