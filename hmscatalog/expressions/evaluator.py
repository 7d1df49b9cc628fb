"""Three-valued evaluation of a predicate against one partition's values.

SQL's logic has three values: true, false and NULL. From partition values alone some conditions
cannot be decided at all (:class:`Opaque`, data columns, literals of another type): such a
condition may be any of the three. The evaluator therefore computes the *set of values a predicate
can take* for a partition (a bit mask over true/false/NULL, combined with Kleene's rules), which
stays exact through ``NOT``, ``AND`` and ``OR``. A partition is pruned only when "true" is not in
that set: its rows could never pass the WHERE clause. Everything else is kept and filtered again
by the engine, so pruning never changes a query's result.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from hmscatalog.expressions.casts import UNKNOWN, cast_value
from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    Cast,
    Compare,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Not,
    Or,
    Predicate,
    StartsWith,
)
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import parse_hive_type

_MISSING = object()
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}

# A set of possible SQL truth values, as a bit mask.
TRUE, FALSE, NULL = 1, 2, 4
ANY = TRUE | FALSE | NULL
_VALUES = (TRUE, FALSE, NULL)


def _kleene_and(a: int, b: int) -> int:
    if FALSE in (a, b):
        return FALSE
    return NULL if NULL in (a, b) else TRUE


def _kleene_or(a: int, b: int) -> int:
    if TRUE in (a, b):
        return TRUE
    return NULL if NULL in (a, b) else FALSE


def _combine(left: int, right: int, rule: Callable[[int, int], int]) -> int:
    result = 0
    for a in _VALUES:
        if left & a:
            for b in _VALUES:
                if right & b:
                    result |= rule(a, b)
    return result


def _negate(mask: int) -> int:
    return (FALSE if mask & TRUE else 0) | (TRUE if mask & FALSE else 0) | (mask & NULL)


def _truth(value: bool) -> int:
    return TRUE if value else FALSE


class PartitionEvaluator:
    """Evaluates predicates over partitions of one spec.

    Args:
        spec: the table's partition columns; other columns' conditions evaluate to unknown.
    """

    def __init__(self, spec: PartitionSpec) -> None:
        self._spec = spec
        self._types = {c.name: c.type for c in spec.columns}
        self._casts: dict[tuple[str, str], PartitionEvaluator] = {}

    def evaluate(self, pred: Predicate, values: Mapping[str, Any]) -> bool | None:
        """``True`` if ``pred`` is certainly true, ``False`` if it can never be true (false or
        NULL), ``None`` if partition values cannot decide.

        Args:
            values: lower-case column name → typed value.
        """
        mask = self.possible(pred, values)
        if mask == TRUE:
            return True
        return False if not mask & TRUE else None

    def possible(self, pred: Predicate, values: Mapping[str, Any]) -> int:
        """The set of truth values ``pred`` can take, as a mask of TRUE, FALSE and NULL."""
        match pred:
            case AlwaysTrue():
                return TRUE
            case AlwaysFalse():
                return FALSE
            case And(left, right):
                first = self.possible(left, values)
                if first == FALSE:
                    return FALSE
                return _combine(first, self.possible(right, values), _kleene_and)
            case Or(left, right):
                first = self.possible(left, values)
                if first == TRUE:
                    return TRUE
                return _combine(first, self.possible(right, values), _kleene_or)
            case Not(child):
                return _negate(self.possible(child, values))
            case IsNull(column):
                current = self._value(column, values)
                return ANY if current is _MISSING else _truth(current is None)
            case IsNotNull(column):
                current = self._value(column, values)
                return ANY if current is _MISSING else _truth(current is not None)
            case Compare(column, op, literal):
                return self._compare(column, op, literal, values)
            case EqualNullSafe(column, literal):
                current = self._value(column, values)
                if current is _MISSING:
                    return ANY
                if literal is None or current is None:
                    return _truth(literal is None and current is None)
                return self._compare(column, "=", literal, values)
            case In(column, literals):
                result = FALSE
                for literal in literals:
                    result = _combine(result, self._compare(column, "=", literal, values),
                                      _kleene_or)
                    if result == TRUE:
                        break
                return result
            case Cast(column, to, inner):
                return self._cast(column, to, inner, values)
            case StartsWith(column, prefix):
                current = self._value(column, values)
                if current is None:
                    return NULL
                if current is _MISSING or not isinstance(current, str):
                    return ANY
                return _truth(current.startswith(prefix))
        return ANY

    def _cast(self, column: str, to: str, inner: Predicate, values: Mapping[str, Any]) -> int:
        current = self._value(column, values)
        if current is _MISSING:
            return ANY
        name = column.lower()
        casted = cast_value(current, self._types[name], parse_hive_type(to))
        if casted is UNKNOWN:
            return ANY
        evaluator = self._casts.get((name, to))
        if evaluator is None:
            evaluator = self._casts[(name, to)] = PartitionEvaluator(PartitionSpec.of((name, to)))
        return evaluator.possible(inner, {name: casted})

    def _value(self, column: str, values: Mapping[str, Any]) -> Any:
        name = column.lower()
        if name not in self._types:
            return _MISSING
        return values.get(name, _MISSING)

    def _compare(
        self, column: str, op: str, literal: Any, values: Mapping[str, Any]
    ) -> int:
        current = self._value(column, values)
        if current is _MISSING:
            return ANY
        if current is None or literal is None:
            return NULL
        try:
            typed = coerce_literal(literal, self._types[column.lower()])
            return _truth(bool(_OPS[op](current, typed)))
        except (Uncomparable, TypeError):
            return ANY

    def keeps(self, pred: Predicate, partition_values: tuple[Any, ...]) -> bool:
        """Whether a partition with these typed values may hold matching rows."""
        mapping = dict(zip(self._spec.names, partition_values, strict=True))
        return bool(self.possible(pred, mapping) & TRUE)
