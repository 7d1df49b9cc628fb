"""Render predicates as metastore filter strings (``get_partitions_by_filter``).

The metastore's filter language (Hive's ``Filter.g``) compares a partition key with a literal:
``dt = "2024-01-05" and (hr >= 7 or hr = 1)``. Its string literals have no escaping that survives
parsing (backslashes are kept verbatim), so a value is quoted with a quote character it does not
contain and a value holding both quote characters or a backslash is never sent. No value can
change a filter's meaning.

What is sent is chosen so that the metastore returns a superset of the matching partitions under
any backing database (Derby, PostgreSQL, MySQL, with any collation):

* string columns: ``=`` and ``IN`` (a case-insensitive collation only widens the result), and
  ``IS NULL`` as equality with ``__HIVE_DEFAULT_PARTITION__``; string ranges, ``<>`` and ``LIKE``
  are not sent, since their meaning depends on the database's collation;
* integral columns: every comparison and ``IN`` (the metastore compares them as numbers);
* date columns: every comparison and ``IN``, with ISO literals;
* an ``IN`` list of consecutive integers or days goes as the range from its least to its
  greatest value, which says the same.

Anything else stays with the caller as the ``residual`` and must be evaluated on the client
(:mod:`hmscatalog.expressions.evaluator`). Callers re-check every partition the metastore
returns against the whole predicate, so the superset is exact in the end.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import reduce
from typing import Any

from hmscatalog.expressions.binding import BoundPredicate, bind
from hmscatalog.expressions.bound import (
    UNCOMPARABLE,
    BoundCompare,
    BoundIn,
    BoundIsNull,
    BoundNullSafe,
    Column,
)
from hmscatalog.expressions.predicates import AlwaysTrue, Predicate, fold
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import HiveType

MAX_IN_VALUES = 1000
_IDENTIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_]*$")
_KEYWORDS = frozenset({"and", "or", "like"})


@dataclass(frozen=True)
class MetastoreFilter:
    """What can be sent to the metastore, and what must be evaluated on the client.

    Attributes:
        text: the filter string, or ``None`` when nothing could be sent (list all partitions).
        residual: the part of the predicate the filter does not express, or ``None`` if the
            filter expresses all of it.
    """

    text: str | None
    residual: Predicate | None

    @property
    def complete(self) -> bool:
        return self.residual is None


def quote_string(value: str) -> str | None:
    """Quote a string literal so the filter parser reads back exactly ``value``.

    Returns ``None`` when no quoting is safe (the value holds a backslash or both quote kinds).
    """
    if "\\" in value:
        return None
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return None


# The filter text (``None``: nothing sendable) and whether it expresses its predicate exactly.
_Rendered = tuple[str | None, bool]


def metastore_filter(bound: BoundPredicate) -> MetastoreFilter:
    """Render what the metastore can evaluate of a bound predicate."""
    text, complete = fold(bound.root, _leaf, _both, _either)
    return MetastoreFilter(text=text, residual=None if complete else bound.source)


def to_metastore_filter(pred: Predicate, spec: PartitionSpec) -> MetastoreFilter:
    """Render what the metastore can evaluate of ``pred`` for a table with ``spec``."""
    return metastore_filter(bind(pred, spec))


def _both(left: _Rendered, right: _Rendered) -> _Rendered:
    (lt, lc), (rt, rc) = left, right
    if lt and rt:
        return f"({lt} and {rt})", lc and rc
    return lt or rt, False


def _either(left: _Rendered, right: _Rendered) -> _Rendered:
    (lt, lc), (rt, rc) = left, right
    if lt and rt:
        return f"({lt} or {rt})", lc and rc
    return None, False


def _leaf(node: Predicate) -> _Rendered:
    match node:
        case AlwaysTrue():
            return None, True
        case BoundCompare(column, op, value, False):
            text = _compare(column, op, value)
            return text, text is not None
        case BoundNullSafe(column, None, False) | BoundIsNull(column, False):
            hive_type = _column_type(column)
            if hive_type is not None and hive_type.is_string:
                return f'{column.name} = "{DEFAULT_PARTITION_NAME}"', True
            return None, False
        case BoundNullSafe(column, value, False):
            text = _compare(column, "=", value)
            return text, text is not None
        case BoundIn(column, values, False):
            text = _in_list(column, values)
            return text, text is not None and len(values) <= MAX_IN_VALUES
        case BoundIn(column, values, True) if 0 < len(values) <= MAX_IN_VALUES:
            # c <> v1 and c <> v2 ...; not for longer lists, whose filter would nest as deep
            parts = [(text, text is not None)
                     for text in (_compare(column, "<>", value) for value in values)]
            return reduce(_both, parts)
    return None, False


def _column_type(column: Column) -> HiveType | None:
    """The column's type, if the filter grammar can name the column and the metastore can
    filter its type: of the string types only STRING (Hive 2.3 refuses CHAR and VARCHAR keys,
    and a CHAR value is stored padded)."""
    if column.position is None or not _IDENTIFIER.match(column.name) or (
            column.name in _KEYWORDS) or column.type is None or column.type.kind in (
            "char", "varchar"):
        return None
    return column.type


def _literal(value: Any, hive_type: HiveType) -> str | None:
    if value is None or value is UNCOMPARABLE:
        return None
    if hive_type.is_string:
        return quote_string(value)
    if hive_type.is_integral:
        return str(value)
    if hive_type.kind == "date" and isinstance(value, dt.date):
        return f'"{value.isoformat()}"'
    return None


def _compare(column: Column, op: str, value: Any) -> str | None:
    hive_type = _column_type(column)
    if hive_type is None:
        return None
    if hive_type.is_string and op != "=":
        return None
    if not (hive_type.is_string or hive_type.is_integral or hive_type.kind == "date"):
        return None
    literal = _literal(value, hive_type)
    return None if literal is None else f"{column.name} {op} {literal}"


def _consecutive(values: tuple[Any, ...], hive_type: HiveType) -> bool:
    """Whether ``values`` (more than two) are every integer, or every date, from the least to
    the greatest, so that a range says exactly what the list says."""
    if len(values) < 3 or not (hive_type.is_integral or hive_type.kind == "date"):
        return False
    if hive_type.is_integral:
        numbers = {v for v in values if isinstance(v, int) and not isinstance(v, bool)}
    else:
        numbers = {v.toordinal() for v in values
                   if isinstance(v, dt.date) and not isinstance(v, dt.datetime)}
    return len(numbers) == len(set(values)) and max(numbers) - min(numbers) + 1 == len(numbers)


def _in_list(column: Column, values: tuple[Any, ...]) -> str | None:
    hive_type = _column_type(column)
    if hive_type is None or not values or any(v is None for v in values):
        return None
    if len(values) > MAX_IN_VALUES:
        if not hive_type.is_integral or any(v is UNCOMPARABLE for v in values):
            return None
        low = _compare(column, ">=", min(values))
        high = _compare(column, "<=", max(values))
        return None if low is None or high is None else f"({low} and {high})"
    if _consecutive(values, hive_type):
        # Every value between the two ends: one range, which the metastore's database
        # evaluates much faster than as many equalities (a join's runtime values of a month).
        low, high = min(values), max(values)
        return f"({_compare(column, '>=', low)} and {_compare(column, '<=', high)})"
    parts = [_compare(column, "=", v) for v in values]
    if any(p is None for p in parts):
        return None
    return parts[0] if len(parts) == 1 else "(" + " or ".join(p for p in parts if p) + ")"
