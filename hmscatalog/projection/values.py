"""A table's validated projection (:class:`Projection`, as
:func:`~hmscatalog.projection.config.parse_projection` makes it) and the partitions of it that a
query may read.

For each column the predicate first narrows the candidates without generating them:

* equality and ``IN`` (:meth:`BoundPredicate.pinned`) pick values, kept only if the projection
  produces them (in the enum; on the integer range and interval grid; for dates, a string that
  parses and formats back to itself onto the grid);
* comparisons (``<``, ``<=``, ``>``, ``>=``, ``=``; BETWEEN is their ``AND``) under ``AND``,
  ``OR`` and ``NOT`` cut a range of indices, found by bisection, on columns whose typed values
  grow with the index (integers; dates; strings that sort as the values they show);
* anything else keeps every value.

The predicate is bound to the projection's columns once per scan (in negation normal form, so
``NOT`` needs no handling of its own here). Narrowing only ever over-approximates. The result is
then made exact by three-valued evaluation (:meth:`BoundPredicate.may_match`): a value is kept
only if the predicate can still be true with it and every other column unknown, and a partition
only if the predicate can be true for its values. So the partitions produced are exactly those of
the full projection the evaluation does not rule out, whatever the predicate.

The cartesian product across columns is generated lazily. :meth:`ProjectedScan.count` is the
product of the per-column candidate counts (an upper bound of what iteration yields, computed
without generating anything); a scan whose count exceeds the limit fails before any partition is
generated, as Athena's does.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hmscatalog import config
from hmscatalog.errors import TooManyPartitions
from hmscatalog.expressions.binding import BoundPredicate, bind
from hmscatalog.expressions.bound import (
    UNCOMPARABLE,
    UNSET,
    BoundCompare,
    BoundIn,
    BoundIsNull,
    BoundNullSafe,
)
from hmscatalog.expressions.instants import Instant
from hmscatalog.expressions.predicates import (
    NEGATED_OP,
    AlwaysFalse,
    AlwaysTrue,
    Predicate,
    fold,
)
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.partitions.spec import PartitionColumn, PartitionSpec
from hmscatalog.projection.columns import ColumnProjection, GridProjection, InjectedProjection
from hmscatalog.projection.errors import UnsupportedProjectionFilter

Span = tuple[int, int]  # half-open range of indices; None means "not restricted"
_EMPTY: Span = (0, 0)
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
# The table's default limit, and the count above which a scan logs a warning.
DEFAULT_MAX_PARTITIONS = config.default(config.PROJECTION_MAX_PARTITIONS, int)
DEFAULT_WARN_PARTITIONS = config.default(config.PROJECTION_WARN_PARTITIONS, int)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Projection:
    """A table's validated projection: one column projection per partition column, in order."""

    table: str | None
    table_location: str
    columns: tuple[ColumnProjection, ...]
    template: str | None = None
    max_partitions: int = DEFAULT_MAX_PARTITIONS
    warn_partitions: int = DEFAULT_WARN_PARTITIONS

    @property
    def spec(self) -> PartitionSpec:
        return PartitionSpec(tuple(PartitionColumn(c.name, c.hive_type) for c in self.columns))

    def column(self, name: str) -> ColumnProjection:
        """The projection of partition column ``name`` (case-insensitive)."""
        lowered = name.lower()
        for column in self.columns:
            if column.name == lowered:
                return column
        raise KeyError(name)

    def scan(self, predicate: Predicate | None = None, *,
             max_partitions: int | None = None) -> ProjectedScan:
        """The partitions a query with this WHERE clause (on any columns) may read.

        Raises:
            UnsupportedProjectionFilter: an injected column is not pinned to values.
            TooManyPartitions: more than ``max_partitions`` (default: the table's
                ``hmscatalog.projection.max-partitions``, else 1,000,000) would be produced.
        """
        limit = self.max_partitions if max_partitions is None else max_partitions
        return ProjectedScan(self, predicate, limit)


@dataclass(frozen=True)
class ProjectedPartition:
    """One projected partition.

    Attributes:
        values: the value strings, as the metastore would store them.
        typed: the typed values (as :func:`parse_value` gives them), for evaluation.
        name: the partition name (``dt=2024-01-05/hr=07``).
        location: where its files are: the template filled in, or the table location plus the
            Hive-escaped ``col=value`` path.
    """

    values: tuple[str, ...]
    typed: tuple[Any, ...]
    name: str
    location: str


