"""Point query and full scan through `hms` and through Spark's built-in Hive catalog, on the same
table of 10,000 registered partitions, in the same run.

    .venv/bin/python bench/read_pruning.py [--partitions 10000] [--rows 16000000] [--repeat 5]
        [--only point|scan]

One table (dt string, hr int; Parquet) is written once with Spark's writer and its partitions are
registered in the embedded metastore; both catalogs then read that same table. The point query
is ``WHERE dt = ... AND hr = ...`` with an aggregate (end to end: planning, metastore calls, file
listing, reading). The full scan aggregates every row and reads every column. Each query runs
``--repeat`` times per catalog, alternating, after one warm-up each; medians are reported, and
the ratio built-in / hms (above 1: hms is faster; for throughput, hms / built-in).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from peers import peers

from hmscatalog.metastore.client import MetastoreClient

DB = "bench_read"


def _size_bytes(root: Path) -> int:
    return sum(f.stat().st_size for f in root.rglob("*.parquet"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=16_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("point", "scan"),
                        help="run one of the two queries (default: both)")
    args = parser.parse_args()
    hours = 24
    days = (args.partitions + hours - 1) // hours

    with peers("read") as (work, spark, hms):
        client: MetastoreClient = hms.client
        client.create_database(DB, location=f"file:{work / 'db'}")
        spark.sql(f"CREATE TABLE spark_catalog.{DB}.t (id BIGINT, v DOUBLE, payload STRING) "
                  "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET")
        table = client.get_table(DB, "t")
        root = Path((table.location or "").removeprefix("file:"))
        began = time.perf_counter()
        (spark.range(args.rows)
         .selectExpr("id", "rand(3) AS v", "sha2(CAST(id AS STRING), 256) AS payload",
                     f"CAST(date_add(DATE'2020-01-01', CAST(id % {days} AS INT)) AS STRING) AS dt",
                     f"CAST((id DIV {days}) % {hours} AS INT) AS hr")
         .where(f"(CAST(datediff(CAST(dt AS DATE), DATE'2020-01-01') AS BIGINT) * {hours} + hr) "
                f"< {args.partitions}")
         .repartition(2, "dt").sortWithinPartitions("dt", "hr")
         .write.partitionBy("dt", "hr").mode("append").parquet(str(root)))
        written = sorted(str(d.relative_to(root)) for d in root.glob("dt=*/hr=*"))
        spec = table.partition_spec
        client.add_partitions(table, [client.new_partition(table, spec.values_of(n))
                                      for n in written])
        size = _size_bytes(root)
        print(f"metastore {hms.client.uris[0]}; table {DB}.t: {len(written)} partitions, "
              f"{size / 1e9:.2f} GB parquet, {args.rows:,} rows written in "
              f"{time.perf_counter() - began:.0f}s; {os.cpu_count()} cpus", flush=True)

        target = written[len(written) // 2].split("/")
        dt_value, hr_value = target[0].split("=")[1], int(target[1].split("=")[1])
        point = ("SELECT count(*), sum(CAST(v * 1e6 AS BIGINT)) FROM {}." + DB
                 + f".t WHERE dt = '{dt_value}' AND hr = {hr_value}")
        full = "SELECT count(*), sum(CAST(v * 1e6 AS BIGINT)), max(payload) FROM {}." + DB + ".t"

        def timed(sql: str) -> tuple[float, list[object]]:
            start = time.perf_counter()
            rows = spark.sql(sql).collect()
            return time.perf_counter() - start, [tuple(r) for r in rows]

        results = {}
        queries = {"point": ("point query", point), "scan": ("full scan", full)}
        for key, (label, template) in queries.items():
            if args.only not in (None, key):
                continue
            times: dict[str, list[float]] = {"hms": [], "spark_catalog": []}
            answers = {}
            for catalog in times:
                answers[catalog] = timed(template.format(catalog))[1]  # warm-up
            assert answers["hms"] == answers["spark_catalog"], (label, answers)
            for _ in range(args.repeat):
                for catalog in times:
                    seconds, _rows = timed(template.format(catalog))
                    times[catalog].append(seconds)
            results[label] = {c: statistics.median(t) for c, t in times.items()}
            print(f"{label}: hms {[round(x, 3) for x in times['hms']]} s, built-in "
                  f"{[round(x, 3) for x in times['spark_catalog']]} s", flush=True)

        print(f"\n{'':<34}{'hms':>10}{'built-in':>10}{'ratio':>8}")
        if (p := results.get("point query")) is not None:
            print(f"{'point query, median (ms)':<34}{p['hms'] * 1000:>10.0f}"
                  f"{p['spark_catalog'] * 1000:>10.0f}{p['spark_catalog'] / p['hms']:>7.2f}x")
        if (f := results.get("full scan")) is not None:
            hms_tp, builtin_tp = size / f["hms"] / 1e6, size / f["spark_catalog"] / 1e6
            print(f"{'full scan, median (MB/s)':<34}{hms_tp:>10.0f}{builtin_tp:>10.0f}"
                  f"{hms_tp / builtin_tp:>7.2f}x")
        print("point ratio = built-in time / hms time; scan ratio = hms / built-in throughput")
    return 0


if __name__ == "__main__":
    sys.exit(main())
