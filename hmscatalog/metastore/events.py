"""Following a metastore's notification log, so that a catalog's metadata cache stays on and is
never stale for longer than one poll.

A metastore with a notification listener (Hive's ``DbNotificationListener``, or the embedded
server's own, :mod:`hmscatalog.metastore.notification_log`) records every committed change as an
event with consecutive ids. :class:`EventFollower` polls ``get_next_notification`` from the last
id it applied and invalidates, in the :class:`~hmscatalog.metastore.cache.MetadataCache`, exactly
what each event names:

- ``ADD_PARTITION`` and ``DROP_PARTITION`` whose message names the partitions: the table's
  kept partition list and count are patched (the added partitions fetched by name, and only
  for a table whose whole list is kept), its definition kept, its lists of a filter dropped;
- any other event naming a table (``ALTER_PARTITION``, ``ALTER_TABLE``, ``INSERT``, ...), or
  one whose partitions cannot be read: that table;
- an event naming only a database (``DROP_DATABASE``, ``ALTER_DATABASE``): its tables;
- events that change no table or partition (transactions, functions, ``CREATE_DATABASE``):
  nothing;
- anything else (an event type it does not know, naming no table), a gap in the ids (events
  expired before they were read, ``hive.metastore.event.db.listener.timetolive``) or ids that
  went back (another metastore database): the whole cache.

It follows only once the log has an event (id above 0): a metastore without a listener
answers 0 for ever, and its cache keeps its TTL behaviour. While polls fail, the cache answers
nothing from before (:attr:`EventFollower.current`) until a poll succeeds again.

``catch_up`` is what a query calls first when the catalog's ``events.catch-up`` is on (as
Impala's ``SYNC_HMS_EVENTS_WAIT_TIME_S``): it reads the log's newest id and applies every event up
to it, so a change any engine committed before the query began is seen by it.
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Event, Partition
from hmscatalog.partitions.codec import make_part_name

log = logging.getLogger(__name__)

BATCH = 1000  # events per get_next_notification
# Events that change no table's metadata.
NO_TABLE = frozenset({
    "CREATE_DATABASE", "CREATE_FUNCTION", "DROP_FUNCTION", "OPEN_TXN", "COMMIT_TXN",
    "ABORT_TXN", "ALLOC_WRITE_ID", "CREATE_CATALOG", "ALTER_CATALOG", "DROP_CATALOG",
    "CREATE_DATACONNECTOR", "ALTER_DATACONNECTOR", "DROP_DATACONNECTOR", "RELOAD",
    "CREATE_ISCHEMA", "ALTER_ISCHEMA", "DROP_ISCHEMA", "ADD_SCHEMA_VERSION",
    "ALTER_SCHEMA_VERSION", "DROP_SCHEMA_VERSION",
})
DATABASE = frozenset({"DROP_DATABASE", "ALTER_DATABASE"})
PARTITIONS = frozenset({"ADD_PARTITION", "DROP_PARTITION"})  # applied partition by partition


def partition_specs(event: Event) -> list[dict[str, str]]:
    """The partitions (column to value string, in the table's column order) an event's
    message names under ``partitions``: hmscatalog's own messages and Hive's JSON ones
    (``json-0.2``; Hive 4's ``gzip(json-2.0)``, base64 of gzip); empty when it names none or
    cannot be read."""
    text = event.message
    try:
        if (event.message_format or "").startswith("gzip"):
            text = gzip.decompress(base64.b64decode(text)).decode()
        found = json.loads(text).get("partitions")
    except (ValueError, OSError, AttributeError):
        return []
    if not isinstance(found, list) or not all(
            isinstance(spec, dict) and spec and all(isinstance(v, str) for v in spec.values())
            for spec in found):
        return []
    return found


@dataclass(frozen=True)
class FollowerState:
    """What EXPLAIN says of a catalog's cache: the last event id applied, how long ago the
    last poll succeeded, and whether the cache is answering from the log."""

    applied: int
    since_poll: float | None
    current: bool
    failure: str | None = None

    def describe(self) -> str:
        if self.failure is not None and not self.current:
            return f"events: not following ({self.failure})"
        if not self.current:
            return "events: the log is empty (cache by TTL)"
        lag = "" if self.since_poll is None else f", polled {self.since_poll:.1f} s ago"
        return f"events: applied #{self.applied}{lag}"


class EventFollower:
    """Applies a metastore's notification log to ``cache``, in a thread, every ``interval``
    seconds; a stopped follower (or one that never started) leaves the cache to its TTL.

    Args:
        client: the catalog's metastore client (its pool serves the polls).
        cache: what the events invalidate.
        interval: seconds between polls.
        stale_after: how long after the last successful poll the cache still answers.
    """

    def __init__(self, client: MetastoreClient, cache: MetadataCache, interval: float = 1.0,
                 stale_after: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._cache = cache
        self.interval = interval
        self.stale_after = stale_after if stale_after is not None else max(10.0, 5 * interval)
        self._clock = clock
        self._lock = threading.Lock()  # one poll at a time
        self._applied = 0
        self._polled: float | None = None
        self._failure: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the log ---------------------------------------------------------------------------

    def start(self) -> None:
        """Begin at the log's newest event: what the cache holds is fetched after it.

        Raises:
            MetastoreError: the metastore does not answer for its log (no such call, or
                ``hive.metastore.event.db.notification.api.auth`` refuses this user).
        """
        self._applied = self._client.current_event_id()
        self._polled = self._clock()
        self._cache.follow(self)
        self._thread = threading.Thread(target=self._run, name="hms-events", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._cache.follow(None)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.poll()
            except Exception:
                log.debug("polling the notification log failed", exc_info=True)

    def poll(self, until: int | None = None) -> int:
        """Apply the events after the last one applied (up to ``until``, or all); how many."""
        with self._lock:
            applied = 0
            try:
                while True:
                    events = self._client.next_events(self._applied, BATCH)
                    if not events:
                        if until is not None and until < self._applied:
                            self._restart("the log's ids went back", until)
                        break
                    if events[0].id != self._applied + 1 and self._applied:
                        self._restart(f"events {self._applied + 1}..{events[0].id - 1} "
                                      "expired before they were read", events[-1].id)
                    else:
                        for event in events:
                            self._apply(event)
                        self._applied = events[-1].id
                    applied += len(events)
                    if len(events) < BATCH or (until is not None and self._applied >= until):
                        break
            except HmsCatalogError as exc:
                self._failure = str(exc).splitlines()[0][:200]
                raise
            self._polled = self._clock()
            self._failure = None
            return applied

    def catch_up(self) -> None:
        """Apply every event the log has now: a change committed before this call is seen
        after it."""
        newest = self._client.current_event_id()
        if newest != self._applied:
            self.poll(until=newest)

    def _restart(self, why: str, at: int) -> None:
        log.info("metadata cache cleared: %s", why)
        self._cache.clear(here=True)
        self._applied = at

    def _apply(self, event: Event) -> None:
        if event.table and event.database:
            if event.type in PARTITIONS and self._patch(event):
                return
            self._cache.invalidate(event.database, event.table, here=True)
        elif event.type in DATABASE and event.database:
            self._cache.invalidate_database(event.database)
        elif event.type not in NO_TABLE:
            self._cache.clear(here=True)

    def _patch(self, event: Event) -> bool:
        """Apply an ADD_PARTITION or DROP_PARTITION event to the table's kept partitions
        (the added ones fetched by name); whether it could (its message names them)."""
        assert event.database and event.table
        specs = partition_specs(event)
        if not specs:
            return False
        if event.type == "DROP_PARTITION":
            self._cache.patch_partitions(event.database, event.table,
                                         [list(spec.values()) for spec in specs], [])
            return True
        added: list[Partition] = []
        # Fetched only for a kept list: otherwise the patch drops what depends on the
        # partitions, and every session would read each partition any engine adds. A list
        # fetched meanwhile began after the change was committed, or is not kept.
        if self._cache.keeps_partitions(event.database, event.table):
            names = [make_part_name(list(spec), list(spec.values())) for spec in specs]
            try:
                added = self._client.get_partitions_by_names(event.database, event.table,
                                                             names)
            except HmsCatalogError:
                return False
        self._cache.patch_partitions(event.database, event.table, [], added)
        return True

    # -- what the cache asks ---------------------------------------------------------------

    @property
    def current(self) -> bool:
        """Whether the cache may answer from the log: it has events, and the last poll is
        recent."""
        polled = self._polled
        return (self._applied > 0 and polled is not None
                and self._clock() - polled <= self.stale_after)

    def describe(self) -> str:
        return self.state().describe()

    def state(self) -> FollowerState:
        polled = self._polled
        return FollowerState(self._applied, None if polled is None else self._clock() - polled,
                             self.current, self._failure)
