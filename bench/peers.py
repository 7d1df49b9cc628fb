"""The setting of every benchmark of `hms` against Spark's built-in Hive catalog: one embedded
metastore in a fresh directory, one local Spark session (2 cores) whose built-in catalog uses
that metastore, and catalog `hms` attached to the same session and metastore.

The metastore keeps its catalog in Derby by default, or in PostgreSQL (``db=`` a
``postgresql://`` URI, such as that of the throwaway cluster of tests/postgres.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from py4j import clientserver

from hmscatalog.metastore import server
from hmscatalog.spark import attach
from hmscatalog.storage import hadoop_jars


def chosen(parser: argparse.ArgumentParser, text: str, known: Sequence[str],
           noun: str) -> list[str]:
    """The comma-separated names in ``text``; the parser's error for one not in ``known``."""
    names = text.split(",")
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"unknown {noun} {', '.join(unknown)}; choose from {', '.join(known)}")
    return names


@contextlib.contextmanager
def peers(name: str, s3: Mapping[str, str] | None = None, db: str = "derby",
          conf: Mapping[str, str] | None = None,
          metastore_heap: str = "768m",
          jars: Sequence[str] = ()) -> Iterator[tuple[Path, Any, Any]]:
    """Yield ``(work directory, SparkSession, hms catalog)``; stop both afterwards.

    Args:
        s3: Hadoop S3A settings (``fs.s3a.endpoint``...): S3A then goes on the class paths of
            the metastore and Spark, with these settings in both.
        db: the metastore's database: ``derby`` (in the work directory) or a
            ``postgresql://user:password@host:port/database`` URI.
        conf: more Spark settings for the session (``spark.driver.memory``...).
        metastore_heap: the metastore JVM's maximum heap.
        jars: more jars for Spark's class path (``spark.jars``), such as Hive's JSON SerDe's
            (``hadoop_jars.spark_jars("json")``).
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers see hmscatalog
    work = Path(tempfile.mkdtemp(prefix=f"hmscatalog-bench-{name}-"))
    info = server.start(port=server.free_port(), data_dir=work / "metastore", db=db,
                        heap=metastore_heap, with_s3=s3 is not None, hadoop_conf=s3)
    try:
        extra = {f"spark.hadoop.{k}": v for k, v in (s3 or {}).items()}
        spark_jars = [*(hadoop_jars.spark_jars("s3") if s3 is not None else ()), *jars]
        if spark_jars:
            extra["spark.jars"] = ",".join(spark_jars)
        extra.update(conf or {})
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


def plan_leaves(plan: Any) -> list[Any]:
    """Every leaf of a physical plan, looking into AQE's current plan and its query stages."""
    found, stack = [], [plan]
    while stack:
        node = stack.pop()
        kind = str(node.getClass().getSimpleName())
        if kind == "AdaptiveSparkPlanExec":
            stack.append(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            stack.append(node.plan())
        else:
            children = node.children()
            if children.size() == 0:
                found.append(node)
            stack.extend(children.apply(i) for i in range(children.size()))
    return found


class Py4jCounter:
    """Counts py4j traffic of this process: commands sent to the JVM (calls, field and class
    lookups, reference releases) and calls the JVM makes into Python objects."""

    def __init__(self) -> None:
        self.sent = self.received = 0
        send, call = (clientserver.ClientServerConnection.send_command,
                      clientserver.ClientServerConnection._call_proxy)
        counter = self

        def counted_send(connection: Any, command: Any) -> Any:
            counter.sent += 1
            return send(connection, command)

        def counted_call(connection: Any, obj_id: Any, stream: Any) -> Any:
            counter.received += 1
            return call(connection, obj_id, stream)

        clientserver.ClientServerConnection.send_command = counted_send
        clientserver.ClientServerConnection._call_proxy = counted_call

    @contextmanager
    def counting(self, into: list[tuple[int, int]]) -> Iterator[None]:
        sent, received = self.sent, self.received
        yield
        into.append((self.sent - sent, self.received - received))
