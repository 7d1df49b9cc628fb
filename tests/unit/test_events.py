"""The notification-log follower's rules, against a log kept in a list (the metastore's own log
is exercised in tests/integration/test_event_freshness.py)."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest

from hmscatalog.errors import MetastoreError
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.events import EventFollower
from hmscatalog.metastore.model import Event, Partition, Storage


def _partition(value: str) -> Partition:
    return Partition("db", "t", (value,), Storage(f"file:/w/t/p={value}", "in", "out", "serde"))


class Log:
    """A notification log: ``events`` in id order, or a failure to raise."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.failing = False
        self.calls = 0

    def add(self, type: str, database: str | None = "db", table: str | None = "t",
            id: int | None = None, message: str = "", message_format: str | None = None,
            ) -> None:
        self.events.append(Event(id or self.current_event_id() + 1, 0, type, database, table,
                                 message, message_format))

    def get_partitions_by_names(self, database: str, table: str,
                                names: list[str]) -> list[Partition]:
        self.calls += 1
        return [_partition(name.split("=", 1)[1]) for name in names]

    def current_event_id(self) -> int:
        self.calls += 1
        if self.failing:
            raise MetastoreError("metastore down")
        return self.events[-1].id if self.events else 0

    def next_events(self, last: int, limit: int = 1000) -> list[Event]:
        self.calls += 1
        if self.failing:
            raise MetastoreError("metastore down")
        return [e for e in self.events if e.id > last][:limit]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def log() -> Log:
    found = Log()
    found.add("CREATE_TABLE")
    return found


def _follow(log: Log, catch_up: bool = False, clock: Any = None) -> tuple[MetadataCache,
                                                                         EventFollower]:
    clock = clock or Clock()
    cache = MetadataCache(0, clock=clock, catch_up=catch_up)
    follower = EventFollower(log, cache, interval=3600, clock=clock)  # type: ignore[arg-type]
    follower.start()
    return cache, follower


def _holds(cache: MetadataCache, database: str, table: str) -> bool:
    fetched = []
    cache.count(database, table, lambda: fetched.append(1) or 1)
    return not fetched


def _fill(cache: MetadataCache, *tables: tuple[str, str]) -> None:
    for database, table in tables:
        assert not cache.count(database, table, lambda: 1).hit


def test_a_log_with_events_turns_the_cache_on_without_a_ttl(log: Log) -> None:
    cache, follower = _follow(log)
    assert follower.current and cache.enabled
    _fill(cache, ("db", "t"))
    assert _holds(cache, "db", "t")
    follower.stop()


def test_an_empty_log_leaves_the_cache_to_its_ttl() -> None:
    cache, follower = _follow(Log())
    assert not follower.current and not cache.enabled
    assert "the log is empty" in follower.describe()
    follower.stop()


@pytest.mark.parametrize("type", ["ADD_PARTITION", "ALTER_TABLE", "INSERT", "DROP_TABLE",
                                  "SOMETHING_NEW"])
def test_an_event_naming_a_table_invalidates_that_table_alone(log: Log, type: str) -> None:
    cache, follower = _follow(log)
    _fill(cache, ("db", "t"), ("db", "u"))
    log.add(type, "DB", "T")
    assert follower.poll() == 1
    assert not _holds(cache, "db", "t")
    assert _holds(cache, "db", "u")


@pytest.mark.parametrize("type", ["DROP_DATABASE", "ALTER_DATABASE"])
def test_a_database_event_invalidates_its_tables(log: Log, type: str) -> None:
    cache, follower = _follow(log)
    _fill(cache, ("db", "t"), ("db", "u"), ("other", "t"))
    log.add(type, "db", None)
    follower.poll()
    assert not _holds(cache, "db", "t") and not _holds(cache, "db", "u")
    assert _holds(cache, "other", "t")


def test_events_of_no_table_invalidate_nothing_and_unknown_ones_everything(log: Log) -> None:
    cache, follower = _follow(log)
    _fill(cache, ("db", "t"))
    log.add("OPEN_TXN", None, None)
    log.add("CREATE_DATABASE", "new", None)
    follower.poll()
    assert _holds(cache, "db", "t")
    log.add("SOMETHING_NEW", None, None)
    follower.poll()
    assert not _holds(cache, "db", "t")


def test_a_gap_in_the_ids_clears_the_cache(log: Log) -> None:
    cache, follower = _follow(log)
    _fill(cache, ("db", "t"), ("db", "u"))
    log.add("ADD_PARTITION", "db", "other", id=5)  # 2..4 expired
    follower.poll()
    assert not _holds(cache, "db", "t") and not _holds(cache, "db", "u")  # fetched again
    log.add("ADD_PARTITION", "db", "other")  # 6: in order again
    follower.poll()
    assert _holds(cache, "db", "t")


def test_ids_that_go_back_clear_the_cache(log: Log) -> None:
    cache, follower = _follow(log)
    _fill(cache, ("db", "t"))
    log.events = []  # another metastore database behind the same address: its log is empty
    follower.catch_up()
    assert not _holds(cache, "db", "t")
    assert follower.state().applied == 0


