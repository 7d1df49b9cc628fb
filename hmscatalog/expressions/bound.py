"""The leaves of a bound predicate (see :mod:`hmscatalog.expressions.binding`).

A bound predicate is a tree of :class:`~hmscatalog.expressions.predicates.And`,
:class:`~hmscatalog.expressions.predicates.Or`, ``AlwaysTrue``, ``AlwaysFalse`` and the leaves
below, in negation normal form: there is no ``Not`` node. A leaf whose negation has no exact
positive form (``NOT (c <=> 1)``, ``NOT c LIKE 'a%'``, ``NOT c IN (...)``) carries
``negated=True`` and is evaluated as the negation of its positive form.

Each leaf refers to a :class:`Column`, resolved once: its position among the columns bound
against, its lower-case name and its Hive type. A name that is not one of those columns resolves
to a column with ``position=None``; nothing about it can be decided from partition values.

Literals are already of the column's Python type (as :func:`coerce_literal` gives them),
``None`` for SQL NULL, or :data:`UNCOMPARABLE` when no faithful conversion exists (a fraction for
an int column...): every visitor then treats that comparison as undecidable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hmscatalog.expressions.predicates import CompareOp, Predicate
from hmscatalog.partitions.types import HiveType


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


UNCOMPARABLE: Any = _Marker("UNCOMPARABLE")
"""A literal that cannot be compared with values of its column's type."""

UNSET: Any = _Marker("UNSET")
"""A partition value not known yet, in a sequence of values handed to a bound predicate (the
other projected columns while one column's candidates are checked). Positions past the end of
the sequence are unset too (the levels below a directory in a discovery walk)."""


@dataclass(frozen=True)
class Column:
    """A column a leaf refers to: its position among the bound columns (``None`` when it is not
    one of them, and then ``type`` is ``None`` too), lower-case name and Hive type."""

    position: int | None
    name: str
    type: HiveType | None


class BoundLeaf(Predicate):
    """Base of the leaves of a bound predicate."""


@dataclass(frozen=True)
class BoundCompare(BoundLeaf):
    column: Column
    op: CompareOp
    value: Any
    negated: bool = False


@dataclass(frozen=True)
class BoundNullSafe(BoundLeaf):
    """``column <=> value``."""

    column: Column
    value: Any
    negated: bool = False


@dataclass(frozen=True)
class BoundIn(BoundLeaf):
    column: Column
    values: tuple[Any, ...]
    negated: bool = False


@dataclass(frozen=True)
class BoundIsNull(BoundLeaf):
    """``column IS NULL``; negated, ``column IS NOT NULL``."""

    column: Column
    negated: bool = False


@dataclass(frozen=True)
class BoundStartsWith(BoundLeaf):
    column: Column
    prefix: str
    negated: bool = False


@dataclass(frozen=True)
class BoundCast(BoundLeaf):
    """``inner`` on ``CAST(column AS to)``: ``inner`` is bound (negation included) against the
    single column ``(column.name, to)``, to which the cast value is handed."""

    column: Column
    to: HiveType
    inner: Predicate


@dataclass(frozen=True)
class Undecidable(BoundLeaf):
    """A condition partition values cannot decide (:class:`Opaque` and the like)."""

    source: Predicate
