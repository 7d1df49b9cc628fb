"""SQL servers over a session with hms attached, on either of Spark's client protocols:

- ``hs2``: Spark's Thrift server (HiveServer2's protocol, from the pyspark wheel), for beeline,
  JDBC and ``pyhive``; authentication ``none`` or ``kerberos``;
- ``connect``: a Spark Connect server (gRPC, from the pyspark wheel), for
  ``SparkSession.builder.remote("sc://...")``; authentication ``none`` or ``token``.

Each client session gets a Spark session of its own (``newSession``: its own ``SET``s), which
finds the catalog by name as every session does (see :mod:`hmscatalog.spark.session.attach`).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from hmscatalog.access import DEFAULT_PORTS, PROTECTED, TOKEN_VARIABLE, Access
from hmscatalog.errors import ServerError
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.launcher import check_host
from hmscatalog.spark.bridge.plugin import session_conf
from hmscatalog.spark.internals.session import (
    kerberos_login,
    set_system_properties,
    start_connect_server,
    start_thrift_server,
)
from hmscatalog.spark.session.attach import attach, security


def start(uri: str, port: int | None = None, host: str = "127.0.0.1", name: str = "hms",
          master: str = "local[*]", conf: dict[str, str] | None = None,
          insecure: bool = False, protocol: str = "hs2",
          access: Access | None = None) -> tuple[Any, Callable[[], None]]:
    """Start a SparkSession with catalog ``name`` on metastore ``uri`` and a server of
    ``protocol`` on ``host:port`` (``port``: the protocol's usual one when ``None``); returns
    ``(spark, stop)``, ``stop()`` stopping the server and the session.

    The driver's own ports and Spark's UI listen on ``host`` too (the UI through
    ``SPARK_LOCAL_IP``, when the JVM starts here). A ``host`` other machines reach needs
    ``access`` to authenticate, or ``insecure``.

    Raises:
        ServerError: see :func:`preflight`.
    """
    from pyspark.sql import SparkSession

    access = (access or Access()).checked(protocol)
    port = DEFAULT_PORTS[protocol] if port is None else port
    preflight(uri, port, host, name, conf or {}, insecure, access)
    everywhere = host in ("0.0.0.0", "::")
    if not everywhere:
        os.environ.setdefault("SPARK_LOCAL_IP", host)
    # The user's settings first: the server's own (port, address, authentication) are what
    # the arguments say; the driver's Java options add to the user's.
    builder = (SparkSession.builder.master(master).appName(f"hmscatalog-serve-{protocol}")
               .config(map=session_conf((name,)))
               .config(map=conf or {})
               .config(map=_server_conf(protocol, port, host, access, conf or {}))
               .config("spark.driver.bindAddress", host))
    if not everywhere:
        builder = builder.config("spark.driver.host", host)
    spark = builder.getOrCreate()
    attach(spark, name=name, uri=uri)
    if access.mode == "kerberos":
        kerberos_login(spark, access.principal, access.keytab)
    if access.mode == "ldap":
        set_system_properties(spark, _ldap_properties(access))
    stop_server = (start_thrift_server(spark) if protocol == "hs2"
                   else start_connect_server(spark))

    def stop() -> None:
        stop_server()
        spark.stop()

    return spark, stop


def _server_conf(protocol: str, port: int, host: str, access: Access,
                 conf: Mapping[str, str]) -> dict[str, str]:
    """The session's settings for a server of ``protocol``."""
    if protocol == "connect":
        return {"spark.connect.grpc.binding.port": str(port),
                "spark.connect.grpc.binding.address": host}
    settings = {"spark.hadoop.hive.server2.thrift.port": str(port),
                "spark.hadoop.hive.server2.thrift.bind.host": host,
                "spark.sql.hive.thriftServer.singleSession": "false"}
    if access.mode == "kerberos":
        krb5_conf = os.environ.get("KRB5_CONFIG")
        java_options = " ".join(filter(None, [
            conf.get("spark.driver.extraJavaOptions", ""),
            f"-Djava.security.krb5.conf={krb5_conf}" if krb5_conf else ""]))
        settings |= {
            "spark.hadoop.hadoop.security.authentication": "kerberos",
            "spark.hadoop.hive.server2.authentication": "KERBEROS",
            "spark.hadoop.hive.server2.authentication.kerberos.principal": access.principal,
            "spark.hadoop.hive.server2.authentication.kerberos.keytab": access.keytab,
            # Statements run as the server's principal, which holds the files' permissions;
            # the client's name is the session's user.
            "spark.hadoop.hive.server2.enable.doAs": "false",
            **({"spark.driver.extraJavaOptions": java_options} if java_options else {})}
    if access.mode == "ldap":
        settings["spark.hadoop.hive.server2.authentication"] = "LDAP"
    return settings


def _ldap_properties(access: Access) -> dict[str, str]:
    """Where HiveServer2's LDAP check binds. It reads them from a HiveConf of its own, which
    sees the JVM's system properties but not the session's settings."""
    return {"hive.server2.authentication.ldap.url": access.ldap_url,
            "hive.server2.authentication.ldap.baseDN": access.ldap_base_dn}


def preflight(uri: str, port: int, host: str, name: str, conf: Mapping[str, str],
              insecure: bool, access: Access) -> None:
    """What would make the server fail, found before Spark starts (in a second, not after it).

    Raises:
        ServerError: ``host`` is refused (see :func:`check_host`; an ``access`` that protects
            secrets on the network counts as ``insecure``), the port is taken, or the LDAP
            server does not answer.
        InvalidUri: ``uri`` is malformed.
        InvalidSetting: a Kerberos or TLS setting in ``conf`` cannot work.
        MetastoreError: the metastore does not answer (or refuses the client).
    """
    insecure = insecure or access.mode in PROTECTED
    if access.mode == "ldap":
        check_host(host, insecure, "the SQL server", "would take LDAP passwords in clear from "
                   "every machine that reaches it")
    else:
        check_host(host, insecure, "the SQL server")
    kerberos, tls = security(conf.get, name)
    with MetastoreClient(uri, retries=1, kerberos=kerberos, tls=tls) as client:
        client.list_databases()
    if access.mode == "ldap":
        _check_ldap(access.ldap_url)
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ServerError(f"port {port} is already in use on {host}: choose another with "
                              f"--port ({exc.strerror})") from exc


def _check_ldap(url: str) -> None:
    """Raises ServerError unless something takes connections at the LDAP server's address."""
    parsed = urlsplit(url)
    try:
        where = (parsed.hostname or "", parsed.port or (636 if parsed.scheme == "ldaps" else 389))
    except ValueError as exc:
        raise ServerError(f"--ldap-url {url!r} is malformed: {exc}") from exc
    try:
        with socket.create_connection(where, timeout=5):
            pass
    except OSError as exc:
        raise ServerError(f"the LDAP server {url} does not answer: "
                          f"{exc.strerror or exc}") from exc


def address(protocol: str, host: str, port: int, access: Access) -> str:
    """Where clients connect, as they write it."""
    if protocol == "hs2":
        principal = f";principal={access.principal}" if access.mode == "kerberos" else ""
        return f"jdbc:hive2://{host}:{port}/{principal}"
    if access.mode == "token":  # PySpark sends a token without TLS to "localhost" only
        return f"sc://{host}:{port} (clients: sc://localhost:{port}/;token=${TOKEN_VARIABLE})"
    return f"sc://{host}:{port}"


def serve_forever(uri: str, port: int | None, host: str, name: str,
                  ready: Callable[[str], None] = print, insecure: bool = False,
                  master: str = "local[*]", conf: dict[str, str] | None = None,
                  protocol: str = "hs2", access: Access | None = None) -> None:
    """Run the server until SIGINT or SIGTERM."""
    access = (access or Access()).checked(protocol)
    port = DEFAULT_PORTS[protocol] if port is None else port
    _, stop = start(uri, port=port, host=host, name=name, insecure=insecure, master=master,
                    conf=conf, protocol=protocol, access=access)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    ready(f"serving catalog {name} (metastore {uri}) on {address(protocol, host, port, access)}")
    try:
        stopped.wait()
    finally:
        stop()
