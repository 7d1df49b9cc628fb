"""What hms reports to Spark's optimizer, beside Spark's built-in Hive catalog on the same
metastore: with ``spark.sql.cbo.enabled`` a three-table join is reordered by the column
statistics of ``ANALYZE TABLE ... FOR COLUMNS`` as the built-in reorders it, and a scan that
selects partitions while the query is planned reports their sizes and row counts."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

# Written as (a JOIN b) JOIN c. Row counts alone (ANALYZE TABLE ... COMPUTE STATISTICS) keep
# that order: without the join keys' distinct counts Spark estimates each join as a cross
# product, and a (20 rows) is smaller than c (50). With them (... FOR COLUMNS), a ⋈ b on x, which
# has one value, is still 20 * 100 = 2,000 rows, but b's z is unique, so b ⋈ c has
# 100 * 50 / 100 = 50: the cheaper order joins b and c first.
QUERY = "SELECT count(*) FROM {c}.a JOIN {c}.b ON a.x = b.x JOIN {c}.c ON b.z = c.z"
WRITTEN = ["a", "b", "c"]
CBO = {"spark.sql.cbo.enabled": "true", "spark.sql.cbo.joinReorder.enabled": "true",
       "spark.sql.autoBroadcastJoinThreshold": "-1"}


@contextmanager
def settings(spark: Any, values: dict[str, str]) -> Iterator[None]:
    for key, value in values.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in values:
            spark.conf.unset(key)


@pytest.fixture
def chain(spark: Any, db: str) -> str:
    """Tables a, b and c, written through the built-in catalog."""
    base = f"spark_catalog.{db}"
    for name, columns, select in (
            ("a", "x INT, y INT", "0, CAST(id AS INT) FROM range(20)"),
            ("b", "x INT, z INT", "0, CAST(id AS INT) FROM range(100)"),
            ("c", "z INT", "CAST(id * 2 AS INT) FROM range(50)")):
        spark.sql(f"CREATE TABLE {base}.{name} ({columns}) STORED AS PARQUET")
        spark.sql(f"INSERT INTO {base}.{name} SELECT {select}")
    return db


def _leaf_tables(df: Any) -> list[str]:
    """The tables of the optimized plan's leaves, left to right: the join order."""
    leaves = df._jdf.queryExecution().optimizedPlan().collectLeaves()
    names = []
    for i in range(leaves.size()):
        leaf = leaves.apply(i)
        kind = str(leaf.getClass().getSimpleName())
        if kind == "DataSourceV2ScanRelation":
            names.append(str(leaf.relation().identifier().get().name()))
        elif kind == "LogicalRelation":
            names.append(str(leaf.catalogTable().get().identifier().table()))
        elif kind == "HiveTableRelation":
            names.append(str(leaf.tableMeta().identifier().table()))
        else:
            raise AssertionError(f"unexpected leaf {leaf.simpleString(200)}")
    return names


def _orders(spark: Any, db: str) -> dict[str, list[str]]:
    return {c: _leaf_tables(spark.sql(QUERY.format(c=f"{c}.{db}")))
            for c in ("spark_catalog", "hms")}


def _analyze(spark: Any, db: str, columns: bool) -> None:
    for name, names in (("a", "x, y"), ("b", "x, z"), ("c", "z")):
        spark.sql(f"ANALYZE TABLE spark_catalog.{db}.{name} COMPUTE STATISTICS"
                  + (f" FOR COLUMNS {names}" if columns else "")).collect()


def test_cbo_reorders_joins_by_column_statistics_as_the_builtin_does(
        spark: Any, chain: str) -> None:
    """The statistics come from the built-in's ANALYZE TABLE; the order is the optimized plan's
    (its leaves, left to right). Without column statistics, or with CBO off, both keep the
    written order: the column statistics hms reports are what reorders its joins."""
    with settings(spark, CBO):
        assert _orders(spark, chain) == {"spark_catalog": WRITTEN, "hms": WRITTEN}  # no stats
        _analyze(spark, chain, columns=False)
        assert _orders(spark, chain) == {"spark_catalog": WRITTEN, "hms": WRITTEN}
        _analyze(spark, chain, columns=True)
        orders = _orders(spark, chain)
    assert orders["hms"] == orders["spark_catalog"] != WRITTEN
    with settings(spark, {**CBO, "spark.sql.cbo.enabled": "false"}):
        assert _orders(spark, chain) == {"spark_catalog": WRITTEN, "hms": WRITTEN}


def _leaf_stats(df: Any) -> tuple[int, int | None, dict[str, int | None]]:
    """Size, row count and distinct counts (by column) the plan's one leaf reports."""
    stats = df._jdf.queryExecution().optimizedPlan().collectLeaves().head().stats()
    rows = stats.rowCount()
    columns = stats.attributeStats().toSeq()
    distinct = {}
    for i in range(columns.size()):
        pair = columns.apply(i)
        count = pair._2().distinctCount()
        distinct[str(pair._1().name())] = int(str(count.get())) if count.isDefined() else None
    return (int(str(stats.sizeInBytes())), int(str(rows.get())) if rows.isDefined() else None,
            distinct)


def test_a_scan_selecting_partitions_reports_their_statistics(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path) -> None:
    """A scan that selects its partitions while the query is planned reports the sums of their
    Hive statistics (numRows, totalSize): the metastore's figures, not its files' (a file added
    behind the metastore's back does not count), the row count only when every selected
    partition has one. Of the table's column statistics, the distinct counts shrink with the
    rows read, as Spark's filter estimation shrinks them."""
    base = f"spark_catalog.{db}"
    spark.sql(f"CREATE TABLE {base}.p (v BIGINT) PARTITIONED BY (dt STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.p PARTITION (dt) "
              "SELECT id, concat('2024-01-0', CAST(id % 3 + 1 AS STRING)) FROM range(300)")
    spark.sql(f"ANALYZE TABLE {base}.p COMPUTE STATISTICS FOR COLUMNS v").collect()
    table_ndv = int(client.get_table(db, "p").parameters[
        "spark.sql.statistics.colStats.v.distinctCount"])
    rows = {"2024-01-01": 50, "2024-01-02": 70}  # not the rows the files hold: the metastore's
    client.alter_partitions(db, "p", [
        replace(part, parameters={**part.parameters, "numRows": str(rows[part.values[0]])})
        for part in client.list_partitions(db, "p") if part.values[0] in rows])
    parts = {p.values[0]: p for p in client.list_partitions(db, "p")}
    sizes = {dt: int(part.parameters["totalSize"]) for dt, part in parts.items()}
    first = Path(urlparse(parts["2024-01-01"].location or "").path)
    data = next(f for f in sorted(first.iterdir()) if not f.name.startswith((".", "_")))
    shutil.copy(data, first / "copied.parquet")  # the metastore's totalSize stays
    with settings(spark, {"spark.sql.cbo.planStats.enabled": "true"}):
        two = _leaf_stats(spark.table(f"hms.{db}.p").where("dt < '2024-01-03'"))
        one = _leaf_stats(spark.table(f"hms.{db}.p").where("dt = '2024-01-01'"))
        every = _leaf_stats(spark.table(f"hms.{db}.p").where("dt >= '2024-01-01'"))
    assert two == (sizes["2024-01-01"] + sizes["2024-01-02"], 120,
                   {"v": math.ceil(table_ndv * 120 / 300)})
    assert one == (sizes["2024-01-01"], 50, {"v": math.ceil(table_ndv * 50 / 300)})
    assert every[:2] == (sum(sizes.values()), None)  # 2024-01-03 has no numRows
