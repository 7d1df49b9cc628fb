"""The connection pool's lending rules, with fake connections (no metastore needed)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from thrift.protocol.TProtocol import TProtocolException
from thrift.Thrift import TApplicationException

from hmscatalog.errors import InvalidSetting, MetastoreUnavailable
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.pool import ConnectionPool, MetastorePool, pool_size

WAIT_S = 30.0  # a bound on waiting for another thread to get somewhere, never a measurement


def eventually(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "the other thread never got there"
        time.sleep(0.001)


class FakeConnection:
    """Records calls; fails if two threads are ever inside it at once."""

    def __init__(self, number: int, handler: Callable[[FakeConnection, str], Any]) -> None:
        self.number = number
        self.connected_to: str | None = None
        self.closed = 0
        self.calls: list[str] = []
        self._inside = threading.Lock()
        self._handler = handler

    def call(self, method: str, *args: Any) -> Any:
        if not self._inside.acquire(blocking=False):
            raise AssertionError(f"two threads at once on connection {self.number}")
        try:
            self.connected_to = f"thrift://fake:{self.number}"
            self.calls.append(method)
            return self._handler(self, method)
        finally:
            self._inside.release()

    def close(self) -> None:
        self.closed += 1
        self.connected_to = None


class Fakes:
    """A factory of fake connections; ``handler`` decides what each call does."""

    def __init__(self, handler: Callable[[FakeConnection, str], Any] | None = None) -> None:
        self.made: list[FakeConnection] = []
        self.handler = handler or (lambda conn, method: (conn.number, method))

    def __call__(self) -> FakeConnection:
        conn = FakeConnection(len(self.made), lambda c, m: self.handler(c, m))
        self.made.append(conn)
        return conn


class Gate:
    """Calls named ``block`` wait inside their connection until released."""

    def __init__(self) -> None:
        self.inside = 0
        self._lock = threading.Lock()
        self._open = threading.Event()

    def handler(self, conn: FakeConnection, method: str) -> Any:
        if method == "block":
            with self._lock:
                self.inside += 1
            assert self._open.wait(WAIT_S)
        return conn.number

    def release(self) -> None:
        self._open.set()


def run(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """Start ``target`` in a thread; the list gets its result or the exception it raised."""
    result: list[Any] = []

    def body() -> None:
        try:
            result.append(target())
        except Exception as exc:
            result.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, result


# -- size -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [(1, 1), (2, 2), (16, 16), ("3", 3), (" 4 ", 4)])
def test_pool_size_accepts_whole_numbers(value: object, expected: int) -> None:
    assert pool_size(value) == expected


@pytest.mark.parametrize("value", [0, -1, 1.5, 2.0, True, None, "", "two", "0", "-2", "1e3"])
def test_pool_size_rejects_anything_else_naming_it(value: object) -> None:
    with pytest.raises(InvalidSetting, match=rf"pool_size .*not {re.escape(repr(value))}$"):
        pool_size(value)
    assert issubclass(InvalidSetting, ValueError)


def test_client_checks_pool_size_up_front() -> None:
    with pytest.raises(InvalidSetting, match=r"pool_size .* not 0"):
        MetastoreClient("thrift://localhost:9083", pool_size=0)
    assert MetastoreClient("thrift://localhost:9083")._connection.size == 2
    assert MetastoreClient("thrift://localhost:9083", pool_size=5)._connection.size == 5


def test_client_properties_are_a_single_connections() -> None:
    client = MetastoreClient("thrift://localhost:9083, thrift://127.0.0.1:9084")
    assert client.uris == ["thrift://localhost:9083", "thrift://127.0.0.1:9084"]
    assert client._connection.is_loopback
    assert client.connected_to is None  # nothing connects before the first call
    assert client._connection.opened == 0
    assert not MetastoreClient("thrift://metastore.example:9083")._connection.is_loopback


# -- lending ----------------------------------------------------------------------------------


def test_connections_are_opened_only_when_calls_overlap() -> None:
    fakes = Fakes()
    pool = ConnectionPool(fakes, size=3)
    assert pool.opened == 0 and pool.connected_to is None
    for _ in range(5):
        assert pool.call("get_all_databases") == (0, "get_all_databases")
    assert len(fakes.made) == 1
    assert pool.connected_to == "thrift://fake:0"
    with pool.borrow() as first, pool.borrow() as second:
        assert {first.number, second.number} == {0, 1}
    assert len(fakes.made) == 2
    assert pool.call("x") == (0, "x")  # the connection given back last is lent first


def test_a_call_waits_while_every_connection_is_busy() -> None:
    gate = Gate()
    fakes = Fakes(gate.handler)
    pool = ConnectionPool(fakes, size=2)
    blockers = [run(lambda: pool.call("block")) for _ in range(2)]
    eventually(lambda: gate.inside == 2)
    waiter, result = run(lambda: pool.call("after"))
    eventually(lambda: pool.waiting == 1)
    assert result == [] and len(fakes.made) == 2
    gate.release()
    for thread, _ in [*blockers, (waiter, result)]:
        thread.join(WAIT_S)
    assert result in ([0], [1])
    assert sorted(r for _, rs in blockers for r in rs) == [0, 1]
    assert len(fakes.made) == 2 and pool.waiting == 0 and pool.opened == 2


def test_many_threads_never_share_a_connection() -> None:
    fakes = Fakes()
    pool = ConnectionPool(fakes, size=2)
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        start.wait()
        try:
            for n in range(300):
                number, method = pool.call(f"m{index}-{n}")
                assert method == f"m{index}-{n}" and number in (0, 1)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert errors == []
    assert len(fakes.made) <= 2
    assert sum(len(conn.calls) for conn in fakes.made) == 8 * 300


def test_size_one_serialises_every_call() -> None:
    fakes = Fakes()
    pool = ConnectionPool(fakes, size=1)
    threads = [threading.Thread(target=lambda: [pool.call("m") for _ in range(200)])
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert len(fakes.made) == 1 and len(fakes.made[0].calls) == 800


def test_a_borrowed_connection_serves_a_sequence_of_calls_alone() -> None:
    fakes = Fakes()
    pool = ConnectionPool(fakes, size=2)
    with pool.borrow() as conn:
        assert pool.call("other") == (1, "other")  # not the borrowed one
        assert [conn.call("a"), conn.call("b")] == [(0, "a"), (0, "b")]


# -- failures ---------------------------------------------------------------------------------


def test_a_broken_connection_is_replaced_and_the_others_kept() -> None:
    def handler(conn: FakeConnection, method: str) -> Any:
        if method == "break" and conn.number == 0:
            raise MetastoreUnavailable("metastore unavailable for break after 5 attempts")
        return conn.number

    fakes = Fakes(handler)
    pool = ConnectionPool(fakes, size=2)
    with pool.borrow() as a, pool.borrow() as b:
        assert (a.number, b.number) == (0, 1)
    # Connection 0 was given back last, so it is lent next and fails.
    with pytest.raises(MetastoreUnavailable):
        pool.call("break")
    assert fakes.made[0].closed == 1 and pool.opened == 1
    assert fakes.made[1].closed == 0
    assert pool.call("next") == 1  # the healthy one
    with pool.borrow() as a, pool.borrow() as b:
        assert {a.number, b.number} == {1, 2}  # a new one in place of the broken one
    assert len(fakes.made) == 3 and pool.opened == 2


def test_an_interrupted_call_does_not_leave_its_connection_in_the_pool() -> None:
    def handler(conn: FakeConnection, method: str) -> Any:
        if method == "interrupt":
            raise KeyboardInterrupt
        return conn.number

    fakes = Fakes(handler)
    pool = ConnectionPool(fakes, size=1)
    with pytest.raises(KeyboardInterrupt):
        pool.call("interrupt")
    assert fakes.made[0].closed == 1
    assert pool.call("next") == 1


def test_a_waiter_gets_the_slot_of_a_connection_that_broke() -> None:
    gate = Gate()

    def handler(conn: FakeConnection, method: str) -> Any:
        gate.handler(conn, method)
        raise OSError("connection reset")

    fakes = Fakes(handler)
    pool = ConnectionPool(fakes, size=1)
    failing, failed = run(lambda: pool.call("block"))
    eventually(lambda: gate.inside == 1)
    fakes.handler = lambda conn, method: conn.number
    waiter, result = run(lambda: pool.call("after"))
    eventually(lambda: pool.waiting == 1)
    gate.release()
    failing.join(WAIT_S)
    waiter.join(WAIT_S)
    assert result == [1] and fakes.made[0].closed == 1
    assert isinstance(failed[0], OSError)


def test_a_failed_factory_frees_its_slot() -> None:
    made = Fakes()
    attempts = []

    def connect() -> FakeConnection:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("no")
        return made()

    pool = ConnectionPool(connect, size=1)
    with pytest.raises(RuntimeError):
        pool.call("x")
    assert pool.opened == 0
    assert pool.call("x") == (0, "x")


def test_metastore_pool_keeps_connections_after_declared_errors_only() -> None:
    pool = MetastorePool("thrift://localhost:9083")
    assert pool._reusable_after(t.NoSuchObjectException(message="no table"))
    assert pool._reusable_after(t.MetaException(message="bad filter"))
    for exc in [TProtocolException(message="bad message"), TApplicationException(),
                MetastoreUnavailable("down"), OSError("reset"), KeyboardInterrupt(),
                TypeError("cannot encode")]:
        assert not pool._reusable_after(exc), exc


def test_declared_errors_keep_the_connection() -> None:
    def handler(conn: FakeConnection, method: str) -> Any:
        if method == "missing":
            raise t.NoSuchObjectException(message="no such table")
        return conn.number

    pool = MetastorePool("thrift://localhost:9083")
    fakes = Fakes(handler)
    pool._connect = fakes  # type: ignore[assignment]
    with pytest.raises(t.NoSuchObjectException):
        pool.call("missing")
    assert pool.call("next") == 0 and fakes.made[0].closed == 0


# -- close ------------------------------------------------------------------------------------


def test_close_closes_idle_connections_now_and_lent_ones_when_given_back() -> None:
    fakes = Fakes()
    pool = ConnectionPool(fakes, size=2)
    with pool.borrow() as lent:
        with pool.borrow():
            pass
        idle = fakes.made[1]
        pool.close()
        assert idle.closed == 1 and lent.closed == 0
        assert lent.call("still usable") == (0, "still usable")
    assert lent.closed == 1 and pool.opened == 0 and pool.connected_to is None
    assert pool.call("again") == (2, "again")  # the pool stays usable
    assert len(fakes.made) == 3


def test_close_never_lets_the_pool_exceed_its_size() -> None:
    gate = Gate()
    fakes = Fakes(gate.handler)
    pool = ConnectionPool(fakes, size=1)
    busy, _ = run(lambda: pool.call("block"))
    eventually(lambda: gate.inside == 1)
    pool.close()
    waiter, result = run(lambda: pool.call("after"))
    eventually(lambda: pool.waiting == 1)
    assert len(fakes.made) == 1
    gate.release()
    busy.join(WAIT_S)
    waiter.join(WAIT_S)
    assert result == [1] and fakes.made[0].closed == 1
