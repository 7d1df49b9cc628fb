"""Partitions of a projected table: computed from its ``projection.*`` properties, no listing.

Registered partitions are ignored while projection is enabled (as in Athena). Projected
partitions whose directories do not exist are simply empty: Spark's file index skips a missing
root directory, and the pyarrow path skips a location that lists as missing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from hmscatalog.expressions.predicates import Predicate
from hmscatalog.metastore.model import Table
from hmscatalog.projection import Projection, UnsupportedProjectionFilter, parse_projection
from hmscatalog.sources.metastore import PartitionSelection


@dataclass(frozen=True)
class ProjectedSelection:
    """The selected partitions, and the table's projected total (``None`` when an injected
    column makes it unbounded)."""

    selection: PartitionSelection
    total: int | None


def projection_of(table: Table) -> Projection | None:
    """The table's projection settings, validated; ``None`` when projection is not enabled.

    Raises:
        InvalidProjection: naming the column and property that are wrong.
    """
    if not table.partition_keys and "projection.enabled" not in table.parameters:
        return None
    columns = [(c.name, c.type) for c in table.partition_spec.columns]
    return parse_projection(table.parameters, columns, table.location or "",
                            table=table.qualified_name)


def select_projected(table: Table, projection: Projection,
                     predicate: Predicate) -> ProjectedSelection:
    """The projected partitions ``predicate`` does not rule out, as metastore partitions.

    Raises:
        UnsupportedProjectionFilter: an injected column has no equality/IN filter.
        TooManyPartitions: more than the table's cap would be read (nothing is read).
    """
    scan = projection.scan(predicate)
    partitions = [table.partition_at(found.values, found.location) for found in scan]
    try:
        total: int | None = projection.scan(None, max_partitions=sys.maxsize).count()
    except UnsupportedProjectionFilter:
        total = None
    return ProjectedSelection(PartitionSelection(partitions, len(partitions), total, None, True),
                              total)
