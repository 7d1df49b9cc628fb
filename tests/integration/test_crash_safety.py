"""A write killed (SIGKILL) at every step of its commit, or whose metastore goes away: after
recovery the table is exactly as before the write or exactly as after it, nothing is left
behind, and a retry adds exactly its own rows. Each write runs in a real child process against
a real metastore."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from commit_child import write
from crash_helpers import (
    CHILD,
    KEEP,
    State,
    applied,
    leftovers,
    make_table,
    resume,
    run_child,
    table_state,
    wait_stopped,
)

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.write.journal import table_home
from hmscatalog.write.recovery import recover

pytestmark = pytest.mark.integration


WRITES: dict[str, tuple[bool, str, dict[str, str] | None, State]] = {
    # name: partitioned, mode, static values, rows written
    "into-dynamic": (True, "append", None,
                     {"k=4": [100, 101, 102], "k=5": [103, 104, 105], "k=6": [106, 107, 108]}),
    "overwrite-dynamic": (True, "overwrite", None,
                          {"k=4": [100, 101, 102], "k=5": [103, 104, 105, 106]}),
    "into-static": (True, "append", {"k": "4"}, {"k=4": [100, 101, 102, 103]}),
    "overwrite-static": (True, "overwrite", {"k": "4"}, {"k=4": [100, 101, 102]}),
    "into-unpartitioned": (False, "append", None, {"": [100, 101, 102]}),
    "overwrite-unpartitioned": (False, "overwrite", None, {"": [100, 101, 102, 103]}),
}

# Where the child is killed, and whether recovery must then finish the write (else undo it).
POINTS = {
    "kill@begin": False,
    "kill@commit-record": False,
    "kill@move:1": False,
    "kill@move:3": False,
    "kill@committed": True,  # every file moved, the record not yet saved as committed
    "kill@register": True,
    "kill@statistics": True,
    "kill@cleanup": True,
    # The metastore fails while the write registers its statistics and the process dies
    # while undoing: recovery finishes undoing.
    "fail@statistics,kill@undo-move:2": False,
    # ... or dies before it saved that it was undoing: the write was final, so it is finished.
    "fail@statistics,kill@abort-record": True,
}

@pytest.mark.parametrize(("case", "faults"), [
    (case, faults) for case in WRITES for faults in POINTS
    # Only dynamic writes register partitions: the others never reach "register".
    if faults != "kill@register" or case.endswith("-dynamic")])
@pytest.mark.cases(4)
def test_a_write_killed_at_any_step_leaves_the_table_before_or_after(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path, case: str,
        faults: str) -> None:
    partitioned, mode, static, rows = WRITES[case]
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned)
    root = tmp_path / "t"
    before = table_state(client, table)
    after = applied(before, mode, rows)

    child = run_child(metastore_uri, unique_db, mode, static, rows, faults)
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stderr[-2000:])
    assert any((root / ".hms-commits").glob("*.json"))

    result = recover(client, table)
    assert len(result.finished + result.undone) == 1, result
    assert bool(result.finished) == POINTS[faults], result
    state = table_state(client, table)
    assert state == (after if POINTS[faults] else before)
    assert leftovers(client, table) == []
    assert list((root / ".hms-commits").glob("*.json")) == []

    # The same write again, to completion: exactly its own rows are added or replaced.
    write(metastore_uri, unique_db, "t", mode, static, rows)
    assert table_state(client, table) == applied(state, mode, rows)
    assert leftovers(client, table) == []

@pytest.mark.parametrize("partitioned", [True, False])
@pytest.mark.parametrize("faults", ["kill@begin", "kill@commit-record", "kill@committed",
                                    "kill@statistics", "kill@cleanup"])
@pytest.mark.cases(2)
def test_a_truncate_killed_at_any_step_leaves_the_table_before_or_after(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path,
        partitioned: bool, faults: str) -> None:
    """TRUNCATE TABLE [PARTITION] is committed as an overwrite by no rows: killed at any step,
    recovery leaves every partition it empties either as before or empty, never half."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned)
    before = table_state(client, table)
    emptied: dict[str, list[int]] = {"k=3": []} if partitioned else {"": []}
    after = applied(before, "overwrite", emptied)

    child = run_child(metastore_uri, unique_db, "truncate", None, emptied, faults)
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stderr[-2000:])
    result = recover(client, table)
    # With no files to move, a truncate whose record is written may be finished rather than
    # undone; either way its partitions are wholly before or wholly after.
    assert len(result.finished + result.undone) == 1, result
    assert table_state(client, table) == (after if result.finished else before)
    assert leftovers(client, table) == []

    write(metastore_uri, unique_db, "t", "truncate", None, emptied)
    assert table_state(client, table) == after


