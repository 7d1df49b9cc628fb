"""Discovery tables: partitions found on storage at query time, pruned while listing, read by
Spark's own Parquet scan; checked against Spark's path-based read of the same directories."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _scan_text(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


def _write_layout(spark: Any, root: Path) -> None:
    """Spark writes dt=.../hr=... directories (with _SUCCESS); then a directory spelt
    ``hr=007``, a hidden staging directory and a non-partition directory are added."""
    (spark.range(120)
     .selectExpr("id AS a", "concat('v', id) AS b", "concat('2024-01-0', id % 3 + 1) AS dt",
                 "CAST(id % 4 AS INT) AS hr")
     .write.partitionBy("dt", "hr").parquet(str(root)))
    odd = root / "dt=2024-01-01" / "hr=007"
    odd.mkdir()
    source = next((root / "dt=2024-01-01" / "hr=3").glob("*.parquet"))
    shutil.copy(source, odd / "part-00000-copy.parquet")
    (root / "dt=2024-01-02" / ".hive-staging_hive_1").mkdir()
    shutil.copy(source, root / "dt=2024-01-02" / ".hive-staging_hive_1" / "x.parquet")
    (root / "notes").mkdir()


def test_discovery_table_prunes_while_listing_and_matches_a_path_read(
        spark: Any, db: str, tmp_path: Path) -> None:
    root = tmp_path / "events"
    _write_layout(spark, root)
    spark.sql(f"CREATE TABLE hms.{db}.events (a BIGINT, b STRING) "
              "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    path_read = spark.read.schema("a BIGINT, b STRING, dt STRING, hr INT").parquet(str(root))
    path_read.createOrReplaceTempView("by_path")
    queries = [  # where, partitions=selected/listed, list calls
        ("dt = '2024-01-02' AND hr = 1", "1/4", 1),
        ("hr = 3", "3/13", 4),  # the root, then each dt directory
        ("hr = 7", "1/13", 4),
        ("dt IN ('2024-01-01', '2024-01-03') AND hr < 2", "4/9", 2),
        ("dt > '2024-01-02'", "4/4", 2),
        ("a > 100", "13/13", 4),
        ("dt = 'nope'", "0/0", 1),  # dt=nope is probed, found missing
        ("CAST(hr AS STRING) = '7'", "1/13", 4),
    ]
    for where, figures, calls in queries:
        ours = spark.sql(f"SELECT a, b, dt, hr FROM hms.{db}.events WHERE {where}")
        theirs = spark.sql(f"SELECT a, b, dt, hr FROM by_path WHERE {where}")
        assert _rows(ours) == _rows(theirs), where
        text = _scan_text(ours)
        assert f"partitions={figures} (discovered on storage; list calls: {calls}" in text, \
            (where, text)
    assert spark.sql(f"SELECT * FROM hms.{db}.events").count() == path_read.count() > 120
    # Partitions registered in the metastore are not consulted for a discovery table.
    assert spark.sql(f"SHOW PARTITIONS hms.{db}.events").count() == 0


def test_discovery_errors_name_the_table_and_path(spark: Any, db: str, tmp_path: Path) -> None:
    root = tmp_path / "t"
    (root / "hr=1" / "dt=x").mkdir(parents=True)
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (dt STRING, hr INT) "
              f"STORED AS PARQUET LOCATION 'file:{root}' "
              "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    with pytest.raises(Exception, match=r"table .*\.t: directory file:.*/hr=1 has key 'hr' "
                                        r"where partition column 'dt' was expected"):
        spark.sql(f"SELECT * FROM hms.{db}.t").collect()
    shutil.rmtree(root / "hr=1")
    for day in range(5):
        (root / f"dt=d{day}" / "hr=1").mkdir(parents=True)
    spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES "
              "('hmscatalog.discovery.max-partitions'='3')")
    with pytest.raises(Exception, match=r"found 5 matching partitions, more than 3"):
        spark.sql(f"SELECT * FROM hms.{db}.t").collect()
    assert spark.sql(f"SELECT * FROM hms.{db}.t WHERE dt = 'd1'").collect() == []


@pytest.mark.builtin
@pytest.mark.parametrize(("key", "known"), [
    ("hmscatalog.discovery.enable", "hmscatalog.discovery.enabled"),
    ("HMSCATALOG.DISCOVERY.ENABLED", "hmscatalog.discovery.enabled"),
])
def test_a_discovery_table_made_by_the_builtin_catalog_with_a_misspelt_switch_fails_its_query(
        spark: Any, db: str, tmp_path: Path, key: str, known: str) -> None:
    """The built-in catalog stores any key. Read through hms, a switch no reader looks up
    used to leave discovery off: the table read as empty. The query now fails naming it."""
    root = tmp_path / "events"
    _write_layout(spark, root)
    spark.sql(f"CREATE TABLE spark_catalog.{db}.events (a BIGINT, b STRING) "
              "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES ('{key}'='true')")
    with pytest.raises(Exception) as refused:
        spark.sql(f"SELECT count(*) FROM hms.{db}.events").collect()
    assert str(refused.value).strip().splitlines()[0] == (
        f"[HMS_INVALID_SETTING] Table {db}.events: unknown property '{key}'; did you mean "
        f"'{known}'?")
