"""``hmscatalog demo``: a short tour of the metastore side of hmscatalog."""

from __future__ import annotations

import datetime as dt
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from hmscatalog.expressions import Compare, In, StartsWith, eq
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient, parse_uris
from hmscatalog.metastore.model import Column
from hmscatalog.sources.metastore import select_partitions

DEMO_DB = "hmscatalog_demo"
DEMO_TABLE = "orders"
REGIONS = ("emea", "amer", "apac", "São Paulo/BR")


def _say(text: str = "") -> None:
    print(text, flush=True)


def run_demo(data_dir: Path | None = None, port: int | None = None,
             uri: str | None = None) -> int:
    """Start (or reuse) the embedded metastore and walk through tables and partitions. Without
    ``port``, on 9083, or on a free port when another program listens on 9083."""
    if uri is None:
        began = time.monotonic()
        running = server.status(data_dir)
        moved = (running is None and port is None
                 and not server.port_free(server.DEFAULT_HOST, server.DEFAULT_PORT))
        info = running or server.start(port=0 if moved else port or server.DEFAULT_PORT,
                                       data_dir=data_dir)
        if moved:
            _say(f"metastore  port {server.DEFAULT_PORT} is in use by another program: "
                 f"started on port {info.port}")
        word = "reusing" if running else f"started in {time.monotonic() - began:.1f}s:"
        _say(f"metastore  {word} {info.uri}  (data dir {info.data_dir})")
        uri = info.uri
    else:
        parse_uris(uri)  # a malformed URI fails before anything is printed
        _say(f"metastore  {uri}")

    with MetastoreClient(uri) as client:
        client.create_database(DEMO_DB, description="hmscatalog demo", if_not_exists=True)
        client.drop_table(DEMO_DB, DEMO_TABLE, if_exists=True)
        table = client.new_table(
            DEMO_DB, DEMO_TABLE,
            columns=[("order_id", "bigint"), ("amount", "decimal(12,2)"), ("customer", "string")],
            partition_keys=[("dt", "date"), ("region", "string")],
            format="parquet",
            parameters={"comment": "orders by day and region"},
        )
        fmt = table.format.name.lower() if table.format else "?"
        _say(f"table      {table.qualified_name}  {fmt}  {table.table_type.lower()}")
        _say(f"           columns    {_columns(table.columns)}")
        _say(f"           partitions {_columns(table.partition_keys)}")
        _say(f"           location   {table.location}")

        days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(31)]
        partitions = [
            client.new_partition(table, [day, region]) for day in days for region in REGIONS
        ]
        partitions.append(client.new_partition(table, [None, "emea"]))
        began = time.monotonic()
        added = client.add_partitions(table, partitions, if_not_exists=True)
        _say(f"\nregistered {added} partitions in {time.monotonic() - began:.2f}s "
             "(31 days x 4 regions, plus one with a NULL day)")
        names = client.list_partition_names(DEMO_DB, DEMO_TABLE)
        examples = [names[1], next(n for n in names if "%" in n), names[-1]]
        _say("  e.g.  " + "\n        ".join(examples))

        queries = [
            ("dt = DATE '2024-01-05'", eq("dt", dt.date(2024, 1, 5))),
            ("dt >= '2024-01-30' AND region IN ('emea', 'apac')",
             Compare("dt", ">=", dt.date(2024, 1, 30)) & In("region", ("emea", "apac"))),
            ("region = 'São Paulo/BR' AND dt < '2024-01-03'",
             eq("region", "São Paulo/BR") & Compare("dt", "<", dt.date(2024, 1, 3))),
            ("region LIKE 'a%' (client-side only)", StartsWith("region", "a")),
        ]
        for label, predicate in queries:
            began = time.monotonic()
            chosen = select_partitions(client, table, predicate, count_total=True)
            ms = (time.monotonic() - began) * 1000
            _say(f"\nWHERE {label}")
            sent = chosen.metastore_filter or "(none: all partitions listed)"
            _say(f"  metastore filter  {sent}")
            _say(f"  partitions        {len(chosen.partitions)}/{chosen.total} selected "
                 f"({chosen.fetched} fetched) in {ms:.0f} ms")
            for part in chosen.partitions[:3]:
                _say(f"    {part.location}")
            if len(chosen.partitions) > 3:
                _say(f"    ... and {len(chosen.partitions) - 3} more")
        _spark_pipeline(uri, client)
    _say("\nstop the metastore with `hmscatalog metastore stop`")
    return 0


