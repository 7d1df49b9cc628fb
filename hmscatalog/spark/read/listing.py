"""Spark file listings kept per table between queries, while the directories are unchanged.

Spark lists a table's partition directories before reading them; for thousands of directories it
runs a Spark job to do so, which can cost far more than the read. Spark's own Hive catalog keeps
each table's listing in a ``FileStatusCache`` until the table is refreshed. hmscatalog does the
same, and also checks, for local directories, that each one's modification time is the one seen
when it was listed: adding, removing or renaming a file in a partition directory changes it, so
writes made by anyone (Hive, the built-in catalog, another process) are seen by the next query
without ``REFRESH TABLE``. Only a change that leaves the directory's time as it was (a file system
with coarse times, a time set back by hand) waits for ``REFRESH TABLE``, as every change does
with Spark's own catalog.

Directories on other file systems cannot be checked cheaply, so their listings are not kept.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals.read import invalidate_file_status_cache, new_file_status_cache
from hmscatalog.storage.locations import local_path_text


def directory_stamps(locations: Iterable[str]) -> dict[str, int | None] | None:
    """Modification time (ns) of each local directory, ``None`` for one that does not exist or
    is not a directory; ``None`` overall when any location is not local."""
    stamps: dict[str, int | None] = {}
    is_dir = stat.S_ISDIR
    for location in locations:
        path = local_path_text(location)
        if path is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            stamps[location] = None
            continue
        stamps[location] = st.st_mtime_ns if is_dir(st.st_mode) else None
    return stamps


@dataclass
class _Listing:
    cache: Any  # Spark's FileStatusCache
    stamps: dict[str, int | None] = field(default_factory=dict)


# File indexes kept for reuse: at most this many, over at most this many paths in all.
MAX_INDEXES = 8
MAX_INDEXED_PATHS = 1_000_000


class ListingCache:
    """One Spark ``FileStatusCache`` per table, replaced as soon as a directory it holds
    changes; and the file indexes built over those listings, each reused while its listing
    is the table's."""

    def __init__(self, jvm: Jvm) -> None:
        self._jvm = jvm
        self._lock = threading.Lock()
        self._tables: dict[str, _Listing] = {}
        self._indexes: OrderedDict[Hashable, tuple[Any, Any, int]] = OrderedDict()

    def index(self, key: Hashable, cache: Any) -> Any:
        """The file index kept under ``key`` if it was built through listing ``cache`` (the
        table's current one), else ``None``."""
        with self._lock:
            found = self._indexes.get(key)
            if found is None or found[0] is not cache:
                return None
            self._indexes.move_to_end(key)
            return found[1]

    def keep_index(self, key: Hashable, cache: Any, index: Any, paths: int) -> None:
        """Keep ``index`` (over ``paths`` paths, listed through ``cache``) for reuse."""
        with self._lock:
            self._indexes[key] = (cache, index, paths)
            while len(self._indexes) > MAX_INDEXES or sum(
                    size for _, _, size in self._indexes.values()) > MAX_INDEXED_PATHS:
                self._indexes.popitem(last=False)

    def cache_for(self, table: str, stamps: dict[str, int | None] | None) -> Any:
        """The ``FileStatusCache`` to list ``table``'s directories with, given their current
        ``stamps`` (from :func:`directory_stamps`; ``None``: they cannot be checked)."""
        if stamps is None:
            return new_file_status_cache(self._jvm)
        table = table.lower()
        with self._lock:
            listing = self._tables.get(table)
            if listing is None or any(
                location in listing.stamps and listing.stamps[location] != stamp
                for location, stamp in stamps.items()
            ):
                if listing is not None:
                    invalidate_file_status_cache(listing.cache)
                    self._drop_indexes(listing.cache)
                listing = _Listing(new_file_status_cache(self._jvm))
                self._tables[table] = listing
            listing.stamps.update(stamps)
            return listing.cache

    def invalidate(self, table: str) -> None:
        """Forget ``table``'s listing (``REFRESH TABLE``, drop, rename, writes)."""
        with self._lock:
            listing = self._tables.pop(table.lower(), None)
            if listing is not None:
                self._drop_indexes(listing.cache)
        if listing is not None:
            invalidate_file_status_cache(listing.cache)

    def clear(self) -> None:
        """Forget every table's listing."""
        with self._lock:
            listings, self._tables = list(self._tables.values()), {}
            self._indexes.clear()
        for listing in listings:
            invalidate_file_status_cache(listing.cache)

    def _drop_indexes(self, cache: Any) -> None:
        """Forget the indexes listed through ``cache`` (with the lock held)."""
        for key in [k for k, (made, _, _) in self._indexes.items() if made is cache]:
            del self._indexes[key]
