"""Predicates over partition columns and the visitors that push or evaluate them."""

from hmscatalog.expressions.evaluator import PartitionEvaluator
from hmscatalog.expressions.metastore_filter import (
    MetastoreFilter,
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
    in_,
)

__all__ = [
    "AlwaysFalse", "AlwaysTrue", "And", "Cast", "Compare", "EqualNullSafe", "In", "IsNotNull",
    "IsNull", "MetastoreFilter", "Not", "Opaque", "Or", "PartitionEvaluator", "Predicate",
    "StartsWith", "and_all", "eq", "in_", "quote_string", "to_metastore_filter",
]
