"""The one interface of partition sources: what a read targets, what a source selected, and
how EXPLAIN tells it.

A :class:`ReadTarget` is what a scan reads, whether a metastore table (:meth:`ReadTarget.of`)
or files under a path (:meth:`hmscatalog.sources.paths.PathLayout.target`). A
:class:`PartitionSource` (chosen for a target by :func:`hmscatalog.sources.choose.source_for`)
selects the partitions a predicate cannot rule out, as a :class:`Selection`, and
:func:`describe` renders any selection for EXPLAIN.

Selected partitions are :class:`SelectedPartition` (value strings and a location), not the
metastore's ``Partition``: discovered and projected partitions, and those of path reads, have
no database, table, storage descriptor or parameters, and a scan needs none of them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal, Protocol

from hmscatalog.errors import HmsCatalogError
from hmscatalog.expressions.predicates import Predicate
from hmscatalog.metastore.model import Column, Partition, StorageFormat, Table
from hmscatalog.partitions.spec import PartitionSpec

log = logging.getLogger(__name__)

# Where a selection's partitions came from: registered in the metastore, found on storage,
# computed by partition projection, or none at all (an unpartitioned target).
Origin = Literal["metastore", "storage", "projection", "unpartitioned"]


@dataclass(frozen=True)
class ReadTarget:
    """What a scan reads.

    Attributes:
        qualified_name: how EXPLAIN (``hms <name> ...``), listings and projection messages name
            it: ``db.table``, or ``path.<path>`` for a path read.
        where: how discovery's messages name it (``table db.table``, or the read's own words).
        columns: the data columns.
        partition_keys: the partition columns, in order.
        location: the table location, or the base directory of a path read.
        format: the file format (``None`` when hmscatalog does not know it).
        properties: the settings that choose and tune the partition source: a table's
            parameters; for a path read, its discovery limits, its glob below ``location``
            (``hmscatalog.discovery.glob``) and its ``projection.*`` settings.
        table: the metastore table, whose registered partitions are read unless discovery or
            projection is enabled; ``None`` for a path read, whose partitions are discovered
            unless projected.
        values_from_paths: the partition values are read from the directory names as Spark
            reads a path (a path read that walks ``key=value`` directories), not from the
            selected value strings.
    """

    qualified_name: str
    where: str
    columns: Sequence[Column]
    partition_keys: Sequence[Column]
    location: str | None
    format: StorageFormat | None
    properties: Mapping[str, str] = field(default_factory=dict)
    table: Table | None = None
    values_from_paths: bool = False
    # How old the table's definition was when the metadata cache gave it; None: fetched.
    cache_age: float | None = field(default=None, compare=False)

    @classmethod
    def of(cls, table: Table, cache_age: float | None = None) -> ReadTarget:
        """A metastore table as a read target."""
        return cls(table.qualified_name, f"table {table.qualified_name}", table.columns,
                   table.partition_keys, table.location, table.format, table.parameters, table,
                   cache_age=cache_age)

    @property
    def partition_spec(self) -> PartitionSpec:
        return PartitionSpec.of(*[(c.name, c.type) for c in self.partition_keys])


@dataclass(frozen=True, slots=True)
class SelectedPartition:
    """A selected partition: its value strings as the metastore stores them (NULL as
    ``__HIVE_DEFAULT_PARTITION__``) and where its files are (``None`` only for a registered
    partition without a location)."""

    values: tuple[str, ...]
    location: str | None
    # A registered partition's metastore record (its own storage format and columns), which
    # tables stored with a Hive SerDe read each partition with; None for other sources.
    partition: Partition | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Selection:
    """The partitions a source selected, the files it already knows, and what EXPLAIN says.

    Attributes:
        partitions: the selected partitions.
        origin: where they came from; it decides what EXPLAIN says after the figures.
        total: how many partitions there are to select from: a count still running on another
            metastore connection, a figure, or ``None`` for "unbounded" (a projection with an
            injected column).
        list_calls: directory listings made (discovery).
        metastore_filter: the filter string sent to the metastore, ``None`` when all
            partitions were fetched.
        client_filtered: whether the client evaluated predicates the metastore did not get.
        files: the data files to read, by partition location, where the source picked them
            (a discovery glob, or a source asked for files); a location missing here is read
            whole.
        cache_age: how old the partition list was when the metadata cache gave it; ``None``:
            fetched for this selection.
    """

    partitions: Sequence[SelectedPartition]
    origin: Origin
    total: Future[int] | int | None = None
    list_calls: int = 0
    metastore_filter: str | None = None
    client_filtered: bool = False
    files: Mapping[str, Sequence[str]] = field(default_factory=dict)
    cache_age: float | None = None


class PartitionSource(Protocol):
    """Where a target's partitions come from."""

    def select(self, predicate: Predicate) -> Selection:
        """The partitions ``predicate`` (over the partition columns) does not rule out."""
        ...


class Unpartitioned:
    """The source of a target without partition columns: its location holds all its files."""

    def select(self, predicate: Predicate) -> Selection:
        return Selection([], "unpartitioned")


def describe(name: str, selection: Selection | None, table_age: float | None = None,
             cache_state: str | None = None) -> str:
    """What EXPLAIN says about the partitions of the target called ``name``, e.g.
    ``hms db.t partitions=3/42 (metastore filter: dt = "2024-01-05"; client-side filter: no)``;
    ``None``: the selection waits for the query's runtime filters. Answers the metadata cache
    gave are named with their age (``table_age``: the table's definition), and then how the
    cache is kept (``cache_state``: the notification log's last event applied, or a TTL).

    A count still running is waited for here; one that failed shows as ``unknown``.
    """
    cached = [f"{what} {age:.1f} s old" for what, age in
              (("table", table_age), ("partitions", selection and selection.cache_age))
              if age is not None]
    from_cache = "; ".join(part for part in (f"metadata cache: {', '.join(cached)}",
                                             cache_state) if part) if cached else ""
    if selection is None:
        note = f"; {from_cache}" if from_cache else ""
        return f"hms {name} partitions=pending (selected when the query runs{note})"
    match selection.origin:
        case "unpartitioned":
            return f"hms {name} unpartitioned" + (f" ({from_cache})" if from_cache else "")
        case "storage":
            how = f"discovered on storage; list calls: {selection.list_calls}"
        case "projection":
            how = "partition projection; no listing"
        case "metastore":
            sent = selection.metastore_filter or "none"
            client = "yes" if selection.client_filtered else "no"
            how = f"metastore filter: {sent}; client-side filter: {client}"
    if from_cache:
        how = f"{how}; {from_cache}"
    return (f"hms {name} partitions={len(selection.partitions)}/{_total(name, selection)}"
            f" ({how})")


def _total(name: str, selection: Selection) -> str:
    total = selection.total
    if total is None:
        return "unbounded"
    if isinstance(total, int):
        return str(total)
    try:
        return str(total.result())
    except HmsCatalogError as exc:  # the figure is for EXPLAIN only: never fail a query on it
        log.warning("cannot count the partitions of %s: %s", name, exc)
        return "unknown"
