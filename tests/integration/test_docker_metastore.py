"""The client against a Hive 4 metastore from docker/compose.yaml, where Docker is available.

Skips unless a Docker engine answers and the compose stack's metastore is reachable on
127.0.0.1:9083 (start it with ``docker compose -f docker/compose.yaml up -d``).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from hmscatalog.metastore.client import MetastoreClient, ping

pytestmark = pytest.mark.integration

URI = "thrift://127.0.0.1:9083"


def _docker_engine_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        result = subprocess.run(["docker", "info"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


@pytest.fixture(scope="module")
def hive4_uri() -> str:
    if not _docker_engine_answers():
        pytest.skip("no Docker engine answers (docker info failed); Hive 4 stack not available")
    if not ping(URI, timeout_s=3):
        pytest.skip(f"Docker runs, but no metastore at {URI}: docker compose -f "
                    "docker/compose.yaml up -d")
    return URI


def test_round_trip_against_hive4(hive4_uri: str) -> None:
    with MetastoreClient(hive4_uri) as client:
        client.drop_database("hmscatalog_docker", cascade=True, if_exists=True)
        client.create_database("hmscatalog_docker")
        table = client.new_table("hmscatalog_docker", "t", [("a", "int")],
                                 partition_keys=[("dt", "string")], external=True,
                                 location="file:///tmp/hmscatalog_docker_t")
        client.add_partitions(table, [client.new_partition(table, [f"d{i}"]) for i in range(3)],
                              create_local_dirs=False)
        assert client.count_partitions("hmscatalog_docker", "t", 'dt = "d1"') == 1
        client.drop_database("hmscatalog_docker", cascade=True)
