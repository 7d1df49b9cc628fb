"""An embedded, real Hive Metastore server run from the jars the ``pyspark`` wheel ships.

``start`` launches ``org.apache.hadoop.hive.metastore.HiveMetaStore`` in the background with a
generated ``hive-site.xml`` (Derby in the data directory by default, or PostgreSQL), waits until
its Thrift port answers a real call, and records the server in ``<data dir>/server.json`` so that
``status`` and ``stop`` can find it again from another process.

Data directory layout::

    conf/hive-site.xml, conf/*log4j2.properties  generated configuration
    metastore_db/                                Derby database (Derby only)
    warehouse/                                   default warehouse for managed tables
    metastore.log                                the server's output
    server.json                                  pid, port and URI of the running server
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape

from hmscatalog.errors import InvalidUri, ServerError

DEFAULT_PORT = 9083
DEFAULT_HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0
POSTGRES_JDBC_JARS = ("/usr/share/java/postgresql.jar",)
MAIN_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
_LOG_TAIL_LINES = 25


def default_data_dir() -> Path:
    """``$HMSCATALOG_HOME/metastore``, or ``~/.hmscatalog/metastore``."""
    home = os.environ.get("HMSCATALOG_HOME")
    base = Path(home) if home else Path.home() / ".hmscatalog"
    return base / "metastore"


@dataclass(frozen=True)
class ServerInfo:
    """A running embedded metastore."""

    pid: int
    port: int
    host: str
    data_dir: str
    db: str
    log: str

    @property
    def uri(self) -> str:
        return f"thrift://{self.host}:{self.port}"


@dataclass(frozen=True)
class BackingDb:
    """JDBC settings of the metastore's backing database."""

    url: str
    driver: str
    user: str | None = None
    password: str | None = None
    extra_jars: tuple[str, ...] = ()
    label: str = "derby"


def backing_db(db: str, data_dir: Path) -> BackingDb:
    """Resolve ``--db`` (``derby`` or ``postgresql://user:pass@host:port/name``).

    Raises:
        InvalidUri: for a malformed or unsupported ``db``.
        ServerError: when PostgreSQL's JDBC driver is not installed.
    """
    if db == "derby":
        url = f"jdbc:derby:;databaseName={data_dir / 'metastore_db'};create=true"
        return BackingDb(url=url, driver="org.apache.derby.jdbc.EmbeddedDriver")
    parts = urlsplit(db)
    if parts.scheme not in ("postgresql", "postgres"):
        raise InvalidUri(
            f"--db {db!r}: expected 'derby' or a postgresql://user:password@host:port/database URI"
        )
    try:
        port = parts.port or 5432
    except ValueError:
        raise InvalidUri(f"--db {db!r}: the port is not a number") from None
    name = parts.path.lstrip("/")
    if not parts.hostname or not name:
        raise InvalidUri(f"--db {db!r}: host and database name are required")
    jars = tuple(j for j in POSTGRES_JDBC_JARS if Path(j).exists())
    if not jars:
        raise ServerError(
            "PostgreSQL JDBC driver not found at "
            f"{', '.join(POSTGRES_JDBC_JARS)}: install Debian's libpostgresql-jdbc-java"
        )
    query = f"?{parts.query}" if parts.query else ""
    return BackingDb(
        url=f"jdbc:postgresql://{parts.hostname}:{port}/{name}{query}",
        driver="org.postgresql.Driver",
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        extra_jars=jars,
        label=f"postgresql://{parts.hostname}:{port}/{name}",
    )


def find_java() -> str:
    """The ``java`` executable from ``JAVA_HOME`` or ``PATH``.

    Raises:
        ServerError: if there is none.
    """
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise ServerError(
            "Java not found (no JAVA_HOME, no java on PATH): the metastore needs Java 17; "
            "install it, e.g. apt-get install openjdk-17-jre-headless"
        )
    return found


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


def _hive_site(data_dir: Path, db: BackingDb) -> str:
    settings = {
        "javax.jdo.option.ConnectionURL": db.url,
        "javax.jdo.option.ConnectionDriverName": db.driver,
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        "hive.metastore.warehouse.dir": f"file:{(data_dir / 'warehouse').resolve()}",
        "hive.async.log.enabled": "false",
        "hive.metastore.integral.jdo.pushdown": "true",
        "hive.metastore.try.direct.sql": "true",
        "hive.metastore.event.db.notification.api.auth": "false",
        # The default pool (BoneCP) is not among pyspark's jars; Hive's transaction handler
        # opens a pool on DROP DATABASE/TABLE, so use no pooling.
        "datanucleus.connectionPoolingType": "None",
    }
    if db.user:
        settings["javax.jdo.option.ConnectionUserName"] = db.user
    if db.password:
        settings["javax.jdo.option.ConnectionPassword"] = db.password
    body = "\n".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>"
        for k, v in settings.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{body}\n</configuration>\n'


_LOG4J2 = """\
status = error
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %-5p %c{1}: %m%n
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
logger.hms.name = org.apache.hadoop.hive.metastore.HiveMetaStore
logger.hms.level = info
"""


