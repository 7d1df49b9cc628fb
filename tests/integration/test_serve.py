"""``hmscatalog serve``: Spark's Thrift server with hms attached, queried with pyhive as a
HiveServer2 client would, from another process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from listening import listening_sockets_of
from ports import closed_port

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.server import free_port

pytestmark = pytest.mark.integration
hive = pytest.importorskip("pyhive.hive")


def _serving_on(port: int, process: subprocess.Popen[str], log: Path) -> bool:
    """Whether ``hmscatalog serve`` came up on ``port``: it said it serves there and a
    connection is taken; false when it exited because another program had the port."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        said = log.read_text()
        if process.poll() is not None:
            if "already in use" in said:
                return False
            pytest.fail(f"hmscatalog serve exited with {process.returncode}:\n{said[-3000:]}")
        if f"on jdbc:hive2://127.0.0.1:{port}/" in said:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                pass
        time.sleep(0.5)
    pytest.fail(f"hmscatalog serve did not listen on {port}:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def serving(metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
            spark_driver_options: str) -> Iterator[subprocess.Popen[str]]:
    """``hmscatalog serve`` on a free port (``serving.args[-1]``), with the defaults; on
    another if a program takes that one first."""
    folder = tmp_path_factory.mktemp("serve")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    for attempt in range(3):
        port, log = free_port(), folder / f"serve-{attempt}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri,
                 "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
        try:
            if _serving_on(port, process, log):
                break
        except BaseException:
            process.kill()
            raise
    else:
        pytest.fail("hmscatalog serve found its port taken three times")
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def served(serving: subprocess.Popen[str]) -> int:
    return int(serving.args[-1])


def _query(port: int, *statements: str) -> list[tuple[Any, ...]]:
    """Run ``statements`` on one connection (one session); the last one's rows."""
    connection = hive.connect(host="127.0.0.1", port=port, username="test")
    try:
        cursor = connection.cursor()
        for sql in statements:
            cursor.execute(sql)
        return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
    finally:
        connection.close()


@pytest.mark.thorough
def test_pyhive_queries_hms_tables_with_pruning(served: int, client: MetastoreClient,
                                                unique_db: str, tmp_path: Path) -> None:
    t = f"hms.{unique_db}.events"
    _query(served, f"CREATE TABLE {t} (v INT, p STRING) USING parquet PARTITIONED BY (p)")
    _query(served, "SET hive.exec.dynamic.partition.mode=nonstrict",
           f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    assert sorted(client.list_partition_names(unique_db, "events")) == ["p=a", "p=b", "p=c"]
    assert _query(served, f"SELECT v, p FROM {t} WHERE p = 'b'") == [(2, "b")]
    plan = "\n".join(str(r[0]) for r in _query(served, f"EXPLAIN SELECT v FROM {t} WHERE p = 'b'"))
    assert "partitions=1/3" in plan, plan


def test_each_connection_has_its_own_session_with_hives_rules(served: int,
                                                              unique_db: str) -> None:
    t = f"hms.{unique_db}.strict"
    _query(served, f"CREATE TABLE {t} (v INT, p STRING) USING parquet PARTITIONED BY (p)")
    # A new connection is a new session: strict mode again, so the dynamic INSERT is refused.
    with pytest.raises(Exception, match="Dynamic partition strict mode requires"):
        _query(served, f"INSERT INTO {t} VALUES (1, 'a')")
    _query(served, f"INSERT INTO {t} PARTITION (p='x') VALUES (1)")
    _query(served, f"CALL hms.system.flush_metadata_cache('{unique_db}', 'strict')")
    assert _query(served, f"SELECT * FROM {t}") == [(1, "x")]


def test_every_port_of_the_server_is_on_loopback(serving: subprocess.Popen[str]) -> None:
    """The SQL port, and the driver's own ports and Spark's UI, which Spark would open on the
    host's address and on every interface."""
    sockets = listening_sockets_of(serving.pid)
    assert ("127.0.0.1", int(serving.args[-1])) in sockets
    assert {address for address, _ in sockets} == {"127.0.0.1"}, sockets


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.2"])
def test_a_host_other_machines_reach_needs_insecure(metastore_uri: str, host: str) -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri, "--host", host],
        capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"hmscatalog: error: host {host} is not a loopback address: the SQL server would let "
        "every machine that reaches it in, with no authentication; listen there anyway with "
        "--insecure (insecure=True), or keep the default 127.0.0.1"]


def test_what_would_fail_fails_before_spark_starts(metastore_uri: str) -> None:
    """A taken port, a malformed or unreachable metastore URI: one line each, in seconds (Spark
    takes ten or more to start)."""
    with socket.socket() as taken, closed_port() as unused:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        cases = {
            (metastore_uri, str(busy)): f"port {busy} is already in use on 127.0.0.1: choose "
                                        "another with --port (Address already in use)",
            # The port is checked last: these fail on their URI whatever port they name.
            ("thrift:/nohost", str(busy)): "metastore URI 'thrift:/nohost' is malformed: "
                                           "expected thrift://host:port",
            (f"thrift://127.0.0.1:{unused}", str(busy)):
                f"metastore thrift://127.0.0.1:{unused} unavailable for get_all_databases after "
                f"2 attempts: thrift://127.0.0.1:{unused}: ",
        }
        for (uri, port), line in cases.items():
            began = time.monotonic()
            refused = subprocess.run(
                [sys.executable, "-m", "hmscatalog.cli.main", "serve", uri, "--port", port],
                capture_output=True, text=True, timeout=120)
            assert refused.returncode == 1
            [said] = refused.stderr.splitlines()
            assert said.startswith(f"hmscatalog: error: {line}"), said
            assert time.monotonic() - began < 8, uri
