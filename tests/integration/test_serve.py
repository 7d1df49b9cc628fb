"""``hmscatalog serve``: Spark's Thrift server with hms attached, queried with pyhive as a
HiveServer2 client would, and a Spark Connect server queried by PySpark's Connect client, each
from another process (Kerberos: test_serve_kerberos.py)."""

from __future__ import annotations

import json
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
from serving import serve

from hmscatalog.metastore.client import MetastoreClient

pytestmark = pytest.mark.integration
hive = pytest.importorskip("pyhive.hive")


@pytest.fixture(scope="module")
def serving(metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
            spark_driver_options: str) -> Iterator[subprocess.Popen[str]]:
    """``hmscatalog serve`` with the defaults: HiveServer2's protocol, no authentication."""
    yield from serve(metastore_uri, tmp_path_factory.mktemp("serve"))


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


# Spark Connect (--protocol connect), with a token: clients in a process of their own
# (connect_child.py), each client session a Spark session of the server's.

TOKEN = "a-token-for-the-tests"


@pytest.fixture(scope="module")
def connect_serving(metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
                    spark_driver_options: str) -> Iterator[subprocess.Popen[str]]:
    pytest.importorskip("grpc", reason="the Spark Connect client needs pyspark[connect]")
    yield from serve(metastore_uri, tmp_path_factory.mktemp("connect"), "--protocol", "connect",
                     "--auth", "token", env={"SPARK_CONNECT_AUTHENTICATE_TOKEN": TOKEN})


def _connect(port: int, *steps: list[Any], token: str | None = TOKEN) -> list[Any]:
    """Run ``steps`` (see connect_child.py) in a Connect client; their results."""
    url = f"sc://localhost:{port}/" + (f";token={token}" if token else "")
    env = {key: value for key, value in os.environ.items()
           if key != "SPARK_CONNECT_AUTHENTICATE_TOKEN"}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("connect_child.py")),
                           url], input=json.dumps(steps), capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_spark_connect_clients_query_and_write_with_hives_rules(
        connect_serving: subprocess.Popen[str], client: MetastoreClient, unique_db: str) -> None:
    port, t = int(connect_serving.args[-1]), f"hms.{unique_db}.events"
    results = _connect(
        port,
        ["a", "sql", f"CREATE TABLE {t} (v INT, p STRING) USING parquet PARTITIONED BY (p)"],
        ["a", "sql", f"INSERT INTO {t} VALUES (1, 'a')"],
        ["a", "sql", "SET hive.exec.dynamic.partition.mode=nonstrict"],
        ["a", "sql", f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')"],
        ["a", "append", t, [[4, "d"]], "v INT, p STRING"],
        ["a", "sql", f"SELECT v, p FROM {t} WHERE p = 'b'"],
        ["a", "sql", f"EXPLAIN SELECT v FROM {t} WHERE p = 'b'"],
        # Another client session is another Spark session: strict mode again.
        ["b", "sql", f"INSERT INTO {t} VALUES (5, 'e')"],
        ["b", "sql", f"SELECT count(*) FROM {t}"])
    assert results[1]["error"] == ("Dynamic partition strict mode requires at least one static "
                                   "partition column. To turn this off set "
                                   "hive.exec.dynamic.partition.mode=nonstrict")
    assert results[5] == [[2, "b"]]
    assert "partitions=1/4" in results[6][0][0], results[6]
    assert results[7]["error"] == results[1]["error"]
    assert results[8] == [[4]]
    assert sorted(client.list_partition_names(unique_db, "events")) == [
        "p=a", "p=b", "p=c", "p=d"]


@pytest.mark.parametrize("token", [None, "another-token"])
def test_spark_connect_refuses_a_client_without_the_token(
        connect_serving: subprocess.Popen[str], token: str | None) -> None:
    [refused] = _connect(int(connect_serving.args[-1]), ["a", "sql", "SHOW NAMESPACES IN hms"],
                         token=token)
    assert "status = StatusCode.UNAUTHENTICATED" in refused["message"], refused


def test_every_port_of_the_connect_server_is_on_loopback(
        connect_serving: subprocess.Popen[str]) -> None:
    sockets = listening_sockets_of(connect_serving.pid)
    assert ("127.0.0.1", int(connect_serving.args[-1])) in sockets
    assert {address for address, _ in sockets} == {"127.0.0.1"}, sockets


@pytest.mark.parametrize(("options", "line"), [
    (["--protocol", "connect", "--auth", "kerberos"],
     "--auth kerberos is not offered over connect: choose one of none, token"),
    (["--auth", "kerberos", "--kerberos-principal", "hive/_HOST@EXAMPLE.COM"],
     "--auth kerberos needs both --kerberos-principal and --kerberos-keytab"),
    (["--protocol", "connect", "--auth", "token"],
     "--auth token takes the token from $SPARK_CONNECT_AUTHENTICATE_TOKEN, which is not set"),
])
def test_an_authentication_that_cannot_work_is_one_line(metastore_uri: str, options: list[str],
                                                        line: str) -> None:
    env = {key: value for key, value in os.environ.items()
           if key != "SPARK_CONNECT_AUTHENTICATE_TOKEN"}
    refused = subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri, *options],
        capture_output=True, text=True, timeout=120, env=env)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [f"hmscatalog: error: {line}"]
