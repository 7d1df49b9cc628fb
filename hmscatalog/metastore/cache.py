"""A catalog's cache of metastore answers for queries: tables, partition lists and counts.

Two rules keep it from answering with something stale:

- **Never stale for this process's own writes.** Every Thrift call a
  :class:`~hmscatalog.metastore.client.MetastoreClient` of this process makes that is not a read
  (:func:`is_read`) is noted here (:func:`note_write`) before it is sent and again after it
  returns, against the table it names, or against every table when it names none (databases,
  catalogs). An entry is used only while no write was noted against its table since it was
  fetched, and an answer fetched while a write was under way is not kept. Writes through hms
  (INSERTs, DDL, MSCK, procedures, the CLI's repair in this process) all go through such a
  client, so the next query sees them at once.
- **Changes by anyone else are seen after at most the TTL** (or at once after ``REFRESH TABLE``,
  :meth:`MetadataCache.invalidate`): another engine, another process, Spark's built-in catalog.

A TTL of 0 turns the cache off, as in Trino (``hive.metastore-cache-ttl`` defaults to ``0s``):
each query then asks the metastore, as Spark's built-in catalog and Hive do.

**Following the metastore's notification log** (:mod:`hmscatalog.metastore.events`) replaces the
TTL: while the follower is current, an entry is kept until an event names its table (or the
TTL, when one is set, runs out), and changes by anyone are seen after at most one poll; with
catch-up, at once. When the follower falls behind (its polls fail), entries are not used.

Only queries read through the cache. Writes read the table and its partitions from the
metastore itself before they commit.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from hmscatalog.metastore.model import Partition, Table

V = TypeVar("V")

# Partition lists longer than this are not kept (a full scan of a huge table would otherwise
# hold every partition object between queries), nor more partitions than MAX_PARTITIONS in all.
MAX_LIST = 10_000
MAX_PARTITIONS = 100_000
MAX_ENTRIES = 2_000
# While the notification log keeps entries current, a whole large table's list is worth keeping:
# a full scan of it then asks the metastore nothing.
MAX_PARTITIONS_FOLLOWED = 1_000_000

_READ_PREFIXES = ("get_", "list_")
_READS = frozenset({"getMetaConf", "set_ugi", "check_lock", "show_locks"})
_CATALOG_PREFIX = re.compile(r"^@[^#]*#")  # Hive 3's "@catalog#database"


def is_read(method: str) -> bool:
    """Whether Thrift method ``method`` leaves the metastore's metadata as it was."""
    return method.startswith(_READ_PREFIXES) or method in _READS


TableKey = tuple[str, str]


def _key(database: str, table: str) -> TableKey:
    return _CATALOG_PREFIX.sub("", database).lower(), table.lower()


def tables_named(args: Sequence[Any]) -> list[TableKey] | None:
    """The tables a write's Thrift arguments name; ``None``: it may change any table (or it
    names none, as database DDL does)."""
    found: list[TableKey] = []
    if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        found.append(_key(args[0], args[1]))
    for arg in args:
        structs = arg[:1] if isinstance(arg, list) else [arg]
        for struct in structs:
            database = getattr(struct, "dbName", None) or getattr(struct, "db_name", None)
            table = (getattr(struct, "tableName", None) or getattr(struct, "tblName", None)
                     or getattr(struct, "tbl_name", None))
            if isinstance(database, str) and isinstance(table, str):
                found.append(_key(database, table))
    return found or None


