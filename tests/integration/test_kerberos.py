"""Kerberos to the metastore, against a real KDC (MIT Kerberos, started here) and the embedded
metastore of the session's release started with ``--kerberos-keytab``/``--kerberos-principal``
(.ci/run runs the `metastore`-marked tests against 2.3, 3.1 and 4.x)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kerberized
import pytest
from conftest import HIVE_VERSION
from kdc import REALM, Kdc, running

from hmscatalog.errors import MetastoreError, MetastoreUnavailable
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.gssapi import KerberosError
from hmscatalog.metastore.sasl import Kerberos

# Marked `metastore`: the tests .ci/run runs against each release (the others, which start
# servers of their own, run once).
pytestmark = pytest.mark.integration
SERVICE = f"hive/_HOST@{REALM}"


def _asks_for_kerberos(line: str) -> bool:
    """Whether ``line`` tells a client without Kerberos that the metastore requires it: from
    the server's SASL status, or, when its close outran that status, from the close."""
    return line.endswith((
        ": its reply is a SASL status: the metastore requires Kerberos "
        "(hive.metastore.sasl.enabled); give the client its kerberos_principal",
        ": the metastore closed the connection, as one that requires "
        "Kerberos (hive.metastore.sasl.enabled) does with a client without it; give the "
        "client its kerberos_principal"))


@pytest.fixture(scope="module")
def kdc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kdc]:
    yield from running(tmp_path_factory.mktemp("kdc"))


