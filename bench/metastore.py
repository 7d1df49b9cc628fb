"""Register 10,000 partitions and select one, with hmscatalog's client and with Spark's built-in
Hive catalog, on one embedded metastore in the same run.

    .venv/bin/python bench/metastore.py [--partitions 10000] [--repeat 5]
        [--hive-version 2.3|3.1|4.0|4.x]

``--hive-version`` picks the embedded metastore's release. Spark's built-in catalog (a Hive
2.3.10 client) cannot talk to Hive 4.0.1 and later (it calls ``get_table``): there only
hmscatalog's side runs.

Both sides work on their own table of identical shape (dt string, bucket int), so neither finds
the other's partitions. Adding is timed once per side (Spark: one ALTER TABLE ... ADD PARTITION
statement with every spec; hmscatalog: add_partitions in batches of 1,000, once as by default, with
the client creating the local partition directories, and once leaving that to the server as
Spark does). Selecting one
partition is timed ``--repeat`` times per side and the median is reported (Spark: SHOW PARTITIONS
with a full spec; hmscatalog: select_partitions with the same equality predicate). Spark's start
is not timed. A small warm-up on a separate table runs first on both sides.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hmscatalog.expressions import eq
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.releases import release
from hmscatalog.sources.metastore import select_partitions

DB = "bench_metastore"
T = TypeVar("T")


def _specs(n: int) -> list[tuple[str, int]]:
    days = (n + 99) // 100
    first = dt.date(2020, 1, 1)
    return [((first + dt.timedelta(days=d)).isoformat(), b)
            for d in range(days) for b in range(100)][:n]


def _timed(fn: Callable[[], object]) -> float:
    return _timed_result(fn)[0]


def _timed_result(fn: Callable[[], T]) -> tuple[float, T]:
    began = time.perf_counter()
    result = fn()
    return time.perf_counter() - began, result


def _spark_session(uri: str, warehouse: Path):  # type: ignore[no-untyped-def]
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("bench-metastore")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.catalogImplementation", "hive")
        .config("spark.hadoop.hive.metastore.uris", uri)
        .config("spark.sql.warehouse.dir", str(warehouse))
        .getOrCreate()
    )


def _spark_add_sql(table: str, specs: list[tuple[str, int]]) -> str:
    clauses = " ".join(f"PARTITION (dt='{d}', bucket={b})" for d, b in specs)
    return f"ALTER TABLE {DB}.{table} ADD {clauses}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hive-version", default="2.3")
    args = parser.parse_args()
    hive = release(args.hive_version)
    with_spark = not hive.line.startswith("4")
    specs = _specs(args.partitions)
    target = specs[len(specs) // 2]

    work = Path(tempfile.mkdtemp(prefix="hmscatalog-bench-"))
    info = server.start(port=server.free_port(), data_dir=work / "metastore",
                        hive_version=hive.line)
    print(f"metastore {info.uri} (Hive {info.hive_version}, Derby), {len(specs)} partitions, "
          f"python {platform.python_version()}, {os.cpu_count()} cpus", flush=True)
    try:
        spark = _spark_session(info.uri, work / "warehouse") if with_spark else None
        client = MetastoreClient(info.uri)
        client.create_database(DB, location=f"file:{work / 'db'}")
        for name in ("ours", "ours_server_dirs", "spark", "warm_ours", "warm_spark"):
            client.new_table(DB, name, [("v", "bigint")], [("dt", "string"), ("bucket", "int")])
        ours = client.get_table(DB, "ours")
        warm = client.get_table(DB, "warm_ours")

        # Warm-up: both paths once, on their own small tables.
        client.add_partitions(warm, [client.new_partition(warm, s) for s in specs[:50]])
        select_partitions(client, warm, eq("dt", specs[0][0]) & eq("bucket", specs[0][1]))
        if spark is not None:
            spark.sql(_spark_add_sql("warm_spark", specs[:50]))
            spark.sql(f"SHOW PARTITIONS {DB}.warm_spark PARTITION (dt='{specs[0][0]}', bucket=0)")\
                .collect()

        add_ours = _timed(lambda: client.add_partitions(
            ours, [client.new_partition(ours, s) for s in specs]))
        ours_sd = client.get_table(DB, "ours_server_dirs")
        add_server_dirs = _timed(lambda: client.add_partitions(
            ours_sd, [client.new_partition(ours_sd, s) for s in specs], create_local_dirs=False))
        add_spark = (_timed(lambda: spark.sql(_spark_add_sql("spark", specs)))
                     if spark is not None else None)
        assert client.count_partitions(DB, "ours") == len(specs)
        assert client.count_partitions(DB, "ours_server_dirs") == len(specs)
        assert spark is None or client.count_partitions(DB, "spark") == len(specs)

        predicate = eq("dt", target[0]) & eq("bucket", target[1])
        spec_sql = f"PARTITION (dt='{target[0]}', bucket={target[1]})"
        sel_ours, sel_spark = [], []
        for _ in range(args.repeat):
            seconds, chosen = _timed_result(lambda: select_partitions(client, ours, predicate))
            assert len(chosen.partitions) == 1
            sel_ours.append(seconds)
            if spark is not None:
                seconds, rows = _timed_result(
                    lambda: spark.sql(f"SHOW PARTITIONS {DB}.spark {spec_sql}").collect())
                assert len(rows) == 1
                sel_spark.append(seconds)
        med_ours = statistics.median(sel_ours)
        med_spark = statistics.median(sel_spark) if sel_spark else None

        def row(label: str, ours: float, theirs: float | None, scale: float = 1.0,
                digits: int = 2) -> None:
            peer = f"{theirs * scale:>12.{digits}f}" if theirs is not None else f"{'n/a':>12}"
            ratio = f"{theirs / ours:>7.2f}x" if theirs is not None else f"{'n/a':>8}"
            print(f"{label:<38}{ours * scale:>12.{digits}f}{peer}{ratio}")

        print(f"\n{'operation':<38}{'hmscatalog':>12}{'spark hive':>12}{'ratio':>8}")
        row(f"add {len(specs)} partitions (s)", add_ours, add_spark)
        row("  same, server creates directories (s)", add_server_dirs, add_spark)
        row("select 1 by filter, median (ms)", med_ours, med_spark, 1000, 1)
        print("\nratio = Spark's time / hmscatalog's time (above 1: hmscatalog is faster)")
        if spark is None:
            print(f"spark: n/a, Spark's built-in Hive catalog cannot talk to Hive "
                  f"{info.hive_version}")
        print(f"select runs (ms): hmscatalog {[round(x * 1000, 1) for x in sel_ours]}, "
              f"spark {[round(x * 1000, 1) for x in sel_spark]}")
        if spark is not None:
            spark.stop()
        client.close()
    finally:
        server.stop(work / "metastore")
    return 0


if __name__ == "__main__":
    sys.exit(main())
