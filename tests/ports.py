"""A port no server can answer on for as long as a test needs it; waiting for a server the
tests start to take connections."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port held bound but not listening: a connection to it is refused at once,
    and no other program can listen there until the block ends (a port that was merely free a
    moment ago may have a server by the time the test connects)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen[Any], log: Path,
                   timeout_s: float = 30) -> None:
    """Return once something takes connections on loopback ``port``; raise, with ``log``'s
    text, if ``process`` (the server meant to) exits first or the time runs out."""
    deadline = time.monotonic() + timeout_s
    while True:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{process.args[0]} did not start: {log.read_text()}")
        time.sleep(0.1)
