"""The setting of every benchmark of `hms` against Spark's built-in Hive catalog: one embedded
metastore in a fresh directory, one local Spark session (2 cores) whose built-in catalog uses
that metastore, and catalog `hms` attached to the same session and metastore."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hmscatalog.metastore import server
from hmscatalog.spark import attach
from hmscatalog.storage import hadoop_jars


@contextlib.contextmanager
def peers(name: str, s3: Mapping[str, str] | None = None) -> Iterator[tuple[Path, Any, Any]]:
    """Yield ``(work directory, SparkSession, hms catalog)``; stop both afterwards.

    Args:
        s3: Hadoop S3A settings (``fs.s3a.endpoint``...): S3A then goes on the class paths of
            the metastore and Spark, with these settings in both.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers see hmscatalog
    work = Path(tempfile.mkdtemp(prefix=f"hmscatalog-bench-{name}-"))
    info = server.start(port=server.free_port(), data_dir=work / "metastore",
                        with_s3=s3 is not None, hadoop_conf=s3)
    try:
        extra = {f"spark.hadoop.{k}": v for k, v in (s3 or {}).items()}
        if s3 is not None:
            extra["spark.jars"] = ",".join(hadoop_jars.spark_jars("s3"))
        spark = (SparkSession.builder.master("local[2]").appName(f"bench-{name}")
                 .config(map=extra)
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.catalogImplementation", "hive")
                 .config("spark.hadoop.hive.metastore.uris", info.uri)
                 .config("spark.sql.warehouse.dir", str(work / "warehouse"))
                 .getOrCreate())
        try:
            spark.sparkContext.setLogLevel("ERROR")
            yield work, spark, attach(spark, uri=info.uri)
        finally:
            spark.stop()
    finally:
        server.stop(work / "metastore")
