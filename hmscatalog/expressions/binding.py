"""Binding a predicate to partition columns, once per scan or selection.

:func:`bind` resolves every column name (case-insensitively) to its position and Hive type,
brings every literal to the column's Python type (:func:`coerce_literal`), and puts the predicate
in negation normal form: ``NOT`` is pushed down to the leaves by De Morgan's laws, a comparison
flips (``NOT c < 1`` is ``c >= 1``), ``NOT c IS NULL`` is ``c IS NOT NULL``, ``NOT`` over a cast
goes inside it. Leaves without an exact positive negation keep a ``negated`` flag: ``<=>``,
``LIKE``, ``IN``. (On ``float``/``double`` columns ``NOT c < 1`` is ``c >= 1`` too: Spark orders
NaN above every number, see :mod:`~hmscatalog.expressions.evaluator`.) Each of these steps is
exact under SQL's three-valued logic, so the bound predicate keeps exactly the partitions the
original would.

The visitors (evaluation, metastore filters, narrowing, projection spans) all work on the bound
form, so none of them looks a column up, coerces a literal or handles ``NOT`` again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hmscatalog.expressions.bound import (
    UNCOMPARABLE,
    BoundCast,
    BoundCompare,
    BoundIn,
    BoundIsNull,
    BoundNullSafe,
    BoundStartsWith,
    Column,
    Undecidable,
)
from hmscatalog.expressions.evaluator import TRUE, compile_truth
from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.narrowing import pinned_values
from hmscatalog.expressions.predicates import (
    NEGATED_OP,
    AlwaysFalse,
    AlwaysTrue,
    And,
    Cast,
    Compare,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Or,
    Predicate,
    StartsWith,
    fold,
)
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import HiveType, parse_hive_type


class BoundPredicate:
    """A predicate bound to partition columns by :func:`bind`.

    Partition values are handed over as a sequence in the columns' order (typed as
    :func:`parse_value` gives them, ``None`` for NULL). A shorter sequence leaves the remaining
    columns unknown, and so does :data:`~hmscatalog.expressions.bound.UNSET` at a position.

    Attributes:
        source: the predicate as given.
        columns: the columns bound against, in order.
        root: the bound predicate, in negation normal form.
    """

    def __init__(self, source: Predicate, columns: tuple[Column, ...], root: Predicate) -> None:
        self.source = source
        self.columns = columns
        self.root = root
        self._truth = compile_truth(root)

    def may_match(self, values: Sequence[Any]) -> bool:
        """Whether rows with these partition values may pass the predicate: ``False`` only
        when it can never be true for them (false or NULL); unknown keeps them."""
        return bool(self._truth(values) & TRUE)

    def evaluate(self, values: Sequence[Any]) -> bool | None:
        """``True`` if the predicate is certainly true for these values, ``False`` if it can
        never be true, ``None`` if the values cannot decide."""
        mask = self._truth(values)
        if mask == TRUE:
            return True
        return None if mask & TRUE else False

    def truth_values(self, values: Sequence[Any]) -> int:
        """The set of truth values the predicate can take, as a mask of
        :data:`~hmscatalog.expressions.evaluator.TRUE`, ``FALSE`` and ``NULL`` (for this
        package's tests; callers use :meth:`may_match`)."""
        return self._truth(values)

    def pinned(self, column: str) -> frozenset[Any] | None:
        """The non-NULL values of ``column`` that can make the predicate true, or ``None`` when
        the predicate does not restrict it to a finite set (see :func:`pinned_values`)."""
        position = next((c.position for c in self.columns if c.name == column.lower()), None)
        return None if position is None else pinned_values(self.root, position)


def bind(predicate: Predicate,
         columns: PartitionSpec | Iterable[tuple[str, HiveType]]) -> BoundPredicate:
    """Bind ``predicate`` to partition ``columns`` (a spec, or ``(name, Hive type)`` pairs).

    Raises:
        InvalidPartitionValue: a cast to a type name that is not a Hive type.
        ValueError, OverflowError: a literal :func:`coerce_literal` fails on other than by
            :class:`Uncomparable` (NaN or infinity for an integral column).
    """
    pairs = ([(c.name, c.type) for c in columns.columns] if isinstance(columns, PartitionSpec)
             else list(columns))
    resolved = tuple(Column(i, name.lower(), hive_type)
                     for i, (name, hive_type) in enumerate(pairs))
    by_name = {c.name: c for c in resolved}
    return BoundPredicate(predicate, resolved, _normal_form(predicate, by_name, False))


# A predicate bound with a polarity: called with True, it gives the bound negation.
_Polar = Callable[[bool], Predicate]


def _normal_form(pred: Predicate, columns: Mapping[str, Column], negated: bool) -> Predicate:
    def leaf(node: Predicate) -> _Polar:
        return lambda negative: _bind_leaf(node, columns, negative)

    def both(left: _Polar, right: _Polar) -> _Polar:
        return lambda negative: (Or if negative else And)(left(negative), right(negative))

    def either(left: _Polar, right: _Polar) -> _Polar:
        return lambda negative: (And if negative else Or)(left(negative), right(negative))

    def negate(child: _Polar) -> _Polar:
        return lambda negative: child(not negative)

    return fold(pred, leaf, both, either, negate)(negated)


def _bind_leaf(node: Predicate, columns: Mapping[str, Column], negated: bool) -> Predicate:
    match node:
        case AlwaysTrue():
            return AlwaysFalse() if negated else node
        case AlwaysFalse():
            return AlwaysTrue() if negated else node
        case Compare(name, op, value):
            column = _resolve(name, columns)
            literal = _coerce(value, column)
            if negated:
                return BoundCompare(column, NEGATED_OP[op], literal)
            return BoundCompare(column, op, literal, negated)
        case EqualNullSafe(name, value):
            column = _resolve(name, columns)
            return BoundNullSafe(column, _coerce(value, column), negated)
        case In(name, values):
            column = _resolve(name, columns)
            return BoundIn(column, tuple(_coerce(v, column) for v in values), negated)
        case IsNull(name) | IsNotNull(name):
            return BoundIsNull(_resolve(name, columns), negated != isinstance(node, IsNotNull))
        case StartsWith(name, prefix):
            return BoundStartsWith(_resolve(name, columns), prefix, negated)
        case Cast(name, to, inner):
            column = _resolve(name, columns)
            if column.position is None:
                return Undecidable(node)
            target = parse_hive_type(to)
            as_cast = {column.name: Column(0, column.name, target)}
            return BoundCast(column, target, _normal_form(inner, as_cast, negated))
    return Undecidable(node)


def _resolve(name: str, columns: Mapping[str, Column]) -> Column:
    lowered = name.lower()
    return columns.get(lowered) or Column(None, lowered, None)


def _coerce(value: Any, column: Column) -> Any:
    if column.type is None:
        return value  # never compared: nothing is known about the column
    try:
        return coerce_literal(value, column.type)
    except Uncomparable:
        return UNCOMPARABLE
