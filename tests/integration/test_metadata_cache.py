"""The metadata cache by its TTL (``spark.hmscatalog.<catalog>.cache-ttl``, ``events`` off),
differentially: a cached catalog's answers against the ``hms`` catalog's (which follows the
metastore's notification log with catch-up: the metastore's now), and against Spark's built-in
catalog on the same metastore, whose writes stand for another engine's (those tests are marked
``builtin``: Hive 4 metastores skip them). hms's own writes are seen at once, anyone else's
after ``REFRESH TABLE`` or the TTL, and EXPLAIN says which answers the cache gave."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hmscatalog.errors import InvalidSetting
from hmscatalog.spark import attach

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]

KEPT = "hms_kept"  # a TTL no test outlives
BRIEF = "hms_brief"  # a TTL a test waits out
BRIEF_TTL = 1.0


def _attach_with_ttl(spark: Any, name: str, ttl: str, uri: str) -> Any:
    """Catalog ``name`` keeping answers ``ttl``, by the TTL alone: it does not follow the
    metastore's notification log (tests/integration/test_event_freshness.py does)."""
    keys = {f"spark.hmscatalog.{name}.cache-ttl": ttl, f"spark.hmscatalog.{name}.events": "off"}
    for key, value in keys.items():
        spark.conf.set(key, value)
    try:
        return attach(spark, name=name, uri=uri)
    finally:
        for key in keys:
            spark.conf.unset(key)


@pytest.fixture(scope="module")
def cached(spark: Any, hms: Any, metastore_uri: str) -> Iterator[None]:
    _attach_with_ttl(spark, KEPT, "1h", metastore_uri)
    _attach_with_ttl(spark, BRIEF, f"{BRIEF_TTL}s", metastore_uri)
    yield


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def _scan(spark: Any, sql: str) -> str:
    return str(spark.sql(sql)._jdf.queryExecution().executedPlan().toString())


def _same(spark: Any, catalog: str, db: str, other: str = "hms") -> list[Any]:
    """The rows of ``db.t`` through ``catalog`` and through ``other``, which must agree."""
    ours = _rows(spark, f"SELECT * FROM {catalog}.{db}.t")
    assert ours == _rows(spark, f"SELECT * FROM {other}.{db}.t")
    return ours


@pytest.fixture
def table(spark: Any, cached: None, db: str) -> str:
    """``db.t (v INT) PARTITIONED BY (p STRING)`` with partition ``p=a``, read once through
    the cached catalog so that the cache holds it."""
    spark.sql(f"CREATE TABLE hms.{db}.t (v INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p='a') VALUES (1)")
    assert _same(spark, KEPT, db) == [(1, "a")]
    return db


def test_a_second_query_is_answered_from_the_cache_and_explain_says_so(
        spark: Any, table: str) -> None:
    db = table
    query = f"SELECT * FROM {KEPT}.{db}.t WHERE p = 'a'"
    first = _scan(spark, query)  # the table is kept; this filter's partitions are not yet
    assert "metadata cache: table" in first and "partitions" not in first.split("cache:")[1]
    assert "metadata cache: table" in first and "partitions" in _scan(spark, query).split(
        "metadata cache:")[1]
    # ``hms`` follows the metastore's notification log: its cache is on without a TTL.
    assert "metadata cache: table" in _scan(spark, f"SELECT * FROM hms.{db}.t WHERE p = 'a'")


@pytest.mark.parametrize("write", [
    "INSERT INTO hms.{db}.t PARTITION (p='b') VALUES (2)",
    "INSERT OVERWRITE TABLE hms.{db}.t PARTITION (p='a') VALUES (3)",
    "ALTER TABLE hms.{db}.t DROP PARTITION (p='a')",
    "ALTER TABLE hms.{db}.t ADD COLUMNS (w INT)",
    "TRUNCATE TABLE hms.{db}.t",
    "INSERT INTO {kept}.{db}.t PARTITION (p='b') VALUES (2)",
])
def test_writes_through_hms_are_seen_at_once(spark: Any, table: str, write: str) -> None:
    """Through the same cached catalog or another hms catalog of the driver, each write is
    seen by the next query, which agrees with the uncached catalog's."""
    db = table
    before = _rows(spark, f"SELECT * FROM {KEPT}.{db}.t")
    spark.sql(write.format(db=db, kept=KEPT))
    assert _same(spark, KEPT, db) != before
    assert spark.table(f"{KEPT}.{db}.t").columns == spark.table(f"hms.{db}.t").columns


