"""One commit at a time per table: writers wait for the lock and give up naming its holder, a
killed holder frees it, and four writers committing at once (one killed) leave the table equal
to a serial replay of their commits."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from commit_child import write
from crash_helpers import (
    CHILD,
    KEEP,
    State,
    applied,
    leftovers,
    make_table,
    stopped_child,
    table_state,
)

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.write.lock import CommitLockTimeout
from hmscatalog.write.recovery import recover

pytestmark = pytest.mark.integration


def test_commits_wait_for_each_other_and_give_up_naming_the_holder(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A second commit waits for the first (held, stopped, inside its commit) and gives up
    after its timeout with one line naming the table and the holder, changing nothing; reads
    and recovery are not held up; once the first ends, the second goes through."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, True)
    before = table_state(client, table)
    holder = stopped_child(metastore_uri, unique_db, "locked", {"k=4": [100, 101, 102]})
    try:
        with pytest.raises(CommitLockTimeout) as waited:
            write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]},
                  lock_timeout_s=1)
        assert str(waited.value).startswith(
            f"table {unique_db}.t is being committed by write ")
        assert f"(pid {holder.pid} on " in str(waited.value)
        assert str(waited.value).endswith("after 1 s")
        assert table_state(client, table) == before
        assert recover(client, table).running != []  # returns at once: the holder is alive
        os.kill(holder.pid, signal.SIGCONT)
        assert holder.wait(timeout=120) == 0, holder.communicate()[1][-2000:]
    finally:
        if holder.poll() is None:
            holder.kill()
    write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]}, lock_timeout_s=1)
    both = applied(applied(before, "append", {"k=4": [100, 101, 102]}), "append",
                   {"k=5": [7, 8, 9]})
    assert table_state(client, table) == both
    assert leftovers(client, table) == []

def test_a_killed_holder_releases_the_lock(client: MetastoreClient, metastore_uri: str,
                                           unique_db: str, tmp_path: Path) -> None:
    table = make_table(client, metastore_uri, unique_db, tmp_path, True)
    before = table_state(client, table)
    holder = stopped_child(metastore_uri, unique_db, "locked", {"k=4": [100, 101, 102]})
    holder.kill()
    holder.wait(timeout=60)
    write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7, 8, 9]}, lock_timeout_s=5)
    assert table_state(client, table) == applied(before, "append", {"k=5": [7, 8, 9]})
    assert leftovers(client, table) == []

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
                state = applied(state, *plans[writer][index])
        return state

    final = table_state(client, table)
    assert final in (replay(False), replay(True)), (seed, victim, under_way)
    assert leftovers(client, table) == [], seed
