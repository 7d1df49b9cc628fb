"""Freshness through the metastore's notification log, differentially: a catalog that follows
the log (its metadata cache on, as by default) against what the metastore holds now, after
writes by every kind of other writer -- the Thrift client, Spark's built-in catalog, a
SparkSession of another process -- on the session's metastore (2.3) and on Hive 3.1 and 4.x.

Each test first shows the cache answering (EXPLAIN names it, so the test could fail by a
stale answer), then writes, then checks the next query: with catch-up (the default) it sees the
write at once; without, it sees it after one poll of the log, which the test makes itself (the
follower's interval is an hour), and never a stale answer after that.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from event_writer import make_table

from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient

# Not marked ``metastore``: the releases it starts are plain (no Kerberos), and its writers in
# other processes speak to them as such; CI's Kerberized run of the session metastore leaves
# it out, as it does tests/integration/test_metastore_releases.py.
pytestmark = [pytest.mark.integration, pytest.mark.spark]

CHILD = Path(__file__).with_name("spark_child.py")
WRITER = Path(__file__).with_name("event_writer.py")


class Metastore:
    """One metastore with two catalogs on it: ``fresh`` (catch-up, the default) and ``polled``
    (no catch-up; the test polls the log itself)."""

    def __init__(self, spark: Any, line: str, uri: str) -> None:
        from hmscatalog.spark import attach

        suffix = re.sub(r"[^0-9a-z]", "", line)
        self.line, self.uri = line, uri
        self.fresh, self.polled = f"fresh_{suffix}", f"polled_{suffix}"
        self.client = MetastoreClient(uri)
        attach(spark, name=self.fresh, uri=uri)
        keys = {f"spark.hmscatalog.{self.polled}.events.catch-up": "false",
                f"spark.hmscatalog.{self.polled}.events.poll-interval": "3600"}
        for key, value in keys.items():
            spark.conf.set(key, value)
        try:
            self.follower = attach(spark, name=self.polled, uri=uri).cache.follower
        finally:
            for key in keys:
                spark.conf.unset(key)


@pytest.fixture(scope="module", params=["session", "3.1", "4.x"])
def followed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
              spark: Any, metastore_uri: str) -> Iterator[Metastore]:
    line = request.param
    if line == "session":
        yield Metastore(spark, line, metastore_uri)
        return
    data_dir = tmp_path_factory.mktemp(f"events-{line}")
    info = server.start(port=0, data_dir=data_dir, hive_version=line)
    try:
        yield Metastore(spark, line, info.uri)
    finally:
        server.stop(data_dir)


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _scan(spark: Any, sql: str) -> str:
    return str(spark.sql(sql)._jdf.queryExecution().executedPlan().toString())


@pytest.fixture
def table(request: pytest.FixtureRequest, followed: Metastore) -> Iterator[str]:
    """``<db>.t (v INT) PARTITIONED BY (p STRING)``, partition ``p=a`` holding 1, made through
    the Thrift client; the database is dropped afterwards."""
    client = followed.client
    db = "ev_" + re.sub(r"[^0-9a-z]", "_", request.node.name.lower())[:40]
    client.drop_database(db, cascade=True, if_exists=True)
    client.create_database(db)
    make_table(client, db, "a", [1])
    yield db
    client.drop_database(db, cascade=True, if_exists=True)


def _cached(spark: Any, catalog: str, db: str) -> list[tuple[Any, ...]]:
    """The table's rows through ``catalog``, read twice: the second read's table and partitions
    come from the cache, which EXPLAIN must say."""
    query = f"SELECT * FROM {catalog}.{db}.t"
    first = _rows(spark, query)
    plan = _scan(spark, query)
    assert "metadata cache: table" in plan and "partitions" in plan.split("metadata cache:")[1]
    assert "events: applied #" in plan
    assert _rows(spark, query) == first
    return first


# Each write, made by the Thrift client of another process (a write of this process is seen
# by every cache of the process at once, without the log), and the rows (v, p) after it.
WRITES = {
    "add partition": [(1, "a"), (2, "b")],
    "drop partition": [],
    "alter partition location": [(7, "a")],
    "drop and create table": [(3, "z")],
}


def _write(uri: str, db: str, write: str) -> None:
    done = subprocess.run([sys.executable, str(WRITER), uri, db, write], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("write", list(WRITES))
def test_a_thrift_client_write_is_seen_by_the_next_query(
        spark: Any, followed: Metastore, table: str, write: str) -> None:
    after = WRITES[write]
    assert _cached(spark, followed.fresh, table) == [(1, "a")]
    _write(followed.uri, table, write)
    assert _rows(spark, f"SELECT * FROM {followed.fresh}.{table}.t") == after


@pytest.mark.parametrize("write", list(WRITES))
def test_without_catch_up_a_write_is_seen_after_one_poll(
        spark: Any, followed: Metastore, table: str, write: str) -> None:
    after = WRITES[write]
    catalog, follower = followed.polled, followed.follower
    follower.poll()  # the table's own creation
    assert _cached(spark, catalog, table) == [(1, "a")]
    _write(followed.uri, table, write)
    query = f"SELECT * FROM {catalog}.{table}.t"
    # Not polled yet: the cache's answer, by design (for a dropped table, its old partitions,
    # whose files are gone).
    assert _rows(spark, query) != after
    assert follower.poll() >= 1
    assert _rows(spark, query) == after
    assert _rows(spark, query) == after  # and cached again, not stale


def test_table_properties_changed_elsewhere_are_seen(spark: Any, followed: Metastore,
                                                     table: str) -> None:
    catalog = followed.fresh
    _cached(spark, catalog, table)
    assert "k" not in dict(_rows(spark, f"SHOW TBLPROPERTIES {catalog}.{table}.t"))
    _write(followed.uri, table, "set property")
    assert dict(_rows(spark, f"SHOW TBLPROPERTIES {catalog}.{table}.t"))["k"] == "v"


def test_changes_committed_at_once_take_consecutive_event_ids(followed: Metastore,
                                                             table: str) -> None:
    """Changes committed at once through several connections each take an id of their own,
    in the order they commit. Hive 2.3, and 3.1 on Derby, read and advance the log's id with
    no lock: two changes could take one id, and a follower that had applied the first would
    never read the second. The embedded metastore's log locks it."""
    writers, rounds = 6, 8

    def write(index: int) -> None:
        with MetastoreClient(followed.uri) as own:
            made = own.new_table(table, f"c{index}", [("v", "int")],
                                 partition_keys=[("p", "string")])
            for n in range(rounds):
                own.add_partitions(made, [own.new_partition(made, [f"r{n}"])])

    start = followed.client.current_event_id()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, range(writers)))
    ids = [event.id for event in followed.client.next_events(start, 10_000)]
    assert ids == list(range(start + 1, start + 1 + writers * (1 + rounds)))
    assert followed.client.current_event_id() == ids[-1]


