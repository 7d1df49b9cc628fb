"""One predicate model for partition pruning.

Predicates refer to columns by name and hold typed Python values (``int``, ``str``,
``datetime.date``...; ``None`` is SQL NULL). Before use, a predicate is bound to a table's
partition columns once (:func:`hmscatalog.expressions.binding.bind`); visitors then turn the bound
predicate into a metastore filter string (:mod:`hmscatalog.expressions.metastore_filter`) or
evaluate it against partitions with three-valued logic (:mod:`hmscatalog.expressions.evaluator`).
Every visitor walks the tree with :func:`fold`.

:class:`Cast` applies a predicate to a cast of a partition column (``CAST(dt AS DATE) > ...``);
it is evaluated on the client only. :class:`Opaque` stands for a condition this model cannot
express (another function of a column, a data column): it is never pushed anywhere and always
evaluates to "unknown", so it never prunes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

T = TypeVar("T")
CompareOp = Literal["=", "<>", "<", "<=", ">", ">="]
NEGATED_OP: dict[str, CompareOp] = {
    "=": "<>", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<",
}


class Predicate:
    """Base of every predicate node. ``&``, ``|`` and ``~`` build And, Or and Not."""

    def __and__(self, other: Predicate) -> Predicate:
        return And(self, other)

    def __or__(self, other: Predicate) -> Predicate:
        return Or(self, other)

    def __invert__(self) -> Predicate:
        return Not(self)


@dataclass(frozen=True)
class AlwaysTrue(Predicate):
    pass


@dataclass(frozen=True)
class AlwaysFalse(Predicate):
    pass


@dataclass(frozen=True)
class And(Predicate):
    left: Predicate
    right: Predicate


@dataclass(frozen=True)
class Or(Predicate):
    left: Predicate
    right: Predicate


@dataclass(frozen=True)
class Not(Predicate):
    child: Predicate


@dataclass(frozen=True)
class Compare(Predicate):
    """``column <op> value``; with a NULL value the result is always unknown."""

    column: str
    op: CompareOp
    value: Any


@dataclass(frozen=True)
class EqualNullSafe(Predicate):
    """``column <=> value``: NULL equals NULL, never unknown."""

    column: str
    value: Any


@dataclass(frozen=True)
class In(Predicate):
    column: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class IsNull(Predicate):
    column: str


@dataclass(frozen=True)
class IsNotNull(Predicate):
    column: str


@dataclass(frozen=True)
class StartsWith(Predicate):
    """``column LIKE 'prefix%'`` on a string column."""

    column: str
    prefix: str


@dataclass(frozen=True)
class Opaque(Predicate):
    """A condition that cannot be decided from partition values; ``text`` is for display."""

    text: str


@dataclass(frozen=True)
class Cast(Predicate):
    """``inner`` applied to ``CAST(column AS to)`` rather than to the column itself: every
    column reference in ``inner`` is to ``column``, and its values are of type ``to`` (a Hive
    type string such as ``date``). Evaluated on the client only; where the cast of a value is
    not certain, the condition is unknown."""

    column: str
    to: str
    inner: Predicate


def eq(column: str, value: Any) -> Compare:
    return Compare(column, "=", value)


def in_(column: str, values: Iterable[Any]) -> In:
    return In(column, tuple(values))


def and_all(predicates: Iterable[Predicate]) -> Predicate:
    """Conjunction of ``predicates`` (``AlwaysTrue`` when there are none)."""
    result: Predicate | None = None
    for pred in predicates:
        result = pred if result is None else And(result, pred)
    return AlwaysTrue() if result is None else result


def fold(pred: Predicate, leaf: Callable[[Predicate], T], both: Callable[[T, T], T],
         either: Callable[[T, T], T], negate: Callable[[T], T] | None = None) -> T:
    """Fold a predicate bottom-up: ``leaf`` maps every node other than ``And``, ``Or`` and
    ``Not``; ``both`` combines the two sides of an ``And``, ``either`` those of an ``Or``, and
    ``negate`` the child of a ``Not`` (without it, a ``Not`` is passed to ``leaf`` whole).

    The one traversal of the predicate tree: binding, evaluation, metastore filters, narrowing
    and projection spans are each a ``fold`` with their own leaf rule.
    """
    def walk(node: Predicate) -> T:
        match node:
            case And(left, right):
                return both(walk(left), walk(right))
            case Or(left, right):
                return either(walk(left), walk(right))
            case Not(child) if negate is not None:
                return negate(walk(child))
        return leaf(node)

    return walk(pred)


_COLUMN_LEAVES = (Compare, EqualNullSafe, In, IsNull, IsNotNull, StartsWith, Cast)


def _same(value: T) -> T:
    return value


def columns_of(pred: Predicate) -> set[str]:
    """Lower-case names of the columns a predicate refers to."""
    return fold(pred,
                lambda n: {n.column.lower()} if isinstance(n, _COLUMN_LEAVES) else set(),
                operator.or_, operator.or_, _same)


def has_opaque(pred: Predicate) -> bool:
    """Whether part of ``pred`` (outside casts) is :class:`Opaque`."""
    return fold(pred, lambda n: isinstance(n, Opaque), operator.or_, operator.or_, _same)
