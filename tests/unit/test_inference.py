from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions import format_value, parse_value
from hmscatalog.partitions.inference import directory_value, infer_partition_types


def kind_of(*values: str | None) -> str:
    """The type inferred with ``keep_spelling`` (values without escapes)."""
    return infer_partition_types({"k": list(values)}, inference="keep_spelling")["k"].kind


def spark_type(*raws: str | None) -> str:
    return str(infer_partition_types({"k": list(raws)})["k"])


@pytest.mark.parametrize(
    ("raws", "expected"),
    [
        (["0777"], "int"),
        (["07", "11"], "int"),
        (["-0", "+1", "007"], "int"),
        (["2147483647", "-2147483648"], "int"),
        (["2147483648"], "bigint"),
        (["1", "-2147483649"], "bigint"),
        (["9223372036854775808"], "decimal(19,0)"),
        (["1e5"], "decimal(6,0)"),
        (["0e5"], "decimal(6,0)"),
        (["1.5e1", "7."], "decimal(2,0)"),
        (["1e37"], "decimal(38,0)"),
        (["1e38"], "double"),
        (["1", "1e5"], "decimal(10,0)"),
        (["2147483648", "1e5"], "decimal(20,0)"),
        (["1.5"], "double"),
        (["1", "1.5"], "double"),
        (["2147483648", "1.5"], "string"),  # Spark: BIGINT and DOUBLE widen to STRING
        (["1e5", "1.5"], "string"),
        ([".5", "1d", " 1", "NaN", "-Infinity", "0x1p3"], "double"),
        (["0x10"], "string"),
        (["1.5", "\u0661"], "double"),  # and the second cannot be read: Spark fails too
        (["2024-01-01"], "date"),
        (["2024-02-30"], "string"),
        (["2024-1-5"], "string"),
        (["2024-01-01 10%3A00%3A00", "2024-01-01 10:00:00.1"], "timestamp"),
        (["2024-01-01%2010%3A00%3A00"], "timestamp"),
        (["2024-01-01 10:00:00.12"], "string"),
        (["2024-01-01T10:00:00"], "string"),
        (["2024-01-01", "2024-01-01 10:00:00"], "timestamp"),
        (["2024-01-01", "1"], "string"),
        (["12%3A30%3A00"], "string"),  # Spark 4.3: TIME, which Hive has not
        (["0000-01-01"], "string"),  # Spark: DATE in year 0, which Python has not
        (["1%2E5"], "string"),  # numbers are read from the raw (escaped) text
        (["20", "hello%20world"], "string"),
        (["__HIVE_DEFAULT_PARTITION__", "5"], "int"),
        (["__HIVE_DEFAULT_PARTITION__", None], "string"),
        (["%5F_HIVE_DEFAULT_PARTITION__", "5"], "string"),
        ([], "string"),
    ],
)
def test_inference_as_spark(raws: list[str | None], expected: str) -> None:
    assert spark_type(*raws) == expected


@pytest.mark.parametrize(
    ("raw", "type_text", "expected"),
    [
        ("__HIVE_DEFAULT_PARTITION__", "int", None),
        ("%5F_HIVE_DEFAULT_PARTITION__", "string", "__HIVE_DEFAULT_PARTITION__"),
        ("hello%20world", "string", "hello world"),
        ("007", "int", 7),
        ("1d", "double", 1.0),
        (" 1.5 ", "double", 1.5),
        ("0x1p3", "double", 8.0),
        ("1e5", "decimal(6,0)", 100000),
        ("2024-01-01 10%3A00%3A00", "timestamp", dt.datetime(2024, 1, 1, 10)),
        ("2024-01-01", "timestamp", dt.datetime(2024, 1, 1)),
        ("2024-01-05", "date", dt.date(2024, 1, 5)),
    ],
)
def test_directory_values_read_as_spark_reads_them(raw: str, type_text: str,
                                                   expected: object) -> None:
    from hmscatalog.partitions import parse_hive_type

    assert directory_value(raw, parse_hive_type(type_text)) == expected


@pytest.mark.parametrize(("raw", "type_text"), [
    ("hello%20world", "int"), (" 1", "int"), ("1%2E5", "double"), ("300", "tinyint"),
    ("2024-02-30", "date"), ("1.5", "bigint"), ("NaNd", "double"),
])
def test_directory_values_that_do_not_read_name_value_and_type(raw: str, type_text: str) -> None:
    from hmscatalog.partitions import parse_hive_type

    with pytest.raises(InvalidPartitionValue, match=type_text):
        directory_value(raw, parse_hive_type(type_text))


def test_unknown_inference_is_refused() -> None:
    with pytest.raises(InvalidPartitionValue, match="'duckdb' is not one of"):
        infer_partition_types({"k": ["1"]}, inference="duckdb")  # type: ignore[arg-type]


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
def test_keep_spelling(values: list[str | None], kind: str) -> None:
    assert kind_of(*values) == kind


def test_keys_keep_their_order_and_each_is_inferred_alone() -> None:
    types = infer_partition_types(
        {"year": iter(["2024"]), "month": ["01", "12"], "day": ["2024-01-05"]},
        inference="keep_spelling",
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
    hive_type = infer_partition_types({"k": values}, inference="keep_spelling")["k"]
    for value in values:
        parsed = parse_value(value, hive_type)
        if hive_type.kind in ("bigint", "date"):
            assert format_value(parsed, hive_type) == value


# ASCII only: Spark takes any script's digits as an INT (not as a DOUBLE), so one of them beside
# a fraction makes a DOUBLE key whose value cannot be read; Spark fails on such trees too.
@given(st.lists(_values.filter(lambda value: value is None or value.isascii()), max_size=6))
def test_every_value_reads_as_the_type_spark_inference_gives(values: list[str | None]) -> None:
    hive_type = infer_partition_types({"k": values})["k"]
    for value in values:
        directory_value(value, hive_type)
