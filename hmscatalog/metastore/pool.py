"""A pool of metastore connections shared by concurrent callers.

One Thrift connection carries one call at a time. The pool lends each call a connection of its
own for the call's duration: up to ``size`` connections, opened only when calls overlap (the
first call opens one; a later call reuses the connection used last). A call that finds every
connection busy waits until one is given back. Each connection keeps its own failover, reconnects
and retries (:mod:`hmscatalog.metastore.connection`); one that fails in a way that may leave it
mid-message is closed and dropped from the pool, and a later call opens a new one in its place.
"""

from __future__ import annotations

import functools
import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, SupportsIndex, TypeVar

from thrift.protocol.TProtocol import TProtocolException
from thrift.Thrift import TApplicationException, TException
from thrift.transport.TTransport import TTransportException

from hmscatalog.config import parse_count
from hmscatalog.errors import InvalidSetting
from hmscatalog.metastore.connection import (
    DEFAULT_BACKOFF_S,
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    MetastoreConnection,
    is_loopback,
    parse_uris,
)
from hmscatalog.metastore.dialect import Dialect
from hmscatalog.metastore.sasl import Kerberos
from hmscatalog.metastore.tls import Tls

# As the ``clients`` setting of Iceberg's HiveCatalog.
DEFAULT_POOL_SIZE = 2


def pool_size(value: object) -> int:
    """A pool size: a whole number of at least 1 (an int, or its decimal digits as text).

    Raises:
        InvalidSetting: naming the value.
    """
    size: int | None = None
    if isinstance(value, str):
        size = parse_count(value, minimum=1)
    elif isinstance(value, SupportsIndex) and not isinstance(value, bool):
        size = operator.index(value)
    if size is None or size < 1:
        raise InvalidSetting(
            f"metastore pool_size must be a whole number of at least 1, not {value!r}"
        )
    return size


class Connection(Protocol):
    """What the pool needs of a connection; it must connect on its first call, not before."""

    @property
    def connected_to(self) -> str | None: ...

    def call(self, method: str, *args: Any) -> Any: ...

    def close(self) -> None: ...


C = TypeVar("C", bound=Connection)


class ConnectionPool(Generic[C]):
    """Lends connections made by ``connect`` to one caller at a time, at most ``size`` at once.

    ``connect`` is called with the pool's lock held, so it must not do I/O (a connection
    connects on its first call). Borrowing is not reentrant: a caller holding a connection
    must not borrow again (with every connection lent out it would wait for itself).
    """

    def __init__(self, connect: Callable[[], C], size: object = DEFAULT_POOL_SIZE) -> None:
        self.size = pool_size(size)
        self._connect = connect
        self._lock = threading.Condition()
        self._idle: list[C] = []  # the one given back last is at the end, and lent out first
        self._lent: dict[C, int] = {}  # connection -> the generation it was lent in
        self._generation = 0  # close() starts a new one: older connections are closed on return
        self._waiting = 0

    @property
    def opened(self) -> int:
        """How many connections the pool holds (idle or lent out)."""
        with self._lock:
            return len(self._idle) + len(self._lent)

    @property
    def waiting(self) -> int:
        """How many callers are waiting for a connection."""
        with self._lock:
            return self._waiting

    @property
    def connected_to(self) -> str | None:
        """The server address of the connection used last, or of any connected one; else None."""
        with self._lock:
            for conn in [*reversed(self._idle), *self._lent]:
                if conn.connected_to is not None:
                    return conn.connected_to
        return None

    def call(self, method: str, *args: Any) -> Any:
        """Call ``method`` on a borrowed connection (see :meth:`borrow`)."""
        with self.borrow() as conn:
            return conn.call(method, *args)

    def borrow(self) -> _Loan[C]:
        """``with pool.borrow() as conn:`` lends a connection to the caller alone until the block
        ends (waiting for one if all are lent out): for a sequence of calls that must share one
        connection."""
        return _Loan(self)

    def close(self) -> None:
        """Close every connection: idle ones now, lent ones when given back. The pool stays
        usable: later calls open new connections."""
        with self._lock:
            for conn in self._idle:
                conn.close()
            self._idle.clear()
            self._generation += 1
            self._lock.notify_all()

    def _reusable_after(self, exc: BaseException) -> bool:
        """Whether a connection whose call raised ``exc`` can serve the next call."""
        return False

    def _take(self) -> C:
        with self._lock:
            self._waiting += 1
            try:
                while not self._idle and len(self._lent) >= self.size:
                    self._lock.wait()
            finally:
                self._waiting -= 1
            conn = self._idle.pop() if self._idle else self._connect()
            self._lent[conn] = self._generation
            return conn

    def _give_back(self, conn: C, reusable: bool) -> None:
        with self._lock:
            if reusable and self._lent[conn] == self._generation:
                self._idle.append(conn)
            else:
                conn.close()
            del self._lent[conn]
            self._lock.notify()


class _Loan(Generic[C]):
    # Not a generator-based context manager: contextlib sets __traceback__ on an exception
    # passing through, which Thrift's generated exceptions refuse (they are immutable).

    def __init__(self, pool: ConnectionPool[C]) -> None:
        self._pool = pool

    def __enter__(self) -> C:
        self._conn = self._pool._take()
        return self._conn

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        self._pool._give_back(self._conn, exc is None or self._pool._reusable_after(exc))


class MetastorePool(ConnectionPool[MetastoreConnection]):
    """Up to ``size`` :class:`MetastoreConnection`\\ s to the metastore at ``uris``; calls and
    properties as a single connection's.

    Raises:
        InvalidUri: for malformed URIs; nothing connects until the first call.
        InvalidSetting: for a ``size`` that is not a whole number of at least 1.
    """

    def __init__(
        self,
        uris: str | Sequence[str],
        timeout_s: float = DEFAULT_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
        backoff_s: float = DEFAULT_BACKOFF_S,
        size: object = DEFAULT_POOL_SIZE,
        kerberos: Kerberos | None = None,
        tls: Tls | None = None,
    ) -> None:
        self._addresses = parse_uris(uris)
        self._dialect: Dialect | None = None
        super().__init__(
            functools.partial(MetastoreConnection, self.uris, timeout_s, connect_timeout_s,
                              retries, backoff_s, kerberos, tls),
            size,
        )

    @property
    def uris(self) -> list[str]:
        return [f"thrift://{h}:{p}" for h, p in self._addresses]

    @property
    def is_loopback(self) -> bool:
        """Whether every address is on this machine (so ``file:`` paths mean the same here)."""
        return is_loopback(self._addresses)

    def dialect(self) -> Dialect:
        """What the server speaks, as a pooled connection found out when it opened (the
        addresses of one metastore are expected to run one release). Known once, it is
        answered without a connection: a commit that asks it while holding its table's lock
        must not wait for one behind other sessions' calls."""
        known = self._dialect
        if known is None:
            with self.borrow() as conn:
                known = self._dialect = conn.dialect
        return known

    def close(self) -> None:
        self._dialect = None  # the next connection may reach another release
        super().close()

    def _reusable_after(self, exc: BaseException) -> bool:
        # An exception the method declares (MetaException, NoSuchObjectException...) is a whole
        # answer read off the wire. After anything else -- a transport error (the connection
        # has closed itself), a message that could not be encoded or decoded, an interrupt --
        # the connection may hold half a request or half an answer.
        return isinstance(exc, TException) and not isinstance(
            exc, TProtocolException | TTransportException | TApplicationException
        )
