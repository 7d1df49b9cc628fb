"""The finite set of values a predicate allows a column, when it pins the column down.

``dt = 'a'`` pins ``dt`` to ``{'a'}``, ``dt IN ('a', 'b') AND hr = 1`` pins ``dt`` to
``{'a', 'b'}``, ``dt = 'a' OR dt = 'b'`` to ``{'a', 'b'}``; a range, a cast or a condition on
another column leaves it free (``None``). Discovery uses this to probe directories by name
instead of listing their parent, and projection to pick values instead of enumerating them.
The answer may be larger than the true set (it never drops a value the predicate allows).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from hmscatalog.expressions.bound import UNCOMPARABLE, BoundCompare, BoundIn, BoundNullSafe
from hmscatalog.expressions.instants import Instant
from hmscatalog.expressions.predicates import AlwaysFalse, Predicate, fold

Pinned = frozenset[Any] | None


def pinned_values(root: Predicate, position: int) -> Pinned:
    """The non-NULL values of the column at ``position`` (of its type) that can make the bound
    predicate ``root`` true, or ``None`` when it does not restrict the column to a finite set."""
    return fold(root, partial(_leaf, position), _both, _either)


def _leaf(position: int, node: Predicate) -> Pinned:
    match node:
        case AlwaysFalse():
            return frozenset()
        case BoundNullSafe(column, None, False) if column.position == position:
            return None  # pins the column to NULL, which this set does not express
        case (BoundCompare(column, "=", value, False)
              | BoundNullSafe(column, value, False)) if column.position == position:
            return _typed([value])
        case BoundIn(column, values, False) if column.position == position:
            return _typed(values)
    return None


def _both(first: Pinned, second: Pinned) -> Pinned:
    if first is None or second is None:
        return first if second is None else second
    return first & second


def _either(first: Pinned, second: Pinned) -> Pinned:
    return None if first is None or second is None else first | second


def _typed(values: Any) -> Pinned:
    """The literals as a set; ``None`` (no pinning) if one has no faithful value of the
    column's type, since the engine's comparison might then still match. A TIMESTAMP instant
    pins nothing either: two wall-clock values can name it (one in a daylight-saving gap);
    nor does a zero or NaN of a FLOAT or DOUBLE column (``0.0`` and ``-0.0`` are equal but
    named apart, and NaN equals NaN only in Spark's comparisons, not in a set)."""
    if any(value is UNCOMPARABLE or isinstance(value, Instant)
           or (type(value) is float and not value) or value != value for value in values):
        return None
    return frozenset(value for value in values if value is not None)  # `= NULL` is never true
