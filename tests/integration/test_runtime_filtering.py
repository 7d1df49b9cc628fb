"""Dynamic partition pruning on hms scans: a fact table partitioned by a date key, joined to small
dimension tables, read through hms and through Spark's built-in Hive catalog on the same
metastore. The results, and the partitions of the fact table each reads, must agree."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

DAYS = 60
SHAPES = {
    # One month of the date dimension: 30 of the 60 fact partitions.
    "one_month": "SELECT d_moy, sum(v), count(*) FROM {c}.fact JOIN {c}.date_dim ON sk = d_sk "
                 "WHERE d_moy = 1 GROUP BY d_moy",
    # Filters on two dimensions; only the date one prunes the fact table's partitions.
    "two_dimensions": "SELECT s_state, sum(v) FROM {c}.fact JOIN {c}.date_dim ON sk = d_sk "
                      "JOIN {c}.store ON store = s_sk WHERE d_dom < 5 AND s_state = 'CA' "
                      "GROUP BY s_state",
    # Every date: nothing to prune.
    "non_selective": "SELECT count(*), sum(v) FROM {c}.fact JOIN {c}.date_dim ON sk = d_sk "
                     "WHERE d_moy >= 0",
}
EXPECTED_PARTITIONS = {"one_month": 30, "two_dimensions": 10, "non_selective": DAYS}


@pytest.fixture
def star(spark: Any, db: str) -> Iterator[str]:
    """The tables, written through the built-in catalog; AQE off so that the executed plan
    holds the scans themselves."""
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    base = f"spark_catalog.{db}"
    spark.sql(f"CREATE TABLE {base}.fact (v BIGINT, store INT) PARTITIONED BY (sk INT) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.fact PARTITION (sk) SELECT id, CAST(id % 3 AS INT), "
              f"CAST(id % {DAYS} AS INT) FROM range(1200)")
    spark.sql(f"CREATE TABLE {base}.date_dim (d_sk INT, d_moy INT, d_dom INT) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.date_dim SELECT id, CAST(id DIV 30 AS INT), "
              f"CAST(id % 30 AS INT) FROM range({DAYS})")
    spark.sql(f"CREATE TABLE {base}.store (s_sk INT, s_state STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.store VALUES (0, 'CA'), (1, 'NY'), (2, 'CA')")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        yield db
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")


def _leaves(spark: Any, df: Any) -> list[Any]:
    plan = df._jdf.queryExecution().executedPlan()
    leaves = plan.collectLeaves()
    return [leaves.apply(i) for i in range(leaves.size())]


def _hms_fact_partitions(spark: Any, df: Any) -> tuple[int, str]:
    """Partitions the hms scan of the fact table read, and its description."""
    (scan,) = [leaf for leaf in _leaves(spark, df)
               if leaf.getClass().getSimpleName() == "BatchScanExec"
               and ".fact[" in leaf.simpleString(1000)]
    description = str(scan.scan().description())
    match = re.search(r"partitions=(\d+)/", description)
    assert match is not None, description
    return int(match.group(1)), description


def _builtin_fact_partitions(spark: Any, df: Any) -> int:
    (scan,) = [leaf for leaf in _leaves(spark, df)
               if leaf.getClass().getSimpleName() == "FileSourceScanExec"
               and ".fact[" in leaf.simpleString(1000)]
    return int(scan.metrics().apply("numPartitions").value())


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.cases(1)
def test_star_joins_read_the_partitions_the_builtin_catalog_reads(
        spark: Any, star: str, shape: str) -> None:
    results = {}
    for catalog in ("hms", "spark_catalog"):
        df = spark.sql(SHAPES[shape].format(c=f"{catalog}.{star}"))
        results[catalog] = sorted(tuple(row) for row in df.collect())
        if catalog == "hms":
            hms_read, description = _hms_fact_partitions(spark, df)
        else:
            builtin_read = _builtin_fact_partitions(spark, df)
    assert results["hms"] == results["spark_catalog"]
    assert results["hms"] != []
    assert (hms_read, builtin_read) == (EXPECTED_PARTITIONS[shape],) * 2
    # Spark adds the runtime filter whatever its selectivity; hms then asks the metastore for
    # the partitions the dimension's values select, all of them in the non-selective shape.
    assert "after runtime filtering" in description, description


def test_explain_shows_the_runtime_filter(spark: Any, star: str) -> None:
    """Before the query runs, the fact table's partitions are not selected yet: Spark has only
    the null check its join implies, and the runtime values decide. After it, the description
    says what was read."""
    df = spark.sql(SHAPES["one_month"].format(c=f"hms.{star}"))
    plan = df._jdf.queryExecution().explainString(
        spark._jvm.org.apache.spark.sql.execution.ExplainMode.fromString("simple"))
    (fact,) = [line for line in str(plan).splitlines() if ".fact[" in line]
    assert re.search(r"RuntimeFilters: \[dynamicpruningexpression\(sk#\d+ IN "
                     r"dynamicpruning#\d+\)\]", fact), fact
    assert f"hms {star}.fact partitions=pending (selected when the query runs" in fact, fact
    df.collect()
    _, description = _hms_fact_partitions(spark, df)
    assert f"hms {star}.fact partitions=30/{DAYS} (metastore filter: " in description
    assert description.index("after runtime filtering") < description.index("ParquetScan")


def test_a_static_partition_filter_still_selects_while_planning(spark: Any, star: str) -> None:
    """With a partition filter of its own the scan selects while the query is planned (its
    size estimate comes from the files, as the built-in's does), then narrows at run time."""
    df = spark.sql(f"SELECT sum(v) FROM hms.{star}.fact JOIN hms.{star}.date_dim ON sk = d_sk "
                   "WHERE d_moy = 1 AND sk < 40")
    plan = str(df._jdf.queryExecution().explainString(
        spark._jvm.org.apache.spark.sql.execution.ExplainMode.fromString("simple")))
    assert f"hms {star}.fact partitions=40/{DAYS} (metastore filter: sk < 40" in plan, plan
    expected = spark.sql(f"SELECT sum(v) FROM spark_catalog.{star}.fact "
                         "WHERE sk >= 30 AND sk < 40").collect()
    assert df.collect() == expected
    assert _hms_fact_partitions(spark, df)[0] == 10


def _size_and_rows(df: Any) -> tuple[int, Any]:
    """The estimate of the plan's one leaf (the table), before any filter above it."""
    stats = df._jdf.queryExecution().optimizedPlan().collectLeaves().head().stats()
    rows = stats.rowCount()
    return int(str(stats.sizeInBytes())), int(str(rows.get())) if rows.isDefined() else None


def _joins(df: Any) -> list[str]:
    found, stack = [], [df._jdf.queryExecution().executedPlan()]
    while stack:
        node = stack.pop()
        if "Join" in str(node.getClass().getSimpleName()):
            found.append(str(node.getClass().getSimpleName()))
        children = node.children()
        stack.extend(children.apply(i) for i in range(children.size()))
    return sorted(found)


def _reads_table_statistics(spark: Any, star: str) -> tuple[Any, Any]:
    """A read of the fact table whose estimate comes from the metastore's statistics, in each
    catalog: hms's with the null check a join implies (a pending scan), the built-in's with no
    partition filter at all (a filter, even that one, makes it list the files)."""
    return (spark.table(f"hms.{star}.fact").where("sk IS NOT NULL"),
            spark.table(f"spark_catalog.{star}.fact"))


@pytest.mark.thorough
def test_a_pending_scan_reports_the_metastore_statistics(spark: Any, star: str) -> None:
    """Without files to measure, the estimate is the table's statistics as the built-in
    catalog reads them: unknown ("too large to broadcast") until ANALYZE TABLE writes them."""
    unknown = 2**63 - 1  # spark.sql.defaultSizeInBytes
    for analyzed in (False, True):
        if analyzed:
            spark.sql(f"ANALYZE TABLE spark_catalog.{star}.fact COMPUTE STATISTICS")
        sizes = [_size_and_rows(df)[0] for df in _reads_table_statistics(spark, star)]
        assert sizes[0] == sizes[1] and (sizes[0] < unknown) is analyzed
        # Row counts stay in the plan with CBO's plan statistics on (the built-in then also
        # derives its size from them, hms keeps the table's).
        spark.conf.set("spark.sql.cbo.planStats.enabled", "true")
        try:
            rows = [_size_and_rows(df)[1] for df in _reads_table_statistics(spark, star)]
        finally:
            spark.conf.unset("spark.sql.cbo.planStats.enabled")
        assert rows == ([1200, 1200] if analyzed else [None, None])
    for shape in SHAPES.values():
        joins = [_joins(spark.sql(shape.format(c=f"{c}.{star}")))
                 for c in ("hms", "spark_catalog")]
        assert joins[0] == joins[1] != []


@pytest.mark.thorough
def test_a_path_read_prunes_at_run_time_while_listing(spark: Any, star: str,
                                                      tmp_path: Any) -> None:
    """The same join over a path read: the runtime values go into discovery, which lists only
    the selected directories."""
    from hmscatalog.spark import read_partitioned

    root = tmp_path / "fact"
    spark.sql(f"SELECT v, store, sk FROM spark_catalog.{star}.fact").write \
        .partitionBy("sk").parquet(str(root))
    read_partitioned(spark, str(root)).createOrReplaceTempView("fact_files")
    query = (f"SELECT sum(v), count(*) FROM fact_files JOIN spark_catalog.{star}.date_dim "
             "ON sk = d_sk WHERE d_moy = 1")
    df = spark.sql(query)
    expected = spark.sql(SHAPES["one_month"].format(c=f"spark_catalog.{star}")).collect()
    assert [tuple(r) for r in df.collect()] == [tuple(expected[0])[1:]]
    (scan,) = [leaf for leaf in _leaves(spark, df)
               if leaf.getClass().getSimpleName() == "BatchScanExec"
               and "fact" in str(leaf.scan().description())]
    description = str(scan.scan().description())
    assert re.search(r"partitions=30/\d+ \(discovered on storage; list calls: \d+\) after "
                     "runtime filtering", description), description
