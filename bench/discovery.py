"""Partitions on storage: one-partition queries through discovery against Spark's path-based
read, and repair against Spark's built-in MSCK REPAIR TABLE, in one run.

    .venv/bin/python bench/discovery.py [--local 2000] [--s3 1800] [--repair 10000] [--repeat 5]

1. Local: ``--local`` daily partitions (one Parquet file each) under one directory. The same
   query, ``SELECT count(*), sum(v) WHERE dt = <one day>``, runs through a discovery table in
   ``hms``, through ``read_partitioned``, and through Spark's path-based read
   (``spark.read.parquet(root).where(...)``), each built anew per run; medians after a warm-up.
2. S3 (moto_server on loopback): ``--s3`` daily partitions; the same query through
   ``read_partitioned`` (pyarrow, since Spark here has no s3a); List and Get requests counted from
   the server's log. Spark's path-based read cannot open s3 on this machine, so it has no peer.
3. Repair: ``--repair`` partitions (dt x hr directories, one small file each), registered by
   ``MSCK REPAIR TABLE hms...`` and by the built-in ``MSCK REPAIR TABLE spark_catalog...`` on two
   tables over the same directories; one run each (a repeat would find nothing to add), after
   both have repaired two 2,000-partition tables to warm the metastore up.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from peers import peers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from s3 import MotoServer

from hmscatalog.spark import read_partitioned

DB = "bench_discovery"
DAY0 = "DATE'2020-01-01'"


def _write_days(spark: Any, root: Path, days: int, rows_per_day: int) -> None:
    (spark.range(days * rows_per_day)
     .selectExpr("id", "rand(7) AS v",
                 f"date_format(date_add({DAY0}, CAST(id % {days} AS INT)), 'yyyy-MM-dd') AS dt")
     .repartition("dt").write.partitionBy("dt").parquet(str(root)))


def _median_ms(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    result = run()  # warm-up
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times), result


def local_queries(spark: Any, work: Path, days: int, repeat: int) -> None:
    root = work / "local_days"
    _write_days(spark, root, days, 1000)
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS hms.{DB}")
    spark.sql(f"CREATE TABLE hms.{DB}.days (id BIGINT, v DOUBLE) PARTITIONED BY (dt STRING) "
              f"STORED AS PARQUET LOCATION 'file:{root}' "
              "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    day = "2020-03-01"
    query = f"dt = '{day}'"
    runs = {
        "hms discovery table": lambda: spark.sql(
            f"SELECT count(*), sum(v) FROM hms.{DB}.days WHERE {query}").collect(),
        "read_partitioned": lambda: read_partitioned(
            spark, str(root), hive_types={"dt": "string"}).where(query)
        .selectExpr("count(*)", "sum(v)").collect(),
        "spark path-based read": lambda: spark.read.schema("id BIGINT, v DOUBLE, dt STRING")
        .parquet(str(root)).where(query).selectExpr("count(*)", "sum(v)").collect(),
    }
    results = {name: _median_ms(run, repeat) for name, run in runs.items()}
    answers = {str(result) for _, result in results.values()}
    assert len(answers) == 1, answers
    peer = results["spark path-based read"][0]
    print(f"\nlocal, {days} partitions, one-partition query (median of {repeat}):")
    for name, (ms, _) in results.items():
        print(f"  {name:24s} {ms:9.1f} ms   speed-up vs path-based read: {peer / ms:6.1f}x")


def s3_queries(spark: Any, work: Path, days: int, repeat: int) -> None:
    moto = MotoServer(work / "moto.log")
    try:
        local = work / "s3_days"
        _write_days(spark, local, days, 100)
        moto.create_bucket("bench-days")
        began = time.perf_counter()
        moto.upload_tree("bench-days", local, "days")
        print(f"\nS3 (moto), {days} partitions uploaded in {time.perf_counter() - began:.0f} s")
        day = "2020-02-01"
        files = sorted(p.name for p in (local / f"dt={day}").glob("*.parquet"))

        def query() -> Any:
            return read_partitioned(spark, "s3://bench-days/days", options=moto.options,
                                    hive_types={"dt": "string"}).where(f"dt = '{day}'") \
                .selectExpr("count(*)", "sum(v)").collect()

        ms, result = _median_ms(query, repeat)
        mark = moto.mark()
        frame = read_partitioned(spark, "s3://bench-days/days", options=moto.options,
                                 hive_types={"dt": "string"})
        planned = moto.mark()
        frame.where(f"dt = '{day}'").selectExpr("count(*)", "sum(v)").collect()
        lists_plan = len(moto.list_requests(mark)) - len(moto.list_requests(planned))
        lists = len(moto.list_requests(planned))
        gets = {r.path.rsplit("/", 1)[-1] for r in moto.get_requests(planned)}
        print(f"  read_partitioned point query: {ms:.1f} ms median of {repeat} (result {result})")
        print(f"  requests of one query: {lists} List, Get of {len(gets)} distinct files "
              f"(the partition has {len(files)}: {'same' if gets == set(files) else 'DIFFERENT'})")
        print(f"  making the DataFrame (layout sample): {lists_plan} List requests")
        print("  Spark's path-based read: cannot open s3 here (no hadoop-aws); no peer figure")
    finally:
        moto.stop()


def _layout(spark: Any, root: Path, partitions: int, hours: int = 24) -> int:
    (spark.range(partitions)
     .selectExpr("id", f"date_format(date_add({DAY0}, CAST(id DIV {hours} AS INT)), "
                       "'yyyy-MM-dd') AS dt", f"CAST(id % {hours} AS INT) AS hr")
     .repartition(8).write.partitionBy("dt", "hr").parquet(str(root)))
    return sum(1 for _ in root.glob("dt=*/hr=*"))


def repair(spark: Any, work: Path, partitions: int) -> None:
    hours = 24
    days = (partitions + hours - 1) // hours
    schema = "(id BIGINT) PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET"
    # The metastore registers partitions 2-3x faster once its JIT is warm: warm it with both
    # paths first, so that neither timed run pays for it.
    warm = work / "repair_warm_up"
    _layout(spark, warm, 2000)
    for i, catalog in enumerate(("hms", "spark_catalog") * 2):
        spark.sql(f"CREATE TABLE {catalog}.{DB}.warm{i} {schema} LOCATION 'file:{warm}'")
        spark.sql(f"MSCK REPAIR TABLE {catalog}.{DB}.warm{i}")
    root = work / "repair"
    count = _layout(spark, root, partitions)
    spark.sql(f"CREATE TABLE spark_catalog.{DB}.theirs {schema} LOCATION 'file:{root}'")
    spark.sql(f"CREATE TABLE hms.{DB}.ours {schema} LOCATION 'file:{root}'")
    timings = {}
    for name, table in (("hms", f"hms.{DB}.ours"), ("built-in", f"spark_catalog.{DB}.theirs")):
        began = time.perf_counter()
        spark.sql(f"MSCK REPAIR TABLE {table}")
        timings[name] = time.perf_counter() - began
        registered = spark.sql(f"SHOW PARTITIONS {table}").count()
        assert registered == count, (name, registered, count)
    print(f"\nrepair of {count} partitions ({days} days x {hours} hours):")
    print(f"  hms MSCK REPAIR TABLE      {timings['hms']:8.1f} s")
    print(f"  built-in MSCK REPAIR TABLE {timings['built-in']:8.1f} s")
    print(f"  speed-up: {timings['built-in'] / timings['hms']:.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--local", type=int, default=2000, help="local daily partitions")
    parser.add_argument("--s3", type=int, default=1800, help="S3 daily partitions (0: skip)")
    parser.add_argument("--repair", type=int, default=10_000, help="partitions (0: skip)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with peers("discovery") as (work, spark, _):
        spark.sql(f"CREATE DATABASE IF NOT EXISTS spark_catalog.{DB} "
                  f"LOCATION 'file:{work / 'db'}'")
        if args.local:
            local_queries(spark, work, args.local, args.repeat)
        if args.s3:
            s3_queries(spark, Path(tempfile.mkdtemp(dir=work)), args.s3, args.repeat)
        if args.repair:
            repair(spark, work, args.repair)
    return 0


if __name__ == "__main__":
    sys.exit(main())
