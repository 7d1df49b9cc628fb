"""`--db postgresql://...`: the embedded metastore on a real PostgreSQL server.

The test starts a throwaway PostgreSQL cluster with Debian's binaries (initdb, pg_ctl) on a free
loopback port, and skips when those binaries or the JDBC driver
(libpostgresql-jdbc-java) are not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from postgres import Postgres, PostgresUnavailable

from hmscatalog.metastore import convert, server
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.releases import RELEASES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def postgres_uri() -> Iterator[str]:
    try:
        cluster = Postgres()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    try:
        cluster.start()
        for line in RELEASES:
            cluster.create_database(_database(line))
        yield cluster.uri()
    finally:
        cluster.stop()


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
