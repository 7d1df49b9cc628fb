"""Tables on S3 and HDFS through `hms` and through Spark's built-in Hive catalog, in one run.

    .venv/bin/python bench/remote.py [--partitions 1800] [--insert-partitions 500]
        [--repeat 5] [--only s3|hdfs]

- **S3 point query.** One table of ``--partitions`` daily partitions on moto's S3 server (on
  loopback), written once with Spark locally, uploaded, and registered in the embedded metastore
  at ``s3a://`` locations; both catalogs read that same table through Spark's S3A. Each catalog
  runs ``WHERE dt = ...`` with an aggregate ``--repeat`` times, alternating, after a warm-up;
  medians, and the S3 requests of one more query each (List, Get, Head, all) from moto's log.
- **S3 dynamic insert.** INSERT of ``--insert-partitions`` new partitions into an s3a:// table
  of each catalog, once each: time, and requests per partition by kind.
- **HDFS dynamic insert.** INSERT ... SELECT of ``--insert-partitions`` partitions into a fresh
  table of each catalog on a mini HDFS (its own JVM, loopback), ``--repeat`` times alternating.

Ratios are built-in time / hms time (above 1: hms is faster).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from peers import peers
from s3 import MotoServer

from hmscatalog.storage import minihdfs

DB = "bench_remote"
BUCKET = "bench-remote"


def _kinds(moto: MotoServer, mark: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    for request in moto.requests(mark):
        # A copy is a PUT with a header the log does not show: it counts as a PUT.
        kind = "LIST" if request.is_list else "GET" if request.is_get else request.method
        counts[kind] += 1
    counts["all"] = sum(counts.values())
    return counts


def _timed(spark: Any, sql: str) -> tuple[float, list[tuple[Any, ...]]]:
    start = time.perf_counter()
    rows = [tuple(r) for r in spark.sql(sql).collect()]
    return time.perf_counter() - start, rows


def _point_query(spark: Any, hms: Any, moto: MotoServer, work: Path, partitions: int,
                 repeat: int) -> None:
    local = work / "daily"
    (spark.range(partitions * 200)
     .selectExpr("id", "rand(7) AS v",
                 f"CAST(date_add(DATE'2020-01-01', CAST(id % {partitions} AS INT)) AS STRING) "
                 "AS dt")
     .repartition(2, "dt").write.partitionBy("dt").parquet(str(local)))
    moto.create_bucket(BUCKET)
    began = time.perf_counter()
    keys = moto.upload_tree(BUCKET, local, "daily")
    location = f"s3a://{BUCKET}/daily"
    spark.sql(f"CREATE TABLE spark_catalog.{DB}.daily (id BIGINT, v DOUBLE) PARTITIONED BY "
              f"(dt STRING) STORED AS PARQUET LOCATION '{location}'")
    client = hms.client
    table = client.get_table(DB, "daily")
    names = sorted({k.split("/")[1] for k in keys if k.split("/")[1].startswith("dt=")})
    client.add_partitions(table, [client.new_partition(
        table, table.partition_spec.values_of(n), location=f"{location}/{n}") for n in names])
    print(f"S3: {len(names)} partitions, {len(keys)} objects uploaded and registered in "
          f"{time.perf_counter() - began:.0f}s", flush=True)
    day = names[len(names) // 2].split("=")[1]
    sql = ("SELECT count(*), sum(CAST(v * 1e6 AS BIGINT)) FROM {}." + DB
           + f".daily WHERE dt = '{day}'")
    times: dict[str, list[float]] = {"hms": [], "spark_catalog": []}
    answers = {c: _timed(spark, sql.format(c))[1] for c in times}
    assert answers["hms"] == answers["spark_catalog"], answers
    for _ in range(repeat):
        for catalog in times:
            times[catalog].append(_timed(spark, sql.format(catalog))[0])
    requests = {}
    for catalog in times:
        mark = moto.mark()
        _timed(spark, sql.format(catalog))
        requests[catalog] = _kinds(moto, mark)
    hms_s, builtin_s = (statistics.median(times[c]) for c in ("hms", "spark_catalog"))
    print(f"\nS3 point query over {len(names)} partitions{'':<6}{'hms':>10}{'built-in':>10}"
          f"{'ratio':>8}")
    print(f"{'  median (ms)':<45}{hms_s * 1000:>10.0f}{builtin_s * 1000:>10.0f}"
          f"{builtin_s / hms_s:>7.2f}x")
    for kind in ("LIST", "GET", "HEAD", "all"):
        print(f"{'  ' + kind + ' requests per query':<45}{requests['hms'][kind]:>10}"
              f"{requests['spark_catalog'][kind]:>10}")


def _insert_sql(table: str, partitions: int) -> str:
    return (f"INSERT INTO {table} PARTITION (k) SELECT id, sha2(CAST(id AS STRING), 256), "
            f"CAST(id % {partitions} AS INT) FROM range({partitions * 100})")


def _s3_insert(spark: Any, moto: MotoServer, partitions: int) -> None:
    figures = {}
    for catalog in ("hms", "spark_catalog"):
        table = f"{catalog}.{DB}.s3_insert_{catalog}"
        spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) PARTITIONED BY (k INT) STORED AS "
                  f"PARQUET LOCATION 's3a://{BUCKET}/s3_insert_{catalog}'")
        mark = moto.mark()
        seconds, _ = _timed(spark, _insert_sql(table, partitions))
        figures[catalog] = (seconds, _kinds(moto, mark))
        count = spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0]
        assert count == partitions * 100, (table, count)
    (hms_s, hms_n), (builtin_s, builtin_n) = figures["hms"], figures["spark_catalog"]
    print(f"\nS3 dynamic insert of {partitions} partitions{'':<7}{'hms':>10}{'built-in':>10}"
          f"{'ratio':>8}")
    print(f"{'  time (s)':<45}{hms_s:>10.1f}{builtin_s:>10.1f}{builtin_s / hms_s:>7.2f}x")
    for kind in sorted(set(hms_n) | set(builtin_n)):
        print(f"{'  ' + kind + ' requests per partition':<45}{hms_n[kind] / partitions:>10.1f}"
              f"{builtin_n[kind] / partitions:>10.1f}")


def _hdfs_insert(spark: Any, partitions: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hmscatalog-bench-hdfs-") as tmp:
        cluster = minihdfs.start(Path(tmp))
        # Closing a file waits until the name node has the block; the client polls from 400 ms
        # up, which with a thousand files per insert is most of its time on a mini cluster.
        spark.sparkContext._jsc.hadoopConfiguration().set(
            "dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "10")
        try:
            times: dict[str, list[float]] = {"hms": [], "spark_catalog": []}
            for run in range(repeat + 1):  # the first run of each is a warm-up
                for catalog in times:
                    table = f"{catalog}.{DB}.h_{catalog}_{run}"
                    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) PARTITIONED BY "
                              f"(k INT) STORED AS PARQUET LOCATION "
                              f"'{cluster.uri}/warehouse/{catalog}_{run}'")
                    seconds, _ = _timed(spark, _insert_sql(table, partitions))
                    if run:
                        times[catalog].append(seconds)
                    count = spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0]
                    assert count == partitions * 100, (table, count)
            hms_s, builtin_s = (statistics.median(times[c]) for c in ("hms", "spark_catalog"))
            print(f"\nHDFS dynamic insert of {partitions} partitions: hms "
                  f"{[round(t, 1) for t in times['hms']]} s, built-in "
                  f"{[round(t, 1) for t in times['spark_catalog']]} s; median hms "
                  f"{hms_s:.1f}s, built-in {builtin_s:.1f}s, ratio {builtin_s / hms_s:.2f}x")
        finally:
            cluster.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=1800)
    parser.add_argument("--insert-partitions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("s3", "hdfs"), help="run one part (default: both)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hmscatalog-bench-moto-") as tmp:
        moto = MotoServer(Path(tmp) / "requests.log")
        try:
            with peers("remote", s3=moto.hadoop_settings) as (work, spark, hms):
                spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
                for limit in ("", ".pernode"):
                    spark.sql(f"SET hive.exec.max.dynamic.partitions{limit}="
                              f"{args.insert_partitions * 2}")
                hms.client.create_database(DB, location=f"file:{work / 'db'}")
                if args.only in (None, "s3"):
                    _point_query(spark, hms, moto, work, args.partitions, args.repeat)
                    _s3_insert(spark, moto, args.insert_partitions)
                if args.only in (None, "hdfs"):
                    _hdfs_insert(spark, args.insert_partitions, max(1, args.repeat // 2))
        finally:
            moto.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