@pytest.fixture(scope="module")
def secure(kdc: Kdc, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URI of a metastore that requires Kerberos, as ``hive/localhost``."""
    principal, keytab = kdc.principal("hive/localhost")
    data_dir = tmp_path_factory.mktemp("kerberized")
    info = server.start(port=0, data_dir=data_dir, hive_version=HIVE_VERSION,
                        kerberos_keytab=str(keytab), kerberos_principal=principal)
    try:
        assert info.kerberos_principal == principal
        yield f"thrift://localhost:{info.port}"
    finally:
        server.stop(data_dir)


@pytest.fixture(scope="module")
def alice(kdc: Kdc) -> tuple[str, Path]:
    return kdc.principal("alice")


@pytest.mark.metastore
def test_a_keytab_logs_in(secure: str, alice: tuple[str, Path]) -> None:
    principal, keytab = alice
    with MetastoreClient(secure, kerberos=Kerberos(SERVICE, principal, str(keytab))) as client:
        client.create_database("kerberos_keytab")
        assert "kerberos_keytab" in client.list_databases()
        client.drop_database("kerberos_keytab")


@pytest.mark.metastore
def test_the_ticket_cache_after_kinit(secure: str, kdc: Kdc, alice: tuple[str, Path],
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "ccache"
    kdc.kinit(*alice, cache)
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{cache}")
    with MetastoreClient(secure, kerberos=Kerberos(SERVICE)) as client:
        assert "default" in client.list_databases()


def _refused(uri: str, kerberos: Kerberos | None, **options: float) -> str:
    """The one line of the error; with ``kerberos``, Kerberos's refusal."""
    expected = KerberosError if kerberos else MetastoreError
    with MetastoreClient(uri, kerberos=kerberos, backoff_s=0.01, **options) as client, \
            pytest.raises(expected) as failed:
        client.list_databases()
    [line] = str(failed.value).splitlines()
    return line


@pytest.mark.metastore
def test_no_ticket_is_one_line(secure: str, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{tmp_path / 'none'}")
    began = time.monotonic()
    line = _refused(secure, Kerberos(SERVICE))
    assert line == (f"{secure}: Kerberos cannot authenticate to hive/localhost@{REALM}: No "
                    f"Kerberos credentials available (default cache: FILE:{tmp_path / 'none'})")
    assert time.monotonic() - began < 5  # not retried: a ticket does not appear by waiting


@pytest.mark.metastore
def test_an_expired_ticket_is_one_line(secure: str, kdc: Kdc, alice: tuple[str, Path],
                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "ccache"
    kdc.kinit(*alice, cache, lifetime="2s")
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{cache}")
    time.sleep(3)
    line = _refused(secure, Kerberos(SERVICE))
    assert line.startswith(f"{secure}: Kerberos cannot authenticate to hive/localhost@{REALM}: ")
    assert "expired" in line.lower(), line


@pytest.mark.metastore
def test_a_wrong_service_principal_is_one_line(secure: str, alice: tuple[str, Path]) -> None:
    line = _refused(secure, Kerberos(f"metastore/_HOST@{REALM}", alice[0], str(alice[1])))
    assert line == (f"{secure}: Kerberos cannot authenticate to metastore/localhost@{REALM}: "
                    f"Server metastore/localhost@{REALM} not found in Kerberos database")


@pytest.mark.metastore
@pytest.mark.skipif(kerberized.ENABLED, reason=kerberized.NOT_PLAIN)
def test_kerberos_to_a_plain_metastore_is_one_line(metastore: server.ServerInfo,
                                                   alice: tuple[str, Path]) -> None:
    uri = f"thrift://localhost:{metastore.port}"
    kerberos = Kerberos(SERVICE, alice[0], str(alice[1]))
    with MetastoreClient(uri, kerberos=kerberos, connect_timeout_s=2, retries=0) as client, \
            pytest.raises(MetastoreUnavailable) as failed:
        client.list_databases()
    assert str(failed.value) == (
        f"metastore {uri} unavailable for get_all_databases after 1 attempts: {uri}: no answer "
        "to the Kerberos (SASL) negotiation (the connection was closed): a metastore without "
        "hive.metastore.sasl.enabled does not answer it")


@pytest.mark.metastore
def test_a_plain_client_to_a_kerberized_metastore_is_one_line(secure: str) -> None:
    line = _refused(secure, None, retries=0)
    assert _asks_for_kerberos(line), line


@pytest.mark.metastore
@pytest.mark.thorough
def test_a_session_outlives_its_tickets(secure: str, kdc: Kdc) -> None:
    """Tickets of 5 s: an open connection keeps working after they expire, and new connections
    (the library gets new tickets from the keytab) too."""
    principal, keytab = kdc.principal("bob", max_life="5 seconds")
    with MetastoreClient(secure, kerberos=Kerberos(SERVICE, principal, str(keytab))) as client:
        assert "default" in client.list_databases()
        time.sleep(7)
        assert "default" in client.list_databases()  # the same connection
        client.close()
        assert "default" in client.list_databases()  # a new one, with a new ticket
        time.sleep(6)
        client.close()
        assert "default" in client.list_databases()


def test_a_kerberized_metastore_needs_both_settings(tmp_path: Path, kdc: Kdc) -> None:
    with pytest.raises(server.ServerError, match="needs both --kerberos-keytab and "):
        server.start(data_dir=tmp_path, kerberos_principal=f"hive/_HOST@{REALM}")
    with pytest.raises(server.ServerError, match=f"Kerberos keytab {tmp_path / 'none'} does "
                                                 "not exist"):
        server.start(data_dir=tmp_path, kerberos_keytab=str(tmp_path / "none"),
                     kerberos_principal=f"hive/_HOST@{REALM}")


@pytest.mark.thorough
def test_the_cli_starts_a_kerberized_metastore_on_another_address(
        kdc: Kdc, tmp_path: Path) -> None:
    """With Kerberos, an address other machines reach needs no --insecure."""
    principal, keytab = kdc.principal("hive/cli")
    started = subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", "metastore", "start", "--host", "0.0.0.0",
         "--port", "0", "--data-dir", str(tmp_path), "--hive-version", HIVE_VERSION,
         "--kerberos-keytab", str(keytab), "--kerberos-principal", principal],
        capture_output=True, text=True, timeout=300)
    try:
        assert started.returncode == 0, started.stderr
        assert "warning" not in started.stderr
        assert f"requires Kerberos: {principal}" in started.stderr
    finally:
        server.stop(tmp_path)


@pytest.mark.parametrize("protection", ["integrity", "privacy"])
@pytest.mark.thorough
def test_a_metastore_that_protects_its_connections(kdc: Kdc, alice: tuple[str, Path],
                                                   tmp_path: Path, protection: str) -> None:
    """``hadoop.rpc.protection``: the server offers only the integrity (or confidentiality)
    layer, and every message is wrapped (signed, or encrypted) by the Kerberos context both
    ways."""
    principal, keytab = kdc.principal(f"hive/{protection}")
    info = server.start(port=0, data_dir=tmp_path, hive_version=HIVE_VERSION,
                        kerberos_keytab=str(keytab), kerberos_principal=principal,
                        hadoop_conf={"hadoop.rpc.protection": protection})
    try:
        uri = f"thrift://localhost:{info.port}"
        kerberos = Kerberos(f"hive/{protection}@{REALM}", alice[0], str(alice[1]))
        with MetastoreClient(uri, kerberos=kerberos) as client:
            client.create_database("kerberos_private", description="é" * 3000)
            assert client.get_database("kerberos_private").description == "é" * 3000
    finally:
        server.stop(tmp_path)


@pytest.mark.spark
def test_spark_queries_a_kerberized_and_a_plain_metastore_in_one_statement(
        spark: Any, hms: Any, db: str, secure: str, alice: tuple[str, Path]) -> None:
    """Catalog ``hms`` on the session's plain metastore, ``hms_krb`` on the Kerberized one with
    its settings from the Spark conf (Hive's names, and the catalog's own for who logs in)."""
    from hmscatalog.spark import attach

    settings = {"spark.hadoop.hive.metastore.sasl.enabled": "true",
                "spark.hadoop.hive.metastore.kerberos.principal": SERVICE,
                "spark.hmscatalog.hms_krb.kerberos.client-principal": alice[0],
                "spark.hmscatalog.hms_krb.kerberos.keytab": str(alice[1])}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        attach(spark, name="hms_krb", uri=secure)
    finally:
        for key in settings:
            spark.conf.unset(key)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS hms_krb.secured")
    try:
        spark.sql("CREATE TABLE hms_krb.secured.t (v INT, p STRING) USING parquet "
                  "PARTITIONED BY (p)")
        spark.sql(f"CREATE TABLE hms.{db}.src (v INT, p STRING) USING parquet")
        spark.sql(f"INSERT INTO hms.{db}.src VALUES (1, 'a'), (2, 'b')")
        spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
        spark.sql(f"INSERT INTO hms_krb.secured.t SELECT v, p FROM hms.{db}.src")
        assert spark.sql("SELECT v FROM hms_krb.secured.t WHERE p = 'b'").collect() == [(2,)]
        plan = spark.sql("EXPLAIN SELECT v FROM hms_krb.secured.t WHERE p = 'b'").collect()
        assert "partitions=1/2" in plan[0][0]
    finally:
        spark.sql("RESET hive.exec.dynamic.partition.mode")
        spark.sql("DROP NAMESPACE IF EXISTS hms_krb.secured CASCADE")


@pytest.mark.metastore
def test_the_cli_reaches_a_kerberized_metastore(secure: str, alice: tuple[str, Path]) -> None:
    """``hmscatalog repair`` (and ``recover``, which shares its arguments): with Kerberos the
    metastore answers (a missing table, named); without it, the one line that says so."""
    command = [sys.executable, "-m", "hmscatalog.cli.main", "repair", secure, "default.nope"]
    with_kerberos = subprocess.run(
        [*command, "--kerberos-principal", SERVICE, "--kerberos-client-principal", alice[0],
         "--kerberos-keytab", str(alice[1])], capture_output=True, text=True, timeout=120)
    assert with_kerberos.stderr.splitlines() == [
        "hmscatalog: error: table default.nope does not exist"]
    without = subprocess.run(command, capture_output=True, text=True, timeout=120)
    [line] = without.stderr.splitlines()
    assert _asks_for_kerberos(line), line
    half = subprocess.run([*command, "--kerberos-keytab", str(alice[1])], capture_output=True,
                          text=True, timeout=120)
    assert half.stderr.splitlines() == [
        "hmscatalog: error: --kerberos-client-principal and --kerberos-keytab go together"]
