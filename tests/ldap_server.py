"""A real LDAP server for tests: OpenLDAP's ``slapd`` (Debian's ``slapd``), with its own
configuration and database in a temporary directory, listening on loopback only, holding a few
people under :data:`PEOPLE` whose passwords are :func:`password`."""

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

SUFFIX = "dc=hmscatalog,dc=test"
PEOPLE = f"ou=people,{SUFFIX}"
_SCHEMAS = Path("/etc/ldap/schema")
_MODULES = Path("/usr/lib/ldap")


def _tool(name: str) -> str | None:
    return shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))


def password(uid: str) -> str:
    return f"{uid}-password"


class LdapServer:
    """slapd on a free loopback port (``url``), with ``uid=<name>,`` :data:`PEOPLE` for each
    of ``people``."""

    def __init__(self, folder: Path, people: tuple[str, ...] = ("alice", "bob")) -> None:
        slapd, slapadd = _tool("slapd"), _tool("slapadd")
        assert slapd and slapadd, "slapd is not installed"
        (folder / "db").mkdir(parents=True)
        conf = folder / "slapd.conf"
        conf.write_text(
            "".join(f"include {_SCHEMAS / name}.schema\n"
                    for name in ("core", "cosine", "inetorgperson"))
            + f"pidfile {folder / 'slapd.pid'}\n"
            f"modulepath {_MODULES}\nmoduleload back_mdb\n"
            f"database mdb\nmaxsize 10485760\nsuffix \"{SUFFIX}\"\n"
            f"rootdn \"cn=admin,{SUFFIX}\"\nrootpw admin-password\n"
            f"directory {folder / 'db'}\n")
        entries = [f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\n"
                   "o: hmscatalog\ndc: hmscatalog\n",
                   f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people\n"]
        entries += [f"dn: uid={uid},{PEOPLE}\nobjectClass: inetOrgPerson\nuid: {uid}\n"
                    f"cn: {uid}\nsn: {uid}\nuserPassword: {password(uid)}\n" for uid in people]
        (folder / "people.ldif").write_text("\n".join(entries))
        subprocess.run([slapadd, "-f", str(conf), "-l", str(folder / "people.ldif")],
                       check=True, capture_output=True, timeout=60)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"ldap://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [slapd, "-f", str(conf), "-h", f"{self.url}/", "-d", "0"],
            stdout=subprocess.DEVNULL, stderr=(folder / "slapd.log").open("w"),
            start_new_session=True)
        wait_listening(self.port, self.process, folder / "slapd.log")

    def stop(self) -> None:
        os.killpg(os.getpgid(self.process.pid), signal.SIGTERM)
        self.process.wait(timeout=10)


def running(folder: Path) -> Iterator[LdapServer]:
    """An LDAP server in ``folder``, for a module-scoped fixture; skips the module when
    OpenLDAP's server is not installed."""
    if not _tool("slapd") or not _tool("slapadd") or not (_MODULES / "back_mdb.so").exists():
        pytest.skip("OpenLDAP's server is not installed: apt-get install slapd (.ci/run does)")
    server = LdapServer(folder)
    try:
        yield server
    finally:
        server.stop()
