"""Three-valued evaluation of a bound predicate against partition values.

SQL's logic has three values: true, false and NULL. From partition values alone some conditions
cannot be decided at all (:class:`Opaque`, data columns, literals of another type): such a
condition may be any of the three. The evaluator therefore computes the *set of values a predicate
can take* for a partition (a bit mask over true/false/NULL, combined with Kleene's rules), which
stays exact through ``AND``, ``OR`` and negated leaves. A partition is pruned only when "true" is
not in that set: its rows could never pass the WHERE clause. Everything else is kept and filtered
again by the engine, so pruning never changes a query's result.

:func:`compile_truth` turns a bound predicate into nested functions once, so that evaluating a
partition only reads its values and compares them with literals already of the column's type.
The masks stay inside this package: callers ask :meth:`BoundPredicate.may_match`.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from hmscatalog.expressions.bound import (
    UNCOMPARABLE,
    UNSET,
    BoundCast,
    BoundCompare,
    BoundIn,
    BoundIsNull,
    BoundNullSafe,
    BoundStartsWith,
)
from hmscatalog.expressions.casts import UNKNOWN, cast_value
from hmscatalog.expressions.predicates import AlwaysFalse, AlwaysTrue, Predicate, fold
from hmscatalog.partitions.types import HiveType

# A set of possible SQL truth values, as a bit mask.
TRUE, FALSE, NULL = 1, 2, 4
ANY = TRUE | FALSE | NULL
_VALUES = (TRUE, FALSE, NULL)

Truth = Callable[[Sequence[Any]], int]
"""The set of truth values of a predicate for a sequence of partition values."""

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _kleene_and(a: int, b: int) -> int:
    if FALSE in (a, b):
        return FALSE
    return NULL if NULL in (a, b) else TRUE


def _kleene_or(a: int, b: int) -> int:
    if TRUE in (a, b):
        return TRUE
    return NULL if NULL in (a, b) else FALSE


def _lift(rule: Callable[[int, int], int]) -> list[list[int]]:
    """``rule`` over sets of truth values, as a table indexed by two masks."""
    return [[_combine(left, right, rule) for right in range(ANY + 1)] for left in range(ANY + 1)]


def _combine(left: int, right: int, rule: Callable[[int, int], int]) -> int:
    result = 0
    for a in _VALUES:
        if left & a:
            for b in _VALUES:
                if right & b:
                    result |= rule(a, b)
    return result


_AND = _lift(_kleene_and)
_OR = _lift(_kleene_or)
_NOT = [(FALSE if mask & TRUE else 0) | (TRUE if mask & FALSE else 0) | (mask & NULL)
        for mask in range(ANY + 1)]


def compile_truth(root: Predicate) -> Truth:
    """The evaluation of a bound predicate (see :mod:`hmscatalog.expressions.bound`)."""
    return fold(root, _leaf, _both, _either)


def _both(left: Truth, right: Truth) -> Truth:
    def truth(values: Sequence[Any]) -> int:
        first = left(values)
        return FALSE if first == FALSE else _AND[first][right(values)]
    return truth


def _either(left: Truth, right: Truth) -> Truth:
    def truth(values: Sequence[Any]) -> int:
        first = left(values)
        return TRUE if first == TRUE else _OR[first][right(values)]
    return truth


def _constant(mask: int) -> Truth:
    return lambda values: mask


def _leaf(node: Predicate) -> Truth:
    match node:
        case AlwaysTrue():
            return _constant(TRUE)
        case AlwaysFalse():
            return _constant(FALSE)
        case BoundIn(_, (), negated):
            return _constant(TRUE if negated else FALSE)  # whatever the column holds
        case BoundCast(column, to, inner) if column.position is not None:
            assert column.type is not None
            return _cast(column.position, column.type, to, compile_truth(inner))
        case (BoundCompare() | BoundNullSafe() | BoundIn() | BoundIsNull()
              | BoundStartsWith()) if node.column.position is not None:
            truth = _positive(node, node.column.position)
            if node.negated:
                return lambda values: _NOT[truth(values)]
            return truth
    return _constant(ANY)  # Opaque, or a condition on another column


def _positive(node: Predicate, position: int) -> Truth:
    """A leaf on the column at ``position``, without its ``negated`` flag."""
    match node:
        case BoundCompare(_, op, literal):
            compare = _OPS[op]
            return lambda values: _compare(compare, _at(values, position), literal)
        case BoundNullSafe(_, literal):
            return lambda values: _null_safe(_at(values, position), literal)
        case BoundIn(_, literals):
            return _membership(position, literals)
        case BoundIsNull():
            return lambda values: _null(_at(values, position))
        case BoundStartsWith(_, prefix):
            return lambda values: _starts_with(_at(values, position), prefix)
    return _constant(ANY)


def _at(values: Sequence[Any], position: int) -> Any:
    return values[position] if position < len(values) else UNSET


def _compare(compare: Callable[[Any, Any], Any], current: Any, literal: Any) -> int:
    if current is UNSET:
        return ANY
    if current is None or literal is None:
        return NULL
    if literal is UNCOMPARABLE:
        return ANY
    if _nan(current) or _nan(literal):
        # Spark orders NaN above every other FLOAT or DOUBLE and takes NaN = NaN: compared as
        # "is NaN", NaN is greater than every number and equal to itself.
        current, literal = _nan(current), _nan(literal)
    try:
        return TRUE if compare(current, literal) else FALSE
    except TypeError:
        return ANY


def _nan(value: Any) -> bool:
    return type(value) is float and value != value


def _null_safe(current: Any, literal: Any) -> int:
    if current is UNSET:
        return ANY
    if literal is None or current is None:
        return TRUE if literal is None and current is None else FALSE
    return _compare(operator.eq, current, literal)


def _in(current: Any, literals: tuple[Any, ...]) -> int:
    if current is UNSET:
        return ANY
    result = FALSE
    for literal in literals:
        result = _OR[result][_compare(operator.eq, current, literal)]
        if result == TRUE:
            break
    return result


# Types whose equality agrees with their hashes, across all of them (Python's numbers, strings,
# dates and times), and whose == never raises between them.
_HASHED = frozenset({bool, int, float, Decimal, str, datetime.date, datetime.datetime})


def _hashed(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return value == value  # not NaN
    if kind is Decimal:
        return not value.is_nan()
    return kind in _HASHED


def _membership(position: int, literals: tuple[Any, ...]) -> Truth:
    """``IN`` as one set lookup for the values that allow it (a runtime filter's list can hold
    thousands), the rest compared one by one: the same truth as :func:`_in` over them all."""
    hashed = frozenset(literal for literal in literals if _hashed(literal))
    rest = tuple(literal for literal in literals if not _hashed(literal))

    def truth(values: Sequence[Any]) -> int:
        current = _at(values, position)
        if not _hashed(current):
            return _in(current, literals)
        return TRUE if current in hashed else _in(current, rest)
    return truth


def _null(current: Any) -> int:
    if current is UNSET:
        return ANY
    return TRUE if current is None else FALSE


def _starts_with(current: Any, prefix: str) -> int:
    if current is None:
        return NULL
    if not isinstance(current, str):
        return ANY  # also UNSET
    return TRUE if current.startswith(prefix) else FALSE


def _cast(position: int, source: HiveType, target: HiveType, inner: Truth) -> Truth:
    def truth(values: Sequence[Any]) -> int:
        current = _at(values, position)
        if current is UNSET:
            return ANY
        casted = cast_value(current, source, target)
        return ANY if casted is UNKNOWN else inner((casted,))
    return truth
