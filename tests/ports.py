"""A port no server can answer on for as long as a test needs it."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port held bound but not listening: a connection to it is refused at once,
    and no other program can listen there until the block ends (a port that was merely free a
    moment ago may have a server by the time the test connects)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]