def test_recovery_from_the_command_line_and_leftovers_without_a_record(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """``hmscatalog recover`` undoes a killed write; staging and trash directories that no
    record owns (left by a process killed before it could save one) are deleted."""
    partitioned, mode, static, rows = WRITES["overwrite-dynamic"]
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned)
    root = tmp_path / "t"
    before = table_state(client, table)
    child = run_child(metastore_uri, unique_db, mode, static, rows, "kill@move:2")
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    (root / ".hms-staging-orphan" / "k=9").mkdir(parents=True)
    (root / ".hms-staging-orphan" / "k=9" / "part-00000.parquet").write_bytes(b"x")
    (root / ".hms-trash-orphan").mkdir()
    done = subprocess.run([sys.executable, "-m", "hmscatalog.cli.main", "recover", metastore_uri,
                           f"{unique_db}.t"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("undid write ")
    assert lines[-1] == (f"{unique_db}.t: 0 interrupted write(s) finished, 1 undone, "
                         "2 leftover directories removed")
    assert table_state(client, table) == before
    assert leftovers(client, table) == []

def test_a_running_write_is_left_alone(client: MetastoreClient, metastore_uri: str,
                                       unique_db: str, tmp_path: Path) -> None:
    """Recovery never touches the record or staging directory of a write whose process is
    alive (here: stopped with SIGSTOP right after it saved its record)."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, True)
    root = tmp_path / "t"
    env = {**os.environ, "HMSCATALOG_FAULTS": "stop@begin"}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), metastore_uri, unique_db, "t", "append", "null",
         json.dumps({"k=7": [1, 2, 3]})], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        wait_stopped(child.pid)
        records = list((root / ".hms-commits").glob("*.json"))
        assert len(records) == 1
        result = recover(client, table)
        assert result.running == [records[0].stem] and not result.finished + result.undone
        assert records[0].exists()
        err = resume(child)
        assert child.returncode == 0, err[-2000:]
    finally:
        if child.poll() is None:
            child.kill()
    assert table_state(client, table)["k=7"] == [1, 2, 3]

SPARK_WRITES = {  # partitioning, the statement killed
    "overwrite-dynamic": ("PARTITIONED BY (k INT)", "INSERT OVERWRITE {t} PARTITION (k) SELECT "
                          "/*+ REPARTITION(3) */ id + 1000, CAST(id % 6 AS INT) FROM range(60)"),
    "into-static": ("PARTITIONED BY (k INT)", "INSERT INTO {t} PARTITION (k=2) "
                    "SELECT /*+ REPARTITION(3) */ id + 1000 FROM range(30)"),
    "overwrite-unpartitioned": ("", "INSERT OVERWRITE {t} "
                                "SELECT /*+ REPARTITION(3) */ id + 1000 FROM range(30)"),
    "into-unpartitioned": ("", "INSERT INTO {t} SELECT /*+ REPARTITION(3) */ id + 1000 "
                           "FROM range(30)"),
}

@pytest.mark.spark
@pytest.mark.parametrize(("case", "faults", "finished"), [
    ("overwrite-dynamic", "kill@move:5", False),
    ("overwrite-dynamic", "kill@register", True),
    ("into-static", "kill@committed", True),
    ("overwrite-unpartitioned", "kill@statistics", True),
    ("into-unpartitioned", "kill@move:2", False),
])
@pytest.mark.cases(1)
def test_a_killed_spark_insert_is_recovered_by_the_next_read(
        spark: Any, db: str, metastore_uri: str, client: MetastoreClient, case: str,
        faults: str, finished: bool) -> None:
    """A real INSERT in another Spark driver, killed during its commit: the next query through
    hms finishes or undoes it, and a retry adds its rows once. The expected rows are those of
    the same statements on a table of Spark's built-in catalog."""
    partitioning, statement = SPARK_WRITES[case]
    columns = "v, k" if partitioning else "v"
    ours, theirs = f"hms.{db}.t", f"spark_catalog.{db}.theirs"
    for table in (ours, theirs):
        spark.sql(f"CREATE TABLE {table} (v BIGINT) {partitioning} STORED AS PARQUET "
                  f"TBLPROPERTIES ('{KEEP}'='0')")
        spark.sql(f"INSERT INTO {table} SELECT id{', CAST(id % 4 AS INT)' * bool(partitioning)} "
                  "FROM range(40)")

    def rows(table: str) -> list[tuple[int, ...]]:
        return sorted(tuple(r) for r in spark.sql(f"SELECT {columns} FROM {table}").collect())

    before = rows(theirs)
    child = subprocess.run([sys.executable, str(CHILD.with_name("spark_child.py")),
                            metastore_uri, statement.format(t=ours)],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    home = table_home(client.get_table(db, "t").location)
    assert home is not None and any((home[1] / ".hms-commits").glob("*.json"))

    spark.sql(statement.format(t=theirs))
    assert rows(ours) == (rows(theirs) if finished else before)  # this read recovers
    assert list((home[1] / ".hms-commits").glob("*.json")) == []
    assert leftovers(client, client.get_table(db, "t")) == []
    if finished:
        spark.sql(statement.format(t=theirs))  # the finished write, then the retry
    spark.sql(statement.format(t=ours))
    assert rows(ours) == rows(theirs)
    assert leftovers(client, client.get_table(db, "t")) == []

def test_a_killed_writer_not_yet_waited_for_is_recovered_by_the_next_commit(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A writer killed inside its commit whose parent has not waited for it yet (a zombie,
    still listed by the kernel) no longer holds the commit lock, so the next commit undoes its
    half-made commit before making its own."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, True)
    before = table_state(client, table)
    rows = {"k=4": [100, 101, 102], "k=5": [103, 104, 105]}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), metastore_uri, unique_db, "t", "overwrite", "null",
         json.dumps(rows)], env={**os.environ, "HMSCATALOG_FAULTS": "kill@move:3"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_stopped(child.pid)  # a zombie: killed, not waited for
        write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]})
        assert table_state(client, table) == applied(before, "append", {"k=5": [7, 8, 9]})
        assert leftovers(client, table) == []
    finally:
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL

