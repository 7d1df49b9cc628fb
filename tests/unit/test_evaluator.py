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
    PartitionEvaluator,
    StartsWith,
    eq,
)
from hmscatalog.partitions import PartitionSpec

SPEC = PartitionSpec.of(("dt", "date"), ("region", "string"), ("hr", "int"))
EVAL = PartitionEvaluator(SPEC)
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
    assert EVAL.evaluate(pred, row) is expected  # type: ignore[arg-type]


def test_prunes_only_partitions_that_can_never_be_true() -> None:
    assert EVAL.keeps(eq("hr", 7) | Opaque("?"), (None, None, None))
    assert not EVAL.keeps(IsNotNull("hr"), (None, None, None))
    assert not EVAL.keeps(eq("hr", 7) & Opaque("?"), (None, None, None))
