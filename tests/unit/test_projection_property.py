"""Property: narrowing a projection by a predicate gives exactly the partitions of the full
projection that the three-valued evaluator cannot rule out."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hmscatalog.expressions.binding import bind
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
)
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import Projection, parse_projection

COLUMNS = [("n", "int"), ("s", "string"), ("e", "string"), ("d", "string")]
PROJECTION = parse_projection(
    {
        "projection.enabled": "true",
        # -3, 0, 3, 6, 9 on an int column: numeric ranges
        "projection.n.type": "integer", "projection.n.range": "-3,10",
        "projection.n.interval": "3",
        # '00', '05', ..., '20' on a string column: string ranges that sort as numbers
        "projection.s.type": "integer", "projection.s.range": "0,20",
        "projection.s.interval": "5", "projection.s.digits": "2",
        "projection.e.type": "enum", "projection.e.values": "a,b c,d",
        # 2024-01-29, 2024-02-05, ... 2024-02-26 on a string column: sortable date strings
        "projection.d.type": "date", "projection.d.format": "yyyy-MM-dd",
        "projection.d.range": "2024-01-29,2024-03-01", "projection.d.interval.unit": "WEEKS",
    },
    [(name, parse_hive_type(type_text)) for name, type_text in COLUMNS],
    "s3://b/t",
)
assert PROJECTION is not None

DATES = parse_projection(
    {
        "projection.enabled": "true",
        "projection.day.type": "date", "projection.day.format": "yyyyMMdd",
        "projection.day.range": "20240128,20240305", "projection.day.interval": "9",
        "projection.m.type": "date", "projection.m.format": "dd.MM.yyyy",
        "projection.m.range": "31.01.2024,30.06.2024", "projection.m.interval.unit": "MONTHS",
    },
    [("day", parse_hive_type("date")), ("m", parse_hive_type("string"))],
    "s3://b/t",
)
assert DATES is not None

LITERALS: dict[str, st.SearchStrategy[Any]] = {
    "n": st.one_of(st.integers(-5, 11), st.sampled_from(["3", "03", "x", 2.5, 6.0, "-3"])),
    "s": st.one_of(st.sampled_from(["00", "05", "5", "10", "12", "20", "25", "", "1", "2"]),
                   st.integers(0, 25)),
    "e": st.sampled_from(["a", "b c", "b", "d", "c", " a", "z"]),
    "d": st.one_of(st.sampled_from(["2024-01-29", "2024-02-05", "2024-02-06", "2024-02",
                                    "2024-02-26", "2024-03-01", "2023-12-31", "2024-2-05", "9"]),
                   st.dates(dt.date(2024, 1, 20), dt.date(2024, 3, 5))),
    "day": st.one_of(st.dates(dt.date(2024, 1, 20), dt.date(2024, 3, 10)),
                     st.sampled_from([dt.date(2024, 1, 28), dt.date(2024, 3, 4), "2024-02-06",
                                      "20240206", "x"])),
    "m": st.sampled_from(["31.01.2024", "29.02.2024", "30.04.2024", "31.05.2024", "3", "30",
                          "29.02", "01.03.2024", "30.06.2024"]),
}
OPS = st.sampled_from(["=", "<>", "<", "<=", ">", ">="])


def predicates(columns: list[str]) -> st.SearchStrategy[Predicate]:
    def leaf_for(column: str) -> st.SearchStrategy[Predicate]:
        literal = st.one_of(LITERALS[column], st.none())
        return st.one_of(
            st.builds(Compare, st.just(column), OPS, literal),
            st.builds(In, st.just(column), st.lists(literal, max_size=4).map(tuple)),
            st.builds(EqualNullSafe, st.just(column), literal),
            st.builds(IsNull, st.just(column)),
            st.builds(IsNotNull, st.just(column)),
        )

    leaves = st.one_of(
        *(leaf_for(c) for c in columns),
        st.sampled_from([AlwaysTrue(), AlwaysFalse(), Opaque("f(x)"), Compare("data", "=", 1)]),
        st.builds(Cast, st.just(columns[0]), st.just("string"),
                  st.builds(Compare, st.just(columns[0]), OPS, st.sampled_from(["3", "a"]))),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.builds(And, children, children),
            st.builds(Or, children, children),
            st.builds(Not, children),
        ),
        max_leaves=8,
    )


def brute_force(projection: Projection, predicate: Predicate) -> list[str]:
    bound = bind(predicate, projection.spec)
    return [p.name for p in projection.scan() if bound.may_match(p.typed)]


@settings(max_examples=300, deadline=None)
@given(predicates(["n", "s", "e", "d"]))
def test_narrowed_equals_brute_force(predicate: Predicate) -> None:
    assert PROJECTION is not None
    scan = PROJECTION.scan(predicate)
    narrowed = [p.name for p in scan]
    assert narrowed == brute_force(PROJECTION, predicate)
    assert len(narrowed) <= scan.count()


@settings(max_examples=200, deadline=None)
@given(predicates(["day", "m"]))
def test_narrowed_equals_brute_force_for_dates(predicate: Predicate) -> None:
    assert DATES is not None
    scan = DATES.scan(predicate)
    narrowed = [p.name for p in scan]
    assert narrowed == brute_force(DATES, predicate)
    assert len(narrowed) <= scan.count()


def test_the_projections_are_what_the_properties_say() -> None:
    assert PROJECTION is not None and DATES is not None
    full = list(PROJECTION.scan())
    assert len(full) == 5 * 5 * 3 * 5
    assert sorted({p.values[3] for p in full}) == ["2024-01-29", "2024-02-05", "2024-02-12",
                                                   "2024-02-19", "2024-02-26"]
    assert sorted({p.values[0] for p in DATES.scan()}) == [
        "2024-01-28", "2024-02-06", "2024-02-15", "2024-02-24", "2024-03-04"]
    assert [p.values[1] for p in DATES.scan() if p.values[0] == "2024-01-28"] == [
        "31.01.2024", "29.02.2024", "31.03.2024", "30.04.2024", "31.05.2024", "30.06.2024"]
