"""``hmscatalog serve --auth kerberos``: Spark's Thrift server requiring Kerberos, against a
real KDC (MIT Kerberos, started here), queried by beeline (Hive's JDBC client, from the pyspark
wheel's jars) and by pyhive (with pure-sasl's GSSAPI, which needs the ``kerberos`` module)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyspark
import pytest
from kdc import Kdc, running
from serving import serve

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.processes import find_java

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kdc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kdc]:
    yield from running(tmp_path_factory.mktemp("kdc"))


SERVED: dict[str, Path] = {}  # the serve process's log folder and keytab, for the secrets test


@pytest.fixture(scope="module")
def kerberized(kdc: Kdc, metastore_uri: str, tmp_path_factory: pytest.TempPathFactory,
               spark_driver_options: str) -> Iterator[tuple[int, str]]:
    """The port and principal of ``hmscatalog serve --auth kerberos`` as ``hive/localhost``."""
    principal, keytab = kdc.principal("hive/localhost")
    SERVED.update(folder=tmp_path_factory.mktemp("serve"), keytab=keytab)
    for process in serve(metastore_uri, SERVED["folder"], "--auth", "kerberos",
                         "--kerberos-principal", principal, "--kerberos-keytab", str(keytab)):
        yield int(process.args[-1]), principal


@pytest.fixture(scope="module")
def alice_cache(kdc: Kdc, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ticket cache with alice's ticket, as after ``kinit alice``."""
    cache = tmp_path_factory.mktemp("alice") / "ccache"
    kdc.kinit(*kdc.principal("alice"), cache)
    return cache


def _beeline(port: int, principal: str, cache: Path,
             *statements: str) -> subprocess.CompletedProcess[str]:
    """beeline (``org.apache.hive.beeline.BeeLine``) with ``cache`` as its ticket cache."""
    jars = Path(pyspark.__file__).parent / "jars"
    command = [find_java(), f"-Djava.security.krb5.conf={os.environ['KRB5_CONFIG']}",
               # Kerberos from the ticket cache, as after kinit (JAAS would want a login file)
               "-Djavax.security.auth.useSubjectCredsOnly=false",
               "-cp", f"{jars}/*", "org.apache.hive.beeline.BeeLine", "--silent=true",
               "--outputformat=csv2",
               "-u", f"jdbc:hive2://localhost:{port}/default;principal={principal}"]
    for statement in statements:
        command += ["-e", statement]
    return subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "KRB5CCNAME": f"FILE:{cache}",
                               "JDK_JAVA_OPTIONS": ""})


def test_beeline_with_a_ticket_queries_and_writes(kerberized: tuple[int, str], alice_cache: Path,
                                                  client: MetastoreClient,
                                                  unique_db: str) -> None:
    port, principal = kerberized
    t = f"hms.{unique_db}.events"
    done = _beeline(port, principal, alice_cache,
                    f"CREATE TABLE {t} (v INT, p STRING) USING parquet PARTITIONED BY (p)",
                    f"INSERT INTO {t} PARTITION (p='a') VALUES (1)",
                    f"SELECT current_user(), v, p FROM {t} WHERE p = 'a'")
    assert done.returncode == 0, done.stderr[-3000:]
    header, row = done.stdout.splitlines()[-2:]  # beeline puts its prompt before the header
    assert (header.rsplit("> ", 1)[-1], row) == ("current_user(),v,p", "alice,1,a"), done.stdout
    assert client.list_partition_names(unique_db, "events") == ["p=a"]


def test_beeline_without_a_ticket_is_refused(kerberized: tuple[int, str], tmp_path: Path) -> None:
    port, principal = kerberized
    done = _beeline(port, principal, tmp_path / "no-ccache", "SHOW NAMESPACES IN hms")
    assert done.returncode != 0
    assert "GSS initiate failed" in done.stderr, done.stderr[-3000:]


def _pyhive(port: int, cache: Path, **options: Any) -> list[tuple[Any, ...]]:
    hive = pytest.importorskip("pyhive.hive")
    previous = os.environ.get("KRB5CCNAME")
    os.environ["KRB5CCNAME"] = f"FILE:{cache}"
    try:
        connection = hive.connect(host="localhost", port=port, **options)
        try:
            cursor = connection.cursor()
            cursor.execute("SELECT current_user()")
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            connection.close()
    finally:
        if previous is None:
            del os.environ["KRB5CCNAME"]
        else:
            os.environ["KRB5CCNAME"] = previous


def test_pyhive_with_a_ticket(kerberized: tuple[int, str], alice_cache: Path) -> None:
    pytest.importorskip("kerberos", reason="pure-sasl's GSSAPI needs the kerberos module "
                        "(pip install kerberos, with libkrb5-dev; .ci/run installs both)")
    port, _ = kerberized
    assert _pyhive(port, alice_cache, auth="KERBEROS", kerberos_service_name="hive") == [
        ("alice",)]


def test_pyhive_without_kerberos_is_refused(kerberized: tuple[int, str],
                                            alice_cache: Path) -> None:
    port, _ = kerberized
    from thrift.transport.TTransport import TTransportException

    with pytest.raises(TTransportException, match="Unsupported mechanism type PLAIN"):
        _pyhive(port, alice_cache, username="mallory")


def test_the_keytab_path_is_in_no_log(kerberized: tuple[int, str], alice_cache: Path) -> None:
    """After the queries above (and a refused one): the server's output names its principal,
    never its keytab."""
    port, principal = kerberized
    _beeline(port, principal, alice_cache, "SELECT 1")
    said = "\n".join(log.read_text() for log in SERVED["folder"].glob("serve-*.log"))
    assert principal in said
    assert str(SERVED["keytab"]) not in said
    assert SERVED["keytab"].name not in said