def _pid_alive(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return MAIN_CLASS.encode() in cmdline


def _port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As Java's server sockets do: connections lingering in TIME_WAIT do not block a bind.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) != 0


def free_port(host: str = DEFAULT_HOST) -> int:
    """A TCP port that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


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


def log_tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file ('' when missing)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _answers(host: str, port: int, timeout_s: float = 5.0) -> bool:
    """Whether a metastore on host:port answers ``get_all_databases``."""
    from hmscatalog.metastore.client import ping

    return ping(f"thrift://{host}:{port}", timeout_s=timeout_s)


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
    if not _pid_alive(info.pid):
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
) -> ServerInfo:
    """Start a metastore server in the background, or return the one already on ``data_dir``.

    Args:
        port: the Thrift port.
        data_dir: where configuration, Derby database, warehouse and log live.
        db: ``derby`` or a ``postgresql://`` URI.
        host: the address clients use (the server listens on every interface).
        timeout_s: how long to wait for the port to answer.
        heap: the JVM's maximum heap.
        on_wait: called with the seconds waited so far while the server starts.

    Raises:
        ServerError: no Java, no pyspark, port taken, data dir in use, or the server died or
            did not answer in time (the message ends with the tail of its log).
    """
    data_dir = Path(data_dir or default_data_dir()).resolve()
    running = status(data_dir)
    if running is not None:
        if running.port == port and running.db == backing_db(db, data_dir).label:
            return running
        raise ServerError(
            f"data dir {data_dir} is in use by the metastore (pid {running.pid}) at {running.uri} "
            f"with db {running.db}; stop it first: hmscatalog metastore stop --data-dir {data_dir}"
        )
    java = find_java()
    jars = find_spark_jars()
    backing = backing_db(db, data_dir)
    if not (1 <= port <= 65535):
        raise ServerError(f"port {port} is out of range 1..65535")
    if not _port_free(host, port):
        raise ServerError(
            f"port {port} is already in use on {host}: choose another with --port, "
            "or stop what is listening there"
        )
    if backing.label == "derby" and _derby_locked(data_dir):
        raise ServerError(
            f"data dir {data_dir} is locked: another process has its Derby database "
            f"{data_dir / 'metastore_db'} open"
        )
    conf = data_dir / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (data_dir / "warehouse").mkdir(exist_ok=True)
    (conf / "hive-site.xml").write_text(_hive_site(data_dir, backing))
    (conf / "log4j2.properties").write_text(_LOG4J2)
    # Hive re-initialises logging from the first hive-log4j2.properties on the class path; without
    # this one it would write to a hive.log shared by every metastore under java.io.tmpdir.
    (conf / "hive-log4j2.properties").write_text(_LOG4J2)
    log_path = data_dir / "metastore.log"
    classpath = os.pathsep.join([str(conf), str(jars / "*"), *backing.extra_jars])
    command = [
        java, f"-Xmx{heap}", "-XX:+UseSerialGC", "-Dderby.system.durability=test",
        f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}",
        f"-Dderby.stream.error.file={data_dir / 'derby.log'}",
        "-cp", classpath, MAIN_CLASS, "-p", str(port),
    ]
    with open(log_path, "ab") as log:
        log.write(f"--- starting metastore on port {port} at {time.ctime()}\n".encode())
        log.flush()
        proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=data_dir, start_new_session=True,
        )
    info = ServerInfo(proc.pid, port, host, str(data_dir), backing.label, str(log_path))
    began = time.monotonic()
    while True:
        waited = time.monotonic() - began
        code = proc.poll()
        if code is not None:
            raise ServerError(
                f"the metastore server exited with code {code} during start; "
                f"last lines of {log_path}:\n{log_tail(log_path)}"
            )
        if _answers(host, port, timeout_s=5.0):
            break
        if waited > timeout_s:
            _terminate(proc.pid)
            raise ServerError(
                f"the metastore server did not answer on port {port} within {timeout_s:.0f}s; "
                f"last lines of {log_path}:\n{log_tail(log_path)}"
            )
        if on_wait is not None:
            on_wait(waited)
        time.sleep(0.5)
    _state_file(data_dir).write_text(json.dumps(asdict(info), indent=2))
    return info


def _terminate(pid: int, timeout_s: float = 30.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + (timeout_s if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            if not _pid_alive(pid):
                return
            time.sleep(0.1)


def stop(data_dir: Path | None = None, timeout_s: float = 30.0) -> ServerInfo:
    """Stop the server running on ``data_dir`` (SIGTERM, then SIGKILL after ``timeout_s``).

    Raises:
        ServerError: if no server runs there.
    """
    data_dir = Path(data_dir or default_data_dir()).resolve()
    info = status(data_dir)
    if info is None:
        raise ServerError(f"no metastore server is running with data dir {data_dir}")
    _terminate(info.pid, timeout_s)
    with contextlib.suppress(OSError):
        _state_file(data_dir).unlink()
    return info
