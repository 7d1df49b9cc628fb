"""One logical connection to a Hive Metastore: failover, timeouts, reconnects and retries.

``uris`` is one or more ``thrift://host:port`` addresses (a list or a comma-separated string).
Connecting tries them in order and keeps the first that answers; after a transport error the
connection is reopened, starting from the next address, with exponential backoff between
attempts, and the call is retried. Like Hive's own retrying client every call is retried, so a
``create_*`` whose first attempt reached the server before the connection broke may then report
that the object already exists. A call that timed out, or whose reply is not a metastore's
Thrift reply, is not retried: the server may still be running it. Nor is a connect to addresses
that each accepted it and then said nothing within the connect timeout or answered with
something else than Thrift: trying again changes neither. What another protocol's answer looks
like is named: a TLS record (the metastore speaks TLS), a SASL status (it requires Kerberos),
or the answer's first bytes.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from thrift.protocol import TBinaryProtocol
from thrift.protocol.TProtocol import TProtocolException
from thrift.Thrift import TApplicationException
from thrift.transport import TSocket, TTransport

from hmscatalog.errors import InvalidUri, MetastoreError, MetastoreUnavailable
from hmscatalog.metastore._thrift.hive_metastore import ThriftHiveMetastore
from hmscatalog.metastore.dialect import Dialect, detect
from hmscatalog.metastore.gssapi import KerberosError
from hmscatalog.metastore.sasl import Kerberos, SaslTransport
from hmscatalog.metastore.tls import Tls, TlsError, TlsSocket

# thrift logs every failed connect attempt at ERROR; failures surface as our exceptions instead.
logging.getLogger("thrift.transport.TSocket").setLevel(logging.CRITICAL)

# As Hive's hive.metastore.client.socket.timeout: registering a large batch of partitions can
# take minutes on a busy server.
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_RETRIES = 4
DEFAULT_BACKOFF_S = 0.25
MAX_BACKOFF_S = 8.0
# The most a reply may claim for one string or binary value, and for one list, set or map:
# Hive 4's clients refuse any message over 100 MB (thrift's maxMessageSize), and a longer claim
# is garbage that would otherwise be read (and held) until it ends.
MAX_STRING_BYTES = 100 * 1024 * 1024
MAX_CONTAINER_ITEMS = 10_000_000
_SIZES = (TTransport.TTransportException.NEGATIVE_SIZE,
          TTransport.TTransportException.SIZE_LIMIT)


def parse_uris(uris: str | Sequence[str]) -> list[tuple[str, int]]:
    """Parse ``thrift://host:port`` addresses (a list, or one comma-separated string).

    Raises:
        InvalidUri: naming the first malformed address.
    """
    items = uris.split(",") if isinstance(uris, str) else list(uris)
    result = []
    for raw in items:
        text = raw.strip()
        parts = urlsplit(text)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme != "thrift" or not parts.hostname or port is None or parts.path not in (
            "", "/"
        ):
            raise InvalidUri(f"metastore URI {text!r} is malformed: expected thrift://host:port")
        result.append((parts.hostname, port))
    if not result:
        raise InvalidUri("no metastore URI given: expected thrift://host:port")
    return result


def is_loopback(addresses: Sequence[tuple[str, int]]) -> bool:
    """Whether every ``(host, port)`` is on this machine."""
    for host, _ in addresses:
        if host == "localhost":
            continue
        try:
            if not ipaddress.ip_address(host).is_loopback:
                return False
        except ValueError:
            return False
    return True


def _closed_by_peer(exc: BaseException) -> bool:
    return (isinstance(exc, TTransport.TTransportException)
            and exc.type == TTransport.TTransportException.END_OF_FILE)


def _reset_by_peer(exc: BaseException) -> bool:
    """A close with the client's bytes unread: Linux reports it as a reset, not an end."""
    return isinstance(getattr(exc, "inner", None), (ConnectionResetError, BrokenPipeError))


