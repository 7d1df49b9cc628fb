"""Spark's pushed data source filters (``org.apache.spark.sql.sources.Filter``) as predicates.

Anything without a faithful translation becomes :class:`~hmscatalog.expressions.Opaque`, which
never prunes. Timestamps are left opaque: a ``java.sql.Timestamp`` carries the JVM's time zone,
which need not be the session's that partition strings are read in.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    Compare,
    CompareOp,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Not,
    Opaque,
    Or,
    Predicate,
    StartsWith,
    columns_of,
)

_COMPARISONS: dict[str, CompareOp] = {
    "EqualTo": "=",
    "GreaterThan": ">",
    "GreaterThanOrEqual": ">=",
    "LessThan": "<",
    "LessThanOrEqual": "<=",
}


class _Untranslatable(Exception):
    pass


def _value(value: Any) -> Any:
    """A Java literal as the Python value the predicate model uses."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "getClass"):
        kind = str(value.getClass().getName())
        if kind in ("java.sql.Date", "java.time.LocalDate"):
            return dt.date.fromisoformat(str(value.toString()))
        if kind == "java.math.BigDecimal":
            return decimal.Decimal(str(value.toPlainString()))
        raise _Untranslatable(kind)
    if isinstance(value, decimal.Decimal):
        return value
    raise _Untranslatable(type(value).__name__)


def to_predicate(spark_filter: Any) -> Predicate:
    """Translate one Spark ``Filter`` (a py4j object) into a predicate."""
    try:
        return _translate(spark_filter)
    except _Untranslatable:
        return Opaque(str(spark_filter.toString()))


def _translate(f: Any) -> Predicate:
    kind = str(f.productPrefix())  # Spark's filters are case classes: this is their name
    if kind in _COMPARISONS:
        return Compare(str(f.attribute()), _COMPARISONS[kind], _value(f.value()))
    if kind == "EqualNullSafe":
        return EqualNullSafe(str(f.attribute()), _value(f.value()))
    if kind == "In":
        return In(str(f.attribute()), tuple(_value(v) for v in f.values()))
    if kind == "IsNull":
        return IsNull(str(f.attribute()))
    if kind == "IsNotNull":
        return IsNotNull(str(f.attribute()))
    if kind == "StringStartsWith":
        return StartsWith(str(f.attribute()), str(f.value()))
    if kind == "And":
        return And(to_predicate(f.left()), to_predicate(f.right()))
    if kind == "Or":
        return Or(to_predicate(f.left()), to_predicate(f.right()))
    if kind == "Not":
        return Not(to_predicate(f.child()))
    if kind == "AlwaysTrue":
        return AlwaysTrue()
    if kind == "AlwaysFalse":
        return AlwaysFalse()
    raise _Untranslatable(kind)


def translate(spark_filter: Any) -> tuple[Predicate, set[str]]:
    """A Spark ``Filter`` as a predicate, with the lower-case names of the columns it refers to
    (asked of Spark only when part of the filter has no translation)."""
    predicate = to_predicate(spark_filter)
    if _has_opaque(predicate):
        return predicate, {str(name).lower() for name in spark_filter.references()}
    return predicate, columns_of(predicate)


def _has_opaque(pred: Predicate) -> bool:
    match pred:
        case Opaque():
            return True
        case And(left, right) | Or(left, right):
            return _has_opaque(left) or _has_opaque(right)
        case Not(child):
            return _has_opaque(child)
    return False


def without_implied_not_null(conjuncts: list[Predicate]) -> list[Predicate]:
    """Drop ``c IS NOT NULL`` where another conjunct already rejects NULL in ``c``.

    Spark adds ``IsNotNull`` beside every comparison it pushes; the comparison alone decides
    the same partitions, and leaving it out lets the metastore filter stand for the whole
    predicate.
    """
    null_rejecting = {
        p.column.lower() for p in conjuncts
        if isinstance(p, Compare | In | StartsWith)
    }
    return [
        p for p in conjuncts
        if not (isinstance(p, IsNotNull) and p.column.lower() in null_rejecting)
    ]
