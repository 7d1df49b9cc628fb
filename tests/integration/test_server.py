"""The embedded metastore launcher and the `hmscatalog metastore` commands."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import kerberized
import pytest

from hmscatalog import jars
from hmscatalog.errors import (
    InvalidUri,
    JarsUnavailable,
    MetastoreError,
    MetastoreUnavailable,
    ServerError,
)
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient

pytestmark = pytest.mark.integration


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", *args],
        capture_output=True, text=True, timeout=300, env=env,
    )


def test_cli_start_status_stop(tmp_path: Path) -> None:
    data_dir = tmp_path / "hms"
    started = _cli("metastore", "start", "--port", "0", "--data-dir", str(data_dir))
    assert started.returncode == 0, started.stderr
    uri = started.stdout.strip()
    port = int(uri.rsplit(":", 1)[1])
    assert uri == f"thrift://127.0.0.1:{port}" and port != 0
    try:
        with MetastoreClient(uri) as c:
            c.create_database("cli_db")
        for asked in (str(port), "0"):  # its port, or any
            again = _cli("metastore", "start", "--port", asked, "--data-dir", str(data_dir))
            assert again.returncode == 0 and "already running" in again.stderr
            assert again.stdout.strip() == uri
        other = _cli("metastore", "start", "--port", str(port + 1),  # refused before binding
                     "--data-dir", str(data_dir))
        assert other.returncode == 1
        assert f"data dir {data_dir} is in use" in other.stderr
        status = _cli("metastore", "status", "--data-dir", str(data_dir))
        assert status.returncode == 0 and uri in status.stdout
    finally:
        stopped = _cli("metastore", "stop", "--data-dir", str(data_dir))
    assert stopped.returncode == 0, stopped.stderr
    assert _cli("metastore", "status", "--data-dir", str(data_dir)).returncode == 1
    gone = _cli("metastore", "stop", "--data-dir", str(data_dir))
    assert gone.returncode == 1 and "no metastore server is running" in gone.stderr
    # The Derby database survives a restart.
    info = server.start(port=0, data_dir=data_dir)
    try:
        with MetastoreClient(info.uri) as c:
            assert "cli_db" in c.list_databases()
    finally:
        server.stop(data_dir)


def test_cli_start_without_a_port_is_the_demos_choice(tmp_path: Path) -> None:
    """With 9083 taken by another program, ``metastore start`` starts on a free port and says
    so in one line, as the demo does; started again, it reuses whatever port its data dir's
    metastore has (it refused before: "data dir ... is in use")."""
    data_dir = tmp_path / "hms"
    with socket.socket() as taken:
        try:  # another program on 9083 (or one already is)
            taken.bind((server.DEFAULT_HOST, server.DEFAULT_PORT))
            taken.listen()
        except OSError:
            assert not server.port_free(server.DEFAULT_HOST, server.DEFAULT_PORT)
        started = _cli("metastore", "start", "--data-dir", str(data_dir))
        try:
            assert started.returncode == 0, started.stderr
            uri = started.stdout.strip()
            port = int(uri.rsplit(":", 1)[1])
            assert port != server.DEFAULT_PORT
            assert started.stderr.splitlines()[0] == (
                f"port {server.DEFAULT_PORT} is in use by another program: started on port "
                f"{port}")
            again = _cli("metastore", "start", "--data-dir", str(data_dir))
            assert again.returncode == 0 and "already running" in again.stderr
            assert again.stdout.strip() == uri
        finally:
            _cli("metastore", "stop", "--data-dir", str(data_dir))


def test_port_taken_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(ServerError, match=f"port {port} is already in use"):
            server.start(port=port, data_dir=tmp_path)
    assert not (tmp_path / "server.json").exists()


def test_data_dir_locked_by_another_process(tmp_path: Path) -> None:
    # Another JVM holds the Derby database open (as Spark's own embedded metastore would).
    lock = tmp_path / "metastore_db" / "dbex.lck"
    lock.parent.mkdir()
    lock.write_bytes(b"")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl,sys,time; f=open(sys.argv[1],'r+b'); fcntl.lockf(f, fcntl.LOCK_EX);"
         "print('locked', flush=True); time.sleep(60)", str(lock)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(ServerError, match=f"data dir {tmp_path} is locked"):
            server.start(port=0, data_dir=tmp_path)
    finally:
        holder.kill()
        holder.wait()


def test_server_dying_during_start_shows_its_log(tmp_path: Path) -> None:
    with pytest.raises(ServerError, match="exited with code") as info:
        server.start(port=0, data_dir=tmp_path, heap="not-a-size")
    assert "Invalid maximum heap size" in str(info.value)
    assert server.status(tmp_path) is None


def test_no_java_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ServerError, match="Java not found"):
        server.start(port=0, data_dir=tmp_path)


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    result = _cli("metastore", "start", "--db", "mysql://x", "--data-dir", str(tmp_path),
                  "--port", "0")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "hmscatalog: error: --db 'mysql://x'" in result.stderr
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    result = _cli("metastore", "start", "--data-dir", str(a_file))
    assert (result.returncode, result.stderr) == (1, (
        f"hmscatalog: error: data dir {a_file} is a file, not a directory: give --data-dir a "
        "directory (it is made if missing)\n"))


@pytest.mark.parametrize(
    "db", ["mysql://h/db", "postgresql://", "postgresql://h:port/db", "postgresql://h:5432/"]
)
def test_bad_db_uris(db: str, tmp_path: Path) -> None:
    with pytest.raises((InvalidUri, ServerError), match=r"--db|JDBC"):
        server.backing_db(db, tmp_path)


def test_postgres_db_settings(tmp_path: Path) -> None:
    if not any(Path(j).exists() for j in server.POSTGRES_JDBC_JARS):
        with pytest.raises(ServerError, match="libpostgresql-jdbc-java"):
            server.backing_db("postgresql://u:p%40ss@db.example:5433/hms", tmp_path)
        return
    backing = server.backing_db("postgresql://u:p%40ss@db.example:5433/hms", tmp_path)
    assert backing.url == "jdbc:postgresql://db.example:5433/hms"
    assert (backing.user, backing.password) == ("u", "p@ss")
    assert backing.driver == "org.postgresql.Driver"


@pytest.mark.metastore
def test_a_database_dropped_while_its_tables_are_read_is_dropped_at_once(
        metastore_uri: str, unique_db: str) -> None:
    """Readers of a database's tables and its drop (cascade) lock Derby's rows in opposite orders
    and can deadlock. The embedded metastore looks for deadlocks after 1 s, so each drop is
    answered well within a 15 s client timeout (with Derby's 20 s, one deadlock outlasts it;
    drops of the tests' databases while catalogs' followers read them took over 60 s)."""
    options = kerberized.client_options()

    def read(database: str, stop: threading.Event) -> None:
        with MetastoreClient(metastore_uri, timeout_s=60, **options) as reader:
            while not stop.is_set():
                for i in range(10):
                    try:
                        reader.get_table(database, f"t{i}")
                        reader.list_partitions(database, f"t{i}")
                    except MetastoreError:
                        pass  # dropped meanwhile, or the deadlock's other party

    with MetastoreClient(metastore_uri, timeout_s=15, **options) as admin:
        for round_ in range(3):
            database = f"{unique_db}_{round_}"
            admin.create_database(database)
            for i in range(10):
                table = admin.new_table(database, f"t{i}", [("a", "int")],
                                        partition_keys=[("k", "string")])
                admin.add_partitions(table, [admin.new_partition(table, [f"v{n}"])
                                             for n in range(10)])
            stop = threading.Event()
            readers = [threading.Thread(target=read, args=(database, stop)) for _ in range(3)]
            for thread in readers:
                thread.start()
            try:
                time.sleep(0.5)
                admin.drop_database(database, cascade=True)
            finally:
                stop.set()
                for thread in readers:
                    thread.join()
                admin.drop_database(database, cascade=True, if_exists=True)
            assert not admin.database_exists(database)


@pytest.mark.thorough
def test_client_reconnects_after_server_restart(metastore: server.ServerInfo,
                                                moto_s3: Any) -> None:
    """Kill the session's metastore mid-session; the same client works once it is back (the
    server restarts as the session started it, S3A and its settings included)."""
    data_dir = Path(metastore.data_dir)
    with MetastoreClient(metastore.uri, retries=6, backoff_s=0.2) as c:
        c.create_database("restart_db", if_not_exists=True)
        before = server.status(data_dir)
        assert before is not None
        os.killpg(before.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while server.status(data_dir) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        with pytest.raises(MetastoreUnavailable):
            MetastoreClient(metastore.uri, retries=0).list_databases()
        restarted = server.start(port=metastore.port, data_dir=data_dir,
                                 hive_version=metastore.hive_version, with_s3=metastore.s3,
                                 hadoop_conf=moto_s3.hadoop_settings)
        assert restarted.pid != before.pid
        # The old connection is dead; the client notices, reconnects and retries.
        assert "restart_db" in c.list_databases()
        c.drop_database("restart_db")


@pytest.mark.thorough
def test_cli_starts_another_release(tmp_path: Path) -> None:
    """``--hive-version``: its jars come from the cache (fetched on first use), the schema from
    its own tool; the data directory then belongs to that release."""
    data_dir = tmp_path / "hms31"
    started = _cli("metastore", "start", "--hive-version", "3.1", "--port", "0",
                   "--data-dir", str(data_dir))
    assert started.returncode == 0, started.stderr
    port = int(started.stdout.strip().rsplit(":", 1)[1])
    assert started.stdout.strip() == f"thrift://127.0.0.1:{port}"
    try:
        assert "Hive Metastore 3.1.3 started" in started.stderr
        status = _cli("metastore", "status", "--data-dir", str(data_dir))
        assert "Hive Metastore 3.1.3" in status.stdout
        with MetastoreClient(started.stdout.strip()) as c:
            assert c.dialect().major == 3
        busy = _cli("metastore", "start", "--port", str(port), "--data-dir", str(data_dir))
        assert busy.returncode == 1 and "(pid " in busy.stderr and "Hive 3.1.3" in busy.stderr
    finally:
        server.stop(data_dir)
    other = _cli("metastore", "start", "--port", "0", "--data-dir",
                 str(data_dir))
    assert other.returncode == 1
    assert other.stderr.strip() == (
        f"hmscatalog: error: data dir {data_dir} holds a Hive Metastore 3.1.3 database, not "
        "2.3.10: use another --data-dir for --hive-version 2.3")


@pytest.mark.thorough
def test_cli_with_s3_passes_its_settings_and_accepts_s3a_locations(
        tmp_path: Path, moto_s3: Any, s3a_jars: list[str]) -> None:
    """``--with-s3`` puts S3A on the server's class path and ``--conf`` its settings in the
    server's configuration: the server itself makes the directory of an s3a:// database."""
    moto_s3.create_bucket("cli-with-s3")
    data_dir = tmp_path / "hms"
    settings = [f"--conf={key}={value}" for key, value in moto_s3.hadoop_settings.items()]
    started = _cli("metastore", "start", "--with-s3", *settings, "--port", "0",
                   "--data-dir", str(data_dir))
    assert started.returncode == 0, started.stderr
    try:
        with MetastoreClient(started.stdout.strip()) as c:
            c.create_database("on_s3", location="s3a://cli-with-s3/warehouse/on_s3.db")
            assert c.get_database("on_s3").location == "s3a://cli-with-s3/warehouse/on_s3.db"
        keys = [o["Key"] for o in moto_s3.client.list_objects_v2(
            Bucket="cli-with-s3").get("Contents", [])]
        assert keys == ["warehouse/on_s3.db/"]
        bad = _cli("metastore", "start", "--conf", "fs.s3a.endpoint", "--data-dir",
                   str(tmp_path / "other"))
        assert bad.stderr.strip() == "hmscatalog: error: --conf 'fs.s3a.endpoint' is not KEY=VALUE"
    finally:
        server.stop(data_dir)


