"""A write killed (SIGKILL) at every step of its commit: after recovery the table is exactly as
before the write or exactly as after it, nothing is left behind, and a retry adds exactly its own
rows. Each write runs in a real child process against the session's real metastore."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from commit_child import write

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.locations import local_path
from hmscatalog.metastore.model import Table
from hmscatalog.write.lock import CommitLockTimeout
from hmscatalog.write.recovery import recover

pytestmark = pytest.mark.integration

CHILD = Path(__file__).with_name("commit_child.py")
KEEP = "hmscatalog.write.keep-replaced-seconds"
State = dict[str, list[int]]  # partition name ("" unpartitioned) -> sorted values

BEFORE: State = {"k=3": [1, 2, 3, 4, 5], "k=4": [6, 7, 8, 9, 10, 11]}
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


def _after(before: State, mode: str, rows: State) -> State:
    after = {name: list(values) for name, values in before.items()}
    for name, values in rows.items():
        kept = after.get(name, []) if mode == "append" else []
        after[name] = sorted(kept + values)
    return after


def _table(client: MetastoreClient, uri: str, db: str, tmp_path: Path, partitioned: bool,
           keep_replaced_s: int = 0) -> Table:
    """Table ``t`` holding :data:`BEFORE`; replaced files are kept ``keep_replaced_s``."""
    table = client.new_table(db, "t", columns=[("v", "bigint")],
                             partition_keys=[("k", "int")] if partitioned else [],
                             location=f"file:{tmp_path / 't'}",
                             parameters={KEEP: str(keep_replaced_s)})
    every = sorted(v for values in BEFORE.values() for v in values)
    initial = BEFORE if partitioned else {"": every}
    write(uri, db, "t", "append", None, initial)
    return table


def _state(client: MetastoreClient, table: Table) -> State:
    """Every registered partition's rows, read from its files; checks each one's statistics."""
    if not table.partition_keys:
        current = client.get_table(table.database, table.name)
        places = {"": (current.location, current.parameters)}
    else:
        places = {"/".join(f"{k}={v}" for k, v in zip(["k"], p.values, strict=True)):
                  (p.location, p.parameters)
                  for p in client.list_partitions(table.database, table.name)}
    state = {}
    for name, (location, parameters) in places.items():
        directory = local_path(location)
        assert directory is not None
        files = [f for f in sorted(directory.iterdir())
                 if f.is_file() and not f.name.startswith((".", "_"))]
        values = sorted(v for f in files for v in pq.read_table(f).column("v").to_pylist())
        assert parameters["numFiles"] == str(len(files)), (name, parameters)
        assert parameters["numRows"] == str(len(values)), (name, parameters)
        state[name] = values
    return state


def _locations(client: MetastoreClient, table: Table) -> set[Path]:
    """Where the table's registered partitions (or the unpartitioned table) keep their files."""
    if not table.partition_keys:
        locations = [client.get_table(table.database, table.name).location]
    else:
        locations = [p.location for p in client.list_partitions(table.database, table.name)]
    return {path for path in map(local_path, locations) if path is not None}


def _leftovers(client: MetastoreClient, table: Table) -> list[str]:
    """What lies under the table root besides the registered partitions' directories and files
    and the commit lock."""
    root = local_path(table.location)
    assert root is not None
    places = _locations(client, table)
    directories = {root / ".hms-commits"} | places | {
        parent for place in places for parent in place.parents if root in parent.parents}
    found = []
    for path in root.rglob("*"):
        if path.is_dir():
            kept = path in directories
        else:
            kept = path.parent in places or path == root / ".hms-commits" / "lock"
        if not kept:
            found.append(str(path.relative_to(root)))
    return sorted(found)


def _run_child(uri: str, db: str, mode: str, static: Mapping[str, str] | None,
               rows: State, faults: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HMSCATALOG_FAULTS": faults}
    return subprocess.run(
        [sys.executable, str(CHILD), uri, db, "t", mode, json.dumps(static),
         json.dumps(rows)], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("case", "faults"), [
    (case, faults) for case in WRITES for faults in POINTS
    # Only dynamic writes register partitions: the others never reach "register".
    if faults != "kill@register" or case.endswith("-dynamic")])
def test_a_write_killed_at_any_step_leaves_the_table_before_or_after(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path, case: str,
        faults: str) -> None:
    partitioned, mode, static, rows = WRITES[case]
    table = _table(client, metastore_uri, unique_db, tmp_path, partitioned)
    root = tmp_path / "t"
    before = _state(client, table)
    after = _after(before, mode, rows)

    child = _run_child(metastore_uri, unique_db, mode, static, rows, faults)
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stderr[-2000:])
    assert any((root / ".hms-commits").glob("*.json"))

    result = recover(client, table)
    assert len(result.finished + result.undone) == 1, result
    assert bool(result.finished) == POINTS[faults], result
    state = _state(client, table)
    assert state == (after if POINTS[faults] else before)
    assert _leftovers(client, table) == []
    assert list((root / ".hms-commits").glob("*.json")) == []

    # The same write again, to completion: exactly its own rows are added or replaced.
    write(metastore_uri, unique_db, "t", mode, static, rows)
    assert _state(client, table) == _after(state, mode, rows)
    assert _leftovers(client, table) == []


