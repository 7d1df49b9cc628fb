"""``hmscatalog serve --auth ldap``: Spark's Thrift server checking user names and passwords
against a real LDAP server (OpenLDAP's slapd, started here), as HiveServer2's LDAP
authentication does; queried by pyhive (SASL PLAIN) and beeline (JDBC)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyspark
import pytest
from ldap_server import PEOPLE, LdapServer, password, running
from serving import serve

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.processes import find_java

pytestmark = pytest.mark.integration
hive = pytest.importorskip("pyhive.hive")


@pytest.fixture(scope="module")
def ldap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LdapServer]:
    yield from running(tmp_path_factory.mktemp("ldap"))


@pytest.fixture(scope="module")
def checked(ldap: LdapServer, metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
            spark_driver_options: str) -> Iterator[int]:
    """The port of ``hmscatalog serve --auth ldap`` against ``ldap``."""
    for process in serve(metastore_uri, tmp_path_factory.mktemp("serve"), "--auth", "ldap",
                         "--ldap-url", ldap.url, "--ldap-base-dn", PEOPLE):
        yield int(process.args[-1])


def _pyhive(port: int, user: str, secret: str, *statements: str) -> list[tuple[object, ...]]:
    connection = hive.connect(host="127.0.0.1", port=port, auth="LDAP", username=user,
                              password=secret)
    try:
        cursor = connection.cursor()
        for statement in statements:
            cursor.execute(statement)
        return [tuple(row) for row in cursor.fetchall()]
    finally:
        connection.close()


def test_pyhive_with_a_password_queries_and_writes(checked: int, client: MetastoreClient,
                                                   unique_db: str) -> None:
    t = f"hms.{unique_db}.events"
    rows = _pyhive(checked, "alice", password("alice"),
                   f"CREATE TABLE {t} (v INT, p STRING) USING parquet PARTITIONED BY (p)",
                   f"INSERT INTO {t} PARTITION (p='a') VALUES (1)",
                   f"SELECT current_user(), v, p FROM {t} WHERE p = 'a'")
    assert rows == [("alice", 1, "a")]
    assert client.list_partition_names(unique_db, "events") == ["p=a"]


@pytest.mark.parametrize(("user", "secret"), [("alice", "bob-password"), ("mallory", "x")])
def test_a_wrong_password_or_user_is_refused(checked: int, user: str, secret: str) -> None:
    from thrift.transport.TTransport import TTransportException

    with pytest.raises(TTransportException, match="Error validating the login"):
        _pyhive(checked, user, secret, "SHOW NAMESPACES IN hms")


def test_beeline_with_a_password(checked: int) -> None:
    jars = Path(pyspark.__file__).parent / "jars"
    done = subprocess.run(
        [find_java(), "-cp", f"{jars}/*", "org.apache.hive.beeline.BeeLine", "--silent=true",
         "--outputformat=csv2", "-u", f"jdbc:hive2://127.0.0.1:{checked}/default",
         "-n", "bob", "-p", password("bob"), "-e", "SELECT current_user()"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "JDK_JAVA_OPTIONS": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == "bob", done.stdout


def test_an_ldap_server_that_does_not_answer_fails_before_spark_starts(
        metastore_uri: str, ldap: LdapServer) -> None:
    from ports import closed_port

    with closed_port() as port:
        url = f"ldap://127.0.0.1:{port}"
        refused = subprocess.run(
            [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri, "--auth",
             "ldap", "--ldap-url", url, "--ldap-base-dn", PEOPLE],
            capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"hmscatalog: error: the LDAP server {url} does not answer: Connection refused"]


def test_ldap_on_an_address_other_machines_reach_needs_insecure(metastore_uri: str) -> None:
    """The server speaks no TLS: passwords would cross the network in clear."""
    refused = subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", "serve", metastore_uri, "--auth", "ldap",
         "--ldap-url", "ldap://127.0.0.1:389", "--ldap-base-dn", PEOPLE, "--host", "0.0.0.0"],
        capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "hmscatalog: error: host 0.0.0.0 is not a loopback address: the SQL server would take "
        "LDAP passwords in clear from every machine that reaches it; listen there anyway with "
        "--insecure (insecure=True), or keep the default 127.0.0.1"]