class _Candidates:
    """One column's candidate values, generated on demand and checked against the predicate with
    the other columns unknown. Later iterations replay the values already generated, so inner
    columns of the product are checked once per value, not once per outer combination."""

    def __init__(self, scan: ProjectedScan, position: int, size: int,
                 produce: Callable[[], Iterator[tuple[Any, str, str]]]) -> None:
        self.size = size
        self._scan, self._produce = scan, produce
        self._unset = (UNSET,) * position  # the columns before this one
        self._source: Iterator[tuple[Any, str, str]] | None = None
        self._cache: list[tuple[Any, str, str]] = []
        self._done = False
        self.outermost = False

    def _next(self, source: Iterator[tuple[Any, str, str]]) -> tuple[Any, str, str] | None:
        for item in source:
            self._scan.candidates_generated += 1
            if self._scan.bound.may_match((*self._unset, item[0])):
                return item
        return None

    def __iter__(self) -> Iterator[tuple[Any, str, str]]:
        if self.outermost:  # iterated once per scan pass: nothing to replay, nothing to keep
            source = self._produce()
            while (item := self._next(source)) is not None:
                yield item
            return
        position = 0
        while True:
            if position < len(self._cache):
                yield self._cache[position]
                position += 1
            elif self._done:
                return
            else:
                if self._source is None:
                    self._source = self._produce()
                item = self._next(self._source)
                if item is None:
                    self._done = True
                    return
                self._cache.append(item)


class ProjectedScan:
    """The partitions of one scan of a projected table; iterate to get them, lazily.

    ``candidates_generated`` counts the column values generated so far (each checked once),
    which shows how little work a narrow query does on a wide projection.
    """

    def __init__(self, projection: Projection, predicate: Predicate | None,
                 max_partitions: int) -> None:
        self.projection = projection
        self.predicate = predicate if predicate is not None else AlwaysTrue()
        self.bound = bind(self.predicate, projection.spec)
        self.candidates_generated = 0
        self._columns = [self._candidates(position, column)
                         for position, column in enumerate(projection.columns)]
        self._columns[0].outermost = True
        self._count = 1
        for column in self._columns:
            self._count *= column.size
        table = projection.table or projection.table_location
        columns = [c.name for c in projection.columns]
        if self._count > max_partitions:
            raise TooManyPartitions(
                f"Query over table '{table}' can potentially read {self._count:,} projected "
                f"partitions, more than the limit of {max_partitions:,}; add conditions on the "
                f"partition columns {columns} or raise the table "
                f"property 'hmscatalog.projection.max-partitions'")
        if self._count > projection.warn_partitions:
            log.warning("query over table '%s' considers %s projected partitions (warning above "
                        "%s, %s); conditions on the partition columns %s would bound it",
                        table, f"{self._count:,}", f"{projection.warn_partitions:,}",
                        config.PROJECTION_WARN_PARTITIONS, columns)

    def count(self) -> int:
        """How many partitions the scan considers at most (the product of the per-column
        candidate counts); iteration yields this many or fewer."""
        return self._count

    def __iter__(self) -> Iterator[ProjectedPartition]:
        if self._count == 0:
            return
        names = [c.name for c in self.projection.columns]
        for combination in _product(self._columns):
            typed = tuple(item[0] for item in combination)
            if len(names) > 1 and not self.bound.may_match(typed):
                continue
            values = tuple(item[1] for item in combination)
            texts = [item[2] for item in combination]
            yield ProjectedPartition(values, typed, make_part_name(names, list(values)),
                                     self._location(names, texts))

    def _location(self, names: list[str], texts: list[str]) -> str:
        template = self.projection.template
        if template is None:
            base = self.projection.table_location.rstrip("/")
            return base + "/" + make_part_name(names, texts)
        by_name = dict(zip(names, texts, strict=True))
        return _PLACEHOLDER.sub(lambda m: by_name[m.group(1).lower()], template)

    def _candidates(self, position: int,
                    column: GridProjection | InjectedProjection) -> _Candidates:
        if isinstance(column, InjectedProjection):
            pinned = self.bound.pinned(column.name)
            if pinned is None:
                raise UnsupportedProjectionFilter(
                    f"For the injected projected partition column {column.name}, the WHERE "
                    "clause must contain only static equality conditions, and at least one "
                    "such condition must be present."
                    + (f" (table {self.projection.table})" if self.projection.table else ""))
            ordered = _sorted(pinned)
            return _Candidates(self, position, len(ordered),
                               lambda: ((v, *column.strings_of(v)) for v in ordered))
        indices = _indices(column, position, self.bound)
        size = indices[1] - indices[0] if isinstance(indices, tuple) else len(indices)
        chosen: Iterable[int] = range(*indices) if isinstance(indices, tuple) else indices
        return _Candidates(self, position, size,
                           lambda: ((column.typed_at(i), *column.strings_at(i)) for i in chosen))


