"""Partitions of a metastore table that may match a predicate.

What the metastore can evaluate goes to it as a filter string; every partition it returns is then
checked against the whole predicate on the client with three-valued logic, and only a definite
"false" drops it. The result is therefore exactly the partitions the predicate cannot rule out,
whatever part of it the metastore understood.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from hmscatalog.errors import HmsCatalogError, InvalidFilter, InvalidPartitionValue
from hmscatalog.expressions.binding import BoundPredicate, bind
from hmscatalog.expressions.metastore_filter import metastore_filter
from hmscatalog.expressions.predicates import AlwaysFalse, AlwaysTrue, Predicate
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import parse_part_name
from hmscatalog.sources.source import SelectedPartition, Selection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PartitionSelection:
    """The outcome of a selection, with what EXPLAIN needs to say how it was made.

    Attributes:
        partitions: the selected partitions.
        fetched: how many partitions the metastore returned before client-side filtering.
        total: how many partitions the table has (``None`` unless asked for).
        metastore_filter: the filter string sent, or ``None`` when all partitions were fetched.
        client_filtered: whether the client evaluated predicates the metastore did not get.
        cache_age: how old the fetched list was when ``cache`` gave it; ``None``: fetched now.
    """

    partitions: list[Partition]
    fetched: int
    total: int | None
    metastore_filter: str | None
    client_filtered: bool
    cache_age: float | None = None


def _typed(part: Partition, table: Table) -> tuple[Any, ...] | None:
    try:
        return part.typed_values(table.partition_spec)
    except InvalidPartitionValue:
        return None


def select_partitions(
    client: MetastoreClient, table: Table, predicate: Predicate, count_total: bool = False,
    cache: MetadataCache | None = None,
) -> PartitionSelection:
    """Partitions of ``table`` that ``predicate`` (over its columns) does not rule out; the
    metastore's answers come from ``cache`` while it has them.

    A partition whose stored value does not parse as its column's type is kept, since nothing
    can be decided about it.
    """
    cache = cache or MetadataCache(0)
    database, name = table.database, table.name
    spec = table.partition_spec
    total = cache.count(database, name, lambda: client.count_partitions(database, name)).value \
        if count_total else None
    if isinstance(predicate, AlwaysFalse):
        return PartitionSelection([], 0, total, None, True)
    bound = bind(predicate, spec)
    plan = metastore_filter(bound)
    text = plan.text
    if text is not None:
        try:
            found = cache.partitions(database, name, text, partial(
                client.get_partitions_by_filter, database, name, text))
        except InvalidFilter as exc:
            log.warning("metastore rejected %s; choosing partitions by name on the client", exc)
            text = None
    if text is None and not isinstance(predicate, AlwaysTrue):
        # Nothing the metastore can evaluate (a string range...): choose by the partitions'
        # names, then fetch only those, in batches, rather than every partition object.
        found = cache.partitions(database, name, f"names matching {predicate!r}", partial(
            _by_names, client, table, bound))
    elif text is None:
        found = cache.partitions(database, name, None,
                                 partial(client.list_partitions, database, name))
    fetched, age = found.value, found.age
    if isinstance(predicate, AlwaysTrue):
        return PartitionSelection(fetched, len(fetched), total, text, False, age)
    kept = []
    for part in fetched:
        values = _typed(part, table)
        if values is None or bound.may_match(values):
            kept.append(part)
    return PartitionSelection(kept, len(fetched), total, text,
                              plan.residual is not None or text is None, age)


def _by_names(client: MetastoreClient, table: Table, bound: BoundPredicate) -> list[Partition]:
    """The partitions whose names ``bound`` cannot rule out (kept, too, when a value does not
    parse as its column's type), fetched by name."""
    spec = table.partition_spec
    chosen = []
    for part_name in client.list_partition_names(table.database, table.name):
        try:
            values = spec.from_strings([value for _, value in parse_part_name(part_name)])
        except HmsCatalogError:
            chosen.append(part_name)
            continue
        if bound.may_match(values):
            chosen.append(part_name)
    return client.get_partitions_by_names(table.database, table.name, chosen)


class MetastoreAccess(Protocol):
    """The metastore a source reads registered partitions from (a catalog's context)."""

    @property
    def metastore(self) -> MetastoreClient: ...

    @property
    def cache(self) -> MetadataCache: ...

    def count_later(self, table: Table) -> Future[int]:
        """Start counting ``table``'s partitions on another connection; the future holds the
        count."""
        ...


class MetastoreSource:
    """The partitions registered in the metastore (:func:`select_partitions`); the table's
    total is counted in parallel, so EXPLAIN's figure adds no latency."""

    def __init__(self, access: MetastoreAccess, table: Table) -> None:
        self._access = access
        self._table = table

    def select(self, predicate: Predicate) -> Selection:
        total = self._access.count_later(self._table)
        chosen = select_partitions(self._access.metastore, self._table, predicate,
                                   cache=self._access.cache)
        return Selection([SelectedPartition(tuple(p.values), p.location, p)
                          for p in chosen.partitions], "metastore", total,
                         metastore_filter=chosen.metastore_filter,
                         client_filtered=chosen.client_filtered, cache_age=chosen.cache_age)
