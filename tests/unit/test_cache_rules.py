"""The metadata cache's rules (:mod:`hmscatalog.metastore.cache`), with a clock of the tests'
own; its use by queries is tested against a real metastore in
tests/integration/test_metadata_cache.py."""

from __future__ import annotations

from typing import Any

import pytest

from hmscatalog.metastore import cache as c
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Fetches:
    """A fetch that counts its calls and answers with the count."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        return self.calls


def test_an_answer_is_reused_until_the_ttl_and_says_how_old_it_is() -> None:
    clock, fetch = Clock(), Fetches()
    kept = c.MetadataCache(30, clock)
    assert kept.count("db", "t", fetch) == c.Cached(1, None)
    clock.now += 29.5
    assert kept.count("DB", "T", fetch) == c.Cached(1, 29.5)  # names are case-insensitive
    clock.now += 0.5
    assert kept.count("db", "t", fetch) == c.Cached(2, None)
    assert fetch.calls == 2


def test_a_ttl_of_zero_keeps_nothing() -> None:
    fetch = Fetches()
    off = c.MetadataCache(0)
    assert [off.count("db", "t", fetch).value for _ in range(3)] == [1, 2, 3]


def test_a_write_to_the_table_forgets_it_and_only_it() -> None:
    fetch, other = Fetches(), Fetches()
    kept = c.MetadataCache(60)
    kept.count("db", "t", fetch)
    kept.count("db", "u", other)
    c.note_write("drop_partitions_req", [t.DropPartitionsRequest(dbName="db", tblName="t")])
    assert kept.count("db", "t", fetch) == c.Cached(2, None)
    assert kept.count("db", "u", other).hit


def test_a_write_naming_no_table_forgets_everything() -> None:
    fetch = Fetches()
    kept = c.MetadataCache(60)
    kept.count("db", "t", fetch)
    c.note_write("drop_database", ["db", True, True])
    assert not kept.count("db", "t", fetch).hit


def test_an_answer_fetched_while_a_write_went_on_is_not_kept() -> None:
    kept = c.MetadataCache(60)
    calls = []

    def fetch_during_a_write() -> int:
        calls.append(1)
        c.note_write("alter_table", ["db", "t", t.Table(dbName="db", tableName="t")])
        return len(calls)

    assert kept.count("db", "t", fetch_during_a_write) == c.Cached(1, None)
    assert kept.count("db", "t", fetch_during_a_write) == c.Cached(2, None)


def test_refresh_forgets_one_table() -> None:
    fetch = Fetches()
    kept = c.MetadataCache(60)
    kept.table("db", "t", fetch)
    kept.partitions("db", "t", 'p = "a"', lambda: [])
    kept.invalidate("DB", "t")
    assert not kept.table("db", "t", fetch).hit
    assert not kept.partitions("db", "t", 'p = "a"', lambda: []).hit


@pytest.mark.parametrize("forget", ["refresh", "flush"])
def test_an_answer_fetched_while_a_refresh_or_flush_ran_is_not_kept(forget: str) -> None:
    """Another session's REFRESH TABLE (or flush) while this one fetched: the older answer
    must not outlive the refresh."""
    kept = c.MetadataCache(60)
    calls = []

    def fetch_during_a_refresh() -> int:
        calls.append(1)
        if forget == "refresh":
            kept.invalidate("db", "t2")
        else:
            kept.clear()
        return len(calls)

    assert kept.count("db", "t2", fetch_during_a_refresh) == c.Cached(1, None)
    assert kept.count("db", "t2", fetch_during_a_refresh) == c.Cached(2, None)


def test_partition_lists_are_kept_per_filter_and_handed_out_as_copies() -> None:
    kept = c.MetadataCache(60)
    first = kept.partitions("db", "t", 'p = "a"', lambda: ["a"])  # type: ignore[list-item]
    first.value.append("changed by the caller")
    assert kept.partitions("db", "t", 'p = "a"', lambda: []).value == ["a"]
    assert not kept.partitions("db", "t", 'p = "b"', lambda: []).hit


def test_long_partition_lists_are_not_kept_and_the_total_is_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(c, "MAX_LIST", 3)
    monkeypatch.setattr(c, "MAX_PARTITIONS", 5)
    kept = c.MetadataCache(60)
    kept.partitions("db", "t", None, lambda: [1, 2, 3, 4])  # type: ignore[list-item]
    assert not kept.partitions("db", "t", None, lambda: []).hit
    for name in ("a", "b"):
        kept.partitions("db", name, None, lambda: [1, 2, 3])  # type: ignore[list-item]
    assert not kept.partitions("db", "a", None, lambda: []).hit  # the oldest made room
    assert kept.partitions("db", "b", None, lambda: []).hit


def test_errors_are_not_kept() -> None:
    kept = c.MetadataCache(60)

    def missing() -> int:
        raise LookupError("no such table")

    with pytest.raises(LookupError):
        kept.count("db", "t", missing)
    assert kept.count("db", "t", lambda: 7) == c.Cached(7, None)


@pytest.mark.parametrize(("method", "read"), [
    ("get_table_req", True), ("get_partitions_by_filter", True), ("get_config_value", True),
    ("add_partitions_req", False), ("alter_table", False), ("drop_table", False),
    ("create_database", False), ("truncate_table", False),
])
def test_which_calls_are_reads(method: str, read: bool) -> None:
    assert c.is_read(method) is read


@pytest.mark.parametrize(("args", "tables"), [
    (["@hive#db", "t", True], [("db", "t")]),
    (["db", "old", t.Table(dbName="db2", tableName="New")], [("db", "old"), ("db2", "new")]),
    ([t.AddPartitionsRequest(dbName="db", tblName="t", parts=[])], [("db", "t")]),
    ([[t.Partition(dbName="db", tableName="t")]], [("db", "t")]),
    ([t.Database(name="db")], None),
    (["db", True, False], None),
])
def test_the_tables_a_write_names(args: list[Any], tables: list[tuple[str, str]] | None) -> None:
    assert c.tables_named(args) == tables