def test_failed_polls_stop_the_cache_answering_until_one_succeeds(log: Log) -> None:
    clock = Clock()
    cache, follower = _follow(log, clock=clock)
    _fill(cache, ("db", "t"))
    log.failing = True
    with pytest.raises(MetastoreError):
        follower.poll()
    assert follower.current  # within stale_after of the last good poll
    clock.now += follower.stale_after + 1
    assert not follower.current and not cache.enabled
    assert "not following (metastore down)" in follower.describe()
    log.failing = False
    log.add("ADD_PARTITION", "db", "t")
    follower.poll()
    assert follower.current
    assert not _holds(cache, "db", "t")  # the event missed meanwhile was applied


def test_catch_up_applies_every_event_before_a_table_is_looked_up(log: Log) -> None:
    cache, _ = _follow(log, catch_up=True)
    cache.table("db", "t", lambda: "old")  # type: ignore[arg-type,return-value]
    assert cache.table("db", "t", lambda: pytest.fail("fetched")).hit
    log.add("ALTER_TABLE", "db", "t")
    assert cache.table("db", "t", lambda: "new").value == "new"  # type: ignore[arg-type]
    calls = log.calls
    assert cache.table("db", "t", lambda: pytest.fail("fetched")).hit
    assert log.calls == calls + 1  # one call when nothing is new


def test_more_events_than_a_batch_are_applied_in_batches(log: Log) -> None:
    _, follower = _follow(log)
    for n in range(2500):
        log.add("ADD_PARTITION", "db", f"t{n}")
    assert follower.poll() == 2500
    assert follower.state().applied == 2501


def _whole(cache: MetadataCache) -> list[str]:
    """The kept partition values of db.t (failing if it is not kept)."""
    return sorted(p.values[0] for p in cache.partitions(
        "db", "t", None, lambda: pytest.fail("fetched")).value)


@pytest.mark.parametrize("message_format", ["hmscatalog-1", "json-0.2", "gzip(json-2.0)"])
def test_added_and_dropped_partitions_are_patched_into_the_kept_list(
        log: Log, message_format: str) -> None:
    cache, follower = _follow(log)
    cache.table("db", "t", lambda: "t")  # type: ignore[arg-type,return-value]
    cache.partitions("db", "t", None, lambda: [_partition("a")])
    cache.partitions("db", "t", "p = 'a'", lambda: [_partition("a")])
    cache.count("db", "t", lambda: 1)

    def message(values: list[str]) -> str:
        text = json.dumps({"db": "db", "table": "t", "partitions": [{"p": v} for v in values]})
        if message_format.startswith("gzip"):
            return base64.b64encode(gzip.compress(text.encode())).decode()
        return text

    log.add("ADD_PARTITION", message=message(["b", "c"]), message_format=message_format)
    follower.poll()
    assert _whole(cache) == ["a", "b", "c"]
    assert cache.count("db", "t", lambda: pytest.fail("fetched")).value == 3
    assert cache.table("db", "t", lambda: pytest.fail("fetched")).hit  # the definition stays
    assert not _holds_filtered(cache)
    log.add("DROP_PARTITION", message=message(["a"]), message_format=message_format)
    follower.poll()
    assert _whole(cache) == ["b", "c"]
    assert cache.count("db", "t", lambda: pytest.fail("fetched")).value == 2


def _holds_filtered(cache: MetadataCache) -> bool:
    fetched = []
    cache.partitions("db", "t", "p = 'a'", lambda: fetched.append(1) or [])
    return not fetched


def test_a_partition_event_whose_partitions_cannot_be_read_invalidates_the_table(
        log: Log) -> None:
    cache, follower = _follow(log)
    cache.partitions("db", "t", None, lambda: [_partition("a")])
    log.add("ADD_PARTITION", message="{not json", message_format="json-0.2")
    follower.poll()
    assert cache.partitions("db", "t", None, lambda: [_partition("z")]).value[0].values == (
        "z",)


def test_catch_up_follows_a_log_that_was_empty_at_attach() -> None:
    log = Log()
    cache, follower = _follow(log, catch_up=True)
    assert not follower.current
    log.add("CREATE_TABLE")  # the first event, before any poll
    cache.table("db", "t", lambda: "t")  # type: ignore[arg-type,return-value]
    assert follower.current
    assert cache.table("db", "t", lambda: pytest.fail("fetched")).hit


def test_added_partitions_are_fetched_only_for_a_kept_list(log: Log) -> None:
    """Every session follows every change of the metastore: the partitions an event adds are
    read only by a cache that keeps the table's whole list, and elsewhere what depends on the
    partitions goes (the definition stays)."""
    cache, follower = _follow(log)
    cache.table("db", "t", lambda: "t")  # type: ignore[arg-type,return-value]
    cache.count("db", "t", lambda: 1)
    cache.partitions("db", "t", "p = 'a'", lambda: [_partition("a")])
    message = json.dumps({"db": "db", "table": "t", "partitions": [{"p": "b"}]})
    log.add("ADD_PARTITION", message=message, message_format="hmscatalog-1")
    log.add("ADD_PARTITION", database="db", table="other",
            message=message.replace('"t"', '"other"'), message_format="hmscatalog-1")
    log.get_partitions_by_names = lambda *_: pytest.fail("fetched")  # type: ignore[method-assign]
    follower.poll()
    assert cache.table("db", "t", lambda: pytest.fail("fetched")).hit
    assert cache.count("db", "t", lambda: 2).value == 2
    assert not _holds_filtered(cache)
