"""A server on a metastore's port that misbehaves on purpose: garbage, oversized lengths, a reply
that stops half-way. The client fails the call with one line naming the server and the call,
within its timeout and without reading or allocating what the lengths claim; the connection
is not reused, and the next call works against a server that behaves.

The peer is a socket server on loopback that answers ``getVersion`` as a Hive 4 metastore
(so the connection is made) and then answers the call under test as scripted.
"""

from __future__ import annotations

import resource
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TMessageType, TType
from thrift.transport import TTransport

from hmscatalog.errors import MetastoreError, MetastoreUnavailable
from hmscatalog.metastore._thrift.fb303 import FacebookService
from hmscatalog.metastore._thrift.hive_metastore import ThriftHiveMetastore
from hmscatalog.metastore.connection import MetastoreConnection

HUGE = 0x7FFFFFF0  # a length of about 2 GB
Reply = Callable[[socket.socket, str, int], None]  # (connection, method, seqid)


def _header(method: str, seqid: int) -> bytes:
    buffer = TTransport.TMemoryBuffer()
    TBinaryProtocol.TBinaryProtocol(buffer).writeMessageBegin(method, TMessageType.REPLY, seqid)
    return buffer.getvalue()


def _version(conn: socket.socket, method: str, seqid: int) -> None:
    buffer = TTransport.TMemoryBuffer()
    protocol = TBinaryProtocol.TBinaryProtocol(buffer)
    protocol.writeMessageBegin(method, TMessageType.REPLY, seqid)
    FacebookService.getVersion_result(success="4.1.0").write(protocol)
    protocol.writeMessageEnd()
    conn.sendall(buffer.getvalue())


def _databases(conn: socket.socket, method: str, seqid: int) -> None:
    buffer = TTransport.TMemoryBuffer()
    protocol = TBinaryProtocol.TBinaryProtocol(buffer)
    protocol.writeMessageBegin(method, TMessageType.REPLY, seqid)
    ThriftHiveMetastore.get_all_databases_result(success=["default"]).write(protocol)
    protocol.writeMessageEnd()
    conn.sendall(buffer.getvalue())


def _stream(conn: socket.socket, prefix: bytes) -> None:
    """Send ``prefix``, then as much as the client reads until it hangs up."""
    conn.sendall(prefix)
    with_filler = b"x" * 65536
    try:
        for _ in range(4096):  # at most 256 MB
            conn.sendall(with_filler)
    except OSError:
        pass


def _garbage(conn: socket.socket, method: str, seqid: int) -> None:
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def _unversioned(conn: socket.socket, method: str, seqid: int) -> None:
    # An old-style message (no version word): its first word is the name's length, 1.2 GB here.
    _stream(conn, b"HTTP/1.1 200 OK\r\n\r\n")


def _huge_name(conn: socket.socket, method: str, seqid: int) -> None:
    # get_all_databases's list, its one name 2 GB long
    _stream(conn, _header(method, seqid)
            + struct.pack("!bhbii", TType.LIST, 0, TType.STRING, 1, HUGE))


def _huge_other_field(conn: socket.socket, method: str, seqid: int) -> None:
    # a field the reply does not have (the decoder skips it), 2 GB long
    _stream(conn, _header(method, seqid) + struct.pack("!bhi", TType.STRING, 7, HUGE))


def _huge_list(conn: socket.socket, method: str, seqid: int) -> None:
    _stream(conn, _header(method, seqid)
            + struct.pack("!bhbi", TType.LIST, 0, TType.STRING, HUGE))


def _stalls(conn: socket.socket, method: str, seqid: int) -> None:
    conn.sendall(_header(method, seqid)[:6])  # half a reply, then nothing


class Peer:
    """Answers getVersion, then each ``get_all_databases`` with ``reply``."""

    def __init__(self) -> None:
        self.reply: Reply = _databases
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.listening.settimeout(0.1)
        self.uri = f"thrift://127.0.0.1:{self.listening.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listening.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _talk(self, conn: socket.socket) -> None:
        conn.settimeout(None)
        stream = conn.makefile("rb")
        protocol = TBinaryProtocol.TBinaryProtocol(TTransport.TFileObjectTransport(stream))
        try:
            while not self.stop.is_set():
                method, _, seqid = protocol.readMessageBegin()
                protocol.skip(TType.STRUCT)
                protocol.readMessageEnd()
                (_version if method == "getVersion" else self.reply)(conn, method, seqid)
        except (EOFError, OSError, TTransport.TTransportException):
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.listening.close()


@pytest.fixture
def peer() -> Iterator[Peer]:
    server = Peer()
    yield server
    server.close()


def _fails(peer: Peer, reply: Reply, timeout_s: float = 30) -> tuple[BaseException, float]:
    peer.reply = reply
    conn = MetastoreConnection(peer.uri, timeout_s=timeout_s, connect_timeout_s=5,
                               backoff_s=0.01)
    conn.call("getVersion")  # connected, as to a Hive 4 metastore
    began = time.monotonic()
    with pytest.raises(MetastoreError) as failed:
        conn.call("get_all_databases")
    elapsed = time.monotonic() - began
    peer.reply = _databases  # and the next call gets a connection that works
    assert conn.call("get_all_databases") == ["default"]
    conn.close()
    assert "\n" not in str(failed.value)
    return failed.value, elapsed


