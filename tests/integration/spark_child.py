"""Run SQL statements through the hms catalog in a SparkSession of its own process.

    python spark_child.py URI STATEMENT...

Used to kill a real Spark write at a named point of its commit (``HMSCATALOG_FAULTS``).
``HMSCATALOG_CHILD_CONF`` may hold more Spark settings, as JSON (S3A's jars and endpoint).
"""

from __future__ import annotations

import json
import os
import sys

from pyspark.sql import SparkSession

from hmscatalog.spark import attach

if __name__ == "__main__":
    uri, *statements = sys.argv[1:]
    spark = (SparkSession.builder.master("local[1]").appName("hmscatalog-child")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config(map=json.loads(os.environ.get("HMSCATALOG_CHILD_CONF", "{}")))
             .getOrCreate())
    attach(spark, uri=uri)
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    for statement in statements:
        spark.sql(statement)
    print("done")
    spark.stop()
