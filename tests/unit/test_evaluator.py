from __future__ import annotations

import datetime as dt

import pytest

from hmscatalog.expressions import (
    AlwaysFalse,
    Compare,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Not,
    Opaque,
    Predicate,
    StartsWith,
    bind,
    eq,
)
from hmscatalog.partitions import PartitionSpec

SPEC = PartitionSpec.of(("dt", "date"), ("region", "string"), ("hr", "int"))
ROW = {"dt": dt.date(2024, 1, 5), "region": "emea", "hr": 7}
NULL_ROW = {"dt": None, "region": None, "hr": None}


@pytest.mark.parametrize(
    ("pred", "row", "expected"),
    [
        (eq("hr", 7), ROW, True),
        (eq("hr", "07"), ROW, True),  # literal typed by the column
        (eq("hr", 8), ROW, False),
        (Compare("dt", ">=", dt.date(2024, 1, 5)), ROW, True),
        (Compare("dt", ">", "2024-01-05"), ROW, False),
        (In("region", ("apac", "emea")), ROW, True),
        (In("region", ("apac", None)), ROW, False),  # NULL: never true
        (In("region", ("emea", None)), ROW, True),
        (StartsWith("region", "em"), ROW, True),
        (eq("hr", 7), NULL_ROW, False),
        (Not(eq("hr", 7)), NULL_ROW, False),
        (Not(eq("hr", 7) & Opaque("f(x)")), NULL_ROW, None),
        (Not(eq("hr", 7) | Opaque("f(x)")), NULL_ROW, False),  # NOT (NULL OR x) is never true
        (Not(Not(eq("hr", 7)) | Opaque("f(x)")), ROW, None),
        (Not(eq("hr", 8) & Opaque("f(x)")), ROW, True),
        (StartsWith("region", "e"), NULL_ROW, False),
        (IsNull("hr"), NULL_ROW, True),
        (IsNotNull("hr"), NULL_ROW, False),
        (EqualNullSafe("hr", None), NULL_ROW, True),
        (EqualNullSafe("hr", 7), NULL_ROW, False),
        (EqualNullSafe("hr", 7), ROW, True),
        (Opaque("f(x)"), ROW, None),
        (eq("data_column", 1), ROW, None),
        (eq("hr", 8) & Opaque("f(x)"), ROW, False),
        (eq("hr", 7) & Opaque("f(x)"), ROW, None),
        (eq("hr", 7) | Opaque("f(x)"), ROW, True),
        (eq("hr", 8) | Opaque("f(x)"), ROW, None),
        (eq("hr", "x"), ROW, None),
        (AlwaysFalse(), ROW, False),
    ],
)
def test_three_valued_evaluation(pred: object, row: dict, expected: bool | None) -> None:
    values = tuple(row[name] for name in SPEC.names)
    assert bind(pred, SPEC).evaluate(values) is expected  # type: ignore[arg-type]


def _keeps(pred: Predicate, values: tuple[object, ...]) -> bool:
    return bind(pred, SPEC).may_match(values)


def test_prunes_only_partitions_that_can_never_be_true() -> None:
    assert _keeps(eq("hr", 7) | Opaque("?"), (None, None, None))
    assert not _keeps(IsNotNull("hr"), (None, None, None))
    assert not _keeps(eq("hr", 7) & Opaque("?"), (None, None, None))


def test_in_lists_give_the_truth_of_one_comparison_per_value() -> None:
    """IN is a set lookup where the values allow it; across numbers of every kind, strings,
    dates, NaN, NULL and values that cannot be compared, its truth is that of comparing the
    column's value with each literal in turn."""
    import itertools
    import math
    from decimal import Decimal

    from hmscatalog.expressions.bound import UNCOMPARABLE, UNSET
    from hmscatalog.expressions.evaluator import _in, _membership

    nan = math.nan
    pool = [1, 1.0, True, Decimal("1"), Decimal("NaN"), 2, "1", nan, None, UNCOMPARABLE,
            dt.date(2024, 1, 5), dt.datetime(2024, 1, 5), object()]
    currents = [*pool, UNSET, float("nan"), 1.5, 0]
    for size in range(4):
        for literals in itertools.permutations(pool, size):
            truth = _membership(0, literals)
            for current in currents:
                assert truth((current,)) == _in(current, literals), (current, literals)


def test_a_long_in_list_prunes_by_lookup() -> None:
    values = tuple(range(0, 20_000, 2))
    bound = bind(In("hr", values), SPEC)
    assert bound.may_match((None, None, 4_000))
    assert not bound.may_match((None, None, 4_001))
    assert not bound.may_match((None, None, None))
