"""One client shared by concurrent threads, against the real embedded metastore."""

from __future__ import annotations

import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import kerberized
import pytest
from thrift.transport import TSocket

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.metastore]

THREADS = 8
ROUNDS = 5
KEYS = [f"v{n}" for n in range(6)]
WORKERS = "pooled-test"  # the name prefix of the test's own threads


def record_sockets(monkeypatch: pytest.MonkeyPatch) -> list[TSocket.TSocket]:
    """From now on, every socket the test's own threads open to a metastore, in the order
    opened: not those of other threads of the process (the event followers of catalogs
    attached by earlier tests poll on, and reconnect after a failure)."""
    opened: list[TSocket.TSocket] = []
    lock = threading.Lock()
    original = TSocket.TSocket.open

    def open_and_record(self: TSocket.TSocket) -> None:
        original(self)
        thread = threading.current_thread()
        if thread is threading.main_thread() or thread.name.startswith(WORKERS):
            with lock:
                opened.append(self)

    monkeypatch.setattr(TSocket.TSocket, "open", open_and_record)
    return opened


def test_threads_share_a_client_of_two_connections(
    client: MetastoreClient, unique_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = client.new_table(unique_db, "shared", [("a", "int")], partition_keys=[("k", "string")])
    client.add_partitions(shared, [client.new_partition(shared, [k]) for k in KEYS])
    opened = record_sockets(monkeypatch)

    def work(pooled: MetastoreClient, index: int, start: threading.Barrier) -> None:
        start.wait()
        own = pooled.new_table(unique_db, f"w{index}", [("a", "int")],
                               partition_keys=[("k", "string")])
        for n in range(ROUNDS):
            assert unique_db in pooled.list_databases()
            assert pooled.get_database(unique_db).name == unique_db
            assert [c.name for c in pooled.get_table(unique_db, "shared").partition_keys] == ["k"]
            assert sorted(pooled.list_partition_names(unique_db, "shared")) == [
                f"k={k}" for k in KEYS]
            key = KEYS[(index + n) % len(KEYS)]
            found = pooled.get_partitions_by_filter(unique_db, "shared", f'k = "{key}"')
            assert [p.values for p in found] == [(key,)]
            assert pooled.get_partition(unique_db, "shared", [key]).values == (key,)
            assert pooled.count_partitions(unique_db, "shared") == len(KEYS)
            assert not pooled.table_exists(unique_db, f"missing{index}")  # an error answer
            assert pooled.add_partitions(own, [pooled.new_partition(own, [f"r{n}"])]) == 1
            assert pooled.count_partitions(unique_db, f"w{index}") == n + 1
        assert f"w{index}" in pooled.list_tables(unique_db)

    with MetastoreClient(client.uris, timeout_s=60, backoff_s=0.1, pool_size=2,
                         **kerberized.client_options()) as pooled:
        start = threading.Barrier(THREADS)
        with ThreadPoolExecutor(THREADS, thread_name_prefix=WORKERS) as executor:
            futures = [executor.submit(work, pooled, i, start) for i in range(THREADS)]
            for future in futures:
                future.result()
        assert 1 <= len(opened) <= 2
        assert pooled._connection.opened == len(opened)
        assert pooled.connected_to == client.connected_to

    assert sorted(client.list_tables(unique_db)) == sorted(
        ["shared", *(f"w{i}" for i in range(THREADS))])
    for i in range(THREADS):
        assert client.list_partition_names(unique_db, f"w{i}") == [
            f"k=r{n}" for n in range(ROUNDS)]


def test_a_connection_whose_socket_was_closed_reconnects_alone(
    metastore_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = record_sockets(monkeypatch)
    with MetastoreClient(metastore_uri, timeout_s=60, backoff_s=0.01, pool_size=2,
                         **kerberized.client_options()) as pooled:
        pool = pooled._connection
        with pool.borrow() as first, pool.borrow() as second:
            assert "default" in first.call("get_all_databases")
            assert "default" in second.call("get_all_databases")
        assert len(opened) == 2
        broken, healthy = opened
        # Closed under the connection, as a server or firewall dropping it would.
        broken.handle.shutdown(socket.SHUT_RDWR)
        broken.handle.close()

        # The connection given back last (``first``, whose socket that was) serves the next
        # call: it fails on the dead socket, reconnects and retries.
        assert "default" in pooled.list_databases()
        assert len(opened) == 3
        assert pool.opened == 2 and first.connected_to == metastore_uri
        # The other connection was not touched and still works on its own socket.
        assert second._transport is not None and healthy.handle is not None
        with pool.borrow() as a, pool.borrow() as b:
            assert {a, b} == {first, second}
            assert a.call("get_database", "default").name == "default"
            assert b.call("get_database", "default").name == "default"
        assert len(opened) == 3
