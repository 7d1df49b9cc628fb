"""Binding predicates to partition columns: names, literals, negation normal form, may_match."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.expressions import (
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
    bind,
    eq,
    fold,
)
from hmscatalog.expressions import binding as binding_module
from hmscatalog.expressions.bound import (
    UNCOMPARABLE,
    UNSET,
    BoundCast,
    BoundCompare,
    BoundIn,
    BoundIsNull,
    BoundNullSafe,
    BoundStartsWith,
    Column,
    Undecidable,
)
from hmscatalog.expressions.evaluator import ANY, FALSE, NULL, TRUE
from hmscatalog.expressions.predicates import columns_of, has_opaque
from hmscatalog.partitions import PartitionSpec
from hmscatalog.partitions.types import parse_hive_type, parse_value

SPEC = PartitionSpec.of(("dt", "date"), ("region", "string"), ("hr", "int"), ("price", "double"))
DT, REGION, HR, PRICE = (Column(i, c.name, c.type) for i, c in enumerate(SPEC.columns))
ROW = (dt.date(2024, 1, 5), "emea", 7, 1.5)
NULLS = (None, None, None, None)


# -- bind: names, literals, errors --------------------------------------------------------------

def test_names_are_resolved_once_whatever_their_case() -> None:
    assert bind(Compare("DT", ">", dt.date(2024, 1, 1)), SPEC).root == BoundCompare(
        DT, ">", dt.date(2024, 1, 1))
    assert bind(IsNull("Region"), SPEC).root == BoundIsNull(REGION)
    assert bind(eq("data", 1), SPEC).root == BoundCompare(Column(None, "data", None), "=", 1)


def test_columns_may_be_given_as_name_and_type_pairs() -> None:
    bound = bind(eq("HR", "07"), [("Hr", parse_hive_type("int"))])
    assert bound.root == BoundCompare(Column(0, "hr", parse_hive_type("int")), "=", 7)
    assert bound.may_match((7,)) and not bound.may_match((8,))


@pytest.mark.parametrize(("pred", "literals"), [
    (eq("hr", "07"), [7]),
    (eq("hr", 7.0), [7]),
    (eq("dt", "2024-01-05"), [dt.date(2024, 1, 5)]),
    (eq("price", 2), [2.0]),
    (In("hr", ("1", 2, None)), [1, 2, None]),
    (EqualNullSafe("region", None), [None]),
    # no faithful value of the column's type: undecidable, never an error
    (eq("hr", 1.5), [UNCOMPARABLE]),
    (eq("hr", "x"), [UNCOMPARABLE]),
    (eq("hr", True), [UNCOMPARABLE]),
    (eq("region", 7), [UNCOMPARABLE]),
    (eq("dt", dt.datetime(2024, 1, 5)), [UNCOMPARABLE]),
    (In("hr", ("x", 3)), [UNCOMPARABLE, 3]),
    (eq("data", "07"), ["07"]),  # another column: kept as given, never compared
])
def test_literals_are_coerced_to_the_column_type(pred: Predicate, literals: list[Any]) -> None:
    root = bind(pred, SPEC).root
    assert isinstance(root, BoundCompare | BoundIn | BoundNullSafe)
    found = list(root.values) if isinstance(root, BoundIn) else [root.value]
    assert found == literals
    assert [type(v) for v in found] == [type(v) for v in literals]


@pytest.mark.parametrize(("value", "error"), [(math.nan, ValueError), (math.inf, OverflowError)])
def test_a_literal_that_fails_coercion_otherwise_fails_the_bind(value: float,
                                                              error: type[Exception]) -> None:
    with pytest.raises(error):
        bind(eq("hr", value), SPEC)
    bind(eq("price", value), SPEC)  # a double column holds it
    bind(eq("data", value), SPEC)  # not a partition column: nothing to coerce to


def test_casts_bind_their_condition_to_the_cast_type() -> None:
    bound = bind(Cast("REGION", "date", Compare("region", ">", "2024-01-04")), SPEC)
    date = parse_hive_type("date")
    assert bound.root == BoundCast(REGION, date, BoundCompare(Column(0, "region", date), ">",
                                                              dt.date(2024, 1, 4)))
    with pytest.raises(InvalidPartitionValue, match="unknown Hive type 'timestamp_ntz'"):
        bind(Cast("dt", "timestamp_ntz", IsNull("dt")), SPEC)
    assert isinstance(bind(Cast("data", "timestamp_ntz", IsNull("data")), SPEC).root,
                      Undecidable)


def test_evaluating_neither_coerces_nor_resolves_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    coerce = binding_module.coerce_literal

    def counting(value: Any, hive_type: Any) -> Any:
        calls.append(value)
        return coerce(value, hive_type)

    monkeypatch.setattr(binding_module, "coerce_literal", counting)
    bound = bind(Compare("HR", ">=", "07") & In("Region", ("emea", "apac")), SPEC)
    assert len(calls) == 3
    for hour in range(100):
        bound.may_match((None, "emea", hour, None))
    assert len(calls) == 3


# -- negation normal form -----------------------------------------------------------------------

@pytest.mark.parametrize(("pred", "normal"), [
    (Not(Compare("hr", "<", 3)), BoundCompare(HR, ">=", 3)),
    (Not(eq("hr", 3)), BoundCompare(HR, "<>", 3)),
    (Not(Not(eq("hr", 3))), BoundCompare(HR, "=", 3)),
    (Not(eq("hr", 1) | Compare("dt", ">", "2024-01-01")),
     And(BoundCompare(HR, "<>", 1), BoundCompare(DT, "<=", dt.date(2024, 1, 1)))),
    (Not(eq("hr", 1) & Not(IsNull("region"))),
     Or(BoundCompare(HR, "<>", 1), BoundIsNull(REGION))),
    (Not(IsNull("hr")), BoundIsNull(HR, negated=True)),
    (Not(IsNotNull("hr")), BoundIsNull(HR)),
    (IsNotNull("hr"), BoundIsNull(HR, negated=True)),
    (Not(In("hr", (1, 2))), BoundIn(HR, (1, 2), negated=True)),
    (Not(EqualNullSafe("hr", 1)), BoundNullSafe(HR, 1, negated=True)),
    (Not(StartsWith("region", "e")), BoundStartsWith(REGION, "e", negated=True)),
    (Not(AlwaysTrue()), AlwaysFalse()),
    (Not(AlwaysFalse()), AlwaysTrue()),
    (Not(Opaque("f(x)")), Undecidable(Opaque("f(x)"))),
    # Spark orders NaN above every number: NOT price < 1 is price >= 1, NaN included
    (Not(Compare("price", "<", 1)), BoundCompare(PRICE, ">=", 1.0)),
    (Not(Compare("price", "=", 1)), BoundCompare(PRICE, "<>", 1.0)),
    (Not(Cast("hr", "string", eq("hr", "7"))),
     BoundCast(HR, parse_hive_type("string"),
               BoundCompare(Column(0, "hr", parse_hive_type("string")), "<>", "7"))),
])
def test_not_is_pushed_to_the_leaves(pred: Predicate, normal: Predicate) -> None:
    assert bind(pred, SPEC).root == normal


def test_negated_float_comparisons_keep_nan_partitions() -> None:
    bound = bind(Not(Compare("price", "<", 1)), SPEC)
    assert bound.may_match((None, None, None, math.nan))  # Spark: NOT (NaN < 1) is true
    assert not bound.may_match((None, None, None, 0.5))
    assert bound.may_match((None, None, None, 1.5))


@pytest.mark.parametrize(("pred", "kept"), [
    (Compare("price", ">", 1000), {math.nan, math.inf}),
    (Compare("price", "=", math.nan), {math.nan}),
    (Compare("price", ">=", math.nan), {math.nan}),
    (Compare("price", "<", math.nan), {-math.inf, -0.0, 1.5, math.inf}),
    (Compare("price", "<>", math.nan), {-math.inf, -0.0, 1.5, math.inf}),
    (EqualNullSafe("price", math.nan), {math.nan}),
    (In("price", (math.nan, 1.5)), {math.nan, 1.5}),
    (Not(In("price", (math.nan,))), {-math.inf, -0.0, 1.5, math.inf}),
    (Compare("price", ">=", 1) & Compare("price", "<=", math.nan), {math.nan, 1.5, math.inf}),
    (Compare("price", "=", 0.0), {-0.0}),
])
def test_nan_is_the_greatest_double_and_equal_to_itself(pred: Predicate, kept: set) -> None:
    """Spark's order of FLOAT and DOUBLE: -0.0 = 0.0, NaN = NaN, NaN above +Infinity."""
    values = [math.nan, math.inf, -math.inf, -0.0, 1.5, None]
    bound = bind(pred, SPEC)
    got = {v for v in values if bound.may_match((None, None, None, v))}
    assert {repr(v) for v in got} == {repr(v) for v in kept}


