"""An embedded, real Hive Metastore server: Hive 2.3 from the jars the ``pyspark`` wheel ships,
or Hive 3.1 and 4.x from Maven Central (see :mod:`hmscatalog.metastore.releases`).

``start`` launches ``org.apache.hadoop.hive.metastore.HiveMetaStore`` in the background with a
generated configuration (Derby in the data directory by default, or PostgreSQL), creating the
schema first where the release has a schema tool, waits until its Thrift port answers a real
call, and records the server in ``<data dir>/server.json`` so that ``status`` and ``stop`` can
find it again from another process.

Data directory layout::

    conf/                 generated configuration (hive-site.xml or metastore-site.xml, logging)
    metastore_db/         Derby database (Derby only)
    hive-version          the release whose schema the database holds
    warehouse/            default warehouse for managed tables
    metastore.log         the server's output (schema.log: the schema tool's)
    server.json           pid, port, release and URI of the running server
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hmscatalog import jars as jar_cache
from hmscatalog.errors import ServerError
from hmscatalog.metastore import launcher, notification_log, setup
from hmscatalog.metastore.releases import SERVER_MAIN, HiveRelease, release
from hmscatalog.metastore.sasl import Kerberos
from hmscatalog.metastore.setup import POSTGRES_JDBC_JARS, backing_db
from hmscatalog.metastore.tls import Tls
from hmscatalog.processes import (
    alive,
    find_java,
    free_port,
    log_tail,
    port_free,
    terminate,
    wait_closed,
)

__all__ = ["POSTGRES_JDBC_JARS", "ServerInfo", "backing_db", "free_port", "port_free", "start",
           "status", "stop"]

DEFAULT_PORT = 9083
DEFAULT_HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0


def default_data_dir() -> Path:
    """``$HMSCATALOG_HOME/metastore``, or ``~/.hmscatalog/metastore``."""
    return jar_cache.home() / "metastore"


@dataclass(frozen=True)
class ServerInfo:
    """A running embedded metastore."""

    pid: int
    port: int
    host: str
    data_dir: str
    db: str
    log: str
    hive_version: str = "2.3.10"
    s3: bool = False  # S3A on its class path
    kerberos_principal: str | None = None  # the server's, when it requires Kerberos
    tls: bool = False  # it speaks TLS

    @property
    def uri(self) -> str:
        """What clients connect to: the host's name when the server listens everywhere."""
        host = socket.gethostname() if self.host in ("0.0.0.0", "::") else self.host
        return f"thrift://{host}:{self.port}"


