"""Star joins through `hms` and through Spark's built-in Hive catalog, on the same tables of one
metastore, in the same run.

    .venv/bin/python bench/star_join.py [--days 1095] [--rows 2000000] [--repeat 5]
        [--point-partitions 10000] [--queries one_month,two_dimensions,non_selective,point]
        [--cache-ttl 1h]

A fact table partitioned by a date key (``--days`` partitions, ``--rows`` rows, Parquet) and two
small dimensions (dates, stores) are written once through the built-in catalog. Three query
shapes then run through each catalog, alternating, ``--repeat`` times after one warm-up each:

- ``one_month``: the fact joined to the date dimension filtered to one month;
- ``two_dimensions``: also joined to the store dimension, filters on both;
- ``non_selective``: a date filter every row passes, where pruning cannot help;
- ``point``: one partition of another table, of ``--point-partitions`` partitions (dt, hr;
  written with Spark's writer, registered through hmscatalog's client).

Printed per query: median seconds of each catalog, the ratio hms / built-in (below 1: hms is
faster), the partitions each read of the partitioned table (hms: its scan's description after
runtime filtering; built-in: its scan's ``numPartitions`` metric), and the median py4j traffic
of a query: commands Python sent to the JVM, and calls the JVM made into Python (the hms
catalog's callbacks). AQE stays on, as users run it.

With ``--cache-ttl``, every query also runs through a third catalog, ``hms_cached``: hms on the
same metastore with that metadata cache TTL (``spark.hmscatalog.hms_cached.cache-ttl``), whose
repeated queries reuse the metastore's answers; its ratio to the built-in is printed after.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path
from typing import Any

from peers import Py4jCounter, chosen, peers, plan_leaves

from hmscatalog.spark import attach

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
    "point": "SELECT count(*), sum(v) FROM {c}.hourly WHERE dt = '{dt}' AND hr = {hr}",
}
PARTITIONED = {"point": "hourly"}  # the partitioned table of each shape, else store_sales


def _partitions_read(df: Any, table: str) -> int | None:
    for scan in plan_leaves(df._jdf.queryExecution().executedPlan()):
        text = str(scan.simpleString(1000))
        if f".{table}[" not in text:
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
    parser.add_argument("--point-partitions", type=int, default=10_000)
    parser.add_argument("--queries", default=",".join(SHAPES),
                        help="comma-separated shapes to run (tables no shape reads are not built)")
    parser.add_argument("--cache-ttl", default="",
                        help="also time catalog hms_cached, with this metadata cache TTL")
    args = parser.parse_args()
    shapes = chosen(parser, args.queries, list(SHAPES), "query")
    counter = Py4jCounter()

    with peers("star") as (work, spark, hms):
        catalogs = ["hms", "spark_catalog"]
        if args.cache_ttl:
            spark.conf.set("spark.hmscatalog.hms_cached.cache-ttl", args.cache_ttl)
            attach(spark, name="hms_cached", uri=hms.client.uris[0])
            catalogs.append("hms_cached")
        hms.client.create_database(DB, location=f"file:{work / 'db'}")
        spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
        spark.sql("SET hive.exec.max.dynamic.partitions=100000")
        base = f"spark_catalog.{DB}"
        if set(shapes) - set(PARTITIONED):
            _star_tables(spark, base, args.days, args.rows)
        point: dict[str, Any] = {}
        if "point" in shapes:
            began = time.perf_counter()
            point = _hourly_table(spark, hms.client, args.point_partitions)
            print(f"hourly: {args.point_partitions:,} partitions written and registered in "
                  f"{time.perf_counter() - began:.1f} s")
        print(f"{'query':16} {'hms s':>8} {'built-in s':>11} {'hms/built-in':>13} "
              f"{'partitions hms':>15} {'built-in':>9} {'py4j hms':>12} {'built-in':>12}")
        for shape in shapes:
            query = SHAPES[shape]
            times: dict[str, list[float]] = {c: [] for c in catalogs}
            calls: dict[str, list[tuple[int, int]]] = {c: [] for c in catalogs}
            read: dict[str, int | None] = {}
            results = {}
            for run in range(args.repeat + 1):
                for catalog in times:
                    with counter.counting(calls[catalog] if run else []):
                        start = time.perf_counter()
                        df = spark.sql(query.format(c=f"{catalog}.{DB}", **point))
                        rows = df.collect()
                        elapsed = time.perf_counter() - start
                    if run:
                        times[catalog].append(elapsed)
                    results[catalog] = sorted(tuple(round(v, 3) if isinstance(v, float) else v
                                                    for v in row) for row in rows)
                    read[catalog] = _partitions_read(df, PARTITIONED.get(shape, "store_sales"))
            if any(results[c] != results["spark_catalog"] for c in catalogs):
                raise SystemExit(f"{shape}: results differ: {results}")
            ours, theirs = (statistics.median(times[c]) for c in ("hms", "spark_catalog"))
            traffic = {c: "/".join(str(int(statistics.median(x)))
                                   for x in zip(*calls[c], strict=True)) for c in calls}
            print(f"{shape:16} {ours:8.3f} {theirs:11.3f} {ours / theirs:12.2f}x "
                  f"{read['hms']!s:>15} {read['spark_catalog']!s:>9} "
                  f"{traffic['hms']:>12} {traffic['spark_catalog']:>12}")
            if "hms_cached" in times:
                cached = statistics.median(times["hms_cached"])
                print(f"{'  cached':16} {cached:8.3f} {theirs:11.3f} {cached / theirs:12.2f}x "
                      f"{read['hms_cached']!s:>15} {'':>9} {traffic['hms_cached']:>12}")
        print("py4j: commands sent to the JVM / calls into Python, median per query (the "
              "timed span: spark.sql and collect)")
    return 0


def _star_tables(spark: Any, base: str, days: int, rows: int) -> None:
    """The fact table ``store_sales`` (``days`` daily partitions, ``rows`` rows) and the
    dimensions ``date_dim`` and ``store``, written through the built-in catalog."""
    began = time.perf_counter()
    spark.sql(f"CREATE TABLE {base}.date_dim (d_date_sk INT, d_year INT, d_moy INT) "
              "STORED AS PARQUET")
    # Day k is 1997-01-01 + k: the default 1,095 days are 1997 to 1999.
    spark.sql(f"INSERT INTO {base}.date_dim SELECT CAST(id AS INT), "
              "year(date_add(DATE'1997-01-01', CAST(id AS INT))), "
              "month(date_add(DATE'1997-01-01', CAST(id AS INT))) "
              f"FROM range({days})")
    spark.sql(f"CREATE TABLE {base}.store (s_store_sk INT, s_state STRING) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.store SELECT CAST(id AS INT), "
              "element_at(array('CA', 'NY', 'TX', 'WA'), CAST(id % 4 + 1 AS INT)) "
              "FROM range(40)")
    spark.sql(f"CREATE TABLE {base}.store_sales (ss_store_sk INT, ss_price DOUBLE) "
              "PARTITIONED BY (ss_sold_date_sk INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.store_sales PARTITION (ss_sold_date_sk) "
              "SELECT CAST(id % 40 AS INT), rand(7) * 100, "
              f"CAST(id % {days} AS INT) FROM range({rows}) "
              "DISTRIBUTE BY CAST(id % 8 AS INT)")
    spark.sql(f"ANALYZE TABLE {base}.date_dim COMPUTE STATISTICS")
    spark.sql(f"ANALYZE TABLE {base}.store COMPUTE STATISTICS")
    print(f"tables written in {time.perf_counter() - began:.1f} s: {days} partitions, "
          f"{rows:,} rows")


def _hourly_table(spark: Any, client: Any, partitions: int) -> dict[str, Any]:
    """Table ``hourly`` (v DOUBLE) PARTITIONED BY (dt STRING, hr INT), ``partitions`` of them
    with 20 rows each, written by Spark's writer and registered in one batch of calls; the
    values of the partition in the middle, which the point query reads."""
    hours = 24
    spark.sql(f"CREATE TABLE spark_catalog.{DB}.hourly (v DOUBLE) "
              "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET")
    table = client.get_table(DB, "hourly")
    root = Path((table.location or "").removeprefix("file:"))
    (spark.range(partitions * 20)
     .selectExpr("rand(5) * 100 AS v", f"CAST(id % {partitions} AS INT) AS k")
     .selectExpr("v", f"CAST(date_add(DATE'2020-01-01', CAST(k DIV {hours} AS INT)) "
                      "AS STRING) AS dt", f"k % {hours} AS hr")
     .repartition(2, "dt").write.partitionBy("dt", "hr").mode("append").parquet(str(root)))
    written = sorted(str(d.relative_to(root)) for d in root.glob("dt=*/hr=*"))
    spec = table.partition_spec
    client.add_partitions(table, [client.new_partition(table, spec.values_of(name))
                                  for name in written])
    dt, hr = written[len(written) // 2].split("/")
    return {"dt": dt.split("=")[1], "hr": int(hr.split("=")[1])}


if __name__ == "__main__":
    raise SystemExit(main())