def test_negation_tightens_pinned_values() -> None:
    assert bind(Not(Compare("region", "<>", "a")), SPEC).pinned("REGION") == {"a"}
    assert bind(Not(Compare("region", "=", "a")), SPEC).pinned("region") is None
    assert bind(Not(In("region", ("a",))), SPEC).pinned("region") is None
    assert bind(Not(AlwaysTrue()), SPEC).pinned("region") == frozenset()
    assert bind(eq("region", "a"), SPEC).pinned("data") is None


# -- may_match and evaluate: SQL's three-valued logic --------------------------------------------

@pytest.mark.parametrize(("pred", "values", "truth"), [
    (eq("hr", 7), ROW, TRUE),
    (eq("hr", 7), NULLS, NULL),
    (Not(eq("hr", 7)), NULLS, NULL),
    (Compare("hr", "<>", 7) | IsNull("hr"), NULLS, TRUE),
    (IsNull("hr"), NULLS, TRUE),
    (IsNotNull("hr"), NULLS, FALSE),
    (In("hr", (8, None)), ROW, NULL),  # 7 = 8 OR 7 = NULL
    (Not(In("hr", (8, None))), ROW, NULL),  # 7 <> 8 AND 7 <> NULL
    (Not(In("hr", (7, None))), ROW, FALSE),
    (In("hr", ()), NULLS, FALSE),
    (Not(In("hr", ())), NULLS, TRUE),
    (EqualNullSafe("hr", None), NULLS, TRUE),
    (Not(EqualNullSafe("hr", None)), NULLS, FALSE),
    (Not(EqualNullSafe("hr", 7)), NULLS, TRUE),
    (StartsWith("region", "e"), NULLS, NULL),
    (Not(StartsWith("region", "e")), NULLS, NULL),
    (Not(eq("hr", 7) & Opaque("f(x)")), NULLS, TRUE | NULL),  # NOT (NULL AND ?) may be true
    (Not(eq("hr", 7) | Opaque("f(x)")), NULLS, FALSE | NULL),  # NOT (NULL OR ?) never is
    (Not(Cast("region", "date", Compare("region", ">", "2024-01-04"))), NULLS, NULL),
    (eq("hr", 1.5), ROW, ANY),
    (eq("data", 1), ROW, ANY),
    (eq("hr", 7), (), ANY),  # nothing known yet
    (eq("hr", 7), ROW[:2], ANY),  # hr below, unknown
    (eq("region", "emea"), ROW[:2], TRUE),
    (eq("region", "emea"), (UNSET, "emea", UNSET, UNSET), TRUE),
    (eq("dt", dt.date(2024, 1, 5)), (UNSET, "emea", 7, 1.5), ANY),
])
def test_truth_values(pred: Predicate, values: tuple[Any, ...], truth: int) -> None:
    bound = bind(pred, SPEC)
    assert bound.truth_values(values) == truth
    assert bound.may_match(values) is bool(truth & TRUE)
    assert bound.evaluate(values) is (True if truth == TRUE else None if truth & TRUE
                                      else False)