class _Writes:
    """Changes that make kept answers stale: a counter per table, per database and one for
    all (this process's writes to metastores, or one cache's events)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._everything = 0
        self._tables: dict[TableKey, int] = {}
        self._databases: dict[str, int] = {}

    def note(self, tables: list[TableKey] | None) -> None:
        with self._lock:
            if tables is None:
                self._everything += 1
            else:
                for key in tables:
                    self._tables[key] = self._tables.get(key, 0) + 1

    def note_database(self, database: str) -> None:
        with self._lock:
            self._databases[database] = self._databases.get(database, 0) + 1

    def stamp(self, key: TableKey) -> tuple[int, int, int]:
        with self._lock:
            return self._everything, self._tables.get(key, 0), self._databases.get(key[0], 0)


_WRITES = _Writes()


def note_write(method: str, args: Sequence[Any]) -> None:
    """Thrift call ``method(*args)`` is about to change, or has changed, the metastore."""
    _WRITES.note(tables_named(args))


@dataclass(frozen=True)
class Cached(Generic[V]):
    """An answer, and how old it was when given: ``None`` if it was fetched for this call."""

    value: V
    age: float | None

    @property
    def hit(self) -> bool:
        return self.age is not None


@dataclass
class _Entry:
    value: Any
    stored: float
    stamp: tuple[int, ...]
    size: int


class Follower(Protocol):
    """What keeps the cache current from the metastore's notification log
    (:class:`hmscatalog.metastore.events.EventFollower`)."""

    @property
    def current(self) -> bool: ...

    def catch_up(self) -> None: ...

    def describe(self) -> str:
        """Its state for EXPLAIN: the last event applied and how long ago it polled."""
        ...


class MetadataCache:
    """Answers of one catalog's metastore for queries, each kept ``ttl`` seconds at most, or,
    while a :class:`Follower` is current, until an event invalidates it.

    Args:
        ttl: seconds an answer may be reused; 0 keeps nothing (unless followed).
        clock: monotonic seconds (tests pass their own).
        catch_up: with a follower, apply the log's newest events before a table's lookup.
    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic,
                 catch_up: bool = False) -> None:
        self.ttl = ttl
        self.catch_up = catch_up
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[str, ...], _Entry] = OrderedDict()
        self._partitions = 0
        self._events = _Writes()  # what the follower's events invalidated, by table
        self.follower: Follower | None = None

    def follow(self, follower: Follower | None) -> None:
        """Keep entries current from ``follower`` (``None``: by the TTL alone again); what is
        kept now was not followed, so it goes."""
        self.clear(here=True)
        self.follower = follower

    @property
    def followed(self) -> bool:
        follower = self.follower
        return follower is not None and follower.current

    @property
    def enabled(self) -> bool:
        return self.ttl > 0 or self.followed

    def state(self) -> str | None:
        """What EXPLAIN says of how the cache is kept: the follower's state, or the TTL;
        ``None`` when it is off."""
        follower = self.follower
        if follower is not None:
            return follower.describe() + ("" if self.ttl <= 0 else f"; ttl {self.ttl:g} s")
        return f"ttl {self.ttl:g} s" if self.ttl > 0 else None

    def table(self, database: str, name: str, fetch: Callable[[], Table]) -> Cached[Table]:
        """The table; with catch-up, the log's newest events are applied first (a query looks
        its table up before its partitions: one event-log call a query)."""
        return self._get(("table", *_key(database, name)), fetch, lambda _: 0, sync=True)

    def partitions(self, database: str, name: str, filter: str | None,
                   fetch: Callable[[], list[Partition]]) -> Cached[list[Partition]]:
        """A table's partitions matching a metastore filter string (``None``: all of them);
        the list is the caller's own."""
        found = self._get(("partitions", *_key(database, name), filter or ""), fetch, len)
        return Cached(list(found.value), found.age)

    def count(self, database: str, name: str, fetch: Callable[[], int]) -> Cached[int]:
        return self._get(("count", *_key(database, name)), fetch, lambda _: 0)

    def invalidate(self, database: str, name: str, here: bool = False) -> None:
        """Forget what is kept about one table (``REFRESH TABLE``), and what a fetch under
        way would keep (it began before the refresh: it counts as a write): in every cache of
        the process, or with ``here`` (an event of this cache's metastore) in this one."""
        key = _key(database, name)
        (self._events if here else _WRITES).note([key])
        with self._lock:
            for entry_key in [k for k in self._entries if k[1:3] == key]:
                self._drop(entry_key)

    def keeps_partitions(self, database: str, name: str) -> bool:
        """Whether a table's whole partition list is kept (an event's added partitions are
        worth fetching only then)."""
        with self._lock:
            return ("partitions", *_key(database, name), "") in self._entries

    def patch_partitions(self, database: str, name: str, dropped: Sequence[Sequence[str]],
                         added: Sequence[Partition]) -> None:
        """Apply partitions another engine dropped (their value strings) and added (as the
        metastore has them now) to what is kept about one table: its whole partition list
        and count are patched, its definition stays, lists of a filter go. A fetch under way
        does not keep its answer (it may have begun before the change)."""
        key = _key(database, name)
        gone = {tuple(values) for values in dropped}
        new = [part for part in added if tuple(part.values) not in gone]
        gone |= {tuple(part.values) for part in new}  # an added one replaces its namesake
        self._events.note([key])
        stamp = self._stamp(key)
        with self._lock:
            whole = self._entries.get(("partitions", *key, ""))
            if whole is not None:
                kept = [part for part in whole.value if tuple(part.values) not in gone]
                whole.value = kept + new
                self._partitions += len(whole.value) - whole.size
                whole.size, whole.stamp = len(whole.value), stamp
            for entry_key in [k for k in self._entries if k[1:3] == key]:
                entry = self._entries[entry_key]
                if entry is whole:
                    continue
                if entry_key[0] == "table":
                    entry.stamp = stamp
                elif entry_key[0] == "count" and whole is not None:
                    entry.value, entry.stamp = len(whole.value), stamp
                else:
                    self._drop(entry_key)

    def invalidate_database(self, database: str) -> None:
        """Forget what this cache keeps about every table of ``database`` (an event said it
        was dropped or altered)."""
        name = _CATALOG_PREFIX.sub("", database).lower()
        self._events.note_database(name)
        with self._lock:
            for entry_key in [k for k in self._entries if k[1] == name]:
                self._drop(entry_key)

    def clear(self, here: bool = False) -> None:
        """Forget everything, and what fetches under way would keep: in every cache's view
        of the process's writes, or with ``here`` in this one's."""
        (self._events if here else _WRITES).note(None)
        with self._lock:
            self._entries.clear()
            self._partitions = 0

    def _stamp(self, table: TableKey) -> tuple[int, ...]:
        return (*_WRITES.stamp(table), *self._events.stamp(table))

    def _get(self, key: tuple[str, ...], fetch: Callable[[], V],
             size: Callable[[V], int], sync: bool = False) -> Cached[V]:
        follower = self.follower
        if follower is not None and sync and self.catch_up:
            follower.catch_up()  # also what makes a follower of a log that was empty current
        followed = self.followed
        if not followed and self.ttl <= 0:
            return Cached(fetch(), None)
        table = (key[1], key[2])
        stamp = self._stamp(table)
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                age = now - entry.stored
                if entry.stamp == stamp and (age < self.ttl or (followed and self.ttl <= 0)):
                    self._entries.move_to_end(key)
                    return Cached(entry.value, age)
                self._drop(key)
        value = fetch()  # outside the lock: other tables' queries go on meanwhile
        items = size(value)
        per_list, limit = ((MAX_PARTITIONS_FOLLOWED, MAX_PARTITIONS_FOLLOWED) if followed
                           else (MAX_LIST, MAX_PARTITIONS))
        if items <= per_list and self._stamp(table) == stamp:  # no write, no event meanwhile
            with self._lock:
                if key in self._entries:
                    self._drop(key)
                self._entries[key] = _Entry(value, now, stamp, items)
                self._partitions += items
                while self._entries and (len(self._entries) > MAX_ENTRIES
                                         or self._partitions > limit):
                    self._drop(next(iter(self._entries)))
        return Cached(value, None)

    def _drop(self, key: tuple[str, ...]) -> None:
        entry = self._entries.pop(key)
        self._partitions -= entry.size
