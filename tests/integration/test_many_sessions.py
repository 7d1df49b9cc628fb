"""Many sessions on one hms table at once: 50 HiveServer2 clients of ``hmscatalog serve``, 50
Spark Connect clients of it, and 16 threads of one SparkSession, each mixing pruned reads,
static, dynamic and overwriting inserts into shared and own partitions, ADD/DROP PARTITION,
ALTER TABLE, REFRESH and a procedure, while a writer appends through Spark's built-in catalog
(the workload and its checks: tests/sessions_load.py). Every answer is checked as it comes,
and the whole table afterwards; no statement may fail. Then the shared objects those statements
use, each at more concurrency than a workload reaches: callbacks' answers, the partition-value
caster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import serve
from sessions_load import (
    Hs2Client,
    Load,
    SessionClient,
    Tally,
    background_writer,
    create,
    run_clients,
    totals_hold,
)

from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm

pytestmark = [pytest.mark.integration, pytest.mark.spark]

CLIENTS, THREADS = 50, 16
# Rounds of the workload per client: one in CI (each client's 17 statements, 850 for 50
# clients); more to look for rarer races (HMSCATALOG_SESSIONS_ROUNDS=10).
ROUNDS = int(os.environ.get("HMSCATALOG_SESSIONS_ROUNDS", "1"))
BEGIN = ("SET hive.exec.dynamic.partition.mode=nonstrict",)


@pytest.fixture(scope="module")
def hs2(metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
        spark_driver_options: str) -> Iterator[int]:
    for process in serve(metastore_uri, tmp_path_factory.mktemp("serve-hs2"),
                         "--master", "local[2]"):
        yield int(process.args[-1])


@pytest.fixture(scope="module")
def connect(metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
            spark_driver_options: str) -> Iterator[int]:
    pytest.importorskip("grpc")
    for process in serve(metastore_uri, tmp_path_factory.mktemp("serve-connect"),
                         "--protocol", "connect", "--master", "local[2]"):
        yield int(process.args[-1])


def _rows(spark: Any, text: str) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in spark.sql(text).collect()]


def _with_builtin_writer(spark: Any, load: Load, run: Any) -> tuple[Tally, list[int]]:
    """``run(tally)`` while the test session appends to ``load``'s table through the built-in
    catalog; the tally and the values the writer wrote."""
    tally, written, stop = Tally(), list[int](), threading.Event()
    writer = threading.Thread(target=background_writer, args=(
        lambda text: spark.sql(text).collect(),
        Load("spark_catalog", load.db, load.table), stop, written, tally))
    writer.start()
    try:
        run(tally)
    finally:
        stop.set()
        writer.join()
    return tally, written


def _check(spark: Any, load: Load, clients: range, tally: Tally, written: list[int]) -> None:
    problems = totals_hold(lambda text: _rows(spark, text), load, clients, ROUNDS, tally,
                           written)
    assert not tally.errors and not tally.wrong and not problems, \
        "\n".join([tally.summary(), *problems])
    assert tally.statements >= len(clients) * ROUNDS * 17
    assert written, "the built-in catalog's writer wrote nothing during the run"


@pytest.mark.thorough
def test_fifty_hiveserver2_clients(spark: Any, hms: Any, unique_db: str, hs2: int) -> None:
    load = Load("hms", unique_db, "t")
    create(spark.sql, load)
    sessions = [Hs2Client(hs2) for _ in range(CLIENTS)]
    try:
        tally, written = _with_builtin_writer(
            spark, load, lambda tally: run_clients(sessions, ROUNDS, load, tally, BEGIN))
    finally:
        for session in sessions:
            session.close()
    _check(spark, load, range(CLIENTS), tally, written)


@pytest.mark.thorough
def test_fifty_spark_connect_clients(spark: Any, hms: Any, unique_db: str,
                                     connect: int) -> None:
    load = Load("hms", unique_db, "t")
    create(spark.sql, load)
    child = Path(__file__).with_name("sessions_child.py")

    def run(tally: Tally) -> None:
        done = subprocess.run(
            [sys.executable, str(child), f"sc://localhost:{connect}", load.catalog, load.db,
             load.table, str(CLIENTS), str(ROUNDS)],
            capture_output=True, text=True, timeout=1200, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        said = json.loads(done.stdout.strip().splitlines()[-1])
        tally.latencies.extend([0.0] * said["statements"])
        tally.errors.update(said["errors"])
        tally.wrong.extend(said["wrong"])

    tally, written = _with_builtin_writer(spark, load, run)
    _check(spark, load, range(CLIENTS), tally, written)


@pytest.mark.thorough
def test_sixteen_threads_of_one_session(spark: Any, hms: Any, unique_db: str) -> None:
    load = Load("hms", unique_db, "t")
    create(spark.sql, load)
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    try:
        threads = [SessionClient(spark) for _ in range(THREADS)]
        tally, written = _with_builtin_writer(
            spark, load, lambda tally: run_clients(threads, ROUNDS, load, tally))
    finally:
        spark.sql("RESET hive.exec.dynamic.partition.mode")
    _check(spark, load, range(THREADS), tally, written)



class _Maker(JavaProxy):
    """A callback that answers each call with a JVM object nothing else refers to, as
    ``loadTable`` and ``columns`` do."""

    class Java:
        implements = ["java.util.concurrent.Callable"]  # noqa: RUF012 (py4j reads it)

    def __init__(self, jvm: Jvm) -> None:
        self._jvm = jvm

    def call(self) -> Any:
        return self._jvm.cls("java.util.ArrayList")()


@pytest.mark.thorough
def test_every_callback_answer_reaches_the_jvm(spark: Any, hms: Any) -> None:
    """16 JVM threads call a Python callback 40,000 times; each gets the list it made. py4j
    tells the JVM to forget an object once Python drops it, on another connection: without
    hmscatalog holding callback answers a while, some calls got null (a few in 20,000 here)."""
    jvm = Jvm(spark)
    tasks = jvm.cls("java.util.Collections").nCopies(40_000, _Maker(jvm))
    pool = jvm.cls("java.util.concurrent.Executors").newFixedThreadPool(16)
    try:
        nulls = sum(1 for future in pool.invokeAll(tasks) if future.get() is None)
    finally:
        pool.shutdown()
    assert nulls == 0, f"{nulls} of 40,000 callback answers reached the JVM as null"


def test_threads_casting_partition_values_get_their_own(spark: Any, hms: Any) -> None:
    """Partition values are cast by one projection per session and type list, which writes
    every result into one row of its own: eight threads at once each get their own values."""
    from hmscatalog.spark.internals.catalyst import cast_strings

    jvm, wrong = Jvm(spark), []

    def cast(n: int) -> None:
        for i in range(100):
            value = f"thread{n}-{i}-" + "x" * 40
            row = cast_strings(jvm, [value, str(i)], ["string", "int"], "UTC")
            got = (str(row.getUTF8String(0).toString()), row.getInt(1))
            if got != (value, i):
                wrong.append(got)

    threads = [threading.Thread(target=cast, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong, f"{len(wrong)} of 800 casts gave another thread's values: {wrong[:3]}"