def test_a_partition_is_dropped_only_when_the_predicate_can_never_be_true() -> None:
    unknown_or_null = Compare("hr", ">", 3) | Opaque("f(x)")
    assert bind(unknown_or_null, SPEC).may_match(NULLS)  # NULL OR unknown: kept
    assert not bind(Compare("hr", ">", 3) & Opaque("f(x)"), SPEC).may_match(NULLS)
    assert not bind(Not(IsNull("hr")), SPEC).may_match(NULLS)
    assert bind(Not(IsNull("hr")), SPEC).may_match(ROW)


# -- properties over random predicates ----------------------------------------------------------

_LITERALS = st.sampled_from([None, 7, "07", 8, "emea", "x", 1.5, math.nan, dt.date(2024, 1, 5),
                             "2024-01-05"])
_NO_NAN = _LITERALS.filter(lambda v: v is not math.nan)  # NaN fails the bind on an int column
_NAMES = st.sampled_from(["dt", "REGION", "hr", "price", "data"])
_LEAVES = st.one_of(
    st.builds(Compare, _NAMES, st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), _NO_NAN),
    st.builds(Compare, st.just("price"), st.sampled_from(["<", ">="]), _LITERALS),
    st.builds(In, _NAMES, st.lists(_NO_NAN, max_size=3).map(tuple)),
    st.builds(EqualNullSafe, st.sampled_from(["region", "hr"]), _NO_NAN),
    st.builds(IsNull, _NAMES), st.builds(IsNotNull, _NAMES),
    st.builds(StartsWith, _NAMES, st.just("e")),
    st.just(Opaque("f(x)")), st.just(AlwaysTrue()), st.just(AlwaysFalse()),
)
_PREDICATES = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.builds(And, inner, inner), st.builds(Or, inner, inner), st.builds(Not, inner)),
    max_leaves=6)
