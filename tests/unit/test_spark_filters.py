from __future__ import annotations

from hmscatalog.expressions import Compare, In, IsNotNull, IsNull, eq
from hmscatalog.spark.filters import without_implied_not_null


def test_is_not_null_beside_a_comparison_is_dropped() -> None:
    conjuncts = [IsNotNull("dt"), eq("dt", "x"), IsNotNull("HR"), In("hr", (1, 2)),
                 IsNotNull("s"), IsNull("t")]
    assert without_implied_not_null(conjuncts) == [
        eq("dt", "x"), In("hr", (1, 2)), IsNotNull("s"), IsNull("t")]


def test_lone_is_not_null_is_kept() -> None:
    assert without_implied_not_null([IsNotNull("dt"), Compare("hr", ">", 1)]) == [
        IsNotNull("dt"), Compare("hr", ">", 1)]
