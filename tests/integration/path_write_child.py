"""Write twelve rows into ``key=value`` directories in a SparkSession of its own process.

    python path_write_child.py PATH MODE

Used to kill a real path write at a named point of its commit (``HMSCATALOG_FAULTS``).
``HMSCATALOG_CHILD_CONF`` may hold more Spark settings, as JSON (S3A's jars and endpoint).
"""

from __future__ import annotations

import json
import os
import sys

from pyspark.sql import SparkSession

from hmscatalog.spark import write_partitioned

if __name__ == "__main__":
    path, mode = sys.argv[1:]
    spark = (SparkSession.builder.master("local[1]").appName("hmscatalog-child")
             .config("spark.ui.enabled", "false")
             .config(map=json.loads(os.environ.get("HMSCATALOG_CHILD_CONF", "{}")))
             .getOrCreate())
    rows = spark.createDataFrame([(i, i % 4) for i in range(12)], "v BIGINT, k INT")
    write_partitioned(rows, path, ["k"], mode=mode)  # type: ignore[arg-type]
    print("done")
    spark.stop()
