"""Casts of partition values (Spark's semantics, only where certain) and Cast predicates."""

from __future__ import annotations

import datetime as dt

import pytest

from hmscatalog.expressions import (
    And,
    Cast,
    Compare,
    In,
    IsNull,
    Not,
    Predicate,
    bind,
    to_metastore_filter,
)
from hmscatalog.expressions.casts import UNKNOWN, cast_value
from hmscatalog.expressions.evaluator import ANY, FALSE, NULL, TRUE
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import parse_hive_type

T = parse_hive_type


@pytest.mark.parametrize(("value", "source", "target", "expected"), [
    ("2024-01-05", "string", "date", dt.date(2024, 1, 5)),
    (" 2024-1-5 ", "string", "date", dt.date(2024, 1, 5)),
    ("2024-02-30", "string", "date", UNKNOWN),
    ("2024-01-05 10:00", "string", "date", UNKNOWN),  # Spark accepts it; not modelled
    ("yesterday", "string", "date", UNKNOWN),
    (7, "int", "string", "7"),
    (-7, "bigint", "string", "-7"),
    (dt.date(2024, 1, 5), "date", "string", "2024-01-05"),
    (True, "boolean", "string", "true"),
    (1.5, "double", "string", UNKNOWN),  # Java's double formatting
    ("07", "string", "int", 7),
    (" +7 ", "string", "bigint", 7),
    ("7.5", "string", "int", UNKNOWN),
    ("300", "string", "tinyint", UNKNOWN),  # overflow: NULL or an error, by setting
    (300, "int", "bigint", 300),
    (300, "int", "smallint", 300),
    (70000, "int", "smallint", UNKNOWN),
    (3, "int", "double", 3.0),
    (None, "string", "date", None),
    ("x", "string", "string", "x"),
    ("x", "string", "varchar(3)", UNKNOWN),
])
def test_cast_value(value: object, source: str, target: str, expected: object) -> None:
    result = cast_value(value, T(source), T(target))
    if expected is UNKNOWN or expected is None:
        assert result is expected
    else:
        assert result == expected and type(result) is type(expected)


SPEC = PartitionSpec.of(("dt", "string"), ("hr", "int"))
AFTER_JAN_4 = Cast("dt", "date", Compare("dt", ">", dt.date(2024, 1, 4)))


def _possible(pred: Predicate, dt_value: object, hr: object = 1) -> int:
    return bind(pred, SPEC).truth_values((dt_value, hr))


def test_cast_predicate_is_decided_where_the_cast_is_certain() -> None:
    assert _possible(AFTER_JAN_4, "2024-01-05") == TRUE
    assert _possible(AFTER_JAN_4, "2024-1-3") == FALSE
    assert _possible(AFTER_JAN_4, None) == NULL
    assert _possible(AFTER_JAN_4, "not a date") == ANY  # kept: Spark decides
    assert _possible(Not(AFTER_JAN_4), "2024-01-05") == FALSE
    as_text = Cast("hr", "string", In("hr", ("1", "2")))
    assert _possible(as_text, "x", 2) == TRUE
    assert _possible(as_text, "x", 3) == FALSE
    assert _possible(Cast("dt", "date", IsNull("dt")), None) == TRUE


def test_cast_predicates_stay_on_the_client() -> None:
    plan = to_metastore_filter(And(AFTER_JAN_4, Compare("hr", "=", 1)), SPEC)
    assert plan.text == "hr = 1"
    assert plan.residual is not None
    assert to_metastore_filter(Not(AFTER_JAN_4), SPEC).text is None
