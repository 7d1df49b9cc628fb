"""What starting the JVM servers hmscatalog runs (the metastore, a mini HDFS) needs: Java, a
free port, the tail of a log for error messages."""

from __future__ import annotations

import os
import random
import shutil
import socket
from pathlib import Path

from hmscatalog.errors import ServerError


def find_java() -> str:
    """The ``java`` executable from ``JAVA_HOME`` or ``PATH``.

    Raises:
        ServerError: if there is none.
    """
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise ServerError(
            "Java not found (no JAVA_HOME, no java on PATH): the metastore needs Java 17; "
            "install it, e.g. apt-get install openjdk-17-jre-headless"
        )
    return found


def _ephemeral_ports() -> tuple[int, int]:
    """The range the kernel takes the local ports of outgoing connections from."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now, below the range of outgoing connections' ports where
    there is room (a port the kernel hands to the bind of port 0 is one any program's next
    connection may take while a server is down between a stop and a restart)."""
    low = _ephemeral_ports()[0]
    candidates = random.sample(range(10_000, low), min(20, max(low - 10_000, 0)))
    for port in [*candidates, 0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise OSError(f"no free TCP port on {host}")


def log_tail(path: Path, lines: int = 25) -> str:
    """The last ``lines`` lines of a log file ('' when missing)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])
