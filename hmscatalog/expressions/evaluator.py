"""Three-valued evaluation of a predicate against one partition's values.

The result is ``True``, ``False`` or ``None`` (unknown). Unknown comes from SQL NULLs and from
conditions that partition values alone cannot decide (:class:`Opaque`, data columns, literals of
another type). Callers prune a partition only on ``False``: an unknown partition is kept and its
rows are filtered by the engine afterwards, so pruning never changes a query's result.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    AlwaysTrue,
    And,
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

_MISSING = object()
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


class PartitionEvaluator:
    """Evaluates predicates over partitions of one spec.

    Args:
        spec: the table's partition columns; other columns' conditions evaluate to unknown.
    """

    def __init__(self, spec: PartitionSpec) -> None:
        self._spec = spec
        self._types = {c.name: c.type for c in spec.columns}

    def evaluate(self, pred: Predicate, values: Mapping[str, Any]) -> bool | None:
        """Evaluate ``pred`` with ``values`` (lower-case column name → typed value)."""
        match pred:
            case AlwaysTrue():
                return True
            case AlwaysFalse():
                return False
            case And(left, right):
                first = self.evaluate(left, values)
                return False if first is False else _and(first, self.evaluate(right, values))
            case Or(left, right):
                first = self.evaluate(left, values)
                return True if first is True else _or(first, self.evaluate(right, values))
            case Not(child):
                inner = self.evaluate(child, values)
                return None if inner is None else not inner
            case IsNull(column):
                current = self._value(column, values)
                return None if current is _MISSING else current is None
            case IsNotNull(column):
                current = self._value(column, values)
                return None if current is _MISSING else current is not None
            case Compare(column, op, literal):
                return self._compare(column, op, literal, values)
            case EqualNullSafe(column, literal):
                current = self._value(column, values)
                if current is _MISSING:
                    return None
                if literal is None or current is None:
                    return literal is None and current is None
                return self._compare(column, "=", literal, values)
            case In(column, literals):
                result: bool | None = False
                for literal in literals:
                    result = _or(result, self._compare(column, "=", literal, values))
                    if result is True:
                        break
                return result
            case StartsWith(column, prefix):
                current = self._value(column, values)
                if current is _MISSING or current is None or not isinstance(current, str):
                    return None
                return current.startswith(prefix)
        return None

    def _value(self, column: str, values: Mapping[str, Any]) -> Any:
        name = column.lower()
        if name not in self._types:
            return _MISSING
        return values.get(name, _MISSING)

    def _compare(
        self, column: str, op: str, literal: Any, values: Mapping[str, Any]
    ) -> bool | None:
        current = self._value(column, values)
        if current is _MISSING or current is None or literal is None:
            return None
        try:
            typed = coerce_literal(literal, self._types[column.lower()])
            return bool(_OPS[op](current, typed))
        except (Uncomparable, TypeError):
            return None

    def keeps(self, pred: Predicate, partition_values: tuple[Any, ...]) -> bool:
        """Whether a partition with these typed values may hold matching rows."""
        mapping = dict(zip(self._spec.names, partition_values, strict=True))
        return self.evaluate(pred, mapping) is not False
