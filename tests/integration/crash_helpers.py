"""Tables written by real child processes, and what the tests read back from them: each
registered partition's rows and statistics, and anything left under the table's directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pyarrow.parquet as pq
from commit_child import write

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Table
from hmscatalog.storage.locations import local_path
from hmscatalog.write.journal import table_home

CHILD = Path(__file__).with_name("commit_child.py")
KEEP = "hmscatalog.write.keep-replaced-seconds"

State = dict[str, list[int]]  # partition name ("" unpartitioned) -> sorted values
BEFORE: State = {"k=3": [1, 2, 3, 4, 5], "k=4": [6, 7, 8, 9, 10, 11]}


def applied(before: State, mode: str, rows: State) -> State:
    after = {name: list(values) for name, values in before.items()}
    for name, values in rows.items():
        kept = after.get(name, []) if mode == "append" else []
        after[name] = sorted(kept + values)
    return after


def make_table(client: MetastoreClient, uri: str, db: str, tmp_path: Path, partitioned: bool,
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


def table_state(client: MetastoreClient, table: Table) -> State:
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


def leftovers(client: MetastoreClient, table: Table) -> list[str]:
    """What lies under the table root besides the registered partitions' directories and files
    and the commit lock."""
    home = table_home(table.location)
    assert home is not None
    root = home[1]
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


def run_child(uri: str, db: str, mode: str, static: Mapping[str, str] | None,
               rows: State, faults: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HMSCATALOG_FAULTS": faults}
    return subprocess.run(
        [sys.executable, str(CHILD), uri, db, "t", mode, json.dumps(static),
         json.dumps(rows)], env=env, capture_output=True, text=True, timeout=120)


def wait_stopped(pid: int, timeout_s: float = 60) -> None:
    """Until the process is stopped (T) or a zombie (Z)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if fields[0] in "TZ":
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not stop")


def stopped_child(uri: str, db: str, point: str, rows: State) -> subprocess.Popen[str]:
    """A write in a child process, stopped (SIGSTOP) at ``point`` of its commit."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), uri, db, "t", "append", "null", json.dumps(rows)],
        env={**os.environ, "HMSCATALOG_FAULTS": f"stop@{point}"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    wait_stopped(child.pid)
    assert child.poll() is None, child.communicate()[1][-2000:]
    return child


def resume(child: subprocess.Popen[str]) -> str:
    """Continue a stopped child (:func:`stopped_child`) and wait for it to end; its stderr."""
    os.kill(child.pid, signal.SIGCONT)
    return child.communicate(timeout=120)[1]