def find_spark_jars() -> Path:
    """The ``jars`` directory of the installed ``pyspark`` package.

    Raises:
        ServerError: if pyspark (which ships the metastore's jars) is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise ServerError(
            "pyspark is not installed; it ships the metastore's jars: "
            "pip install 'hmscatalog[spark]'"
        )
    jars = Path(spec.origin).parent / "jars"
    if not (jars / "hive-metastore-2.3.10.jar").exists() and not any(
        jars.glob("hive-metastore-*.jar")
    ):
        raise ServerError(f"no hive-metastore jar in {jars}: reinstall pyspark")
    return jars


def _derby_locked(data_dir: Path) -> bool:
    """Whether another process holds Derby's lock on this data dir's database."""
    lock = data_dir / "metastore_db" / "dbex.lck"
    if not lock.exists():
        return False
    try:
        with open(lock, "r+b") as handle:
            try:
                fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.lockf(handle, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def _kerberos(keytab: str | None, principal: str | None) -> Kerberos | None:
    """How the server (and its own check that it answers) logs in, with ``_HOST`` expanded as
    Hive expands it on a server: this machine's fully qualified name.

    Raises:
        ServerError: only one of the two given, or no such keytab.
    """
    if not keytab and not principal:
        return None
    if not keytab or not principal:
        raise ServerError("a Kerberized metastore needs both --kerberos-keytab and "
                          "--kerberos-principal")
    if not Path(keytab).is_file():
        raise ServerError(f"Kerberos keytab {keytab} does not exist")
    expanded = principal.replace("_HOST", socket.getfqdn().lower())
    return Kerberos(expanded, expanded, str(Path(keytab).resolve()))


def _answers(host: str, port: int, timeout_s: float = 5.0,
             kerberos: Kerberos | None = None, tls: Tls | None = None) -> bool:
    """Whether a metastore on host:port answers ``get_all_databases``."""
    from hmscatalog.metastore.client import ping

    return ping(f"thrift://{host}:{port}", timeout_s=timeout_s, kerberos=kerberos, tls=tls)


def _state_file(data_dir: Path) -> Path:
    return data_dir / "server.json"


def status(data_dir: Path | None = None) -> ServerInfo | None:
    """The server running on ``data_dir``, or ``None``. A stale state file is removed."""
    data_dir = Path(data_dir or default_data_dir()).resolve()
    state = _state_file(data_dir)
    try:
        info = ServerInfo(**json.loads(state.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if not alive(info.pid, SERVER_MAIN):
        with contextlib.suppress(OSError):
            state.unlink()
        return None
    return info


def start(
    port: int = DEFAULT_PORT,
    data_dir: Path | None = None,
    db: str = "derby",
    host: str = DEFAULT_HOST,
    timeout_s: float = START_TIMEOUT_S,
    heap: str = "768m",
    on_wait: Callable[[float], None] | None = None,
    hive_version: str | None = None,
    with_s3: bool = False,
    hadoop_conf: Mapping[str, str] | None = None,
    insecure: bool = False,
    kerberos_keytab: str | None = None,
    kerberos_principal: str | None = None,
    tls_keystore: str | None = None,
    tls_keystore_password: str = "",
) -> ServerInfo:
    """Start a metastore server in the background, or return the one already on ``data_dir``.

    Args:
        port: the Thrift port; 0: a free one (picked again if another program takes it
            before the server binds it), or the running server's.
        data_dir: where configuration, Derby database, warehouse and log live.
        db: ``derby`` or a ``postgresql://`` URI.
        host: the address the server listens on (a name or an IP address; ``0.0.0.0``: every
            interface). Only loopback addresses unless ``insecure``.
        timeout_s: how long to wait for the port to answer.
        heap: the JVM's maximum heap.
        on_wait: called with the seconds waited so far while the server starts.
        hive_version: the release line (``2.3``, ``3.1``, ``4.0``, ``4.x``; default 2.3).
        with_s3: put S3A (``hadoop-aws`` of the release's Hadoop and its AWS SDK, fetched
            once) on the server's class path, so that it accepts ``s3a://`` locations.
        hadoop_conf: settings for the file systems the server opens (``fs.s3a.endpoint``,
            ``fs.s3a.path.style.access``, credentials...), written to its site file.
        insecure: allow a ``host`` other machines can reach, although the server lets in
            every client that reaches it (not needed with Kerberos).
        kerberos_keytab: require Kerberos (SASL GSSAPI) of every client, the server logging
            in as ``kerberos_principal`` (``hive/_HOST@REALM``: ``_HOST`` is this machine's
            fully qualified name, as Hive expands it) with this keytab. The server's JVM reads
            ``KRB5_CONFIG``'s file, if set, as its Kerberos configuration.
        tls_keystore: speak TLS only (``metastore.use.SSL``), with the key and certificate in
            this keystore (PKCS12 or JKS), opened with ``tls_keystore_password``.

    Raises:
        ServerError: no Java, no pyspark, an unknown release, a non-loopback ``host`` without
            ``insecure``, port taken, a data dir that is a file, cannot be made, is in use or
            holds another release's database, or the server died or did not answer in time
            (the message ends with the tail of its log).
        JarsUnavailable: the release's jars are not cached and cannot be fetched.
    """
    hive = release(hive_version)
    data_dir = Path(data_dir or default_data_dir()).resolve()
    if data_dir.exists() and not data_dir.is_dir():
        raise ServerError(f"data dir {data_dir} is a file, not a directory: give --data-dir a "
                          "directory (it is made if missing)")
    kerberos = _kerberos(kerberos_keytab, kerberos_principal)
    if tls_keystore and not Path(tls_keystore).is_file():
        raise ServerError(f"TLS keystore {tls_keystore} does not exist")
    running = status(data_dir)
    if running is not None:
        if (port in (0, running.port) and running.host == host
                and running.kerberos_principal == (kerberos and kerberos.service_principal)
                and running.tls == bool(tls_keystore)
                and running.db == backing_db(db, data_dir).label
                and running.hive_version == hive.version and running.s3 == with_s3):
            return running
        raise ServerError(
            f"data dir {data_dir} is in use by the metastore (pid {running.pid}, Hive "
            f"{running.hive_version}{', with S3' if running.s3 else ''}) at {running.uri} with "
            f"db {running.db}; stop it first: "
            f"hmscatalog metastore stop --data-dir {data_dir}"
        )
    launcher.check_host(host, insecure or kerberos is not None, "the metastore")
    java = find_java()
    jars = find_spark_jars()
    backing = backing_db(db, data_dir)
    setup.check_data_dir(hive, data_dir)
    if not (0 <= port <= 65535):
        raise ServerError(f"port {port} is out of range 1..65535 (0: any free port)")
    if port and not port_free(host, port):
        raise _port_taken(port, host)
    if backing.label == "derby" and _derby_locked(data_dir):
        raise ServerError(
            f"data dir {data_dir} is locked: another process has its Derby database "
            f"{data_dir / 'metastore_db'} open"
        )
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        # Private, as its conf/ is: the Derby database, the warehouse's files and the log are
        # the owner's alone.
        data_dir.chmod(0o700)
    except OSError as exc:
        raise ServerError(f"data dir {data_dir} cannot be made private: {exc.strerror}"
                          ) from exc
    tls_settings = setup.tls_settings(str(Path(tls_keystore).resolve()),
                                      tls_keystore_password) if tls_keystore else {}
    log_jar = _notification_log(hive, setup.class_path(hive, data_dir, backing, jars))
    log_settings = notification_log.settings(hive) if log_jar else {}
    conf = setup.write_conf(hive, data_dir, backing,
                            {**log_settings, **(hadoop_conf or {}), **tls_settings},
                            (kerberos.service_principal, kerberos_keytab or "")
                            if kerberos else None)
    classpath = setup.class_path(hive, conf, backing, jars, with_s3)
    if log_jar:
        classpath = f"{classpath}{os.pathsep}{log_jar}"
    setup.init_schema(hive, data_dir, backing, java, classpath)
    log_path = data_dir / "metastore.log"
    jvm_options = [
        # Hive 4 adds a batch of partitions with one INSERT of many rows, which Derby's parser
        # descends recursively: a deeper stack than the default 1 MB (1,000 partitions per batch).
        f"-Xmx{heap}", "-Xss16m", "-XX:+UseSerialGC", *setup.KERBEROS_ACCESS,
        "-Dderby.system.durability=test",
        # On Derby a reader and a writer of one table can deadlock (a reader locks the table's
        # row, then its storage's; a drop the other way round). Looked for after 1 s of waiting
        # rather than Derby's 20: each deadlock costs the change caught in it 1 s, not 20.
        "-Dderby.locks.deadlockTimeout=1",
        f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}",
        f"-Dderby.stream.error.file={data_dir / 'derby.log'}",
        *([f"-Djava.security.krb5.conf={os.environ['KRB5_CONFIG']}"]
          if kerberos and os.environ.get("KRB5_CONFIG") else []),
    ]
    # Port 0: a free port, chosen again if another program takes it before the server binds it.
    for attempt in range(1, 4):
        chosen = port or free_port(host)
        info = ServerInfo(0, chosen, host, str(data_dir), backing.label, str(log_path),
                          hive.version, with_s3,
                          kerberos.service_principal if kerberos else None, bool(tls_keystore))
        command = launcher.command(java, jvm_options, classpath, host, SERVER_MAIN,
                                   ["-p", str(chosen)])
        try:
            info = _run(command, info, hive.label, timeout_s, on_wait,
                        _answers_as(host, chosen, kerberos, bool(tls_keystore)))
            break
        except _PortTaken:
            if port or attempt == 3:
                raise _port_taken(chosen, host) from None
    _state_file(data_dir).write_text(json.dumps(asdict(info), indent=2))
    return info


class _PortTaken(Exception):
    """Another program had the server's port: the server could not bind it."""


