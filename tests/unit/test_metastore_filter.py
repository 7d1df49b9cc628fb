from __future__ import annotations

import datetime as dt

import pytest

from hmscatalog.expressions import (
    AlwaysTrue,
    Compare,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Not,
    Opaque,
    StartsWith,
    eq,
    quote_string,
    to_metastore_filter,
)
from hmscatalog.partitions import PartitionSpec

SPEC = PartitionSpec.of(("dt", "date"), ("region", "string"), ("hr", "int"), ("price", "double"))


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("plain", '"plain"'),
        ('x" or "1"="1', "'x\" or \"1\"=\"1'"),
        ("it's", '"it\'s"'),
        ("a and b or c", '"a and b or c"'),
        ("both \" and '", None),
        ("back\\slash", None),
        ("", '""'),
    ],
)
def test_quote_string(value: str, quoted: str | None) -> None:
    assert quote_string(value) == quoted


def test_equalities_and_ranges_render() -> None:
    pred = eq("region", "emea") & Compare("hr", ">=", 7) & Compare("dt", "<", dt.date(2024, 1, 5))
    result = to_metastore_filter(pred, SPEC)
    assert result.text == '((region = "emea" and hr >= 7) and dt < "2024-01-05")'
    assert result.complete


def test_injection_value_is_quoted_with_the_other_quote() -> None:
    result = to_metastore_filter(eq("region", 'x" or "1"="1'), SPEC)
    assert result.text == "region = 'x\" or \"1\"=\"1'"


@pytest.mark.parametrize(
    "pred",
    [
        eq("region", "both \" and '"),
        eq("region", "c:\\dir"),
        Compare("region", "<", "m"),  # string ranges depend on collation
        Compare("region", "<>", "m"),
        StartsWith("region", "a"),
        eq("price", 1.5),  # floating point columns are never sent
        eq("nope", 1),  # not a partition column
        Opaque("upper(region) = 'X'"),
        IsNull("hr"),
        IsNotNull("region"),
        eq("hr", "not a number"),
    ],
)
def test_unsendable_predicates_are_left_to_the_client(pred: object) -> None:
    result = to_metastore_filter(pred, SPEC)  # type: ignore[arg-type]
    assert result.text is None
    assert result.residual == pred


def test_and_keeps_the_sendable_side_and_reports_residual() -> None:
    pred = eq("region", "emea") & StartsWith("region", "e")
    result = to_metastore_filter(pred, SPEC)
    assert result.text == 'region = "emea"'
    assert result.residual == pred


def test_or_needs_both_sides() -> None:
    assert to_metastore_filter(eq("hr", 1) | StartsWith("region", "e"), SPEC).text is None
    assert to_metastore_filter(eq("hr", 1) | eq("hr", 2), SPEC).text == "(hr = 1 or hr = 2)"


def test_not_is_pushed_down() -> None:
    assert to_metastore_filter(Not(Compare("hr", "<", 3)), SPEC).text == "hr >= 3"
    assert to_metastore_filter(Not(eq("hr", 1) | eq("hr", 2)), SPEC).text == (
        "(hr <> 1 and hr <> 2)"
    )
    assert to_metastore_filter(Not(StartsWith("region", "a")), SPEC).text is None


def test_in_lists() -> None:
    assert to_metastore_filter(In("region", ("a", "b")), SPEC).text == (
        '(region = "a" or region = "b")'
    )
    big = In("hr", tuple(range(5000)))
    result = to_metastore_filter(big, SPEC)
    assert result.text == "(hr >= 0 and hr <= 4999)"
    assert not result.complete
    assert to_metastore_filter(In("region", tuple(map(str, range(5000)))), SPEC).text is None


def test_in_lists_of_consecutive_values_go_as_a_range() -> None:
    """A join's runtime values of a month: one range says exactly what the list says."""
    month = to_metastore_filter(In("hr", (5, 3, 4, 6)), SPEC)
    assert (month.text, month.complete) == ("(hr >= 3 and hr <= 6)", True)
    days = In("dt", (dt.date(2024, 2, 28), dt.date(2024, 3, 1), dt.date(2024, 2, 29)))
    assert to_metastore_filter(days, SPEC).text == '(dt >= "2024-02-28" and dt <= "2024-03-01")'
    assert to_metastore_filter(In("hr", (3, 4, 6)), SPEC).text == "(hr = 3 or hr = 4 or hr = 6)"
    assert to_metastore_filter(In("hr", (3, 4)), SPEC).text == "(hr = 3 or hr = 4)"
    assert to_metastore_filter(In("region", ("a", "b", "c")), SPEC).text == (
        '(region = "a" or region = "b" or region = "c")')


def test_negated_in_lists() -> None:
    assert to_metastore_filter(Not(In("hr", (1, 2, 3))), SPEC).text == (
        "((hr <> 1 and hr <> 2) and hr <> 3)")
    assert to_metastore_filter(Not(In("region", ("a", "b"))), SPEC).text is None
    long = to_metastore_filter(Not(In("hr", tuple(range(5000)))), SPEC)
    assert long.text is None and not long.complete  # a filter nested 5,000 deep is not sent


def test_null_handling() -> None:
    assert to_metastore_filter(IsNull("region"), SPEC).text == (
        'region = "__HIVE_DEFAULT_PARTITION__"'
    )
    assert to_metastore_filter(EqualNullSafe("region", None), SPEC).text == (
        'region = "__HIVE_DEFAULT_PARTITION__"'
    )
    assert to_metastore_filter(eq("region", None), SPEC).text is None


def test_true_sends_nothing_and_is_complete() -> None:
    result = to_metastore_filter(AlwaysTrue(), SPEC)
    assert result.text is None and result.complete


@pytest.mark.parametrize("name", ["and", "_x", "my-col"])
def test_columns_the_filter_grammar_cannot_name_are_not_sent(name: str) -> None:
    spec = PartitionSpec.of((name, "string"))
    assert to_metastore_filter(eq(name, "v"), spec).text is None


def test_char_and_varchar_columns_are_filtered_on_the_client() -> None:
    """Hive 2.3's metastore refuses filters on CHAR/VARCHAR keys, and stores CHAR padded."""
    spec = PartitionSpec.of(("c", "char(3)"), ("v", "varchar(5)"), ("s", "string"))
    rendered = to_metastore_filter(eq("c", "b  ") & eq("v", "a") & eq("s", "x"), spec)
    assert rendered.text == 's = "x"'
    assert not rendered.complete
