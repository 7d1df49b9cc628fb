"""TLS to the metastore: the embedded metastore of the session's release started with a keystore
(``metastore.use.SSL``), certificates made here with ``openssl`` (a CA, a server certificate
for ``localhost``, another CA that signed nothing of it). .ci/run runs the `metastore`-marked
tests against 2.3, 3.1 and 4.x."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kerberized
import pytest
from conftest import HIVE_VERSION

from hmscatalog.errors import MetastoreUnavailable
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.tls import Tls, TlsError

# Marked `metastore`: the tests .ci/run runs against each release (the others, which start
# servers of their own, run once).
pytestmark = pytest.mark.integration
PASSWORD = "keystore-password"


def _openssl(folder: Path, *args: str) -> None:
    done = subprocess.run(["openssl", *args], cwd=folder, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def _ca(folder: Path, name: str) -> None:
    _openssl(folder, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=hmscatalog {name}")


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tls")
    _ca(folder, "ca")
    _ca(folder, "other-ca")
    _openssl(folder, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=localhost")
    (folder / "server.ext").write_text(
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl(folder, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext")
    _openssl(folder, "pkcs12", "-export", "-in", "server.pem", "-inkey", "server.key",
             "-certfile", "ca.pem", "-name", "metastore", "-out", "server.p12",
             "-passout", f"pass:{PASSWORD}")
    return folder


@pytest.fixture(scope="module")
def port(certificates: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A metastore that speaks TLS only."""
    data_dir = tmp_path_factory.mktemp("tls-metastore")
    info = server.start(port=0, data_dir=data_dir, hive_version=HIVE_VERSION,
                        tls_keystore=str(certificates / "server.p12"),
                        tls_keystore_password=PASSWORD)
    try:
        assert info.tls
        yield info.port
    finally:
        server.stop(data_dir)


@pytest.mark.metastore
def test_a_client_that_trusts_the_ca(port: int, certificates: Path) -> None:
    tls = Tls(ca_file=str(certificates / "ca.pem"))
    with MetastoreClient(f"thrift://localhost:{port}", tls=tls) as client:
        client.create_database("over_tls", description="é" * 2000)
        assert client.get_database("over_tls").description == "é" * 2000
        client.drop_database("over_tls")


def _refused(uri: str, tls: Tls) -> str:
    with MetastoreClient(uri, tls=tls, backoff_s=0.01) as client, \
            pytest.raises(TlsError) as failed:
        client.list_databases()
    [line] = str(failed.value).splitlines()
    return line


@pytest.mark.metastore
def test_another_ca_is_one_line(port: int, certificates: Path) -> None:
    uri = f"thrift://localhost:{port}"
    assert _refused(uri, Tls(ca_file=str(certificates / "other-ca.pem"))) == (
        f"{uri}: TLS: the metastore's certificate is refused: self-signed certificate in "
        "certificate chain")  # the server sends its CA's certificate, which is not ours


@pytest.mark.metastore
def test_another_host_name_is_one_line(port: int, certificates: Path) -> None:
    uri = f"thrift://127.0.0.1:{port}"  # the certificate names localhost only
    line = _refused(uri, Tls(ca_file=str(certificates / "ca.pem")))
    assert line.startswith(f"{uri}: TLS: the metastore's certificate is refused: "
                           "IP address mismatch"), line


@pytest.mark.metastore
@pytest.mark.skipif(kerberized.ENABLED, reason=kerberized.NOT_PLAIN)
def test_tls_to_a_plain_metastore_is_one_line(metastore: server.ServerInfo,
                                              certificates: Path) -> None:
    uri = f"thrift://localhost:{metastore.port}"
    tls = Tls(ca_file=str(certificates / "ca.pem"))
    with MetastoreClient(uri, tls=tls, connect_timeout_s=2, retries=0) as client, \
            pytest.raises(MetastoreUnavailable) as failed:
        client.list_databases()
    [line] = str(failed.value).splitlines()
    assert line.startswith(f"metastore {uri} unavailable for get_all_databases after 1 "
                           f"attempts: {uri}: no TLS handshake ("), line
    assert line.endswith("): a metastore without metastore.use.SSL does not answer it"), line


@pytest.mark.metastore
def test_a_plain_client_to_a_tls_metastore_fails_in_one_line(port: int) -> None:
    uri = f"thrift://localhost:{port}"
    with MetastoreClient(uri, connect_timeout_s=2) as client, \
            pytest.raises(MetastoreUnavailable) as failed:
        client.list_databases()
    assert str(failed.value) == (
        f"metastore {uri} unavailable for get_all_databases after 1 attempts: {uri}: its reply "
        "is a TLS record: the metastore speaks TLS (metastore.use.SSL); give the client tls "
        "(spark.hmscatalog.tls.enabled=true, or Tls())")


def test_a_missing_keystore_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(server.ServerError, match=f"^TLS keystore {tmp_path / 'none.p12'} does "
                                                 "not exist$"):
        server.start(data_dir=tmp_path, tls_keystore=str(tmp_path / "none.p12"))


@pytest.mark.thorough
def test_the_cli_starts_a_tls_metastore(certificates: Path, tmp_path: Path) -> None:
    started = subprocess.run(
        [sys.executable, "-m", "hmscatalog.cli.main", "metastore", "start", "--port", "0",
         "--data-dir", str(tmp_path), "--hive-version", HIVE_VERSION,
         "--tls-keystore", str(certificates / "server.p12")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "HMSCATALOG_TLS_KEYSTORE_PASSWORD": PASSWORD})
    try:
        assert started.returncode == 0, started.stderr
        port = int(started.stdout.strip().rsplit(":", 1)[1])
        tls = Tls(ca_file=str(certificates / "ca.pem"))
        with MetastoreClient(f"thrift://localhost:{port}", tls=tls) as client:
            assert "default" in client.list_databases()
    finally:
        server.stop(tmp_path)


@pytest.mark.spark
def test_spark_reads_through_a_tls_catalog(spark: Any, hms: Any, port: int,
                                           certificates: Path) -> None:
    from hmscatalog.spark import attach

    key = "spark.hmscatalog.hms_tls.tls.ca-file"
    spark.conf.set(key, str(certificates / "ca.pem"))
    try:
        attach(spark, name="hms_tls", uri=f"thrift://localhost:{port}")
    finally:
        spark.conf.unset(key)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS hms_tls.secured")
    try:
        spark.sql("CREATE TABLE hms_tls.secured.t (v INT, p STRING) USING parquet "
                  "PARTITIONED BY (p)")
        spark.sql("INSERT INTO hms_tls.secured.t PARTITION (p = 'a') VALUES (1)")
        assert spark.sql("SELECT v, p FROM hms_tls.secured.t WHERE p = 'a'").collect() == [
            (1, "a")]
    finally:
        spark.sql("DROP NAMESPACE IF EXISTS hms_tls.secured CASCADE")
