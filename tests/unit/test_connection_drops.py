"""A server that hangs up instead of answering a call: the connection reports the call as
failed by that server (a ``MetastoreError`` naming it and the call) after one retry on a fresh
connection, not as an unreachable metastore after every retry.

The peer is a small Thrift server built from the same bindings (a Java metastore does this when
its handler dies of an Error, such as a missing class), so that the test needs no JVM.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from ports import closed_port
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from hmscatalog.errors import MetastoreError, MetastoreUnavailable
from hmscatalog.metastore._thrift.hive_metastore import ThriftHiveMetastore
from hmscatalog.metastore.connection import MetastoreConnection


class _Handler:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def getVersion(self) -> str:
        self.calls.append("getVersion")
        return "4.1.0"

    def get_all_databases(self) -> list[str]:
        self.calls.append("get_all_databases")
        raise TTransport.TTransportException(message="handler died")  # the server hangs up

    def get_databases(self, pattern: str) -> list[str]:
        self.calls.append("get_databases")
        return ["default"]


@pytest.fixture
def peer() -> Iterator[tuple[str, _Handler]]:
    handler = _Handler()
    listening = TSocket.TServerSocket(host="127.0.0.1", port=0)
    listening.listen()
    port = listening.handle.getsockname()[1]
    listening.handle.settimeout(0.1)
    processor = ThriftHiveMetastore.Processor(handler)
    stop = threading.Event()

    def serve() -> None:  # one connection at a time, until stopped
        while not stop.is_set():
            try:
                client = listening.accept()
            except TimeoutError:
                continue
            transport = TTransport.TBufferedTransport(client)
            protocol = TBinaryProtocol.TBinaryProtocol(transport)
            try:
                while True:
                    processor.process(protocol, protocol)
            except TTransport.TTransportException:
                pass
            finally:
                transport.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"thrift://127.0.0.1:{port}", handler
    stop.set()
    thread.join(timeout=5)
    listening.close()


def test_a_call_the_server_hangs_up_on_fails_as_that_call(peer: tuple[str, _Handler]) -> None:
    uri, handler = peer
    conn = MetastoreConnection(uri, retries=4, backoff_s=0.01, connect_timeout_s=2, timeout_s=5)
    with pytest.raises(MetastoreError) as failed:
        conn.call("get_all_databases")
    assert not isinstance(failed.value, MetastoreUnavailable)
    assert str(failed.value) == (
        f"metastore at {uri} closed the connection instead of answering get_all_databases, "
        "twice: the server failed the call (its log says why)")
    # Twice, each on a connection of its own (which found the server's release first).
    assert handler.calls == ["getVersion", "get_all_databases"] * 2
    assert conn.call("get_databases", "*") == ["default"]
    assert conn.dialect.major == 4
    conn.close()


def test_an_unreachable_server_is_still_unavailable() -> None:
    with closed_port() as port:
        conn = MetastoreConnection(f"thrift://127.0.0.1:{port}", retries=1, backoff_s=0.01,
                                   connect_timeout_s=1)
        with pytest.raises(MetastoreUnavailable,
                           match="unavailable for get_all_databases after 2"):
            conn.call("get_all_databases")
