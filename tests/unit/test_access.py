"""Whom ``hmscatalog serve`` lets in: each combination that cannot work is one line, found
before anything starts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from hmscatalog.access import TOKEN_VARIABLE, Access
from hmscatalog.errors import ServerError


@pytest.fixture(autouse=True)
def _no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)


@pytest.mark.parametrize(("access", "protocol", "line"), [
    (Access(), "odbc", "--protocol 'odbc' is not one of hs2, connect"),
    (Access("token"), "hs2",
     "--auth token is not offered over hs2: choose one of none, kerberos, ldap"),
    (Access("ldap", ldap_url="ldap://h"), "hs2",
     "--auth ldap needs both --ldap-url and --ldap-base-dn"),
    (Access("ldap", ldap_url="h:389", ldap_base_dn="ou=p"), "hs2",
     "--ldap-url 'h:389' is not ldap://host[:port] or ldaps://host[:port]"),
    (Access("none", ldap_base_dn="ou=p"), "hs2",
     "--ldap-url and --ldap-base-dn go with --auth ldap"),
    (Access("kerberos"), "connect",
     "--auth kerberos is not offered over connect: choose one of none, token"),
    (Access("kerberos", "hive/_HOST@R"), "hs2",
     "--auth kerberos needs both --kerberos-principal and --kerberos-keytab"),
    (Access("none", "hive/_HOST@R"), "hs2",
     "--kerberos-principal and --kerberos-keytab go with --auth kerberos"),
    (Access("kerberos", "hive/_HOST@R", "/no/such.keytab"), "hs2",
     "Kerberos keytab /no/such.keytab does not exist"),
    (Access("token"), "connect",
     f"--auth token takes the token from ${TOKEN_VARIABLE}, which is not set"),
])
def test_what_cannot_work_is_one_line(access: Access, protocol: str, line: str) -> None:
    with pytest.raises(ServerError) as refused:
        access.checked(protocol)
    assert str(refused.value) == line


def test_a_token_in_the_environment_needs_auth_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_VARIABLE, "secret")
    with pytest.raises(ServerError, match=f"^\\${TOKEN_VARIABLE} is set but --auth is none: "):
        Access().checked("connect")
    assert Access("token").checked("connect") == Access("token")
    assert Access().checked("hs2") == Access()  # Spark's Thrift server does not read it


def test_kerberos_expands_host_and_the_keytabs_path(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hive.keytab").write_bytes(b"\x05\x02")
    monkeypatch.chdir(tmp_path)
    checked = Access("kerberos", "hive/_HOST@R", "hive.keytab").checked("hs2")
    assert checked == Access("kerberos", f"hive/{socket.getfqdn().lower()}@R",
                             str(tmp_path / "hive.keytab"))
    assert checked.checked("hs2") == checked
