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
* date columns: every comparison and ``IN``, with ISO literals.

Anything else stays with the caller as the ``residual`` and must be evaluated on the client
(:mod:`hmscatalog.expressions.evaluator`). Callers re-check every partition the metastore
returns against the whole predicate, so the superset is exact in the end.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.predicates import (
    NEGATED_OP,
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
)
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


def negate(pred: Predicate) -> Predicate:
    """Push a negation down one level so the result has no ``Not`` over pushable leaves."""
    match pred:
        case Not(child):
            return child
        case And(left, right):
            return Or(negate(left), negate(right))
        case Or(left, right):
            return And(negate(left), negate(right))
        case Compare(column, op, value):
            return Compare(column, NEGATED_OP[op], value)
        case In(column, values):
            result: Predicate | None = None
            for value in values:
                leaf = Compare(column, "<>", value)
                result = leaf if result is None else And(result, leaf)
            return Not(pred) if result is None else result
        case IsNull(column):
            return IsNotNull(column)
        case IsNotNull(column):
            return IsNull(column)
    return Not(pred)


class _Renderer:
    def __init__(self, spec: PartitionSpec) -> None:
        self._types = {c.name: c.type for c in spec.columns}

    def column_type(self, column: str) -> HiveType | None:
        name = column.lower()
        if name not in self._types or not _IDENTIFIER.match(name) or name in _KEYWORDS:
            return None
        return self._types[name]

    def literal(self, value: Any, hive_type: HiveType) -> str | None:
        try:
            typed = coerce_literal(value, hive_type)
        except Uncomparable:
            return None
        if typed is None:
            return None
        if hive_type.is_string:
            return quote_string(typed)
        if hive_type.is_integral:
            return str(typed)
        if hive_type.kind == "date" and isinstance(typed, dt.date):
            return f'"{typed.isoformat()}"'
        return None

    def compare(self, column: str, op: str, value: Any) -> str | None:
        hive_type = self.column_type(column)
        if hive_type is None:
            return None
        if hive_type.is_string and op != "=":
            return None
        if not (hive_type.is_string or hive_type.is_integral or hive_type.kind == "date"):
            return None
        literal = self.literal(value, hive_type)
        return None if literal is None else f"{column.lower()} {op} {literal}"

    def in_list(self, column: str, values: tuple[Any, ...]) -> str | None:
        hive_type = self.column_type(column)
        if hive_type is None or not values or any(v is None for v in values):
            return None
        if len(values) > MAX_IN_VALUES:
            if not hive_type.is_integral:
                return None
            try:
                typed = [coerce_literal(v, hive_type) for v in values]
            except Uncomparable:
                return None
            low = self.compare(column, ">=", min(typed))
            high = self.compare(column, "<=", max(typed))
            return None if low is None or high is None else f"({low} and {high})"
        parts = [self.compare(column, "=", v) for v in values]
        if any(p is None for p in parts):
            return None
        return parts[0] if len(parts) == 1 else "(" + " or ".join(p for p in parts if p) + ")"

    def render(self, pred: Predicate) -> tuple[str | None, bool]:
        """(filter text or None, whether the text expresses ``pred`` exactly)."""
        match pred:
            case AlwaysTrue():
                return None, True
            case And(left, right):
                (lt, lc), (rt, rc) = self.render(left), self.render(right)
                if lt and rt:
                    return f"({lt} and {rt})", lc and rc
                return lt or rt, False
            case Or(left, right):
                (lt, lc), (rt, rc) = self.render(left), self.render(right)
                if lt and rt:
                    return f"({lt} or {rt})", lc and rc
                return None, False
            case Not(child):
                pushed = negate(child)
                if isinstance(pushed, Not):
                    return None, False
                return self.render(pushed)
            case Compare(column, op, value):
                text = self.compare(column, op, value)
                return text, text is not None
            case EqualNullSafe(column, value):
                return self.render(IsNull(column) if value is None else Compare(column, "=", value))
            case In(column, values):
                text = self.in_list(column, values)
                return text, text is not None and len(values) <= MAX_IN_VALUES
            case IsNull(column):
                hive_type = self.column_type(column)
                if hive_type is not None and hive_type.is_string:
                    return f'{column.lower()} = "{DEFAULT_PARTITION_NAME}"', True
                return None, False
        return None, False


def to_metastore_filter(pred: Predicate, spec: PartitionSpec) -> MetastoreFilter:
    """Render what the metastore can evaluate of ``pred`` for a table with ``spec``."""
    text, complete = _Renderer(spec).render(pred)
    return MetastoreFilter(text=text, residual=None if complete else pred)
