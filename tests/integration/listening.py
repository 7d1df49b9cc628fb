"""The addresses a TCP port is listening on, from the kernel's socket tables."""

from __future__ import annotations

import ipaddress
from pathlib import Path

_LISTEN = "0A"


def _address(text: str) -> str:
    """An address as /proc/net/tcp{,6} writes it: 32-bit words in host (little-endian) order."""
    words = [bytes.fromhex(text[i:i + 8])[::-1] for i in range(0, len(text), 8)]
    address = ipaddress.ip_address(b"".join(words))
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def _listening() -> list[tuple[str, int, str]]:
    """(address, port, socket inode) of every listening TCP socket."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, _, port = fields[1].partition(":")
            if fields[3] == _LISTEN:
                found.append((_address(address), int(port, 16), fields[9]))
    return found


def listening_addresses(port: int) -> set[str]:
    """Every local address on which something listens on TCP ``port`` (``0.0.0.0``/``::``:
    every interface)."""
    return {address for address, at, _ in _listening() if at == port}


def _descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            queue += [int(child) for child in task.read_text().split()]
    return found


def listening_sockets_of(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket that process ``pid`` or one of its descendants
    listens on."""
    inodes = set()
    for process in _descendants(pid):
        for fd in Path(f"/proc/{process}/fd").glob("*"):
            try:
                target = fd.readlink().as_posix()
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
    return {(address, port) for address, port, inode in _listening() if inode in inodes}