def _spark_pipeline(uri: str, client: MetastoreClient) -> None:
    """Create a table through the hms catalog, load it, query it with partition pruning."""
    from pyspark.sql import SparkSession

    from hmscatalog.spark import attach

    _say("\n--- Spark: a pipeline over catalog hms ---")
    began = time.monotonic()
    quiet_log = Path(tempfile.mkdtemp(prefix="hmscatalog-demo-")) / "log4j2.properties"
    quiet_log.write_text("rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = err\n"
                         "appender.err.type = Console\nappender.err.name = err\n"
                         "appender.err.target = SYSTEM_ERR\n"
                         "appender.err.layout.type = PatternLayout\n"
                         "appender.err.layout.pattern = %p %c{1}: %m%n\n")
    spark = (SparkSession.builder.master("local[2]").appName("hmscatalog-demo")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             # The driver's RPC and block ports: this machine only, as the metastore's.
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={quiet_log}")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    attach(spark, name="hms", uri=uri)
    _say(f"spark      {spark.version} local[2], catalog hms attached "
         f"({time.monotonic() - began:.1f}s)")
    table_name = f"hms.{DEMO_DB}.events"
    spark.sql(f"DROP TABLE IF EXISTS {table_name}")
    spark.sql(f"CREATE TABLE {table_name} (user_id BIGINT, amount DOUBLE, dt DATE, "
              "region STRING) USING parquet PARTITIONED BY (dt, region)")
    table = client.get_table(DEMO_DB, "events")
    _say(f"created    {table_name}  ({table.format.name.lower() if table.format else '?'}, "
         f"partitioned by {_columns(table.partition_keys)})")

    # Load: a dynamic-partition insert; hms commits the files and registers the partitions.
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    spark.range(20_000).selectExpr(
        "id AS user_id", "round(rand(7) * 100, 2) AS amount",
        "date_add(DATE'2024-01-01', CAST(id % 14 AS INT)) AS dt",
        "element_at(array('emea', 'amer', 'apac'), CAST(id % 3 AS INT) + 1) AS region",
    ).createOrReplaceTempView("new_events")
    insert = f"INSERT INTO {table_name} PARTITION (dt, region) SELECT * FROM new_events"
    loaded = time.monotonic()
    spark.sql(insert)
    count = client.count_partitions(DEMO_DB, "events")
    _say(f"\n{insert}\n  20,000 rows into {count} partitions "
         f"({time.monotonic() - loaded:.1f}s)")

    query = (f"SELECT region, count(*) AS orders, round(sum(amount), 2) AS revenue "
             f"FROM {table_name} WHERE dt = DATE'2024-01-05' GROUP BY region ORDER BY region")
    _say(f"\n{query}")
    result = spark.sql(query)
    for row in result.collect():
        _say(f"  {row['region']:<6} {row['orders']:>6} orders  {row['revenue']:>10.2f}")
    plan = str(result._jdf.queryExecution().executedPlan().toString())
    scan = re.search(r"partitions=\d+/\d+ \([^)]*\)", plan)
    _say(f"  EXPLAIN: {scan.group(0) if scan else 'no hms scan found'}")
    spark.stop()


def _columns(columns: Sequence[Column]) -> str:
    return ", ".join(f"{c.name} {c.type}" for c in columns)


if __name__ == "__main__":
    sys.exit(run_demo())
