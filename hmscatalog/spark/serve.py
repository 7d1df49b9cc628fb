"""Spark's Thrift server (HiveServer2's protocol, from the pyspark wheel) with hms attached:
beeline, JDBC and ``pyhive`` clients query ``hms.db.t`` with partition pruning.

Each client connection gets a session of its own (``newSession``), which finds the catalog by
name as every session does (see :mod:`hmscatalog.spark.attach`).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Callable, Mapping
from typing import Any

from hmscatalog.errors import ServerError
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.launcher import check_host
from hmscatalog.spark.attach import attach, security
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

    preflight(uri, port, host, name, conf or {}, insecure)
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


def preflight(uri: str, port: int, host: str, name: str, conf: Mapping[str, str],
              insecure: bool) -> None:
    """What would make the server fail, found before Spark starts (in a second, not after it).

    Raises:
        ServerError: ``host`` is refused (see :func:`check_host`), or the port is taken.
        InvalidUri: ``uri`` is malformed.
        InvalidSetting: a Kerberos or TLS setting in ``conf`` cannot work.
        MetastoreError: the metastore does not answer (or refuses the client).
    """
    check_host(host, insecure, "the SQL server")
    kerberos, tls = security(conf.get, name)
    with MetastoreClient(uri, retries=1, kerberos=kerberos, tls=tls) as client:
        client.list_databases()
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ServerError(f"port {port} is already in use on {host}: choose another with "
                              f"--port ({exc.strerror})") from exc


def serve_forever(uri: str, port: int, host: str, name: str,
                  ready: Callable[[str], None] = print, insecure: bool = False,
                  master: str = "local[*]", conf: dict[str, str] | None = None) -> None:
    """Run the server until SIGINT or SIGTERM."""
    spark, server = start(uri, port=port, host=host, name=name, insecure=insecure,
                          master=master, conf=conf)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    ready(f"serving catalog {name} (metastore {uri}) on jdbc:hive2://{host}:{port}/")
    try:
        stopped.wait()
    finally:
        server.stop()
        spark.stop()