def _product(columns: Sequence[_Candidates]) -> Iterator[tuple[tuple[Any, str, str], ...]]:
    if not columns:
        yield ()
        return
    for item in columns[0]:
        for rest in _product(columns[1:]):
            yield (item, *rest)


def _sorted(values: Iterable[Any]) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=repr)


def _indices(column: GridProjection, position: int, pred: BoundPredicate) -> Span | list[int]:
    """The candidate indices of a grid column: a span, or a sorted list of picked indices.

    Values picked by ``=``/``IN`` are looked up directly (no enumeration, so the cost does not
    grow with the column's size), and kept only within the span of the other conditions;
    conditions the span does not express are checked value by value later.
    """
    span = (fold(pred.root, lambda leaf: _span(leaf, column, position), _intersect, _union)
            if column.monotone else None)
    low, high = span if span is not None else (0, column.size)
    pinned = pred.pinned(column.name)
    if pinned is not None:
        return sorted({i for v in pinned
                       if (i := column.index_of(v)) is not None and low <= i < high})
    return low, high


def _span(leaf: Predicate, column: GridProjection, position: int) -> Span | None:
    """Indices where a leaf of a bound predicate can be true, as one range that holds them
    all, or ``None`` when the leaf does not restrict the column this way (``AND`` intersects
    ranges, ``OR`` joins them). Projected values are never NULL, so ``c IS NULL`` holds
    nowhere, and a negated comparison is the opposite one."""
    match leaf:
        case AlwaysTrue():
            return None
        case AlwaysFalse():
            return _EMPTY
        case BoundCompare(c, op, value, negated) if c.position == position:
            if value is None:
                return _EMPTY  # comparisons with NULL are never true, nor their negation
            return _compare(column, NEGATED_OP[op] if negated else op, value)
        case BoundNullSafe(c, value, False) if c.position == position:
            return _EMPTY if value is None else _compare(column, "=", value)
        case BoundIn(c, values, False) if c.position == position:
            result: Span | None = _EMPTY
            for value in values:
                if value is not None:
                    result = _union(result, _compare(column, "=", value))
            return result
        case BoundIsNull(c, negated) if c.position == position:
            return None if negated else _EMPTY
    return None


def _compare(column: GridProjection, op: str, literal: Any) -> Span | None:
    if literal is UNCOMPARABLE or (isinstance(literal, Instant) and not literal.fixed_offset):
        # Across a daylight-saving gap, later wall-clock values can be earlier instants
        # (02:30 is 03:30, after 03:00): the values are no longer sorted, so no bisection.
        return None
    try:
        first_ge = _bisect(column, lambda v: v >= literal)
        first_gt = _bisect(column, lambda v: v > literal)
    except TypeError:
        return None
    size = column.size
    spans: dict[str, Span] = {
        "<": (0, first_ge), "<=": (0, first_gt), ">": (first_gt, size), ">=": (first_ge, size),
        "=": (first_ge, first_gt),
    }
    return spans.get(op)  # `<>` leaves the column free


def _bisect(column: GridProjection, condition: Any) -> int:
    """The first index whose typed value meets ``condition`` (monotone in the index)."""
    low, high = 0, column.size
    while low < high:
        middle = (low + high) // 2
        if condition(column.typed_at(middle)):
            high = middle
        else:
            low = middle + 1
    return low


def _intersect(first: Span | None, second: Span | None) -> Span | None:
    if first is None or second is None:
        return second if first is None else first
    low, high = max(first[0], second[0]), min(first[1], second[1])
    return (low, high) if low < high else _EMPTY


def _union(first: Span | None, second: Span | None) -> Span | None:
    if first is None or second is None:
        return None
    if first[0] >= first[1]:
        return second
    if second[0] >= second[1]:
        return first
    return min(first[0], second[0]), max(first[1], second[1])
