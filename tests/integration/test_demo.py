"""`hmscatalog demo`, the main job, end to end on its own metastore."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hmscatalog.metastore import server

pytestmark = [pytest.mark.integration, pytest.mark.spark]  # the demo runs a SparkSession


@pytest.mark.thorough
def test_demo_runs_twice_and_reuses_its_metastore(tmp_path: Path) -> None:
    """With 9083 taken by another program (here, this test), the demo starts its metastore on
    a free port and says so; run again, it reuses that metastore."""
    command = [sys.executable, "-m", "hmscatalog.cli.main", "demo", "--data-dir", str(tmp_path)]
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        try:
            held.bind((server.DEFAULT_HOST, server.DEFAULT_PORT))
            held.listen()
        except OSError:
            pass  # another program has it already, which is the case under test
        first = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr
        moved, started = first.stdout.splitlines()[:2]
        port = moved.rsplit(" ", 1)[-1]
        assert moved == (f"metastore  port {server.DEFAULT_PORT} is in use by another program: "
                         f"started on port {port}")
        assert started.startswith("metastore  started in")
        assert started.split()[4] == f"thrift://127.0.0.1:{port}"
        assert "registered 125 partitions" in first.stdout
        assert 'metastore filter  dt = "2024-01-05"' in first.stdout
        assert "4/125 selected (4 fetched)" in first.stdout
        assert "region=São Paulo%2FBR" in first.stdout
        assert "INSERT INTO hms.hmscatalog_demo.events PARTITION (dt, region)" in first.stdout
        assert "20,000 rows into 42 partitions" in first.stdout
        assert "EXPLAIN: partitions=3/42 (metastore filter: dt = \"2024-01-05\"" in first.stdout
        orders = [int(line.split()[1]) for line in first.stdout.splitlines()
                  if line.strip().split(" ")[0] in ("amer", "apac", "emea")]
        assert sum(orders) == 20_000 // 14 + (20_000 % 14 > 4)
        second = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
        assert f"reusing thrift://127.0.0.1:{port}" in second.stdout
        assert "registered 125 partitions" in second.stdout
    finally:
        held.close()
        if server.status(tmp_path) is not None:
            server.stop(tmp_path)
