"""Reads and writes through hms with executors in JVMs of their own (``local-cluster``), so that
nothing works only because tasks share the driver's JVM or its Python state.

    python cluster_child.py METASTORE_URI DATABASE HDFS_ROOT S3A_ROOT JARS S3A_SETTINGS_JSON

Prints one JSON line of what it found, for the test to compare.
"""

from __future__ import annotations

import json
import sys
import time

from pyspark.sql import SparkSession

from hmscatalog.spark import attach, session_conf

if __name__ == "__main__":
    uri, database, hdfs_root, s3a_root, jars, settings = sys.argv[1:]
    conf = session_conf()
    conf["spark.jars"] = ",".join(filter(None, [conf["spark.jars"], jars]))
    spark = (SparkSession.builder.master("local-cluster[2,1,1024]")
             .appName("hmscatalog-cluster").config(map=conf)
             .config(map={f"spark.hadoop.{k}": v for k, v in json.loads(settings).items()})
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    attach(spark, uri=uri)
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")

    def rows(sql: str) -> list[tuple[object, ...]]:
        return [tuple(r) for r in spark.sql(sql).collect()]

    def plan(sql: str) -> str:
        return str(spark.sql(sql)._jdf.queryExecution().executedPlan().toString())

    def executors() -> int:
        return int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1

    # The executors register some seconds after the driver starts: the work below waits for
    # both, so that it runs in their JVMs.
    deadline = time.monotonic() + 120
    while executors() < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    found: dict[str, object] = {"executors": executors()}
    spark.sql(f"CREATE TABLE hms.{database}.on_hdfs (v BIGINT) PARTITIONED BY (k INT) "
              f"STORED AS PARQUET LOCATION '{hdfs_root}/on_hdfs'")
    spark.sql(f"INSERT INTO hms.{database}.on_hdfs SELECT /*+ REPARTITION(4) */ id, "
              "CAST(id % 5 AS INT) FROM range(1000)")
    spark.sql(f"INSERT OVERWRITE hms.{database}.on_hdfs PARTITION (k=4) SELECT id FROM range(3)")
    found["hdfs"] = rows(f"SELECT k, count(*), sum(v) FROM hms.{database}.on_hdfs WHERE k >= 3 "
                         "GROUP BY k ORDER BY k")
    found["hdfs_plan"] = plan(f"SELECT * FROM hms.{database}.on_hdfs WHERE k = 3")
    spark.sql(f"CREATE TABLE hms.{database}.written_s3 (v BIGINT) PARTITIONED BY (k INT) "
              f"STORED AS PARQUET LOCATION '{s3a_root}-written'")
    spark.sql(f"INSERT INTO hms.{database}.written_s3 SELECT /*+ REPARTITION(4) */ id, "
              "CAST(id % 3 AS INT) FROM range(300)")
    found["s3a_written"] = rows(f"SELECT k, count(*) FROM hms.{database}.written_s3 GROUP BY k "
                                "ORDER BY k")
    found["s3a"] = rows(f"SELECT dt, count(*) FROM hms.{database}.on_s3 WHERE dt = '2024-01-02' "
                        "GROUP BY dt")
    found["s3a_plan"] = plan(f"SELECT * FROM hms.{database}.on_s3 WHERE dt = '2024-01-02'")
    print(json.dumps(found))
    spark.stop()
