"""Partitions found on storage: a level-by-level walk of ``key=value/`` directories.

The walk starts at the table's root and descends one partition column per level, in PARTITIONED
BY order. At each level a directory is kept only while the pushed predicate, evaluated with
three-valued logic over the values bound so far (columns below are unknown), can still be true:
a definite "false" prunes the whole subtree, so list calls grow with the matching partitions,
not with all of them. Values are typed by the declared column type before comparing (``007``
equals 7 for an INT column); ``__HIVE_DEFAULT_PARTITION__`` is NULL.

Where the predicate pins a STRING-family column to a few values (``=``, ``IN``), the walk does
not list the parent at all: it goes straight to ``col=<value>`` spelt as Hive writes it (lower
case key, Hive's escaping). Directories spelt otherwise (``DT=x``, an unescaped ``:``) are then
not found; other types are always listed, since ``hr=07`` and ``hr=7`` both mean 7.

What counts as a partition directory follows Spark's repair scan: names starting with ``_`` or
``.`` are hidden (``_SUCCESS``, ``_temporary``, ``.hive-staging...``), a name without ``=`` is
skipped, the name is split at the first ``=`` and both sides are unescaped. A key that does not
match the column expected at that level is an error naming the path.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hmscatalog import config
from hmscatalog.errors import InvalidPartitionSpec, InvalidPartitionValue, TooManyPartitions
from hmscatalog.expressions.binding import BoundPredicate, bind
from hmscatalog.expressions.predicates import Predicate
from hmscatalog.partitions.codec import (
    DEFAULT_PARTITION_NAME,
    escape_path_name,
    unescape_path_name,
)
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import format_value, parse_value
from hmscatalog.sources.source import ReadTarget, SelectedPartition, Selection
from hmscatalog.sources.versions import (
    COMMITS_DIR,
    Versions,
    check_one_version,
    is_version,
    load_versions,
    refuse_old_layout,
)
from hmscatalog.storage.filesystems import Entry, Storage
from hmscatalog.storage.globs import Glob, State, select_files
from hmscatalog.storage.opening import open_storage

log = logging.getLogger(__name__)

PROPERTY_PREFIX = config.DISCOVERY_PREFIX
ENABLED = config.DISCOVERY_ENABLED


@dataclass(frozen=True)
class DiscoveryLimits:
    """How far a discovery scan may go before it warns or fails."""

    warn_partitions: int = 5_000
    max_partitions: int = 50_000
    max_list_calls: int = 10_000

    @classmethod
    def from_properties(cls, properties: Mapping[str, str],
                        where: str = "discovery") -> DiscoveryLimits:
        """Limits from table properties or read options (``hmscatalog.discovery.warn-partitions``,
        ``.max-partitions``, ``.max-list-calls``); unset ones keep their defaults.

        Raises:
            InvalidSetting: a value that is not a whole number (of at least 1 for the maxima).
        """
        count = config.read_count
        return cls(warn_partitions=count(properties, config.DISCOVERY_WARN_PARTITIONS, where),
                   max_partitions=count(properties, config.DISCOVERY_MAX_PARTITIONS, where),
                   max_list_calls=count(properties, config.DISCOVERY_MAX_LIST_CALLS, where))


def is_enabled(properties: Mapping[str, str], where: str = "discovery") -> bool:
    """Whether ``hmscatalog.discovery.enabled`` is true.

    Tables made by other catalogs never went through CREATE's checks, so a misspelt key is
    refused here too: ``hmscatalog.discovery.enable`` would otherwise read as a table without
    discovery, with no rows.

    Raises:
        InvalidSetting: the value is neither true nor false, or a key under
            ``hmscatalog.discovery.`` (or a known key in another case) is unknown.
    """
    config.check_spelling(properties, where, config.DISCOVERY_PREFIX)
    return config.read_flag(properties, ENABLED, where)


@dataclass(frozen=True)
class FoundPartition:
    """A partition directory: its values as strings (``None`` for NULL) and storage path;
    ``files`` lists the data files to read when a glob picked files within the directory."""

    values: tuple[str | None, ...]
    path: str
    files: tuple[str, ...] | None = None

    @property
    def strings(self) -> tuple[str, ...]:
        """The values as the metastore stores them (NULL as ``__HIVE_DEFAULT_PARTITION__``)."""
        return tuple(DEFAULT_PARTITION_NAME if v is None else v for v in self.values)


@dataclass(frozen=True)
class Discovery:
    """The outcome of a walk, with what EXPLAIN reports.

    Attributes:
        partitions: partition directories the predicate does not rule out, sorted by path.
        listed: leaf partition directories seen (probed or listed) before the last pruning.
        list_calls: directory listings made.
    """

    partitions: list[FoundPartition]
    listed: int
    list_calls: int


def is_hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def split_directory(name: str) -> tuple[str, str | None] | None:
    """``(key, value)`` of a ``key=value`` directory name, unescaped; ``None`` for a name that
    is not one. The value is ``None`` for ``__HIVE_DEFAULT_PARTITION__`` as written: an escaped
    spelling of it (``%5F_HIVE...``) is that string, as in Spark, which compares before
    unescaping."""
    if is_hidden(name) or "=" not in name:
        return None
    key, _, value = name.partition("=")
    return unescape_path_name(key), None if value == DEFAULT_PARTITION_NAME else (
        unescape_path_name(value))


# A directory on the way down: its path, the values bound so far, and where a glob stands
# (``None`` once the glob has matched the whole path, or when there is none).
_Item = tuple[str, tuple[str | None, ...], State | None]


def discover(storage: Storage, root: str, spec: PartitionSpec, predicate: Predicate,
             limits: DiscoveryLimits = DiscoveryLimits(), where: str = "",
             skip_bad_keys: bool = False, glob: Glob | None = None,
             with_files: bool = False, versions: bool = False) -> Discovery:
    """Walk ``root`` (a path in ``storage``) for the partitions of ``spec`` that ``predicate``
    does not rule out.

    Args:
        where: names the table or read in messages (defaults to the root's URI).
        skip_bad_keys: skip, with a warning, a directory whose key is not the expected column
            (Spark's repair does) instead of failing.
        glob: a pattern below ``root`` the paths must match as well: its first segments match
            the partition levels; the rest selects files below the partition directories.
        with_files: list every selected partition directory and name its visible files
            (``FoundPartition.files``); directories without any are dropped.
        versions: read the version directories hms writes as
            :mod:`~hmscatalog.sources.versions` says, by the write records below ``root``
            (one listing of ``.hms-commits`` more, unless the root is listed anyway): a
            partition directory that holds hidden files is listed and its files named.

    Raises:
        InvalidPartitionSpec: a directory's key is not the column expected at its level; with
            ``versions``, a partition directory holds more than one version.
        TooManyPartitions: a limit of ``limits`` was exceeded (nothing has been read).
    """
    where = where or storage.uri(root)
    bound = bind(predicate, spec)
    walk = _Walk(storage, spec, bound, limits, where, skip_bad_keys)
    walk.root = root.rstrip("/") if versions else None
    level: list[_Item] = [(root.rstrip("/"), (), glob.start() if glob else None)]
    listed = 0
    for depth, column in enumerate(spec.columns):
        last = depth == len(spec) - 1
        pinned = bound.pinned(column.name) if column.type.is_string else None
        # Hive's spelling of the string __HIVE_DEFAULT_PARTITION__ means NULL: list instead.
        if pinned is not None and DEFAULT_PARTITION_NAME not in pinned:
            level = walk.probe(level, column.name, sorted(pinned),
                               verify=last and not with_files)
        else:
            level = walk.descend(level, depth)
        if last:
            listed = walk.seen
            walk.check(len(level))
    if walk.root is not None and walk.versions is None:  # the root was not listed
        walk.versions = load_versions(storage, walk.root)
    found = sorted(walk.leaves(level, with_files) if spec.columns else [],
                   key=lambda p: p.path)
    if len(found) > limits.warn_partitions:
        log.warning("discovery of %s selected %s partitions (warning above %s, %s); conditions "
                    "on the partition columns %s would bound it", where, f"{len(found):,}",
                    f"{limits.warn_partitions:,}", config.DISCOVERY_WARN_PARTITIONS,
                    list(spec.names))
    return Discovery(found, listed, storage.list_calls - walk.start)


def _step(state: State | None, name: str) -> tuple[bool, State | None]:
    """Whether a child called ``name`` may match the glob, and the glob's state there."""
    if state is None:
        return True, None
    after = state.step(name)
    if after is None:
        return False, None
    return True, None if after.accepts else after


class _Walk:
    def __init__(self, storage: Storage, spec: PartitionSpec, predicate: BoundPredicate,
                 limits: DiscoveryLimits, where: str, skip_bad_keys: bool) -> None:
        self.storage = storage
        self.skip_bad_keys = skip_bad_keys
        self.spec = spec
        self.predicate = predicate
        self.limits = limits
        self.where = where
        self.start = storage.list_calls
        self.seen = 0
        self.root: str | None = None  # where write records are read (versions), if anywhere
        self.versions: Versions | None = None

    def _list_all(self, paths: list[str]) -> list[list[Entry] | None]:
        self._check_calls(len(paths))
        return self.storage.list_many(paths)

    def descend(self, level: list[_Item], depth: int) -> list[_Item]:
        column = self.spec.columns[depth]
        kept: list[_Item] = []
        self.seen = 0
        for (path, values, state), entries in zip(level,
                                                  self._list_all([p for p, _, _ in level]),
                                                  strict=True):
            if path == self.root:
                self._read_versions(entries or [])
            for entry in entries or ():
                if not entry.is_dir:
                    continue
                parts = split_directory(entry.name)
                matches, after = _step(state, entry.name)
                if not matches:  # a glob selects paths before their keys are checked
                    continue
                if parts is None:
                    if path == self.root and is_version(entry.name) and self._visible(entry):
                        refuse_old_layout(self.storage, self.where, entry)
                    continue
                key, value = parts
                if key.lower() != column.name:
                    message = (f"{self.where}: directory {self.storage.uri(entry.path)} has key "
                               f"{key!r} where partition column {column.name!r} was expected "
                               f"(partition columns in order: {self.spec.names})")
                    if not self.skip_bad_keys:
                        raise InvalidPartitionSpec(message)
                    log.warning("skipping %s", message)
                    continue
                self.seen += 1
                if self._may_match((*values, value)):
                    kept.append((entry.path, (*values, value), after))
        return kept

    def probe(self, level: list[_Item], column: str, pinned: Iterable[Any],
              verify: bool) -> list[_Item]:
        """Children named after the pinned values; at the last level only those that exist."""
        texts = [format_value(v, self.spec.column(column).type) for v in pinned]
        candidates: list[_Item] = []
        for parent, values, state in level:
            for text in texts:
                if not text:
                    continue
                name = f"{escape_path_name(column)}={escape_path_name(text)}"
                matches, after = _step(state, name)
                if matches and self._may_match((*values, text)):
                    candidates.append((f"{parent}/{name}", (*values, text), after))
        self.seen = len(candidates)
        if not verify:
            return candidates
        return [c for c in candidates if c[2] is not None or self.storage.exists(c[0])]

    def leaves(self, level: list[_Item], with_files: bool) -> list[FoundPartition]:
        """The partitions of the last level. Where a glob still has segments to match (or
        ``with_files``, or hidden versions are in it), the files below each directory are
        listed (:func:`select_files`: through plain subdirectories too), one found partition
        per directory holding some."""
        versions = self.versions

        def listed(path: str, state: State | None) -> bool:
            return state is not None or with_files or (
                versions is not None and versions.touches(path))

        found = [FoundPartition(values, path) for path, values, state in level
                 if not listed(path, state)]
        chosen = [(path, values, state) for path, values, state in level if listed(path, state)]
        lister = self._list_all if versions is None else versions.filtered(self._list_all)
        groups = select_files(lister, [(path, state) for path, _, state in chosen])
        for (path, values, _), holders in zip(chosen, groups, strict=True):
            if versions is not None:
                check_one_version(self.storage, self.where, path, holders)
            found.extend(FoundPartition(values, directory, tuple(files))
                         for directory, files in holders)
        return found

    def _read_versions(self, entries: list[Entry]) -> None:
        """The write records' versions, from the root's listing: no records, nothing hidden."""
        has_records = any(e.name == COMMITS_DIR and e.is_dir for e in entries)
        assert self.root is not None
        self.versions = load_versions(self.storage, self.root) if has_records else Versions()

    def _visible(self, entry: Entry) -> bool:
        return self.versions is None or self.versions.visible(entry)

    def _may_match(self, strings: tuple[str | None, ...]) -> bool:
        """Whether the predicate can be true below a directory with these values (of the
        first columns; the columns below are unknown)."""
        try:
            typed = [parse_value(text, column.type)
                     for column, text in zip(self.spec.columns, strings, strict=False)]
        except InvalidPartitionValue:
            return True  # nothing can be decided about a value that does not parse
        return self.predicate.may_match(typed)

    def _check_calls(self, more: int) -> None:
        calls = self.storage.list_calls - self.start + more
        if calls > self.limits.max_list_calls:
            raise TooManyPartitions(
                f"discovery of {self.where} needs more than {self.limits.max_list_calls} list "
                f"calls; add a filter on the partition columns {self.spec.names} or raise "
                f"{PROPERTY_PREFIX}max-list-calls")

    def check(self, count: int) -> None:
        if count > self.limits.max_partitions:
            raise TooManyPartitions(
                f"discovery of {self.where} found {count} matching partitions, more than "
                f"{self.limits.max_partitions}; add a filter on the partition columns "
                f"{self.spec.names} or raise {PROPERTY_PREFIX}max-partitions")


class DiscoverySource:
    """The partitions found by walking the target's location (a table's registered partitions
    are not consulted).

    Limits come from the target's properties, and so does an optional glob below the location
    (``hmscatalog.discovery.glob``, as path reads set it). With ``with_files``, every selected
    directory is listed and its data files are known (directories without any are dropped).
    """

    def __init__(self, target: ReadTarget, storage_options: Mapping[str, str] | None = None,
                 with_files: bool = False) -> None:
        self._target = target
        self._storage_options = storage_options
        self._with_files = with_files

    def select(self, predicate: Predicate) -> Selection:
        target = self._target
        if not target.location:
            raise InvalidPartitionSpec(f"discovery table {target.qualified_name} has no location")
        storage, root = open_storage(target.location, self._storage_options)
        where = f"Table {target.qualified_name}"
        limits = DiscoveryLimits.from_properties(target.properties, where)
        glob = config.read_glob(target.properties, where, root)
        # A path read is a tree reader: it follows the write records (hmscatalog.sources.
        # versions); a discovery table's scan reads the partition directories themselves.
        discovery = discover(storage, root, target.partition_spec, predicate, limits,
                             where=target.where, glob=glob, with_files=self._with_files,
                             versions=target.table is None)
        partitions, files = [], {}
        for found in discovery.partitions:
            location = storage.uri(found.path)
            partitions.append(SelectedPartition(found.strings, location))
            if found.files is not None:
                files[location] = [storage.uri(path) for path in found.files]
        return Selection(partitions, "storage", discovery.listed,
                         list_calls=discovery.list_calls, files=files)
