"""Dynamic-partition insert through `hms` and through Spark's built-in Hive catalog, same run.

    .venv/bin/python bench/write_dynamic.py [--rows 5000000] [--partitions 1000] [--repeat 3]

Each run inserts ``--rows`` rows into ``--partitions`` new partitions of an empty Parquet table
(``INSERT INTO t PARTITION (dt, hr) SELECT ...``, nonstrict mode) created by the catalog under
test in the same embedded metastore; runs alternate between the catalogs, each into a fresh
table. Printed: total time per insert (median), hms's commit time (moving files and registering
partitions, timed inside the commit), and the ratio built-in / hms (above 1: hms is faster).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from peers import peers

from hmscatalog.write.commit import TableCommit

DB = "bench_write"


def _measure(args: argparse.Namespace, work: Path, spark: Any, commits: list[float]) -> None:
    spark.sql(f"CREATE NAMESPACE hms.{DB} LOCATION 'file:{work / 'db'}'")
    for key, value in (("hive.exec.dynamic.partition.mode", "nonstrict"),
                       ("hive.exec.max.dynamic.partitions", str(args.partitions * 2)),
                       ("hive.exec.max.dynamic.partitions.pernode", str(args.partitions))):
        spark.sql(f"SET {key}={value}")
    hours = 10
    days = args.partitions // hours
    spark.range(args.rows).selectExpr(
        "id AS a", "rand(5) AS v", "sha2(CAST(id AS STRING), 256) AS payload",
        f"CAST(date_add(DATE'2020-01-01', CAST(id % {days} AS INT)) AS STRING) AS dt",
        f"CAST((id DIV {days}) % {hours} AS INT) AS hr",
    ).createOrReplaceTempView("source")
    times: dict[str, list[float]] = {"hms": [], "spark_catalog": []}
    run = 0
    for _ in range(args.repeat + 1):  # the first round warms up both catalogs
        for catalog in times:
            run += 1
            table = f"{catalog}.{DB}.t{run}"
            spark.sql(f"CREATE TABLE {table} (a BIGINT, v DOUBLE, payload STRING) "
                      "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET")
            began = time.perf_counter()
            spark.sql(f"INSERT INTO {table} PARTITION (dt, hr) SELECT * FROM source")
            seconds = time.perf_counter() - began
            partitions = spark.sql(f"SHOW PARTITIONS {table}").count()
            assert partitions == days * hours, (table, partitions)
            if run > 2:
                times[catalog].append(seconds)
            print(f"{table}: {seconds:.1f}s, {partitions} partitions", flush=True)
    hms, builtin = statistics.median(times["hms"]), statistics.median(times["spark_catalog"])
    print(f"\n{args.rows:,} rows into {days * hours} new partitions, median of {args.repeat}")
    print(f"hms       {hms:7.1f} s   (commit: median {statistics.median(commits[1:]):.2f} s, "
          f"runs {[round(c, 2) for c in commits[1:]]})")
    print(f"built-in  {builtin:7.1f} s")
    print(f"ratio     {builtin / hms:7.2f}x  (built-in time / hms time)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    commits: list[float] = []
    timed_commit = TableCommit.commit

    def commit(self: TableCommit, *a: Any, **k: Any) -> Any:
        began = time.perf_counter()
        try:
            return timed_commit(self, *a, **k)
        finally:
            commits.append(time.perf_counter() - began)

    TableCommit.commit = commit  # type: ignore[method-assign]
    try:
        with peers("write") as (work, spark, _hms):
            _measure(args, work, spark, commits)
    finally:
        TableCommit.commit = timed_commit  # type: ignore[method-assign]
    return 0


if __name__ == "__main__":
    sys.exit(main())