@pytest.mark.builtin
def test_builtin_catalog_writes_are_seen_by_the_next_query(spark: Any, hms: Any, db: str) -> None:
    """Spark's built-in catalog of this very session stands for another engine: its writes
    reach the metastore only, and hms sees each at once."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t (v INT) PARTITIONED BY (p STRING) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p='a') VALUES (1)")
    assert _cached(spark, "hms", db) == [(1, "a")]
    for statement, rows in [
        (f"INSERT INTO spark_catalog.{db}.t PARTITION (p='b') VALUES (2)", [(1, "a"), (2, "b")]),
        (f"INSERT OVERWRITE TABLE spark_catalog.{db}.t PARTITION (p='a') VALUES (5)",
         [(2, "b"), (5, "a")]),
        (f"ALTER TABLE spark_catalog.{db}.t DROP PARTITION (p='b')", [(5, "a")]),
        (f"ALTER TABLE spark_catalog.{db}.t ADD COLUMNS (w INT)", [(5, None, "a")]),
    ]:
        spark.sql(statement)
        assert _rows(spark, f"SELECT * FROM hms.{db}.t") == rows, statement
        assert _rows(spark, f"SELECT * FROM hms.{db}.t") == _rows(
            spark, f"SELECT * FROM spark_catalog.{db}.t"), statement


def test_another_process_s_writes_are_seen(spark: Any, hms: Any, db: str,
                                           metastore_uri: str) -> None:
    """A SparkSession of another process, with its own hms catalog and cache, writes; this
    session's next query sees it, then its own write is seen there."""
    spark.sql(f"CREATE TABLE hms.{db}.t (v INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p='a') VALUES (1)")
    assert _cached(spark, "hms", db) == [(1, "a")]
    child = subprocess.run(
        [sys.executable, str(CHILD), metastore_uri,
         f"INSERT INTO hms.{db}.t PARTITION (p='b') VALUES (2)",
         f"ALTER TABLE hms.{db}.t DROP PARTITION (p='a')"],
        capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False)
    assert child.returncode == 0, child.stderr[-3000:]
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == [(2, "b")]
