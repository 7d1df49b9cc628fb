"""`--db postgresql://...`: the embedded metastore on a real PostgreSQL server.

The test starts a throwaway PostgreSQL cluster with Debian's binaries (initdb, pg_ctl) on a free
loopback port, and skips when those binaries or the JDBC driver
(libpostgresql-jdbc-java) are not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from hmscatalog.metastore import convert, server
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.releases import RELEASES

pytestmark = pytest.mark.integration


def _pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@pytest.fixture(scope="module")
def postgres_uri() -> Iterator[str]:
    binaries = {name: _pg_binary(name) for name in ("initdb", "pg_ctl", "createdb")}
    missing = [name for name, path in binaries.items() if path is None]
    if missing:
        pytest.skip(f"PostgreSQL server binaries not installed: {missing}")
    if not any(Path(j).exists() for j in server.POSTGRES_JDBC_JARS):
        pytest.skip("PostgreSQL JDBC driver not installed (libpostgresql-jdbc-java)")
    # PostgreSQL refuses to run as root: run it as the postgres user, in a directory it owns.
    as_user: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="hmscatalog-pg-"))
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start PostgreSQL")
        shutil.chown(base, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data = base / "data"

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=120)

    run(str(binaries["initdb"]), "-D", str(data), "-A", "trust", "-U", "hive", "--no-sync")
    for attempt in range(3):  # another program may take the free port before PostgreSQL does
        port = server.free_port()
        try:
            run(str(binaries["pg_ctl"]), "-D", str(data), "-l", str(base / "postgres.log"),
                "-w", "-o", f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
                "start")
            break
        except subprocess.CalledProcessError:
            if attempt == 2:
                raise
    try:
        for line in RELEASES:
            run(str(binaries["createdb"]), "-h", "127.0.0.1", "-p", str(port), "-U", "hive",
                _database(line))
        yield f"postgresql://hive:unused@127.0.0.1:{port}/"
    finally:
        run(str(binaries["pg_ctl"]), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(base, ignore_errors=True)


def _database(line: str) -> str:
    return "hms_" + "".join(c for c in line if c.isalnum())


@pytest.mark.parametrize("line", list(RELEASES))
@pytest.mark.thorough
def test_metastore_on_postgres(postgres_uri: str, tmp_path: Path, line: str) -> None:
    postgres_uri += _database(line)
    info = server.start(port=0, data_dir=tmp_path, db=postgres_uri,
                        hive_version=line)
    try:
        assert info.db.startswith("postgresql://127.0.0.1:")
        with MetastoreClient(info.uri, timeout_s=120) as client:  # a hang fails, not waits
            client.create_database("pg_db")
            table = client.new_table("pg_db", "t", [("a", "int")],
                                     partition_keys=[("dt", "string"), ("hr", "int")])
            client.add_partitions(table, [client.new_partition(table, [d, h])
                                          for d in ("a", "b") for h in range(3)])
            assert client.count_partitions("pg_db", "t", 'dt = "b" and hr >= 1') == 2
            # A table with privileges, as Spark's built-in catalog creates them: on Hive 2.3 its
            # privileges table once came into being inside the create_table transaction, and
            # the call never returned.
            owner = {"alice": [t.PrivilegeGrantInfo("ALL", 0, "alice", t.PrincipalType.USER,
                                                    True)]}
            granted = convert.table_to_thrift(replace(
                table, name="granted", partition_keys=(),
                storage=replace(table.storage, location=None)))
            granted.privileges = t.PrincipalPrivilegeSet(userPrivileges=owner)
            client._call("create_table", granted)
            assert client.table_exists("pg_db", "granted")
        # The catalog lives in PostgreSQL: a new server on a new data dir sees it.
        server.stop(tmp_path)
        other = tmp_path / "second"
        info = server.start(port=0, data_dir=other, db=postgres_uri,
                            hive_version=line)
        with MetastoreClient(info.uri) as client:
            assert client.list_partition_names("pg_db", "t")[:1] == ["dt=a/hr=0"]
        server.stop(other)
    finally:
        for directory in (tmp_path, tmp_path / "second"):
            if server.status(directory) is not None:
                server.stop(directory)