def test_recovery_from_the_command_line_and_leftovers_without_a_record(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """``hmscatalog recover`` undoes a killed write; staging and trash directories that no
    record owns (left by a process killed before it could save one) are deleted."""
    partitioned, mode, static, rows = WRITES["overwrite-dynamic"]
    table = _table(client, metastore_uri, unique_db, tmp_path, partitioned)
    root = tmp_path / "t"
    before = _state(client, table)
    child = _run_child(metastore_uri, unique_db, mode, static, rows, "kill@move:2")
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
    assert _state(client, table) == before
    assert _leftovers(client, table) == []


def test_a_running_write_is_left_alone(client: MetastoreClient, metastore_uri: str,
                                       unique_db: str, tmp_path: Path) -> None:
    """Recovery never touches the record or staging directory of a write whose process is
    alive (here: stopped with SIGSTOP right after it saved its record)."""
    table = _table(client, metastore_uri, unique_db, tmp_path, True)
    root = tmp_path / "t"
    env = {**os.environ, "HMSCATALOG_FAULTS": "stop@begin"}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), metastore_uri, unique_db, "t", "append", "null",
         json.dumps({"k=7": [1, 2, 3]})], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        _wait_stopped(child.pid)
        records = list((root / ".hms-commits").glob("*.json"))
        assert len(records) == 1
        result = recover(client, table)
        assert result.running == [records[0].stem] and not result.finished + result.undone
        assert records[0].exists()
        os.kill(child.pid, signal.SIGCONT)
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err[-2000:]
    finally:
        if child.poll() is None:
            child.kill()
    assert _state(client, table)["k=7"] == [1, 2, 3]


