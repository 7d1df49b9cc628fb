"""What starting the JVM servers hmscatalog runs (the metastore, a mini HDFS) needs: Java, a
free port, the tail of a log for error messages."""

from __future__ import annotations

import os
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


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def log_tail(path: Path, lines: int = 25) -> str:
    """The last ``lines`` lines of a log file ('' when missing)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])
