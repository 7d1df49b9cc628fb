"""Star joins through `hms` and through Spark's built-in Hive catalog, on the same tables of one
metastore, in the same run.

    .venv/bin/python bench/star_join.py [--days 1095] [--rows 2000000] [--repeat 5]

A fact table partitioned by a date key (``--days`` partitions, ``--rows`` rows, Parquet) and two
small dimensions (dates, stores) are written once through the built-in catalog. Three query
shapes then run through each catalog, alternating, ``--repeat`` times after one warm-up each:

- ``one_month``: the fact joined to the date dimension filtered to one month;
- ``two_dimensions``: also joined to the store dimension, filters on both;
- ``non_selective``: a date filter every row passes, where pruning cannot help.

Printed per query: median seconds of each catalog, the ratio hms / built-in (below 1: hms is
faster), and the fact partitions each read (hms: its scan's description after runtime
filtering; built-in: its scan's ``numPartitions`` metric). AQE stays on, as users run it.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from typing import Any

from peers import peers

DB = "bench_star"
SHAPES = {
    "one_month": "SELECT d_moy, sum(ss_price), count(*) FROM {c}.store_sales "
                 "JOIN {c}.date_dim ON ss_sold_date_sk = d_date_sk "
                 "WHERE d_year = 1999 AND d_moy = 11 GROUP BY d_moy",
    "two_dimensions": "SELECT s_state, sum(ss_price) FROM {c}.store_sales "
                      "JOIN {c}.date_dim ON ss_sold_date_sk = d_date_sk "
                      "JOIN {c}.store ON ss_store_sk = s_store_sk "
                      "WHERE d_year = 1999 AND d_moy BETWEEN 10 AND 12 AND s_state = 'CA' "
                      "GROUP BY s_state",
    "non_selective": "SELECT count(*), sum(ss_price) FROM {c}.store_sales "
                     "JOIN {c}.date_dim ON ss_sold_date_sk = d_date_sk WHERE d_year >= 1900",
}


def _scans(plan: Any) -> list[Any]:
    """Every leaf of an executed plan, looking into AQE's query stages."""
    found, stack = [], [plan]
    while stack:
        node = stack.pop()
        kind = str(node.getClass().getSimpleName())
        if kind == "AdaptiveSparkPlanExec":
            stack.append(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            stack.append(node.plan())
        else:
            children = node.children()
            if children.size() == 0:
                found.append(node)
            stack.extend(children.apply(i) for i in range(children.size()))
    return found


def _fact_partitions(df: Any) -> int | None:
    for scan in _scans(df._jdf.queryExecution().executedPlan()):
        text = str(scan.simpleString(1000))
        if ".store_sales[" not in text:
            continue
        kind = str(scan.getClass().getSimpleName())
        if kind == "BatchScanExec":
            match = re.search(r"partitions=(\d+)/", str(scan.scan().description()))
            return int(match.group(1)) if match else None
        if kind == "FileSourceScanExec":
            return int(scan.metrics().apply("numPartitions").value())
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=1095)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with peers("star") as (work, spark, hms):
        hms.client.create_database(DB, location=f"file:{work / 'db'}")
        spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
        spark.sql("SET hive.exec.max.dynamic.partitions=100000")
        base = f"spark_catalog.{DB}"
        began = time.perf_counter()
        spark.sql(f"CREATE TABLE {base}.date_dim (d_date_sk INT, d_year INT, d_moy INT) "
                  "STORED AS PARQUET")
        # Day k is 1997-01-01 + k: the default 1,095 days are 1997 to 1999.
        spark.sql(f"INSERT INTO {base}.date_dim SELECT CAST(id AS INT), "
                  "year(date_add(DATE'1997-01-01', CAST(id AS INT))), "
                  "month(date_add(DATE'1997-01-01', CAST(id AS INT))) "
                  f"FROM range({args.days})")
        spark.sql(f"CREATE TABLE {base}.store (s_store_sk INT, s_state STRING) "
                  "STORED AS PARQUET")
        spark.sql(f"INSERT INTO {base}.store SELECT CAST(id AS INT), "
                  "element_at(array('CA', 'NY', 'TX', 'WA'), CAST(id % 4 + 1 AS INT)) "
                  "FROM range(40)")
        spark.sql(f"CREATE TABLE {base}.store_sales (ss_store_sk INT, ss_price DOUBLE) "
                  "PARTITIONED BY (ss_sold_date_sk INT) STORED AS PARQUET")
        spark.sql(f"INSERT INTO {base}.store_sales PARTITION (ss_sold_date_sk) "
                  "SELECT CAST(id % 40 AS INT), rand(7) * 100, "
                  f"CAST(id % {args.days} AS INT) FROM range({args.rows}) "
                  "DISTRIBUTE BY CAST(id % 8 AS INT)")
        spark.sql(f"ANALYZE TABLE {base}.date_dim COMPUTE STATISTICS")
        spark.sql(f"ANALYZE TABLE {base}.store COMPUTE STATISTICS")
        print(f"tables written in {time.perf_counter() - began:.1f} s: {args.days} partitions, "
              f"{args.rows:,} rows")
        print(f"{'query':16} {'hms s':>8} {'built-in s':>11} {'hms/built-in':>13} "
              f"{'partitions hms':>15} {'built-in':>9}")
        for shape, query in SHAPES.items():
            times: dict[str, list[float]] = {"hms": [], "spark_catalog": []}
            read: dict[str, int | None] = {}
            results = {}
            for run in range(args.repeat + 1):
                for catalog in times:
                    df = spark.sql(query.format(c=f"{catalog}.{DB}"))
                    start = time.perf_counter()
                    rows = df.collect()
                    elapsed = time.perf_counter() - start
                    if run:
                        times[catalog].append(elapsed)
                    results[catalog] = sorted(tuple(round(v, 3) if isinstance(v, float) else v
                                                    for v in row) for row in rows)
                    read[catalog] = _fact_partitions(df)
            if results["hms"] != results["spark_catalog"]:
                raise SystemExit(f"{shape}: results differ: {results}")
            ours, theirs = (statistics.median(times[c]) for c in ("hms", "spark_catalog"))
            print(f"{shape:16} {ours:8.3f} {theirs:11.3f} {ours / theirs:12.2f}x "
                  f"{read['hms']!s:>15} {read['spark_catalog']!s:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
