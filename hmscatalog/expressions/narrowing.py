"""The finite set of values a predicate allows a column, when it pins the column down.

``dt = 'a'`` pins ``dt`` to ``{'a'}``, ``dt IN ('a', 'b') AND hr = 1`` pins ``dt`` to
``{'a', 'b'}``, ``dt = 'a' OR dt = 'b'`` to ``{'a', 'b'}``; a range, a cast or a condition on
another column leaves it free (``None``). Discovery uses this to probe directories by name
instead of listing their parent, and projection to pick values instead of enumerating them.
The answer may be larger than the true set (it never drops a value the predicate allows).
"""

from __future__ import annotations

from typing import Any

from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    And,
    Compare,
    EqualNullSafe,
    In,
    Or,
    Predicate,
)
from hmscatalog.partitions.types import HiveType


def pinned_values(pred: Predicate, column: str, hive_type: HiveType) -> frozenset[Any] | None:
    """The non-NULL values of ``column`` (typed as ``hive_type``) that can make ``pred`` true,
    or ``None`` when ``pred`` does not restrict the column to a finite set."""
    column = column.lower()
    match pred:
        case AlwaysFalse():
            return frozenset()
        case EqualNullSafe(name, None) if name.lower() == column:
            return None  # pins the column to NULL, which this set does not express
        case Compare(name, "=", value) | EqualNullSafe(name, value) if name.lower() == column:
            return _typed([value], hive_type)
        case In(name, values) if name.lower() == column:
            return _typed(values, hive_type)
        case And(left, right):
            first = pinned_values(left, column, hive_type)
            second = pinned_values(right, column, hive_type)
            if first is None or second is None:
                return first if second is None else second
            return first & second
        case Or(left, right):
            first = pinned_values(left, column, hive_type)
            second = pinned_values(right, column, hive_type)
            return None if first is None or second is None else first | second
    return None


def _typed(values: Any, hive_type: HiveType) -> frozenset[Any] | None:
    """Literals as values of the column's type; ``None`` (no pinning) if one cannot be
    converted faithfully, since the engine's comparison might then still match."""
    typed = set()
    for value in values:
        if value is None:
            continue  # `= NULL` is never true
        try:
            typed.add(coerce_literal(value, hive_type))
        except Uncomparable:
            return None
    return frozenset(typed)