_ROWS = st.tuples(st.sampled_from([None, dt.date(2024, 1, 5), dt.date(2024, 2, 1)]),
                  st.sampled_from([None, "emea", "apac"]), st.sampled_from([None, 7, 8]),
                  st.sampled_from([None, 1.5, math.nan]))
_NOT_TABLE = {TRUE: FALSE, FALSE: TRUE, NULL: NULL}


def _negation(mask: int) -> int:
    result = 0
    for value, negated in _NOT_TABLE.items():
        if mask & value:
            result |= negated
    return result


@settings(max_examples=300, deadline=None)
@given(pred=_PREDICATES, row=_ROWS, known=st.integers(0, 4))
def test_a_negated_predicate_takes_exactly_the_negated_truth_values(
        pred: Predicate, row: tuple[Any, ...], known: int) -> None:
    values = row[:known]
    assert bind(Not(pred), SPEC).truth_values(values) == _negation(
        bind(pred, SPEC).truth_values(values))


@settings(max_examples=300, deadline=None)
@given(pred=_PREDICATES)
def test_bound_predicates_have_no_not(pred: Predicate) -> None:
    assert not fold(bind(pred, SPEC).root, lambda n: isinstance(n, Not), bool.__or__,
                    bool.__or__)


# -- the shared traversal -----------------------------------------------------------------------

def test_column_references_and_opaque_parts() -> None:
    pred = Not(eq("DT", 1) | Cast("Hr", "string", eq("hr", "1"))) & StartsWith("region", "x")
    assert columns_of(pred) == {"dt", "hr", "region"}
    assert not has_opaque(pred)
    assert has_opaque(Not(eq("dt", 1) & Opaque("f(x)")))
    assert not has_opaque(Cast("dt", "string", Opaque("f(x)")))  # casts are not looked into


def test_a_float_literal_is_compared_in_single_precision() -> None:
    """py4j hands over the FLOAT 0.1f as the double 0.1; the FLOAT partition '0.1' is 0.1f."""
    spec = PartitionSpec.of(("f", "float"))
    value = parse_value("0.1", spec.column("f").type)
    assert bind(Compare("f", "=", 0.1), spec).may_match((value,))
    assert bind(In("f", (0.1, 2.0)), spec).may_match((value,))
    assert not bind(Compare("f", ">", 0.1), spec).may_match((value,))


def test_zero_and_nan_pin_no_double_value() -> None:
    """0.0 and -0.0 are one value named two ways; NaN is not found in a set by equality."""
    for value in (0.0, -0.0, math.nan):
        assert bind(Compare("price", "=", value), SPEC).pinned("price") is None
    assert bind(Compare("price", "=", 1.5), SPEC).pinned("price") == {1.5}