@pytest.mark.parametrize("reply", [_garbage, _unversioned])
def test_garbage_is_one_line_at_once(peer: Peer, reply: Reply) -> None:
    error, elapsed = _fails(peer, reply)
    assert not isinstance(error, MetastoreUnavailable)
    assert str(error).startswith(
        f"metastore at {peer.uri} answered get_all_databases with something that is not a "
        "Hive Metastore's Thrift reply: ")
    assert elapsed < 5


@pytest.mark.parametrize(("reply", "what"), [
    (_huge_name, "a value of more than 104,857,600 bytes"),
    (_huge_other_field, f"a value of {HUGE:,} bytes (at most 104,857,600 bytes)"),
    (_huge_list, "a list, set or map of more than 10,000,000 items"),
])
def test_an_oversized_length_is_refused_before_it_is_read(peer: Peer, reply: Reply,
                                                           what: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    error, elapsed = _fails(peer, reply)
    assert str(error) == (
        f"metastore at {peer.uri} answered get_all_databases with something that is not a "
        f"Hive Metastore's Thrift reply: {what}")
    assert elapsed < 5
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 100_000, f"the client's memory grew by {grown_kb} KB"


def test_a_reply_that_stops_half_way_fails_within_the_timeout(peer: Peer) -> None:
    error, elapsed = _fails(peer, _stalls, timeout_s=1)
    assert isinstance(error, MetastoreUnavailable)
    assert str(error) == (f"metastore at {peer.uri} did not answer get_all_databases within 1 s "
                          "(the client's timeout_s)")
    assert elapsed < 5  # one timeout: a call the server may still be running is not sent again


@pytest.fixture
def silent() -> Iterator[str]:
    """A port that accepts connections and never answers (a hung server)."""
    listening = socket.create_server(("127.0.0.1", 0))
    yield f"thrift://127.0.0.1:{listening.getsockname()[1]}"
    listening.close()


def test_a_hung_server_is_passed_over_within_the_connect_timeout(silent: str,
                                                                  peer: Peer) -> None:
    conn = MetastoreConnection(f"{silent},{peer.uri}", timeout_s=60, connect_timeout_s=1)
    began = time.monotonic()
    assert conn.call("get_all_databases") == ["default"]
    assert time.monotonic() - began < 10 and conn.connected_to == peer.uri
    conn.close()


def _answering(reply: bytes) -> tuple[socket.socket, str]:
    """A port whose server reads what a connection sends and answers ``reply`` to it."""
    def answer() -> None:
        while True:
            try:
                conn, _ = listening.accept()
            except OSError:
                return
            with conn:
                conn.recv(100)
                conn.sendall(reply)

    listening = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=answer, daemon=True).start()
    return listening, f"thrift://127.0.0.1:{listening.getsockname()[1]}"


@pytest.mark.parametrize(("reply", "said"), [
    # as an HTTP server answers
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", "its reply is not a Hive Metastore's Thrift reply: "
     "No protocol version header (it begins 'HTTP/1.1 400 Bad')"),
    # a TLS alert record (unexpected_message), as a metastore with metastore.use.SSL answers
    (b"\x15\x03\x03\x00\x02\x02\x0a", "its reply is a TLS record: the metastore speaks TLS "
     "(metastore.use.SSL); give the client tls (spark.hmscatalog.tls.enabled=true, or Tls())"),
    # a SASL ERROR status, as a metastore with hive.metastore.sasl.enabled answers
    (b"\x05\x00\x00\x00\x0dno SASL start", "its reply is a SASL status: the metastore "
     "requires Kerberos (hive.metastore.sasl.enabled); give the client its kerberos_principal"),
])
def test_a_port_that_is_no_metastore_is_named_so_at_once(reply: bytes, said: str) -> None:
    listening, uri = _answering(reply)
    conn = MetastoreConnection(uri, retries=4, backoff_s=1)
    began = time.monotonic()
    with pytest.raises(MetastoreUnavailable) as failed:
        conn.call("get_all_databases")
    listening.close()
    assert str(failed.value) == (
        f"metastore {uri} unavailable for get_all_databases after 1 attempts: {uri}: {said}")
    assert time.monotonic() - began < 5  # not retried: another attempt would say the same


def test_a_silent_metastore_fails_within_one_connect_timeout(silent: str) -> None:
    conn = MetastoreConnection(silent, connect_timeout_s=1, retries=4, backoff_s=1)
    began = time.monotonic()
    with pytest.raises(MetastoreUnavailable) as failed:
        conn.call("get_all_databases")
    assert str(failed.value) == (
        f"metastore {silent} unavailable for get_all_databases after 1 attempts: {silent}: it "
        "accepted the connection but did not answer within 1 s (the client's "
        "connect_timeout_s)")
    assert time.monotonic() - began < 5  # before: 5 attempts of 1 s each, and their backoff
