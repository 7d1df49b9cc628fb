"""Spark's pushed data source filters (``org.apache.spark.sql.sources.Filter``) as predicates.

Anything without a faithful translation becomes :class:`~hmscatalog.expressions.Opaque`, which
never prunes. A filter names its column as Spark prints a name (``a``, ```a-b```, ``s.x`` for
a nested field): the name is read back the same way, and a nested field, never a partition
column, stays opaque. A TIMESTAMP literal becomes an
:class:`~hmscatalog.expressions.instants.Instant`, which partition values are compared with in
the session time zone (given as ``zone``) as Spark casts them; without a zone it stays opaque.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from dataclasses import dataclass
from typing import Any

from hmscatalog.expressions.instants import Instant
from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    AlwaysTrue,
    And,
    Cast,
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
    has_opaque,
)
from hmscatalog.spark.internals.read import UnreadableLiteral, v2_literal_value, v2_operand_kind

_COMPARISONS: dict[str, CompareOp] = {
    "EqualTo": "=",
    "GreaterThan": ">",
    "GreaterThanOrEqual": ">=",
    "LessThan": "<",
    "LessThanOrEqual": "<=",
}


class _Untranslatable(Exception):
    pass


def _value(value: Any, zone: dt.tzinfo | None) -> Any:
    """A Java literal as the Python value the predicate model uses."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "getClass"):
        kind = str(value.getClass().getName())
        if kind in ("java.sql.Date", "java.time.LocalDate"):
            try:
                return dt.date.fromisoformat(str(value.toString()))
            except ValueError:  # beyond Python's years 1 to 9999 (+10000-01-01)
                raise _Untranslatable(kind) from None
        if kind == "java.math.BigDecimal":
            return decimal.Decimal(str(value.toPlainString()))
        if kind == "java.sql.Timestamp" and zone is not None:
            # getTime() holds the milliseconds, getNanos() the whole fraction of the second
            seconds = (int(value.getTime()) - int(value.getNanos()) // 1_000_000) // 1000
            return Instant(seconds * 1_000_000 + int(value.getNanos()) // 1000, zone)
        if kind == "java.time.Instant" and zone is not None:
            return Instant(int(value.getEpochSecond()) * 1_000_000 + int(value.getNano()) // 1000,
                           zone)
        raise _Untranslatable(kind)
    if isinstance(value, decimal.Decimal):
        return value
    raise _Untranslatable(type(value).__name__)


def name_parts(text: str) -> list[str]:
    """The parts of a multi-part name as Spark prints it (``quoteIfNeeded``: a part is
    back-quoted, with back-quotes doubled, unless it is a plain word): ``s.`a-b``` is
    ``["s", "a-b"]``."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i <= n:
        if i < n and text[i] == "`":
            part, i = [], i + 1
            while i < n and not (text[i] == "`" and text[i + 1:i + 2] != "`"):
                part.append(text[i])
                i += 2 if text[i] == "`" else 1
            parts.append("".join(part))
            i += 1  # the closing back-quote
        else:
            end = text.find(".", i)
            end = n if end < 0 else end
            parts.append(text[i:end])
            i = end
        i += 1  # the dot between parts
    return parts


def _column(attribute: Any) -> str:
    """The top-level column a V1 filter's attribute names; a nested field has no
    translation."""
    parts = name_parts(str(attribute))
    if len(parts) != 1:
        raise _Untranslatable("nested field")
    return parts[0]


_INTEGER = re.compile(r"-?[0-9]+")


def _in_values(f: Any, zone: dt.tzinfo | None) -> tuple[Any, ...]:
    """The values of an ``In`` filter. A long list of integers (a join's runtime values of a
    key) is read from the filter's text, ``In(sk, [1,2,3])``, in a few py4j calls instead of
    one per value; anything else value by value."""
    values = f.values()
    if len(values) > 8 and type(values[0]) is int:  # Integer, Long, Short or Byte
        prefix, text = f"In({f.attribute()}, [", str(f.toString())
        items = text[len(prefix):-2].split(",")
        if (text.startswith(prefix) and text.endswith("])") and len(items) == len(values)
                and all(_INTEGER.fullmatch(item) for item in items)):
            return tuple(int(item) for item in items)
    return tuple(_value(v, zone) for v in values)


def to_predicate(spark_filter: Any, zone: dt.tzinfo | None = None) -> Predicate:
    """Translate one Spark ``Filter`` (a py4j object) into a predicate; TIMESTAMP literals
    compare in ``zone``."""
    try:
        return _translate(spark_filter, zone)
    except _Untranslatable:
        return Opaque(str(spark_filter.toString()))


def _translate(f: Any, zone: dt.tzinfo | None) -> Predicate:
    kind = str(f.productPrefix())  # Spark's filters are case classes: this is their name
    if kind in _COMPARISONS:
        return Compare(_column(f.attribute()), _COMPARISONS[kind], _value(f.value(), zone))
    if kind == "EqualNullSafe":
        return EqualNullSafe(_column(f.attribute()), _value(f.value(), zone))
    if kind == "In":
        return In(_column(f.attribute()), _in_values(f, zone))
    if kind == "IsNull":
        return IsNull(_column(f.attribute()))
    if kind == "IsNotNull":
        return IsNotNull(_column(f.attribute()))
    if kind == "StringStartsWith":
        return StartsWith(_column(f.attribute()), str(f.value()))
    if kind == "And":
        return And(to_predicate(f.left(), zone), to_predicate(f.right(), zone))
    if kind == "Or":
        return Or(to_predicate(f.left(), zone), to_predicate(f.right(), zone))
    if kind == "Not":
        return Not(to_predicate(f.child(), zone))
    if kind == "AlwaysTrue":
        return AlwaysTrue()
    if kind == "AlwaysFalse":
        return AlwaysFalse()
    raise _Untranslatable(kind)


def translate(spark_filter: Any, zone: dt.tzinfo | None = None) -> tuple[Predicate, set[str]]:
    """A Spark ``Filter`` as a predicate, with the lower-case names of the columns it refers to
    (asked of Spark only when part of the filter has no translation)."""
    predicate = to_predicate(spark_filter, zone)
    if has_opaque(predicate):
        return predicate, {name_parts(str(name))[0].lower()
                           for name in spark_filter.references()}
    return predicate, columns_of(predicate)


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


# -- Spark's V2 predicates (for what V1 filters cannot say: casts of columns) -----------------

_V2_COMPARISONS: dict[str, CompareOp] = {
    "=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
}
_MIRRORED: dict[CompareOp, CompareOp] = {
    "=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<=",
}


@dataclass(frozen=True)
class _Column:
    name: str
    cast_to: str | None = None  # Hive type of CAST(name AS ...)


def translate_v2(predicate: Any, zone: dt.tzinfo | None = None) -> tuple[Predicate, set[str]]:
    """A Spark V2 ``Predicate`` as a predicate, with the columns it refers to.

    Only used for predicates that have no V1 form (V1 filters are cheaper to read over py4j).
    """
    try:
        result = _translate_v2(predicate, zone)
    except _Untranslatable:
        result = Opaque(str(predicate.toString()))
    if has_opaque(result):
        names = {str(ref.fieldNames()[0]).lower() for ref in predicate.references()}
        return result, names
    return result, columns_of(result)


def _translate_v2(p: Any, zone: dt.tzinfo | None) -> Predicate:
    name = str(p.name())
    children = list(p.children())
    if name in ("AND", "OR"):
        left, right = (_translate_v2_or_opaque(c, zone) for c in children)
        return And(left, right) if name == "AND" else Or(left, right)
    if name == "NOT":
        return Not(_translate_v2_or_opaque(children[0], zone))
    if name == "ALWAYS_TRUE":
        return AlwaysTrue()
    if name == "ALWAYS_FALSE":
        return AlwaysFalse()
    terms = [_v2_term(c, zone) for c in children]
    if name in _V2_COMPARISONS or name == "<=>":
        column, literal = terms
        op: CompareOp = "=" if name == "<=>" else _V2_COMPARISONS[name]
        if isinstance(literal, _Column):  # literal <op> column
            column, literal = literal, column
            op = _MIRRORED[op]
        if not isinstance(column, _Column) or isinstance(literal, _Column):
            raise _Untranslatable(name)
        leaf: Predicate = (EqualNullSafe(column.name, literal) if name == "<=>"
                           else Compare(column.name, op, literal))
        return _on(column, leaf)
    if name == "IN":
        column, *values = terms
        if not isinstance(column, _Column) or any(isinstance(v, _Column) for v in values):
            raise _Untranslatable(name)
        return _on(column, In(column.name, tuple(values)))
    if name in ("IS_NULL", "IS_NOT_NULL") and isinstance(terms[0], _Column):
        column = terms[0]
        return _on(column, IsNull(column.name) if name == "IS_NULL" else IsNotNull(column.name))
    raise _Untranslatable(name)


def _translate_v2_or_opaque(p: Any, zone: dt.tzinfo | None) -> Predicate:
    try:
        return _translate_v2(p, zone)
    except _Untranslatable:
        return Opaque(str(p.toString()))


def _on(column: _Column, leaf: Predicate) -> Predicate:
    return leaf if column.cast_to is None else Cast(column.name, column.cast_to, leaf)


def _v2_term(e: Any, zone: dt.tzinfo | None) -> Any:
    """A V2 expression operand: a (possibly cast) top-level column, or a literal's value."""
    kind = v2_operand_kind(e)
    if kind == "column":
        names = list(e.fieldNames())
        if len(names) != 1:
            raise _Untranslatable("nested field")
        return _Column(str(names[0]))
    if kind == "cast":
        inner = _v2_term(e.expression(), zone)
        if not isinstance(inner, _Column) or inner.cast_to is not None:
            raise _Untranslatable("cast")
        return _Column(inner.name, str(e.dataType().catalogString()))
    if kind == "literal":
        type_name = str(e.dataType().typeName())
        if type_name == "timestamp" and zone is not None:
            value = e.value()
            return None if value is None else Instant(int(value), zone)  # microseconds
        try:
            return v2_literal_value(e.value(), type_name)
        except UnreadableLiteral as exc:
            raise _Untranslatable(str(exc)) from exc
        except (ValueError, OverflowError) as exc:  # a date beyond Python's years 1 to 9999
            raise _Untranslatable(type_name) from exc
    raise _Untranslatable(kind)
