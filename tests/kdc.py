"""A real Kerberos KDC for tests: MIT Kerberos's ``krb5kdc`` (Debian's ``krb5-kdc``), with its own
realm, database and configuration in a temporary directory, listening on loopback only."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from ports import wait_listening

REALM = "HMSCATALOG.TEST"
TOOLS = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")


def _path() -> str:  # the tools are in sbin, which a user's PATH may lack
    return os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool, path=_path()) is None]


def _tool(name: str) -> str:
    found = shutil.which(name, path=_path())
    assert found, f"{name} is not installed"
    return found


class Kdc:
    """A KDC for realm :data:`REALM` in ``folder``; ``env`` points Kerberos clients at it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.krb5_conf = folder / "krb5.conf"
        self.env = {"KRB5_CONFIG": str(self.krb5_conf),
                    "KRB5_KDC_PROFILE": str(folder / "kdc.conf")}
        (folder / "kdc.conf").write_text(
            "[kdcdefaults]\n"
            f" kdc_listen = 127.0.0.1:{self.port}\n"
            f" kdc_tcp_listen = 127.0.0.1:{self.port}\n"
            "[realms]\n"
            f" {REALM} = {{\n"
            f"  database_name = {folder / 'principal'}\n"
            f"  key_stash_file = {folder / 'stash'}\n"
            f"  acl_file = {folder / 'kadm5.acl'}\n"
            "  max_life = 1h\n"
            "  max_renewable_life = 1d\n"
            "  supported_enctypes = aes256-cts-hmac-sha1-96:normal "
            "aes128-cts-hmac-sha1-96:normal\n"
            " }\n"
            "[logging]\n"
            f" kdc = FILE:{folder / 'kdc.log'}\n")
        self.krb5_conf.write_text(
            "[libdefaults]\n"
            f" default_realm = {REALM}\n"
            " dns_lookup_kdc = false\n"
            " dns_lookup_realm = false\n"
            " rdns = false\n"
            " udp_preference_limit = 1\n"
            "[realms]\n"
            f" {REALM} = {{\n"
            f"  kdc = 127.0.0.1:{self.port}\n"
            " }\n"
            "[domain_realm]\n"
            f" localhost = {REALM}\n")
        (folder / "kadm5.acl").write_text("")
        self._run(_tool("kdb5_util"), "create", "-s", "-r", REALM, "-P", "master-password")
        self.process = subprocess.Popen(
            [_tool("krb5kdc"), "-n", "-r", REALM], env={**os.environ, **self.env},
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        wait_listening(self.port, self.process, folder / "kdc.log")

    def _run(self, *command: str) -> str:
        done = subprocess.run(command, env={**os.environ, **self.env}, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        return done.stdout

    def kadmin(self, query: str) -> str:
        return self._run(_tool("kadmin.local"), "-r", REALM, "-q", query)

    def principal(self, name: str, max_life: str | None = None) -> tuple[str, Path]:
        """Add ``name@REALM`` with a random key; its principal name and a keytab for it."""
        full = f"{name}@{REALM}"
        keytab = self.folder / (name.replace("/", "_") + ".keytab")
        life = f" -maxlife \"{max_life}\"" if max_life else ""
        self.kadmin(f"addprinc -randkey{life} {full}")
        self.kadmin(f"ktadd -k {keytab} {full}")
        return full, keytab

    def kinit(self, principal: str, keytab: Path, cache: Path, lifetime: str = "1h") -> None:
        """A ticket for ``principal`` in ``cache`` (``FILE:``), as ``kinit`` gets one."""
        self._run(_tool("kinit"), "-l", lifetime, "-c", f"FILE:{cache}", "-kt", str(keytab),
                  principal)

    def stop(self) -> None:
        with_group = os.getpgid(self.process.pid)
        os.killpg(with_group, signal.SIGTERM)
        self.process.wait(timeout=10)


def running(folder: Path) -> Iterator[Kdc]:
    """A KDC in ``folder`` with the process's environment pointing Kerberos at it, for a
    module-scoped fixture; skips the module when MIT Kerberos is not installed."""
    if missing_tools():
        pytest.skip(f"MIT Kerberos's KDC is not installed (no {', '.join(missing_tools())}): "
                    "apt-get install krb5-kdc krb5-admin-server krb5-user (.ci/run does)")
    with pytest.MonkeyPatch.context() as patch:
        started = Kdc(folder)
        for key, value in started.env.items():
            patch.setenv(key, value)
        try:
            yield started
        finally:
            started.stop()