def _wait_stopped(pid: int, timeout_s: float = 60) -> None:
    """Until the process is stopped (T) or a zombie (Z)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if fields[0] in "TZ":
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not stop")



@pytest.mark.spark
@pytest.mark.parametrize(("faults", "finished"), [("kill@move:5", False),
                                                  ("kill@register", True)])
def test_a_killed_spark_insert_is_recovered_by_the_next_read(
        spark: Any, db: str, metastore_uri: str, client: MetastoreClient, faults: str,
        finished: bool) -> None:
    """A real ``INSERT OVERWRITE ... PARTITION (k)`` in another Spark driver, killed during its
    commit; the next query through hms finishes or undoes it, and a retry gives its rows once."""
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"TBLPROPERTIES ('{KEEP}'='0')")
    spark.sql(f"INSERT INTO {table} SELECT id, CAST(id % 4 AS INT) FROM range(40)")
    overwrite = (f"INSERT OVERWRITE {table} PARTITION (k) "
                 "SELECT /*+ REPARTITION(3) */ id + 1000, CAST(id % 6 AS INT) FROM range(60)")
    child = subprocess.run([sys.executable, str(CHILD.with_name("spark_child.py")),
                            metastore_uri, overwrite],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    root = local_path(client.get_table(db, "t").location)
    assert root is not None and any((root / ".hms-commits").glob("*.json"))

    rows = sorted(tuple(r) for r in spark.sql(f"SELECT v, k FROM {table}").collect())
    old = sorted((i, i % 4) for i in range(40))
    new = sorted((i + 1000, i % 6) for i in range(60))
    assert rows == (new if finished else old)
    assert list((root / ".hms-commits").glob("*.json")) == []
    stored = client.get_table(db, "t")
    assert len(client.list_partition_names(db, "t")) == (6 if finished else 4)
    assert _leftovers(client, stored) == []
    spark.sql(overwrite)
    assert sorted(tuple(r) for r in spark.sql(f"SELECT v, k FROM {table}").collect()) == new
    assert _leftovers(client, stored) == []


def _stopped_child(uri: str, db: str, point: str, rows: State) -> subprocess.Popen[str]:
    """A write in a child process, stopped (SIGSTOP) at ``point`` of its commit."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), uri, db, "t", "append", "null", json.dumps(rows)],
        env={**os.environ, "HMSCATALOG_FAULTS": f"stop@{point}"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    _wait_stopped(child.pid)
    assert child.poll() is None, child.communicate()[1][-2000:]
    return child


def test_commits_wait_for_each_other_and_give_up_naming_the_holder(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A second commit waits for the first (held, stopped, inside its commit) and gives up
    after its timeout with one line naming the table and the holder, changing nothing; reads
    and recovery are not held up; once the first ends, the second goes through."""
    table = _table(client, metastore_uri, unique_db, tmp_path, True)
    before = _state(client, table)
    holder = _stopped_child(metastore_uri, unique_db, "locked", {"k=4": [100, 101, 102]})
    try:
        with pytest.raises(CommitLockTimeout) as waited:
            write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]},
                  lock_timeout_s=1)
        assert str(waited.value).startswith(
            f"table {unique_db}.t is being committed by write ")
        assert f"(pid {holder.pid} on " in str(waited.value)
        assert str(waited.value).endswith("after 1 s")
        assert _state(client, table) == before
        assert recover(client, table).running != []  # returns at once: the holder is alive
        os.kill(holder.pid, signal.SIGCONT)
        assert holder.wait(timeout=120) == 0, holder.communicate()[1][-2000:]
    finally:
        if holder.poll() is None:
            holder.kill()
    write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]}, lock_timeout_s=1)
    assert _state(client, table) == _after(_after(before, "append", {"k=4": [100, 101, 102]}),
                                           "append", {"k=5": [7, 8, 9]})
    assert _leftovers(client, table) == []


def test_a_killed_holder_releases_the_lock(client: MetastoreClient, metastore_uri: str,
                                           unique_db: str, tmp_path: Path) -> None:
    table = _table(client, metastore_uri, unique_db, tmp_path, True)
    before = _state(client, table)
    holder = _stopped_child(metastore_uri, unique_db, "locked", {"k=4": [100, 101, 102]})
    holder.kill()
    holder.wait(timeout=60)
    write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]}, lock_timeout_s=5)
    assert _state(client, table) == _after(before, "append", {"k=5": [7, 8, 9]})
    assert _leftovers(client, table) == []



WRITER = """
import sys, time
from commit_child import write
uri, db, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for generation in range(1, count + 1):
    rows = {"k=5": [generation * 1_000_000 + i for i in range(800)]}
    write(uri, db, "t", "overwrite", None, rows, files=64)
    time.sleep(0.2)
"""


@pytest.mark.spark
def test_readers_never_see_a_partition_half_replaced(
        spark: Any, hms: Any, client: MetastoreClient, metastore_uri: str, unique_db: str,
        tmp_path: Path) -> None:
    """Queries through hms while another process overwrites the partition they read, again and
    again (800 rows in 64 files each time): every answer is one whole generation of the
    partition, and no query fails on a file that went away."""
    client.new_table(unique_db, "t", columns=[("v", "bigint")], partition_keys=[("k", "int")],
                     location=f"file:{tmp_path / 't'}")
    write(metastore_uri, unique_db, "t", "append", None,
          {"k=5": list(range(800)), "k=6": [1]}, files=64)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, metastore_uri, unique_db, "40"],
                              cwd=CHILD.parent, stderr=subprocess.PIPE, text=True)
    answers, errors = [], []
    try:
        while writer.poll() is None or len(answers) < 100:
            try:
                answers.append(tuple(spark.sql(
                    f"SELECT count(*), min(v) DIV 1000000, max(v) DIV 1000000 "
                    f"FROM hms.{unique_db}.t WHERE k = 5").first()))
            except Exception as exc:  # every failure is counted
                errors.append(str(exc).splitlines()[0])
    finally:
        writer.wait(timeout=300)
    assert writer.returncode == 0, writer.stderr.read()[-2000:] if writer.stderr else ""
    assert errors == []
    assert [a for a in answers if a[0] != 800 or a[1] != a[2]] == []
    generations = {a[1] for a in answers}
    assert len(generations) >= 3, generations  # the reads did overlap the overwrites


def test_replaced_files_are_kept_for_running_queries_then_deleted(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """An overwrite switches the partition to a new directory in one metastore call and keeps
    the old files ``hmscatalog.write.keep-replaced-seconds``; the first recovery after that
    deletes them (a second overwrite's old version is a whole directory)."""
    table = _table(client, metastore_uri, unique_db, tmp_path, True, keep_replaced_s=1)
    root = tmp_path / "t"
    old_files = sorted((root / "k=4").iterdir())
    write(metastore_uri, unique_db, "t", "overwrite", None, {"k=4": [100, 101, 102]})
    first = local_path(client.get_partition(unique_db, "t", ["4"]).location)
    assert first is not None and first.parent == root / "k=4" and first.name.startswith("hms-v")
    assert all(f.exists() for f in old_files)
    assert len(list((root / ".hms-commits").glob("*.json"))) == 1
    assert recover(client, table).retired == []  # not yet due
    write(metastore_uri, unique_db, "t", "overwrite", None, {"k=4": [200, 201, 202]})
    second = local_path(client.get_partition(unique_db, "t", ["4"]).location)
    assert second is not None and second.parent == root / "k=4" and second != first
    assert _state(client, table)["k=4"] == [200, 201, 202]
    time.sleep(1.1)
    assert len(recover(client, table).retired) == 2
    assert not any(f.exists() for f in old_files) and not first.exists()
    assert list((root / ".hms-commits").glob("*.json")) == []
    assert _leftovers(client, table) == []


@pytest.mark.spark
def test_other_engines_read_a_replaced_partition(spark: Any, db: str,
                                                 client: MetastoreClient) -> None:
    """A replaced partition's files are below its own directory (``k=4/hms-v<write id>/``):
    readers through the metastore follow its location; readers of the table's directory tree
    (Spark's path reads, pyarrow, DuckDB, hms's own path reads) take ``k`` from the directory
    above and skip the plain one, as they do for any plain directory."""
    import duckdb
    import pyarrow.dataset as ds

    from hmscatalog.spark import read_partitioned

    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"TBLPROPERTIES ('{KEEP}'='0')")
    spark.sql(f"INSERT INTO hms.{db}.t SELECT id, CAST(id % 3 AS INT) FROM range(9)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (k=1) VALUES (100), (101)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (k=1) VALUES (200)")
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (k=1) VALUES (201)")
    want = sorted([(0, 0), (3, 0), (6, 0), (200, 1), (201, 1), (2, 2), (5, 2), (8, 2)])
    root = local_path(client.get_table(db, "t").location)
    assert root is not None
    (version,) = (root / "k=1").iterdir()  # the first overwrite's directory is gone
    assert version.name.startswith("hms-v")

    def rows(frame: Any) -> list[tuple[int, int]]:
        return sorted((int(r["v"]), int(r["k"])) for r in frame.collect())

    assert rows(spark.sql(f"SELECT v, k FROM hms.{db}.t")) == want
    assert rows(spark.sql(f"SELECT v, k FROM spark_catalog.{db}.t")) == want
    assert rows(spark.read.parquet(str(root))) == want
    assert rows(read_partitioned(spark, str(root))) == want
    arrow = ds.dataset(str(root), format="parquet", partitioning="hive").to_table()
    assert sorted(zip(arrow["v"].to_pylist(), arrow["k"].to_pylist(), strict=True)) == want
    duck = duckdb.sql(f"SELECT v, k FROM read_parquet('{root}/**/*.parquet', "
                      "hive_partitioning = true)").fetchall()
    assert sorted(duck) == want


SOAK_COMMITS = int(os.environ.get("HMSCATALOG_SOAK_COMMITS", "8"))


def test_soak_concurrent_writers_one_killed(client: MetastoreClient, metastore_uri: str,
                                            unique_db: str, tmp_path: Path) -> None:
    """Four writers commit appends and overwrites to overlapping partitions at once, and one is
    killed at a random moment. The table then equals a serial replay, in commit order, of the
    commits that reported success (plus, or not, the one the killed writer had under way).
    ``HMSCATALOG_SOAK_COMMITS`` sets the commits per writer (8 here, 25 in bench/RESULTS.md);
    a failure names its seed, which ``HMSCATALOG_SOAK_SEED`` replays."""
    from soak_child import plan

    seed = int(os.environ.get("HMSCATALOG_SOAK_SEED", random.randrange(1_000_000)))
    chooser = random.Random(seed)
    table = client.new_table(unique_db, "t", columns=[("v", "bigint")],
                             partition_keys=[("k", "int")], location=f"file:{tmp_path / 't'}",
                             parameters={KEEP: "0"})
    notes = tmp_path / "notes"
    env = {**os.environ, "HMSCATALOG_FAULTS": "note@locked", "HMSCATALOG_FAULTS_NOTES": str(notes)}
    victim = chooser.randrange(4)
    # Killed either at a random time or inside a commit, at a random file move (every commit
    # moves at least two files).
    move = chooser.randint(1, 2 * SOAK_COMMITS) if chooser.random() < 0.5 else None
    writers = [subprocess.Popen(
        [sys.executable, "soak_child.py", metastore_uri, unique_db, str(w), str(SOAK_COMMITS),
         str(seed)], cwd=CHILD.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**env, "HMSCATALOG_FAULTS": f"note@locked,kill@move:{move}"}
        if w == victim and move else env) for w in range(4)]
    early = ""
    if move is None:  # after a random number of its commits, and a random pause
        stdout = writers[victim].stdout
        assert stdout is not None
        for _ in range(chooser.randrange(SOAK_COMMITS // 2)):
            early += stdout.readline()
        time.sleep(chooser.uniform(0, 0.2))
        writers[victim].kill()
    outputs = [w.communicate(timeout=600) for w in writers]
    outputs[victim] = (early + outputs[victim][0], outputs[victim][1])
    for w, (process, (_, err)) in enumerate(zip(writers, outputs, strict=True)):
        assert process.returncode == (-signal.SIGKILL if w == victim else 0), (seed, err[-2000:])
    recover(client, table)

    reported = [{int(line.split()[1]) for line in out.splitlines() if line.startswith("ok ")}
                for out, _ in outputs]
    by_pid = {p.pid: w for w, p in enumerate(writers)}
    order, seen = [], [0] * 4
    for line in notes.read_text().splitlines():
        writer = by_pid[int(line.split()[1])]
        order.append((writer, seen[writer]))
        seen[writer] += 1
    assert seen[:victim] + seen[victim + 1:] == [SOAK_COMMITS] * 3, seed
    under_way = (victim, seen[victim] - 1) if seen[victim] > len(reported[victim]) else None
    plans = [plan(w, SOAK_COMMITS, seed) for w in range(4)]

    def replay(with_under_way: bool) -> State:
        state: State = {}
        for writer, index in order:
            if index in reported[writer] or (with_under_way and (writer, index) == under_way):
                state = _after(state, *plans[writer][index])
        return state

    final = _state(client, table)
    assert final in (replay(False), replay(True)), (seed, victim, under_way)
    assert _leftovers(client, table) == [], seed


def test_a_killed_writer_not_yet_waited_for_is_recovered_by_the_next_commit(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A writer killed inside its commit whose parent has not waited for it yet (a zombie,
    still listed by the kernel) no longer holds the commit lock, so the next commit undoes its
    half-made commit before making its own."""
    table = _table(client, metastore_uri, unique_db, tmp_path, True)
    before = _state(client, table)
    rows = {"k=4": [100, 101, 102], "k=5": [103, 104, 105]}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), metastore_uri, unique_db, "t", "overwrite", "null",
         json.dumps(rows)], env={**os.environ, "HMSCATALOG_FAULTS": "kill@move:3"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_stopped(child.pid)  # a zombie: killed, not waited for
        write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]})
        assert _state(client, table) == _after(before, "append", {"k=5": [7, 8, 9]})
        assert _leftovers(client, table) == []
    finally:
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL


def test_the_metastore_going_away_mid_commit(tmp_path: Path) -> None:
    """A metastore of its own, stopped while a write registers its partitions: the write undoes
    what it can, fails naming the table and keeps its record; once the metastore is back,
    recovery finishes undoing it. Stopped and started again while the write waits (a restart or
    network drop shorter than the client's retries): the write finishes."""
    from hmscatalog.metastore import server

    data_dir, port = tmp_path / "metastore", server.free_port()
    uri = server.start(port=port, data_dir=data_dir).uri
    try:
        with MetastoreClient(uri, timeout_s=60, backoff_s=0.1) as client:
            client.create_database("gone")
            table = _table(client, uri, "gone", tmp_path, True)
            before = _state(client, table)
            rows = {"k=4": [100, 101, 102], "k=5": [103, 104, 105]}
            argv = [sys.executable, str(CHILD), uri, "gone", "t", "overwrite", "null",
                    json.dumps(rows)]
            env = {**os.environ, "HMSCATALOG_FAULTS": "stop@register"}

            child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            _wait_stopped(child.pid)
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
            assert _state(client, table) == before
            assert _leftovers(client, table) == []

            child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            _wait_stopped(child.pid)
            server.stop(data_dir)
            server.start(port=port, data_dir=data_dir)
            os.kill(child.pid, signal.SIGCONT)
            _, err = child.communicate(timeout=300)
            assert child.returncode == 0, err[-2000:]
            assert _state(client, table) == _after(before, "overwrite", rows)
            assert _leftovers(client, table) == []
    finally:
        if server.status(data_dir) is not None:
            server.stop(data_dir)
