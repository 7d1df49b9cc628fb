"""Spark's Thrift server (HiveServer2's protocol, from the pyspark wheel) with hms attached:
beeline, JDBC and ``pyhive`` clients query ``hms.db.t`` with partition pruning.

Each client connection gets a session of its own (``newSession``), which finds the catalog by
name as every session does (see :mod:`hmscatalog.spark.attach`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

from hmscatalog.spark.attach import attach
from hmscatalog.spark.internals.session import start_thrift_server
from hmscatalog.spark.plugin import session_conf


def start(uri: str, port: int = 10000, host: str = "127.0.0.1", name: str = "hms",
          master: str = "local[*]", conf: dict[str, str] | None = None) -> tuple[Any, Any]:
    """Start a SparkSession with catalog ``name`` on metastore ``uri`` and the Thrift server on
    ``host:port``; returns ``(spark, server)`` (stop with ``server.stop(); spark.stop()``)."""
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(master).appName("hmscatalog-serve")
               .config(map=session_conf((name,)))
               .config("spark.hadoop.hive.server2.thrift.port", str(port))
               .config("spark.hadoop.hive.server2.thrift.bind.host", host)
               .config("spark.sql.hive.thriftServer.singleSession", "false"))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    attach(spark, name=name, uri=uri)
    return spark, start_thrift_server(spark)


def serve_forever(uri: str, port: int, host: str, name: str,
                  ready: Callable[[str], None] = print) -> None:
    """Run the server until SIGINT or SIGTERM."""
    spark, server = start(uri, port=port, host=host, name=name)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    ready(f"serving catalog {name} (metastore {uri}) on jdbc:hive2://{host}:{port}/")
    try:
        stopped.wait()
    finally:
        server.stop()
        spark.stop()
