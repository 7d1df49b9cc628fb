from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions import format_value, parse_value
from hmscatalog.partitions.inference import infer_partition_types


def kind_of(*values: str | None) -> str:
    return infer_partition_types({"k": list(values)})["k"].kind


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["0"], "bigint"),
        (["1", "-42", "9223372036854775807", "-9223372036854775808"], "bigint"),
        (["01"], "string"),
        (["00"], "string"),
        (["007"], "string"),
        (["-05"], "string"),
        (["-0"], "string"),
        (["0", "01"], "string"),
        (["+1"], "string"),
        ([" 1"], "string"),
        (["0.5"], "double"),
        (["-0.5", "-0.0"], "double"),
        (["007.5"], "string"),
        (["1", "1.5"], "double"),
        (["-2e3", "1E+5", "3.25e-2"], "double"),
        (["9223372036854775808"], "double"),
        (["-9223372036854775809", "1"], "double"),
        (["1e999"], "string"),
        (["NaN"], "string"),
        (["Infinity"], "string"),
        (["0x1A"], "string"),
        (["1."], "string"),
        (["1\u0661"], "string"),
        (["\uff12\uff10\uff12\uff14-01-05"], "string"),
        ([".5"], "string"),
        (["1", "a"], "string"),
        (["2024-01-31", "2024-02-29"], "date"),
        (["2024-02-30"], "string"),
        (["2023-02-29"], "string"),
        (["2024-1-5"], "string"),
        (["0000-01-01"], "string"),
        (["2024-01-05 10:30:00", "2024-01-05 10:30:00.123456789"], "timestamp"),
        (["2024-01-05T10:30:00"], "timestamp"),
        (["2024-01-05", "2024-01-05 10:30:00"], "timestamp"),
        (["2024-01-05 10:30"], "string"),
        (["2024-01-05 24:00:00"], "string"),
        (["2024-01-05 10:30:00.1234567890"], "string"),
        ([None, "5", None], "bigint"),
        ([None, None], "string"),
        ([], "string"),
        ([""], "string"),
        (["", "1"], "string"),
    ],
)
def test_autocast(values: list[str | None], kind: str) -> None:
    assert kind_of(*values) == kind


def test_keys_keep_their_order_and_each_is_inferred_alone() -> None:
    types = infer_partition_types(
        {"year": iter(["2024"]), "month": ["01", "12"], "day": ["2024-01-05"]}
    )
    assert [(k, t.kind) for k, t in types.items()] == [
        ("year", "bigint"), ("month", "string"), ("day", "date"),
    ]


def test_autocast_off_gives_strings_except_explicit_types() -> None:
    types = infer_partition_types(
        {"a": ["1"], "b": ["2024-01-05"], "c": ["7"]}, explicit={"c": "int"}, autocast=False
    )
    assert {k: t.kind for k, t in types.items()} == {"a": "string", "b": "string", "c": "int"}


def test_explicit_types_win_match_any_case_and_may_name_absent_keys() -> None:
    types = infer_partition_types(
        {"Month": ["01", None], "code": ["42"]},
        explicit={"MONTH": "INT", "code": "string", "absent": "decimal(10,2)"},
    )
    assert list(types) == ["Month", "code"]
    assert str(types["Month"]) == "int"
    assert types["code"].kind == "string"


@pytest.mark.parametrize("type_text", ["int(", "nosuchtype", "varchar", "binary", "array<int>"])
def test_bad_explicit_type_names_key_and_type(type_text: str) -> None:
    with pytest.raises(InvalidPartitionValue, match=r"'absent'.*explicit type") as info:
        infer_partition_types({"k": ["1"]}, explicit={"absent": type_text})
    assert repr(type_text) in str(info.value)


def test_conflicting_explicit_spellings_of_one_key() -> None:
    with pytest.raises(InvalidPartitionValue, match="two explicit types"):
        infer_partition_types({"k": ["1"]}, explicit={"k": "int", "K": "string"})
    assert str(infer_partition_types({"k": ["1"]}, {"k": "int", "K": "INTEGER"})["k"]) == "int"


def test_value_not_parsing_as_explicit_type_names_key_value_and_type() -> None:
    with pytest.raises(InvalidPartitionValue, match=r"'d'.*'2024-02-30'.*date"):
        infer_partition_types({"d": ["2024-01-01", "2024-02-30"]}, explicit={"D": "date"})
    with pytest.raises(InvalidPartitionValue, match=r"'n'.*'300'.*tinyint"):
        infer_partition_types({"n": ["300"]}, explicit={"n": "tinyint"})


_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.from_regex(r"-?0\d{0,3}(\.\d{1,2})?", fullmatch=True),
)
_dates = st.dates().map(dt.date.isoformat)
_timestamps = st.datetimes().map(lambda d: d.isoformat(sep=" "))
_values = st.one_of(
    _numbers,
    _dates,
    _timestamps,
    st.text(alphabet="0123456789-+.:eT \u0661", max_size=12),
    st.text(max_size=8),
    st.none(),
)


@given(
    st.sampled_from([
        (st.integers(min_value=-(2**63), max_value=2**63 - 1).map(str), "bigint"),
        (_dates, "date"),
        (_timestamps, "timestamp"),
    ]).flatmap(lambda pair: st.tuples(st.lists(pair[0], min_size=1, max_size=6), st.just(pair[1])))
)
def test_canonical_spellings_infer_their_type(case: tuple[list[str], str]) -> None:
    values, kind = case
    assert kind_of(*values) == kind


@given(
    st.one_of(
        st.lists(_values, max_size=6),
        st.lists(_numbers, min_size=1, max_size=6),
        st.lists(_dates, min_size=1, max_size=6),
        st.lists(st.one_of(_dates, _timestamps), min_size=1, max_size=6),
    )
)
def test_every_value_parses_and_bigint_and_date_round_trip(values: list[str | None]) -> None:
    hive_type = infer_partition_types({"k": values})["k"]
    for value in values:
        parsed = parse_value(value, hive_type)
        if hive_type.kind in ("bigint", "date"):
            assert format_value(parsed, hive_type) == value