def _notification_log(hive: HiveRelease, classpath: str) -> Path | None:
    """The notification log's listener for ``hive`` (built first if need be); ``None``, with a
    warning, when it cannot be built: the server then runs without a log, and clients keep
    their metadata caches' TTLs."""
    try:
        return notification_log.listener_jar(hive, classpath)
    except ServerError as exc:
        print(f"hmscatalog: the metastore runs without a notification log: {exc}",
              file=sys.stderr, flush=True)
        return None


def _port_taken(port: int, host: str) -> ServerError:
    return ServerError(f"port {port} is already in use on {host}: choose another with --port, "
                       "or stop what is listening there")


def _answers_as(host: str, port: int, kerberos: Kerberos | None,
                tls: bool) -> Callable[[], bool]:
    return lambda: _answers(host, port, timeout_s=5.0, kerberos=kerberos,
                            tls=Tls(verify=False) if tls else None)


def _run(command: list[str], info: ServerInfo, label: str, timeout_s: float,
         on_wait: Callable[[float], None] | None, answers: Callable[[], bool]) -> ServerInfo:
    """Start ``command`` and wait until the server answers on its port, having bound it itself
    (its launcher logs each bind: a server that answers there may be another's).

    Raises:
        _PortTaken: the port was another program's.
        ServerError: the server exited or did not answer within ``timeout_s``.
    """
    log_path = Path(info.log)
    with open(log_path, "ab") as log:
        log.write(f"--- starting {label} on port {info.port} at {time.ctime()}\n".encode())
        log.flush()
        since = log.tell()
        proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=info.data_dir, start_new_session=True,
        )
    bound = re.compile(rf"^{re.escape(launcher.BOUND)}\S+ port {info.port}$".encode(), re.M)

    def log_since() -> bytes:
        with open(log_path, "rb") as log:
            log.seek(since)
            return log.read()

    began = time.monotonic()
    while True:
        waited = time.monotonic() - began
        code = proc.poll()
        if code is not None:
            if b"Address already in use" in log_since():
                raise _PortTaken()
            raise ServerError(
                f"the {label} server exited with code {code} during start; "
                f"last lines of {log_path}:\n{log_tail(log_path)}"
            )
        if answers():
            if bound.search(log_since()):
                return replace(info, pid=proc.pid)
            terminate(proc.pid, SERVER_MAIN)
            raise _PortTaken()
        if waited > timeout_s:
            terminate(proc.pid, SERVER_MAIN)
            raise ServerError(
                f"the {label} server did not answer on port {info.port} within "
                f"{timeout_s:.0f}s; "
                f"last lines of {log_path}:\n{log_tail(log_path)}"
            )
        if on_wait is not None:
            on_wait(waited)
        time.sleep(0.5)


def stop(data_dir: Path | None = None, timeout_s: float = 30.0) -> ServerInfo:
    """Stop the server running on ``data_dir`` (SIGTERM, then SIGKILL after ``timeout_s``).

    Raises:
        ServerError: if no server runs there.
    """
    data_dir = Path(data_dir or default_data_dir()).resolve()
    info = status(data_dir)
    if info is None:
        raise ServerError(f"no metastore server is running with data dir {data_dir}")
    terminate(info.pid, SERVER_MAIN, timeout_s)
    wait_closed(info.host, info.port)  # a restart on the same port finds it free
    with contextlib.suppress(OSError):
        _state_file(data_dir).unlink()
    return info