def _message(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(str(text).split())


def _not_thrift(exc: BaseException) -> bool:
    """Whether ``exc`` says the reply was not the binary protocol of a Thrift service: a bad
    version word, a length past the limits, text that is not UTF-8."""
    return (isinstance(exc, (TProtocolException, OverflowError, UnicodeDecodeError))
            or (isinstance(exc, TTransport.TTransportException) and exc.type in _SIZES))


def _not_thrift_detail(exc: BaseException) -> str:
    """What was wrong with a reply, for ``exc`` that :func:`_not_thrift` accepts."""
    if isinstance(exc, OverflowError):  # thrift's C decoder: "size exceeded specified limit: N"
        limit = str(exc).rsplit(":", 1)[-1].strip()
        if limit == str(MAX_CONTAINER_ITEMS):
            return f"a list, set or map of more than {MAX_CONTAINER_ITEMS:,} items"
        if limit == str(MAX_STRING_BYTES):
            return f"a value of more than {MAX_STRING_BYTES:,} bytes"
    return _message(exc)


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or (
        isinstance(exc, TTransport.TTransportException)
        and exc.type == TTransport.TTransportException.TIMED_OUT)


class _RecordingSocket(TSocket.TSocket):
    """A plain socket that keeps the first bytes the server sent, to name what a reply that is
    not Thrift is."""

    first: bytes = b""
    connected = False

    def open(self) -> None:
        super().open()
        self.connected = True

    def read(self, sz: int) -> bytes:
        data: bytes = super().read(sz)
        if len(self.first) < _PREVIEW:
            self.first += data[:_PREVIEW - len(self.first)]
        return data


_PREVIEW = 16


def _other_protocol(first: bytes) -> str | None:
    """What a reply beginning with ``first`` is, when it is recognisably not Thrift."""
    if len(first) >= 2 and first[0] in (0x15, 0x16) and first[1] == 0x03:
        return ("its reply is a TLS record: the metastore speaks TLS (metastore.use.SSL); give "
                "the client tls (spark.hmscatalog.tls.enabled=true, or Tls())")
    if first[:1] in (b"\x04", b"\x05"):  # SASL's BAD and ERROR statuses
        return ("its reply is a SASL status: the metastore requires Kerberos "
                "(hive.metastore.sasl.enabled); give the client its kerberos_principal")
    return None


def _preview(first: bytes) -> str:
    """``first`` as text where it is printable (an HTTP server's ``HTTP/1.1 400``)."""
    return "".join(chr(b) if 32 <= b < 127 else "." for b in first)


class _Buffered(TTransport.TBufferedTransport):
    """A buffered transport that refuses, before reading them, values longer than any reply
    may hold: thrift's C decoder checks the lengths of the values it keeps, not of those it
    skips (a field of another type), whose bytes it would read and hold."""

    def cstringio_refill(self, partialread: bytes, reqlen: int) -> Any:
        if reqlen > MAX_STRING_BYTES:
            raise TTransport.TTransportException(
                TTransport.TTransportException.SIZE_LIMIT,
                f"a value of {reqlen:,} bytes (at most {MAX_STRING_BYTES:,} bytes)")
        return super().cstringio_refill(partialread, reqlen)


def _protocol(transport: TTransport.TTransportBase) -> TBinaryProtocol.TBinaryProtocol:
    # strictRead: a reply must start with the protocol's version word (Hive's servers write
    # it), so that other bytes (an HTTP server's answer) are refused at once instead of being
    # read as the length of a method name.
    return TBinaryProtocol.TBinaryProtocolAccelerated(
        transport, strictRead=True, string_length_limit=MAX_STRING_BYTES,
        container_length_limit=MAX_CONTAINER_ITEMS)


class _Definitive(TTransport.TTransportException):
    """Every address accepted the connection and then answered in a way another attempt would
    not change (nothing within the connect timeout, another protocol)."""


def _first(sock: TSocket.TSocket) -> bytes:
    return getattr(sock, "first", b"")


def _accepted(sock: TSocket.TSocket) -> bool:
    """Whether the socket connected (its server accepted), whatever happened after."""
    return bool(getattr(sock, "connected", False))


class MetastoreConnection:
    """Calls Thrift methods on the first metastore that answers (calls are serialised).

    Args:
        uris: ``thrift://host:port`` addresses, tried in order.
        timeout_s: socket timeout for each call.
        connect_timeout_s: socket timeout while connecting.
        retries: how many times a call is retried after transport errors.
        backoff_s: first delay between retries, doubled each time up to ``MAX_BACKOFF_S``.
        kerberos: authenticate with Kerberos (SASL GSSAPI), as a metastore with
            ``hive.metastore.sasl.enabled`` requires.
        tls: speak TLS, as a metastore with ``metastore.use.SSL`` requires.

    Raises:
        InvalidUri: for malformed URIs; nothing connects until the first call.
    """

    def __init__(
        self,
        uris: str | Sequence[str],
        timeout_s: float = DEFAULT_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
        backoff_s: float = DEFAULT_BACKOFF_S,
        kerberos: Kerberos | None = None,
        tls: Tls | None = None,
    ) -> None:
        self._addresses = parse_uris(uris)
        self._kerberos = kerberos
        self._tls = tls
        self._timeout_s = timeout_s
        self._connect_timeout_s = connect_timeout_s
        self._retries = retries
        self._backoff_s = backoff_s
        self._lock = threading.RLock()
        self._transport: TTransport.TTransportBase | None = None
        self._client: ThriftHiveMetastore.Client | None = None
        self._next = 0
        self.connected_to: str | None = None
        self._dialect: Dialect | None = None

    @property
    def uris(self) -> list[str]:
        return [f"thrift://{h}:{p}" for h, p in self._addresses]

    @property
    def is_loopback(self) -> bool:
        """Whether every address is on this machine (so ``file:`` paths mean the same here)."""
        return is_loopback(self._addresses)

    def close(self) -> None:
        """Close the connection (the next call reconnects)."""
        with self._lock:
            if self._transport is not None:
                with contextlib.suppress(Exception):
                    self._transport.close()
            self._transport = None
            self._client = None
            self.connected_to = None
            self._dialect = None

    def _connect(self) -> ThriftHiveMetastore.Client:
        errors: list[str] = []
        refusals: list[KerberosError | TlsError] = []
        final = 0  # addresses that answered in a way another attempt would not change
        count = len(self._addresses)
        for offset in range(count):
            index = (self._next + offset) % count
            host, port = self._addresses[index]
            sock = TlsSocket(host, port, self._tls) if self._tls else _RecordingSocket(host, port)
            sock.setTimeout(self._connect_timeout_s * 1000)
            transport = _Buffered(SaslTransport(sock, self._kerberos, host)
                                  if self._kerberos else sock)
            try:
                transport.open()
            except (KerberosError, TlsError) as exc:
                with contextlib.suppress(Exception):
                    transport.close()
                refusals.append(type(exc)(f"thrift://{host}:{port}: {exc}"))
                continue
            except (TTransport.TTransportException, OSError, EOFError) as exc:
                with contextlib.suppress(Exception):
                    transport.close()
                errors.append(f"thrift://{host}:{port}: {self._connect_failure(exc, sock)}")
                final += _accepted(sock) and (_timed_out(exc) or _not_thrift(exc))
                continue
            client = ThriftHiveMetastore.Client(_protocol(transport))
            try:
                # Within the connect timeout too: a server that accepts connections but does
                # not answer (hung) is passed over for the next one.
                dialect = detect(client)
            except (TimeoutError, TTransport.TTransportException, OSError, EOFError,
                    TApplicationException, TProtocolException, OverflowError,
                    UnicodeDecodeError) as exc:
                with contextlib.suppress(Exception):
                    transport.close()
                errors.append(f"thrift://{host}:{port}: {self._connect_failure(exc, sock)}")
                final += _timed_out(exc) or _not_thrift(exc)
                continue
            sock.setTimeout(self._timeout_s * 1000)
            self._transport = transport
            self._client = client
            self._dialect = dialect
            self._next = index
            self.connected_to = f"thrift://{host}:{port}"
            return self._client
        if refusals and not errors:  # Kerberos or TLS refused: trying again changes nothing
            raise refusals[0]
        failed = "; ".join(errors + [str(e) for e in refusals])
        if final + len(refusals) == count:
            raise _Definitive(TTransport.TTransportException.NOT_OPEN, failed)
        raise TTransport.TTransportException(TTransport.TTransportException.NOT_OPEN, failed)

    def _connect_failure(self, exc: BaseException, sock: TSocket.TSocket) -> str:
        """What a failed connect attempt says, with what a Kerberos or TLS mismatch looks
        like."""
        # A Kerberos client's first bytes are the SASL negotiation's, not a stray reply.
        other = None if self._kerberos else _other_protocol(_first(sock))
        if other is not None:
            return other
        text = _message(exc)
        if self._kerberos and (_timed_out(exc) or _closed_by_peer(exc)):
            how = (f"within {self._connect_timeout_s:g} s" if _timed_out(exc)
                   else "(the connection was closed)")
            return (f"no answer to the Kerberos (SASL) negotiation {how}: a metastore without "
                    "hive.metastore.sasl.enabled does not answer it")
        if _timed_out(exc) and _accepted(sock):
            return (f"it accepted the connection but did not answer within "
                    f"{self._connect_timeout_s:g} s (the client's connect_timeout_s)")
        if _not_thrift(exc):
            first = _first(sock)
            return (f"its reply is not a Hive Metastore's Thrift reply: "
                    f"{_not_thrift_detail(exc)}"
                    + (f" (it begins {_preview(first)!r})" if first else ""))
        if not self._kerberos and (_closed_by_peer(exc) or _reset_by_peer(exc)):
            # A Kerberized metastore answers a plain client with a SASL status and closes;
            # when the close outruns the status, this is all the client sees.
            return ("the metastore closed the connection, as one that requires "
                    "Kerberos (hive.metastore.sasl.enabled) does with a client without it; "
                    "give the client its kerberos_principal")
        return text

    @property
    def dialect(self) -> Dialect:
        """What the server speaks (connecting first if need be; see ``call`` for errors)."""
        with self._lock:
            if self._dialect is None:
                self.call("getVersion")  # connects, which detects the dialect
            assert self._dialect is not None
            return self._dialect

    def call(self, method: str, *args: Any) -> Any:
        """Call a Thrift method, reconnecting and retrying on transport errors.

        Thrift exceptions declared by the method (``MetaException``...) pass through unchanged.

        Raises:
            MetastoreUnavailable: when every attempt failed to reach a server.
            MetastoreError: when the server failed the call without a declared exception.
        """
        with self._lock:
            attempt = 0
            dropped = 0
            while True:
                client = None
                try:
                    client = self._client or self._connect()
                    return getattr(client, method)(*args)
                except TApplicationException as exc:
                    where = self.connected_to or self.uris[0]
                    self.close()
                    raise MetastoreError(f"metastore at {where} failed {method}: "
                                         f"{_message(exc)}") from exc
                except (TTransport.TTransportException, OSError, EOFError, TProtocolException,
                        OverflowError, UnicodeDecodeError) as exc:
                    where = self.connected_to or self.uris[0]
                    self.close()
                    if isinstance(exc, _Definitive):
                        raise MetastoreUnavailable(
                            f"metastore {', '.join(self.uris)} unavailable for {method} after "
                            f"{attempt + 1} attempts: {_message(exc)}") from exc
                    if client is not None and (_not_thrift(exc) or _timed_out(exc)):
                        # Not sent again: the connection was out of step with the server,
                        # which may still be running the call.
                        if _timed_out(exc):
                            raise MetastoreUnavailable(
                                f"metastore at {where} did not answer {method} within "
                                f"{self._timeout_s:g} s (the client's timeout_s)") from exc
                        raise MetastoreError(
                            f"metastore at {where} answered {method} with something that is "
                            f"not a Hive Metastore's Thrift reply: {_not_thrift_detail(exc)}"
                        ) from exc
                    if client is not None and _closed_by_peer(exc):
                        # The server took the call and hung up instead of answering: a Java Error
                        # (a missing class, out of memory) in its handler does that. Once on a
                        # fresh connection too, and it is the call, not the network.
                        dropped += 1
                        if dropped >= 2:
                            raise MetastoreError(
                                f"metastore at {where} closed the connection instead of answering "
                                f"{method}, twice: the server failed the call (its log says why)"
                            ) from exc
                    else:
                        self._next = (self._next + 1) % len(self._addresses)
                    if attempt >= self._retries:
                        raise MetastoreUnavailable(
                            f"metastore {', '.join(self.uris)} unavailable for {method} after "
                            f"{attempt + 1} attempts: {_message(exc)}"
                        ) from exc
                    time.sleep(min(self._backoff_s * 2**attempt, MAX_BACKOFF_S))
                    attempt += 1
