"""Run SQL statements through the hms catalog in a SparkSession of its own process.

    python spark_child.py URI STATEMENT...

Used to kill a real Spark write at a named point of its commit (``HMSCATALOG_FAULTS``).
"""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

from hmscatalog.spark import attach

if __name__ == "__main__":
    uri, *statements = sys.argv[1:]
    spark = (SparkSession.builder.master("local[1]").appName("hmscatalog-child")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    attach(spark, uri=uri)
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    for statement in statements:
        spark.sql(statement)
    print("done")
    spark.stop()