def test_msck_through_hms_is_seen_at_once(spark: Any, table: str, tmp_path: Path) -> None:
    db = table
    location = spark.sql(f"DESCRIBE TABLE EXTENDED hms.{db}.t") \
        .where("col_name = 'Location'").collect()[0][1]
    spark.range(1).selectExpr("CAST(5 AS INT) AS v").write.parquet(f"{location}/p=c")
    spark.sql(f"MSCK REPAIR TABLE hms.{db}.t")
    assert _same(spark, KEPT, db) == [(1, "a"), (5, "c")]


@pytest.mark.builtin
def test_builtin_writes_are_seen_after_refresh(spark: Any, table: str) -> None:
    """Another engine's write (here the built-in catalog's) is not seen while the cache's
    answer lasts, and EXPLAIN shows the answer's age; REFRESH TABLE forgets it."""
    db = table
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p='b') VALUES (2)")
    assert _rows(spark, f"SELECT * FROM {KEPT}.{db}.t") == [(1, "a")]
    assert "metadata cache:" in _scan(spark, f"SELECT * FROM {KEPT}.{db}.t")
    # Following the log, with catch-up: the write is seen by the next query.
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == [(1, "a"), (2, "b")]
    spark.sql(f"REFRESH TABLE {KEPT}.{db}.t")
    assert _same(spark, KEPT, db, "spark_catalog") == [(1, "a"), (2, "b")]


@pytest.mark.builtin
def test_builtin_writes_are_seen_after_the_ttl(spark: Any, table: str) -> None:
    db = table
    assert _same(spark, BRIEF, db) == [(1, "a")]  # now cached in the brief catalog too
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p='b') VALUES (2)")
    spark.sql(f"ALTER TABLE spark_catalog.{db}.t SET TBLPROPERTIES ('k' = 'v')")
    time.sleep(BRIEF_TTL + 0.2)
    assert _same(spark, BRIEF, db, "spark_catalog") == [(1, "a"), (2, "b")]
    properties = dict(_rows(spark, f"SHOW TBLPROPERTIES {BRIEF}.{db}.t"))
    assert properties.get("k") == "v"


@pytest.mark.builtin
def test_a_write_loads_the_table_from_the_metastore(spark: Any, table: str) -> None:
    """A write never works from the cache's table: a column the built-in catalog added is
    there for an INSERT through the cached catalog, whose queries still see the old
    definition until REFRESH."""
    db = table
    spark.sql(f"ALTER TABLE spark_catalog.{db}.t ADD COLUMNS (w INT)")
    assert spark.table(f"{KEPT}.{db}.t").columns == ["v", "p"]  # the cache's, by design
    # (Each write through hms makes the cache forget the table: one write per definition.)
    spark.createDataFrame([(3, 30, "c")], "v INT, w INT, p STRING") \
        .writeTo(f"{KEPT}.{db}.t").append()
    assert spark.table(f"{KEPT}.{db}.t").columns == ["v", "w", "p"]  # cached again
    spark.sql(f"ALTER TABLE spark_catalog.{db}.t ADD COLUMNS (x INT)")
    assert spark.table(f"{KEPT}.{db}.t").columns == ["v", "w", "p"]
    spark.sql(f"INSERT INTO {KEPT}.{db}.t PARTITION (p='b') VALUES (2, 20, 200)")
    spark.sql(f"REFRESH TABLE {KEPT}.{db}.t")
    assert _same(spark, KEPT, db, "spark_catalog") == [(1, None, None, "a"), (2, 20, 200, "b"),
                                                       (3, 30, None, "c")]


def test_a_cache_ttl_that_is_not_a_duration_is_refused(spark: Any, hms: Any,
                                                      metastore_uri: str) -> None:
    with pytest.raises(InvalidSetting) as refused:
        _attach_with_ttl(spark, "hms_bad_ttl", "5 minutes", metastore_uri)
    assert str(refused.value).splitlines()[0] == (
        "Spark conf: setting 'spark.hmscatalog.hms_bad_ttl.cache-ttl' must be a duration such "
        "as 30s, 5m or 1h (0 for none), not '5 minutes'")
