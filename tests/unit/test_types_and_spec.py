from __future__ import annotations

import datetime as dt
import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionSpec, InvalidPartitionValue
from hmscatalog.partitions import PartitionSpec, format_value, parse_hive_type, parse_value


@pytest.mark.parametrize(
    ("type_text", "text", "value", "canonical"),
    [
        ("string", " a b ", " a b ", " a b "),
        ("varchar(10)", "x", "x", "x"),
        ("tinyint", "-128", -128, "-128"),
        ("int", "07", 7, "7"),
        ("int", " 42 ", 42, "42"),
        ("bigint", "9223372036854775807", 2**63 - 1, "9223372036854775807"),
        ("decimal(5,2)", "1.5", decimal.Decimal("1.50"), "1.50"),
        ("decimal(10,0)", "12", decimal.Decimal("12"), "12"),
        ("decimal(10,7)", "0.0000001", decimal.Decimal("0.0000001"), "0.0000001"),
        ("double", "1.5", 1.5, "1.5"),
        ("double", "1e10", 1e10, "1.0E10"),
        ("double", "0.001", 0.001, "0.001"),
        ("double", "0.0001", 0.0001, "1.0E-4"),
        ("float", "0.1", 0.10000000149011612, "0.1"),
        ("boolean", "TRUE", True, "true"),
        ("boolean", "0", False, "false"),
        ("date", "2024-01-05", dt.date(2024, 1, 5), "2024-01-05"),
        ("date", "2024-1-5", dt.date(2024, 1, 5), "2024-01-05"),
        (
            "timestamp",
            "2024-01-05 10:30:00",
            dt.datetime(2024, 1, 5, 10, 30),
            "2024-01-05 10:30:00",
        ),
        (
            "timestamp",
            "2024-01-05 10:30:00.120",
            dt.datetime(2024, 1, 5, 10, 30, 0, 120000),
            "2024-01-05 10:30:00.12",
        ),
    ],
)
def test_parse_and_format_per_type(
    type_text: str, text: str, value: object, canonical: str
) -> None:
    hive_type = parse_hive_type(type_text)
    assert parse_value(text, hive_type) == value
    assert format_value(value, hive_type) == canonical
    assert format_value(text, hive_type) == canonical


@pytest.mark.parametrize(
    ("type_text", "text"),
    [
        ("int", "abc"),
        ("int", "1.5"),
        ("tinyint", "128"),
        ("bigint", "9223372036854775808"),
        ("decimal(3,1)", "123.4"),
        ("boolean", "maybe"),
        ("date", "2024-02-30"),
        ("timestamp", "yesterday"),
        ("double", "x1"),
    ],
)
def test_bad_values_name_value_and_type(type_text: str, text: str) -> None:
    with pytest.raises(InvalidPartitionValue) as info:
        parse_value(text, parse_hive_type(type_text))
    assert repr(text) in str(info.value)
    assert str(parse_hive_type(type_text)) in str(info.value)


@pytest.mark.parametrize("text", ["array<int>", "map<string,int>", "struct<a:int>", "binary"])
def test_complex_and_binary_types_cannot_partition(text: str) -> None:
    assert not parse_hive_type(text).can_partition


@pytest.mark.parametrize("text", ["integer", "INT", "Decimal(12, 2)", "varchar(5)", "long"])
def test_type_names_and_aliases(text: str) -> None:
    assert parse_hive_type(text).can_partition


@pytest.mark.parametrize("text", ["intt", "decimal(50,2)", "varchar", "int(3)"])
def test_unknown_types_rejected(text: str) -> None:
    with pytest.raises(InvalidPartitionValue, match="Hive type"):
        parse_hive_type(text)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_bigint_round_trip(number: int) -> None:
    hive_type = parse_hive_type("bigint")
    assert parse_value(format_value(number, hive_type), hive_type) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_round_trip(number: float) -> None:
    hive_type = parse_hive_type("double")
    assert parse_value(format_value(number, hive_type), hive_type) == number


def test_spec_paths_round_trip_with_nulls_and_escapes() -> None:
    spec = PartitionSpec.of(("dt", "date"), ("region", "string"), ("hr", "int"))
    values = (dt.date(2024, 1, 5), "São Paulo/BR", None)
    name = spec.name_of(values)
    assert name == "dt=2024-01-05/region=São Paulo%2FBR/hr=__HIVE_DEFAULT_PARTITION__"
    assert spec.values_of(name) == values
    assert spec.values_of("DT=2024-1-05/REGION=x/HR=007") == (dt.date(2024, 1, 5), "x", 7)


def test_spec_rejects_wrong_keys_and_arity() -> None:
    spec = PartitionSpec.of(("dt", "string"), ("hr", "int"))
    with pytest.raises(InvalidPartitionSpec, match=r"has keys \['hr', 'dt'\]"):
        spec.values_of("hr=1/dt=x")
    with pytest.raises(InvalidPartitionSpec, match="expected 2 partition values"):
        spec.to_strings(["x"])
    with pytest.raises(InvalidPartitionSpec, match="missing: \\['hr'\\]"):
        spec.values_from_mapping({"dt": "x"})
    with pytest.raises(InvalidPartitionSpec, match="not a partition column"):
        spec.column("nope")


def test_empty_string_is_the_default_partition() -> None:
    spec = PartitionSpec.of(("s", "string"))
    assert spec.to_strings([""]) == ["__HIVE_DEFAULT_PARTITION__"]
    assert spec.from_strings(["__HIVE_DEFAULT_PARTITION__"]) == (None,)


def test_a_partition_column_of_an_unknown_type_names_the_table_and_column() -> None:
    from hmscatalog.metastore.model import Column, Table

    table = Table("sales", "orders", [Column("v", "int")], [Column("dt", "datetime")])
    with pytest.raises(InvalidPartitionValue) as refused:
        table.partition_spec  # noqa: B018
    assert str(refused.value) == ("partition column dt of table sales.orders: unknown Hive type "
                                  "'datetime'")


def test_the_client_builds_no_partition_a_directory_cannot_be_named_after() -> None:
    from hmscatalog.metastore.client import MetastoreClient
    from hmscatalog.metastore.model import Column, Table

    table = Table("sales", "orders", [Column("v", "int")], [Column("p", "string")])
    client = MetastoreClient("thrift://127.0.0.1:1")  # building a partition calls no server
    assert client.new_partition(table, ["ok"]).values == ("ok",)
    with pytest.raises(InvalidPartitionValue) as refused:
        client.new_partition(table, ["x\0y"])
    assert str(refused.value) == ("partition value 'x\\x00y' of column p of table sales.orders "
                                  "contains U+0000 (NUL), which a partition directory name "
                                  "cannot hold")