@pytest.mark.thorough
def test_the_metastore_going_away_mid_commit(tmp_path: Path) -> None:
    """A metastore of its own, stopped while a write registers its partitions: the write undoes
    what it can, fails naming the table and keeps its record; once the metastore is back,
    recovery finishes undoing it. Stopped and started again while the write waits (a restart or
    network drop shorter than the client's retries): the write finishes."""
    from hmscatalog.metastore import server

    data_dir = tmp_path / "metastore"
    # The restarts reuse the port, outside the range of outgoing connections' ports.
    info = server.start(port=0, data_dir=data_dir)
    uri, port = info.uri, info.port
    children: list[subprocess.Popen[str]] = []
    try:
        with MetastoreClient(uri, timeout_s=60, backoff_s=0.1) as client:
            client.create_database("gone")
            table = make_table(client, uri, "gone", tmp_path, True)
            before = table_state(client, table)
            rows = {"k=4": [100, 101, 102], "k=5": [103, 104, 105]}
            argv = [sys.executable, str(CHILD), uri, "gone", "t", "overwrite", "null",
                    json.dumps(rows)]
            env = {**os.environ, "HMSCATALOG_FAULTS": "stop@register"}

            child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            children.append(child)
            wait_stopped(child.pid)
            server.stop(data_dir)
            os.kill(child.pid, signal.SIGCONT)
            _, err = child.communicate(timeout=300)
            assert child.returncode == 1
            assert err.strip().splitlines()[-1].startswith(
                "hmscatalog.errors.WriteFailed: the write into gone.t failed (metastore ")
            assert "could not be undone completely" in err
            assert len(list((tmp_path / "t" / ".hms-commits").glob("*.json"))) == 1
            server.start(port=port, data_dir=data_dir)
            assert recover(client, table).undone != []
            assert table_state(client, table) == before
            assert leftovers(client, table) == []

            child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            children.append(child)
            wait_stopped(child.pid)
            server.stop(data_dir)
            server.start(port=port, data_dir=data_dir)
            os.kill(child.pid, signal.SIGCONT)
            _, err = child.communicate(timeout=300)
            assert child.returncode == 0, err[-2000:]
            assert table_state(client, table) == applied(before, "overwrite", rows)
            assert leftovers(client, table) == []
    finally:
        for child in children:  # a failed assertion may leave one stopped
            if child.poll() is None:
                child.kill()
                child.wait()
        if server.status(data_dir) is not None:
            server.stop(data_dir)


@pytest.mark.spark
def test_a_read_that_cannot_recover_says_so(spark: Any, db: str, metastore_uri: str,
                                            client: MetastoreClient) -> None:
    """A query that meets a dead write it cannot finish (here the commit lock cannot be opened)
    fails with one line naming the table and the way out, rather than reading a half-made
    commit."""
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 4)")
    child = run_child(metastore_uri, db, "overwrite", None, {"k=4": [5, 6, 7]}, "kill@move:2")
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    home = table_home(client.get_table(db, "t").location)
    assert home is not None
    lock = home[1] / ".hms-commits" / "lock"
    lock.unlink()
    lock.mkdir()  # opening it fails, as a directory the reader may not write would
    try:
        with pytest.raises(Exception) as refused:
            spark.sql(f"SELECT * FROM hms.{db}.t").collect()
        assert str(refused.value).splitlines()[0] == (
            f"[HMS_RECOVERY_FAILED] table {db}.t has writes whose process died, and they cannot "
            f"be finished or undone from here ([Errno 21] Is a directory: '{lock}'); run "
            f"hmscatalog recover <metastore uri> {db}.t where the table's directory is writable")
    finally:
        lock.rmdir()
    assert sorted(tuple(r) for r in spark.sql(f"SELECT v, k FROM hms.{db}.t").collect()) == \
        [(1, 4)]