def test_cli_prints_the_s3_jars_for_spark(s3a_jars: list[str]) -> None:
    printed = _cli("jars", "s3")
    assert printed.returncode == 0, printed.stderr
    jars = printed.stdout.strip().split(",")
    assert jars == s3a_jars and all(Path(j).is_file() for j in jars)
    assert any(Path(j).name.startswith("hadoop-aws-") for j in jars)


def test_unknown_release_is_a_clear_error(tmp_path: Path) -> None:
    result = _cli("metastore", "start", "--hive-version", "3.0", "--data-dir", str(tmp_path),
                  "--port", "0")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "hmscatalog: error: --hive-version '3.0' is not one the embedded metastore runs: choose "
        "one of 2.3 (2.3.10), 3.1 (3.1.3), 4.0 (4.0.1), 4.x (4.1.0)")


def test_jars_that_cannot_be_fetched_are_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HMSCATALOG_HOME", str(tmp_path / "home"))
    missing = jars.JarSet("nothing", "Hive Metastore 0.0.0",
                          ("org.apache.hive:hive-standalone-metastore:0.0.0",))
    with pytest.raises(JarsUnavailable) as refused:
        jars.classpath(missing)
    message = str(refused.value)
    assert message.startswith("cannot fetch Hive Metastore 0.0.0 from Maven Central: ")
    assert "\n" not in message and "hive-standalone-metastore" in message
    assert not jars.have(missing)  # nothing recorded: the next call tries again
    # Without mvn on PATH, Maven's own distribution is fetched and fails the same way.
    monkeypatch.setenv("PATH", _without_mvn(tmp_path / "bin"))
    with pytest.raises(JarsUnavailable) as refused_again:
        jars.classpath(missing)
    assert str(refused_again.value).startswith(
        "cannot fetch Hive Metastore 0.0.0 from Maven Central: ")
    assert (jars.cache() / f"apache-maven-{jars.MAVEN_VERSION}" / "bin" / "mvn").is_file()
    # Without Java either, one line says what is missing.
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(JarsUnavailable) as no_java:
        jars.classpath(missing)
    assert str(no_java.value) == ("Maven needs Java to fetch jars, and there is no java on PATH "
                                  "and no JAVA_HOME: install Java 17")


