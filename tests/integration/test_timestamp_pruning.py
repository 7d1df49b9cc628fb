"""TIMESTAMP partition columns prune, compared with Spark's built-in Hive catalog on the same
table: the same rows for every filter, with fewer partitions read than the table has.

Spark reads a TIMESTAMP partition value in the session time zone, so around a daylight-saving
change two wall-clock values can be one instant (02:30 on the day clocks spring forward is
03:30) and the instants of an overlap take the earlier offset. The table holds such values.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

GAP = "2024-03-10 02:30:00"  # in the spring gap: the instant of 03:30 in Los Angeles
VALUES = [
    "2024-01-01 00:00:00",
    "2024-03-10 01:30:00",
    GAP,
    "2024-03-10 03:30:00",
    "2024-11-03 01:30:00",  # in the overlap: the earlier offset (PDT)
    "2024-11-03 02:30:00",
    "2024-12-31 23:59:59.5",
]
ROWS = 100  # enough that the table outweighs a dimension joined to it

FILTERS = [
    "ts = TIMESTAMP'2024-03-10 03:30:00'",
    "ts = TIMESTAMP'2024-03-10 02:30:00'",
    "ts < TIMESTAMP'2024-03-10 03:00:00'",
    "ts >= TIMESTAMP'2024-03-10 03:00:00' AND ts < TIMESTAMP'2024-11-03 02:00:00'",
    "ts > TIMESTAMP'2024-11-03 01:00:00'",
    "ts IN (TIMESTAMP'2024-01-01 00:00:00', TIMESTAMP'2024-12-31 23:59:59.5')",
    "ts = TIMESTAMP'2024-03-10 10:30:00Z'",  # an instant given in UTC
    "ts <= '2024-03-10 01:30:00'",  # a string Spark casts to TIMESTAMP
    "NOT ts = TIMESTAMP'2024-01-01 00:00:00'",
]


@pytest.fixture
def by_timestamp(spark: Any, db: str, client: MetastoreClient) -> Iterator[str]:
    """ROWS rows a partition, written through the built-in catalog in the Los Angeles zone.

    Spark names a static partition by its value cast to TIMESTAMP and back, which turns the gap
    value into 03:30; Hive keeps the text. That partition is added as Hive would."""
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        spark.sql(f"CREATE TABLE spark_catalog.{db}.t (v INT) PARTITIONED BY (ts TIMESTAMP) "
                  "STORED AS PARQUET")
        for number, value in enumerate(VALUES):
            if value != GAP:
                spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (ts='{value}') "
                          f"SELECT {number * ROWS} + CAST(id AS INT) FROM range({ROWS})")
        table = client.get_table(db, "t")
        gap = client.new_partition(table, [dt.datetime.fromisoformat(GAP)])
        assert gap.location is not None
        spark.sql(f"SELECT {VALUES.index(GAP) * ROWS} + CAST(id AS INT) AS v "
                  f"FROM range({ROWS})").write.parquet(gap.location)
        client.add_partitions(table, [gap])
        spark.sql(f"REFRESH TABLE spark_catalog.{db}.t")
        yield db
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


def _read(spark: Any, query: str) -> tuple[list[tuple[Any, ...]], str]:
    df = spark.sql(query)
    rows = sorted(tuple(row) for row in df.collect())
    leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
    scans = [str(leaves.apply(i).scan().description()) for i in range(leaves.size())
             if leaves.apply(i).getClass().getSimpleName() == "BatchScanExec"]
    return rows, scans[0] if scans else ""


@pytest.mark.parametrize("where", FILTERS)
@pytest.mark.cases(2)
def test_timestamp_filters_prune_as_the_builtin_catalog_reads(
        spark: Any, by_timestamp: str, where: str) -> None:
    query = "SELECT v, CAST(ts AS STRING) FROM {c}.t WHERE " + where
    expected, _ = _read(spark, query.format(c=f"spark_catalog.{by_timestamp}"))
    rows, description = _read(spark, query.format(c=f"hms.{by_timestamp}"))
    assert rows == expected
    match = re.search(r"partitions=(\d+)/(\d+) \(metastore filter: none; client-side filter: "
                      r"yes[;)]", description)
    assert match is not None, description
    assert (int(match.group(1)), int(match.group(2))) == (len(expected) // ROWS, len(VALUES))


def test_the_gap_value_and_its_instant_are_one_partition_pair(
        spark: Any, by_timestamp: str) -> None:
    """02:30 in the gap and 03:30 are one instant: an equality on either reads both."""
    rows, _ = _read(spark, f"SELECT DISTINCT v DIV {ROWS} FROM hms.{by_timestamp}.t "
                           "WHERE ts = TIMESTAMP'2024-03-10 02:30:00'")
    assert rows == [(2,), (3,)]


def test_another_session_zone_reads_other_instants(spark: Any, by_timestamp: str) -> None:
    """The same partition strings read in UTC are other instants; pruning follows the zone."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    query = ("SELECT v FROM {c}.t WHERE ts >= TIMESTAMP'2024-03-10 09:00:00-08:00' "
             "AND ts < TIMESTAMP'2024-03-10 03:00:00+00:00'")
    expected, _ = _read(spark, query.format(c=f"spark_catalog.{by_timestamp}"))
    rows, description = _read(spark, query.format(c=f"hms.{by_timestamp}"))
    assert rows == expected
    assert f"partitions={len(expected) // ROWS}/{len(VALUES)}" in description, description


def test_a_join_on_a_timestamp_key_prunes_at_run_time(spark: Any, by_timestamp: str) -> None:
    base = f"spark_catalog.{by_timestamp}"
    spark.sql(f"CREATE TABLE {base}.hours (h TIMESTAMP, day STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.hours SELECT CAST(ts AS TIMESTAMP), substr(ts, 1, 10) "
              f"FROM VALUES {', '.join(repr(v) for v in VALUES)} AS x(ts)")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        query = ("SELECT count(*), sum(v) FROM {c}.t JOIN {c}.hours ON ts = h "
                 "WHERE day = '2024-03-10'")
        expected, _ = _read(spark, query.format(c=base))
        rows, description = _read(spark, query.format(c=f"hms.{by_timestamp}"))
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    assert rows == expected
    assert expected[0][0] == 5 * ROWS  # 01:30, 02:30 and 03:30 match; 02:30 and 03:30 twice
    assert f"partitions=3/{len(VALUES)}" in description, description
    assert "after runtime filtering" in description, description
