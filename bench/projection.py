"""Planning time of a one-hour query on hourly partitions over 10 years: partition projection
against a discovery table and a metastore table with every partition registered, in one run.

    .venv/bin/python bench/projection.py [--years 10] [--repeat 20]

Three tables share one layout (``hour=yyyy-MM-dd-HH`` directories; only the queried hour holds
a file): a projected table (``projection.hour.type=date``, HOURS), a discovery table, and a
metastore table whose partitions are all registered. A fourth, projected over one day (24
partitions), shows whether projection's planning depends on the total. Planning is timed as
``spark.sql(query).queryExecution().executedPlan()`` on a new DataFrame each time (parsing,
analysis, our scan builder, Spark's physical planning), median of ``--repeat`` after warm-up.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from peers import peers

from hmscatalog.expressions.predicates import eq
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.sources.choose import source_for
from hmscatalog.sources.metastore import select_partitions
from hmscatalog.sources.source import ReadTarget

DB = "bench_projection"
HOUR = "2020-06-01-05"
BATCH = 1000


def _projection(first: str, last: str) -> str:
    return ("'projection.enabled'='true', 'projection.hour.type'='date', "
            "'projection.hour.format'='yyyy-MM-dd-HH', "
            f"'projection.hour.range'='{first},{last}', "
            "'projection.hour.interval.unit'='HOURS'")


def _plan_ms(spark: Any, query: str, repeat: int) -> float:
    spark.sql(query)._jdf.queryExecution().executedPlan()  # warm-up
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        spark.sql(query)._jdf.queryExecution().executedPlan()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def _selection_ms(client: MetastoreClient, repeat: int) -> dict[str, float]:
    """Time each table's partition selection for ``hour = HOUR`` as the scan builder runs it
    (metastore table: its filter string and client-side check; discovery: the walk;
    projection: settings parsed and values narrowed), without Spark."""
    predicate = eq("hour", HOUR)

    def chosen(name: str) -> Callable[[], Any]:
        target = ReadTarget.of(client.get_table(DB, name))
        # The source is chosen (projection settings parsed) per query, as the scan builder does.
        return lambda: source_for(target).select(predicate)

    registered = client.get_table(DB, "registered")
    runs: dict[str, Callable[[], Any]] = {
        "projected": chosen("projected"), "one_day": chosen("one_day"),
        "discovered": chosen("discovered"),
        "registered": lambda: select_partitions(client, registered, predicate),
    }
    timings = {}
    for name, run in runs.items():
        run()
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            run()
            times.append((time.perf_counter() - began) * 1000)
        timings[name] = statistics.median(times)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with peers("projection") as (work, spark, hms):
        client: MetastoreClient = hms.client
        root = work / "hourly"
        spark.range(100).selectExpr("id", f"'{HOUR}' AS hour") \
            .write.partitionBy("hour").parquet(str(root))
        first, last = "2020-01-01-00", f"{2020 + args.years - 1}-12-31-23"
        schema = "(id BIGINT) PARTITIONED BY (hour STRING) STORED AS PARQUET"
        location = f"LOCATION 'file:{root}'"
        spark.sql(f"CREATE NAMESPACE hms.{DB} LOCATION 'file:{work / 'db'}'")
        spark.sql(f"CREATE TABLE hms.{DB}.projected {schema} {location} "
                  f"TBLPROPERTIES ({_projection(first, last)})")
        spark.sql(f"CREATE TABLE hms.{DB}.one_day {schema} {location} "
                  f"TBLPROPERTIES ({_projection('2020-06-01-00', '2020-06-01-23')})")
        spark.sql(f"CREATE TABLE hms.{DB}.discovered {schema} {location} "
                  "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
        spark.sql(f"CREATE TABLE hms.{DB}.registered {schema} {location}")
        hours = [row[0] for row in spark.sql(
            f"SELECT date_format(h, 'yyyy-MM-dd-HH') FROM (SELECT explode(sequence("
            f"TIMESTAMP'2020-01-01 00:00:00', TIMESTAMP'{last[:10]} 23:00:00', "
            "INTERVAL 1 HOUR)) AS h)").collect()]
        table = client.get_table(DB, "registered")
        began = time.perf_counter()
        for start in range(0, len(hours), BATCH):
            client.add_partitions(table, [client.new_partition(table, [h])
                                          for h in hours[start:start + BATCH]])
        print(f"{len(hours)} hourly partitions registered in {time.perf_counter() - began:.0f} s")
        query = "SELECT count(*) FROM hms.{db}.{t} WHERE hour = '" + HOUR + "'"
        results = {}
        for name in ("projected", "one_day", "discovered", "registered"):
            df = spark.sql(query.format(db=DB, t=name))
            assert df.collect()[0][0] == 100, name
            results[name] = _plan_ms(spark, query.format(db=DB, t=name), args.repeat)
        print(f"\nplanning a one-hour query, median of {args.repeat} (ms):")
        labels = {"projected": f"projection, {len(hours)} partitions",
                  "one_day": "projection, 24 partitions",
                  "discovered": "discovery table",
                  "registered": f"metastore table, {len(hours)} registered"}
        for name, ms in results.items():
            print(f"  {labels[name]:40s} {ms:8.1f}")
        selection = _selection_ms(client, args.repeat)
        print(f"\npartition selection alone (the scan builder's part, no Spark), median of "
              f"{args.repeat} (ms):")
        for name, ms in selection.items():
            print(f"  {labels[name]:40s} {ms:8.3f}")
        print(f"\nprojection over {len(hours)} vs 24 partitions: planning "
              f"{results['projected'] / results['one_day']:.2f}x, selection "
              f"{selection['projected'] / selection['one_day']:.2f}x (goal <= 1.2x); "
              f"planning under 50 ms: {'yes' if results['projected'] < 50 else 'no'}; "
              f"selection under 50 ms: {'yes' if selection['projected'] < 50 else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
