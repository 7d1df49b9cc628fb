"""Spark's Thrift server (HiveServer2's protocol, from the pyspark wheel) with hms attached:
beeline, JDBC and ``pyhive`` clients query ``hms.db.t`` with partition pruning.

Each client connection gets a session of its own (``newSession``), which finds the catalog by
name as every session does (see :mod:`hmscatalog.spark.attach`).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

from hmscatalog.metastore.launcher import check_host
from hmscatalog.spark.attach import attach
from hmscatalog.spark.internals.session import start_thrift_server
from hmscatalog.spark.plugin import session_conf


def start(uri: str, port: int = 10000, host: str = "127.0.0.1", name: str = "hms",
          master: str = "local[*]", conf: dict[str, str] | None = None,
          insecure: bool = False) -> tuple[Any, Any]:
    """Start a SparkSession with catalog ``name`` on metastore ``uri`` and the Thrift server on
    ``host:port``; returns ``(spark, server)`` (stop with ``server.stop(); spark.stop()``).

    The driver's own ports and Spark's UI listen on ``host`` too (the UI through
    ``SPARK_LOCAL_IP``, when the JVM starts here). A ``host`` other machines reach needs
    ``insecure``: the server lets in every client.

    Raises:
        ServerError: ``host`` is not a loopback address of this machine and not ``insecure``.
    """
    from pyspark.sql import SparkSession

    check_host(host, insecure, "the SQL server")
    everywhere = host in ("0.0.0.0", "::")
    if not everywhere:
        os.environ.setdefault("SPARK_LOCAL_IP", host)
    builder = (SparkSession.builder.master(master).appName("hmscatalog-serve")
               .config(map=session_conf((name,)))
               .config("spark.hadoop.hive.server2.thrift.port", str(port))
               .config("spark.hadoop.hive.server2.thrift.bind.host", host)
               .config("spark.driver.bindAddress", host)
               .config("spark.sql.hive.thriftServer.singleSession", "false"))
    if not everywhere:
        builder = builder.config("spark.driver.host", host)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    attach(spark, name=name, uri=uri)
    return spark, start_thrift_server(spark)


def serve_forever(uri: str, port: int, host: str, name: str,
                  ready: Callable[[str], None] = print, insecure: bool = False) -> None:
    """Run the server until SIGINT or SIGTERM."""
    spark, server = start(uri, port=port, host=host, name=name, insecure=insecure)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    ready(f"serving catalog {name} (metastore {uri}) on jdbc:hive2://{host}:{port}/")
    try:
        stopped.wait()
    finally:
        server.stop()
        spark.stop()
