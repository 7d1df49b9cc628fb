"""Filters Spark pushes to the pyarrow path-read source, as predicates (no JVM needed)."""

from __future__ import annotations

from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    In,
    IsNull,
    LessThanOrEqual,
    Not,
    StringContains,
    StringStartsWith,
)

from hmscatalog.expressions import predicates as p
from hmscatalog.spark.read.arrow_source import _predicate

PARTITIONS = {"dt", "hr"}


def test_filters_on_partition_columns_become_predicates() -> None:
    assert _predicate(EqualTo(("dt",), "2024-01-05"), PARTITIONS) == p.Compare(
        "dt", "=", "2024-01-05")
    assert _predicate(GreaterThan(("hr",), 3), PARTITIONS) == p.Compare("hr", ">", 3)
    assert _predicate(LessThanOrEqual(("HR",), 3), PARTITIONS) == p.Compare("HR", "<=", 3)
    assert _predicate(In(("dt",), ("a", "b")), PARTITIONS) == p.In("dt", ("a", "b"))
    assert _predicate(EqualNullSafe(("dt",), None), PARTITIONS) == p.EqualNullSafe("dt", None)
    assert _predicate(IsNull(("hr",)), PARTITIONS) == p.IsNull("hr")
    assert _predicate(StringStartsWith(("dt",), "2024-"), PARTITIONS) == p.StartsWith(
        "dt", "2024-")
    assert _predicate(Not(EqualTo(("hr",), 1)), PARTITIONS) == p.Not(p.Compare("hr", "=", 1))


def test_other_filters_are_left_to_spark() -> None:
    assert _predicate(EqualTo(("a",), 1), PARTITIONS) is None  # a data column
    assert _predicate(EqualTo(("s", "dt"), 1), PARTITIONS) is None  # a nested field
    assert _predicate(StringContains(("dt",), "01"), PARTITIONS) is None
    assert _predicate(Not(EqualTo(("a",), 1)), PARTITIONS) is None
