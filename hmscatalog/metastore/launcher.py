"""The command that runs a metastore server bound to one address.

Hive 2.3 and 3.1 have no setting for the address of their Thrift port: they listen on every
interface. The embedded server therefore runs under ``io.hmscatalog.metastore.BoundServer``
(``java/BoundServer.java``, built once with the JDK into the jars cache), which binds every
server socket the metastore opens on the wildcard address to the address asked for instead
(127.0.0.1 by default), the same way for every release.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
from importlib import resources
from pathlib import Path

from hmscatalog import jars as jar_cache
from hmscatalog import javaparts
from hmscatalog.errors import ServerError
from hmscatalog.javaparts.javac import build_jar

LAUNCHER_CLASS = "io.hmscatalog.metastore.BoundServer"
# What the launcher logs as it binds a server socket: this, an address, " port ", the port.
BOUND = "hmscatalog: server socket bound to "
_SOURCE = "BoundServer.java"
# BoundServer implements the JDK's internal PlatformSocketImpl and calls SocketImpl's
# non-public methods.
_ACCESS = ("java.base/sun.net=ALL-UNNAMED",)
JVM_OPTIONS = ("--add-exports", *_ACCESS, "--add-opens", "java.base/java.net=ALL-UNNAMED")


PREBUILT_NAME = "hmscatalog-launcher.jar"  # in a wheel (hmscatalog.javaparts)


def source_digest() -> str:
    """What the built launcher depends on: its source."""
    return hashlib.sha256(_text().encode()).hexdigest()[:12]


def _text() -> str:
    return (resources.files("hmscatalog.metastore") / "java" / _SOURCE).read_text()


def build(target: Path) -> None:
    """Build the launcher into ``target`` with the JDK.

    Raises:
        ServerError: no JDK, or the source does not compile.
    """
    build_jar({_SOURCE: _text()}, target, "the metastore's launcher", ServerError,
              options=("--add-exports", *_ACCESS))


def launcher_jar() -> Path:
    """The launcher's jar: the wheel's, else one built first if it is not in the jars cache."""
    digest = source_digest()
    prebuilt = javaparts.find(PREBUILT_NAME, digest)
    if prebuilt is not None:
        return prebuilt
    target = jar_cache.cache() / f"hmscatalog-launcher-{digest}.jar"
    if not target.exists():
        build(target)
    return target


def command(java: str, jvm_options: list[str], classpath: str, host: str, main: str,
            args: list[str]) -> list[str]:
    """``main args`` in a JVM, its server sockets bound to ``host``."""
    return [java, *jvm_options, *JVM_OPTIONS, "-cp", f"{launcher_jar()}:{classpath}",
            LAUNCHER_CLASS, host, main, *args]


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (only this machine can
    connect to a server bound there).

    Raises:
        ServerError: ``host`` names no address.
    """
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except socket.gaierror as exc:
        raise ServerError(f"host {host!r} names no address: {exc.strerror}") from exc
    return all(ipaddress.ip_address(str(address).split("%")[0]).is_loopback for address in found)


def check_host(host: str, insecure: bool, what: str,
               risk: str = "would let every machine that reaches it in, with no "
                           "authentication") -> None:
    """Refuse to serve ``what`` on ``host`` unless it is a loopback address of this machine,
    or ``insecure`` allows another address of it.

    Raises:
        ServerError: ``host`` is not an address of this machine, or not a loopback one and
            ``insecure`` is not set.
    """
    if not is_loopback(host) and not insecure:
        raise ServerError(
            f"host {host} is not a loopback address: {what} {risk}; listen there anyway "
            "with --insecure (insecure=True), or keep the default 127.0.0.1")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, 0))
        except OSError as exc:
            raise ServerError(f"host {host} is not an address of this machine: "
                              f"{exc.strerror}") from exc
