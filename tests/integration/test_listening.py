"""Servers hmscatalog starts listen on 127.0.0.1 unless told otherwise; any other address needs
``--insecure``, since they let in every client that reaches them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from listening import listening_addresses
from ports import closed_port

from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient

pytestmark = pytest.mark.integration


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hmscatalog.cli.main", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.metastore
def test_the_metastore_listens_on_loopback_only(metastore: server.ServerInfo) -> None:
    """Each release (the session's: .ci/run runs this against 2.3, 3.1 and 4.x): Hive 2.3 and
    3.1 have no setting for it, and listen on every interface on their own."""
    assert listening_addresses(metastore.port) == {"127.0.0.1"}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.2"])
def test_a_host_other_machines_reach_needs_insecure(host: str, tmp_path: Path) -> None:
    with closed_port() as port:
        refused = _cli("metastore", "start", "--host", host, "--port", str(port),
                       "--data-dir", str(tmp_path / "hms"))
        assert not (tmp_path / "hms").exists() and listening_addresses(port) == set()
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"hmscatalog: error: host {host} is not a loopback address: the metastore would let "
        "every machine that reaches it in, with no authentication; listen there anyway with "
        "--insecure (insecure=True), or keep the default 127.0.0.1"]


@pytest.mark.parametrize(("host", "reason"), [
    ("nosuch.invalid", "host 'nosuch.invalid' names no address: "),
    ("203.0.113.7", "host 203.0.113.7 is not an address of this machine: "),
])
def test_a_host_that_is_not_this_machine_is_a_clear_error(host: str, reason: str,
                                                          tmp_path: Path) -> None:
    refused = _cli("metastore", "start", "--host", host, "--insecure",
                   "--data-dir", str(tmp_path / "hms"))
    assert refused.returncode == 1
    [line] = refused.stderr.splitlines()
    assert line.startswith(f"hmscatalog: error: {reason}")
    assert not (tmp_path / "hms").exists()


def test_insecure_listens_on_every_interface_and_says_so(tmp_path: Path) -> None:
    data_dir = tmp_path / "hms"
    started = _cli("metastore", "start", "--host", "0.0.0.0", "--insecure", "--port", "0",
                   "--data-dir", str(data_dir))
    assert started.returncode == 0, started.stderr
    port = int(started.stdout.strip().rsplit(":", 1)[1])
    try:
        assert listening_addresses(port) in ({"0.0.0.0"}, {"::"})
        uri = started.stdout.strip()
        assert f"warning: the metastore at {uri} lets in, with no authentication, every client "\
               f"that reaches port {port} of 0.0.0.0" in started.stderr.splitlines()
        with MetastoreClient(f"thrift://127.0.0.1:{port}") as client:
            assert "default" in client.list_databases()
        # The same data directory on another address is another server.
        other = _cli("metastore", "start", "--port", str(port), "--data-dir", str(data_dir))
        assert other.returncode == 1 and f"data dir {data_dir} is in use" in other.stderr
    finally:
        server.stop(data_dir)