def _without_mvn(folder: Path) -> str:
    """A PATH of one folder holding every program of this PATH but ``mvn``."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for program in Path(directory or ".").glob("*"):
            if program.name != "mvn" and not (folder / program.name).exists() and os.access(
                    program, os.X_OK) and program.is_file():
                (folder / program.name).symlink_to(program.resolve())
    return str(folder)


@pytest.mark.thorough
def test_jars_and_other_releases_without_maven_installed(tmp_path: Path) -> None:
    """No ``mvn`` on PATH: ``jars json``, ``jars s3`` and a Hive 4.x metastore still work, with
    Maven's distribution fetched into the jars cache. The artifacts come from the session's
    Maven repository (linked in), so that the resolution, not the download, is what runs."""
    home = tmp_path / "home"
    (home / "jars").mkdir(parents=True)
    shared = jars.cache() / "maven-repository"
    shared.mkdir(parents=True, exist_ok=True)
    (home / "jars" / "maven-repository").symlink_to(shared)
    env = {**os.environ, "HMSCATALOG_HOME": str(home), "PATH": _without_mvn(tmp_path / "bin")}
    said = []
    for kind in ("json", "s3"):
        fetched = _cli("jars", kind, env=env)
        assert fetched.returncode == 0, fetched.stderr
        assert all(Path(jar).is_file() for jar in fetched.stdout.strip().split(","))
        said.append(fetched.stderr)
    assert f"fetching Apache Maven {jars.MAVEN_VERSION} from Maven Central" in said[0]
    assert "fetching Apache Maven" not in said[1]  # once
    data_dir = tmp_path / "hms4"
    started = _cli("metastore", "start", "--hive-version", "4.x", "--port", "0",
                   "--data-dir", str(data_dir), env=env)
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        with MetastoreClient(started.stdout.strip()) as client:
            client.create_database("without_maven")
            assert "without_maven" in client.list_databases()
    finally:
        _cli("metastore", "stop", "--data-dir", str(data_dir), env=env)
    assert (home / "jars" / f"apache-maven-{jars.MAVEN_VERSION}" / "bin" / "mvn").is_file()
