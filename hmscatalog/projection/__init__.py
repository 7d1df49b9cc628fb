"""Partition projection: a table's partitions computed from its properties, with no listing.

:func:`parse_projection` reads and validates Athena's ``projection.*`` table properties (and
YDB's spellings); :meth:`Projection.scan` narrows the partitions by a predicate and yields them
lazily with their value strings and locations.
"""

from hmscatalog.projection.columns import (
    ColumnProjection,
    DateProjection,
    EnumProjection,
    InjectedProjection,
    IntegerProjection,
)
from hmscatalog.projection.config import MAX_PARTITIONS, parse_projection
from hmscatalog.projection.dates import DateFormat, Unit
from hmscatalog.projection.errors import InvalidProjection, UnsupportedProjectionFilter
from hmscatalog.projection.values import (
    DEFAULT_MAX_PARTITIONS,
    ProjectedPartition,
    ProjectedScan,
    Projection,
)

__all__ = [
    "DEFAULT_MAX_PARTITIONS",
    "MAX_PARTITIONS",
    "ColumnProjection",
    "DateFormat",
    "DateProjection",
    "EnumProjection",
    "InjectedProjection",
    "IntegerProjection",
    "InvalidProjection",
    "ProjectedPartition",
    "ProjectedScan",
    "Projection",
    "Unit",
    "UnsupportedProjectionFilter",
    "parse_projection",
]
