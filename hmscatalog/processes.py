"""What starting and stopping the JVM servers hmscatalog runs (the metastore, a mini HDFS)
needs: Java, a free port, the tail of a log for error messages, and telling when a server
process has ended (from any process, not only its parent)."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import time
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


def accepts(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def wait_closed(host: str, port: int, timeout_s: float = 10.0) -> None:
    """Until nothing accepts connections on host:port (or ``timeout_s`` passes)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and accepts(host, port):
        time.sleep(0.1)


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now (nothing listens or answers there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As Java's server sockets do: connections lingering in TIME_WAIT do not block a bind.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return not accepts(host, port)


def alive(pid: int, main: str) -> bool:
    """Whether process ``pid`` runs and is the JVM whose command line names ``main`` (its main
    class): after a reboot or a crash, another program may have the pid."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return main.encode() in cmdline


def gone(pid: int, main: str) -> bool:
    """Whether the server process has exited and closed its files (its listening socket, its
    database): no such process, a zombie whose threads have all ended, or the pid taken by
    another program. While a JVM exits, its cmdline reads empty and its main thread may be a
    zombie before its other threads end and its files close, so :func:`alive` alone would let
    a restart find the port still taken."""
    proc = Path(f"/proc/{pid}")
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = (proc / "cmdline").read_bytes()
        threads = os.listdir(proc / "task")
    except (OSError, IndexError):
        return not alive(pid, main)
    if state in ("Z", "X"):
        return threads == [str(pid)]
    return bool(cmdline) and main.encode() not in cmdline


def terminate(pid: int, main: str, timeout_s: float = 30.0) -> None:
    """End the server ``pid`` (started in a session of its own) and its process group: SIGTERM,
    then SIGKILL after ``timeout_s``; returns once it is :func:`gone`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + (timeout_s if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            if gone(pid, main):
                return
            time.sleep(0.1)
