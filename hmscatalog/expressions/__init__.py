"""Predicates over partition columns, their binding to a table's columns, and the visitors that
push or evaluate them."""

from hmscatalog.expressions.binding import BoundPredicate, bind
from hmscatalog.expressions.metastore_filter import (
    MetastoreFilter,
    metastore_filter,
    quote_string,
    to_metastore_filter,
)
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
    Opaque,
    Or,
    Predicate,
    StartsWith,
    and_all,
    eq,
    fold,
    in_,
)

__all__ = [
    "AlwaysFalse", "AlwaysTrue", "And", "BoundPredicate", "Cast", "Compare", "EqualNullSafe",
    "In", "IsNotNull", "IsNull", "MetastoreFilter", "Not", "Opaque", "Or", "Predicate",
    "StartsWith", "and_all", "bind", "eq", "fold", "in_", "metastore_filter", "quote_string",
    "to_metastore_filter",
]
