"""``hmscatalog serve`` in a child process, for the tests that query it as clients do."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hmscatalog.metastore.server import free_port


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
        if f"://127.0.0.1:{port}" in said:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                pass
        time.sleep(0.5)
    pytest.fail(f"hmscatalog serve did not listen on {port}:\n{log.read_text()[-3000:]}")


def serve(metastore_uri: str, folder: Path, *options: str,
          env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    """``hmscatalog serve`` with ``options`` on a free port (``args[-1]``), on another if a
    program takes that one first; stopped afterwards."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, **(env or {})}
    for attempt in range(3):
        port, log = free_port(), folder / f"serve-{attempt}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri,
                 *options, "--port", str(port)],
                stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
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
