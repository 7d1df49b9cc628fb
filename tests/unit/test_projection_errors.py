"""Partition projection: every validation error with its message, the partition cap, laziness."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

import pytest

from hmscatalog.errors import HmsCatalogError, TooManyPartitions
from hmscatalog.expressions.predicates import Compare, eq
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import InvalidProjection, Projection, parse_projection

CLOCK = dt.datetime(2024, 5, 17, 13, 45, 12)


def parse(properties: Mapping[str, str], *columns: tuple[str, str]) -> Projection | None:
    return parse_projection(
        {"projection.enabled": "true", **properties},
        [(name, parse_hive_type(type_text)) for name, type_text in columns],
        "s3://b/t", lambda: CLOCK, table="db.t",
    )


def fails(message: str, properties: Mapping[str, str], *columns: tuple[str, str]) -> None:
    with pytest.raises(InvalidProjection, match="^" + re.escape(message) + "$"):
        parse(properties, *columns)


DT = {"projection.dt.type": "date", "projection.dt.format": "yyyy-MM-dd",
      "projection.dt.range": "2024-01-01,2024-01-31"}
COLUMN = "Table db.t: Column projection for column 'dt' failed. "


def test_errors_are_value_errors_of_the_family() -> None:
    assert issubclass(InvalidProjection, HmsCatalogError)
    assert issubclass(InvalidProjection, ValueError)


@pytest.mark.parametrize(
    ("changes", "column_type", "message"),
    [
        ({"projection.dt.format": None}, "string",
         "Missing required property: 'projection.dt.format'"),
        ({"projection.dt.range": None}, "string",
         "Missing required property: 'projection.dt.range'"),
        ({"projection.dt.type": "calendar"}, "string",
         "Property: 'projection.dt.type' value 'calendar' is invalid. Available options: enum, "
         "integer, date, injected"),
        ({"projection.dt.range": "2024-01-01"}, "string",
         "Property: 'projection.dt.range' needs to be a list of 2 valid dates formatted as "
         "'yyyy-MM-dd' or '\\s*NOW\\s*(([\\+\\-])\\s*([0-9]+)\\s*(YEARS?|MONTHS?|WEEKS?|DAYS?|"
         "HOURS?|MINUTES?|SECONDS?)\\s*)?' that are sequential: got '2024-01-01'"),
        ({"projection.dt.range": "2024-01-01,2024/02/01"}, "string",
         "Property: 'projection.dt.range' needs to be a list of 2 valid dates formatted as "
         "'yyyy-MM-dd' or '\\s*NOW\\s*(([\\+\\-])\\s*([0-9]+)\\s*(YEARS?|MONTHS?|WEEKS?|DAYS?|"
         "HOURS?|MINUTES?|SECONDS?)\\s*)?' that are sequential: '2024/02/01' does not match "
         "the date format 'yyyy-MM-dd'"),
        ({"projection.dt.range": "2024-01-01, 2024-02-01"}, "string",  # Athena: no trimming
         "Property: 'projection.dt.range' needs to be a list of 2 valid dates formatted as "
         "'yyyy-MM-dd' or '\\s*NOW\\s*(([\\+\\-])\\s*([0-9]+)\\s*(YEARS?|MONTHS?|WEEKS?|DAYS?|"
         "HOURS?|MINUTES?|SECONDS?)\\s*)?' that are sequential: ' 2024-02-01' does not match "
         "the date format 'yyyy-MM-dd'"),
        ({"projection.dt.range": "2024-02-30,2024-03-01"}, "string",
         "Property: 'projection.dt.range' needs to be a list of 2 valid dates formatted as "
         "'yyyy-MM-dd' or '\\s*NOW\\s*(([\\+\\-])\\s*([0-9]+)\\s*(YEARS?|MONTHS?|WEEKS?|DAYS?|"
         "HOURS?|MINUTES?|SECONDS?)\\s*)?' that are sequential: '2024-02-30' is not a valid "
         "date for 'yyyy-MM-dd': day is out of range for month"),
        ({"projection.dt.range": "2024-03-01,NOW-1YEAR"}, "string",
         "Property: 'projection.dt.range' needs to be a list of 2 valid dates formatted as "
         "'yyyy-MM-dd' or '\\s*NOW\\s*(([\\+\\-])\\s*([0-9]+)\\s*(YEARS?|MONTHS?|WEEKS?|DAYS?|"
         "HOURS?|MINUTES?|SECONDS?)\\s*)?' that are sequential: '2024-03-01' is after "
         "'NOW-1YEAR'"),
        ({"projection.dt.format": "EEE yyyy"}, "string",
         "Property: 'projection.dt.format' is invalid: unsupported pattern letter 'E' in date "
         "format 'EEE yyyy'; supported: y (year), M (month), d (day), H (hour 0-23), "
         "m (minute), s (second), S (fraction), and literal text in single quotes"),
        ({"projection.dt.format": "yyyy-MM-dd'T"}, "string",
         "Property: 'projection.dt.format' is invalid: unterminated quote in date format "
         "\"yyyy-MM-dd'T\""),
        ({"projection.dt.format": "yyyy-dd"}, "string",
         "Property: 'projection.dt.format' is invalid: date format 'yyyy-dd' must name its "
         "fields from the year down without gaps (y, M, d, H, m, s, S); missing M"),
        ({"projection.dt.format": "%Y-%j"}, "string",
         "Property: 'projection.dt.format' is invalid: strptime directive %j in '%Y-%j' is not "
         "supported; supported: %Y, %m, %d, %H, %M, %S, %y, %f, %F, %T, %R, %D"),
        ({"projection.dt.interval": "0"}, "string",
         "Property: 'projection.dt.interval' needs to be a positive integer, got '0'"),
        ({"projection.dt.interval.unit": "FORTNIGHTS"}, "string",
         "Property: 'projection.dt.interval.unit' value 'FORTNIGHTS' is invalid. Available "
         "options: [YEARS, MONTHS, WEEKS, DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS]"),
        ({"projection.dt.interval.unit": "HOURS"}, "string",
         "Property: 'projection.dt.interval' of 1 HOURS is finer than the format 'yyyy-MM-dd' "
         "shows: every partition would repeat"),
        ({"projection.dt.format": "yyyy-MM-dd-HH", "projection.dt.range":
          "2024-01-01-00,2024-01-02-00"}, "string",
         "Property: 'projection.dt.interval.unit' needs to be set when 'projection.dt.format' "
         "('yyyy-MM-dd-HH') is not at single-day or single-month precision (the unit defaults "
         "to 1 DAYS or 1 MONTHS only for those)"),
        ({"projection.dt.format": "yyyy-MM-dd-HH", "projection.dt.range":
          "2024-01-01-00,2024-01-02-00", "projection.dt.interval.unit": "HOURS"}, "date",
         "Property: 'projection.dt.interval' of 1 HOURS is not a whole number of days, as a "
         "column of type date needs"),
        ({"projection.dt.unit": "DAYS", "projection.dt.interval.unit": "DAYS"}, "string",
         "Set either 'projection.dt.interval.unit' or 'projection.dt.unit', not both"),
        ({"projection.dt.min": "2024-01-01"}, "string",
         "Set either 'projection.dt.range' or 'projection.dt.min' and 'projection.dt.max', "
         "not both"),
        ({"projection.dt.range": None, "projection.dt.min": "2024-01-01"}, "string",
         "Missing required property: 'projection.dt.max'"),
        ({"projection.dt.digits": "2"}, "string",
         "Property: 'projection.dt.digits' does not apply to date projection"),
        ({}, "int", "Unsupported column type: int"),
    ],
)
def test_date_errors(changes: dict[str, str | None], column_type: str, message: str) -> None:
    properties = {**DT, **changes}
    fails(COLUMN + message, {k: v for k, v in properties.items() if v is not None},
          ("dt", column_type))


N = {"projection.n.type": "integer", "projection.n.range": "0,10"}
N_COLUMN = "Table db.t: Column projection for column 'n' failed. "


@pytest.mark.parametrize(
    ("changes", "column_type", "message"),
    [
        ({"projection.n.range": None}, "int", "Missing required property: 'projection.n.range'"),
        ({"projection.n.range": "1-10"}, "int",
         "Property: 'projection.n.range' needs to be a list of 2 integers, got '1-10'"),
        ({"projection.n.range": "1,x"}, "int",
         "Property: 'projection.n.range' needs to be a list of 2 integers, got '1,x'"),
        ({"projection.n.range": "10,1"}, "int",
         "Property: 'projection.n.range' needs to be sequential: 10 is greater than 1"),
        ({"projection.n.range": None, "projection.n.min": "5", "projection.n.max": "4"}, "int",
         "Property: 'projection.n.min' needs to be sequential: 5 is greater than 4"),
        ({"projection.n.range": f"0,{2**63}"}, "string",
         "Property: 'projection.n.range' values need to fit a 64-bit signed integer"),
        ({"projection.n.range": "0,1000"}, "tinyint",
         "Property: 'projection.n.range' range 0,1000 does not fit column type tinyint"),
        ({"projection.n.interval": "-1"}, "int",
         "Property: 'projection.n.interval' needs to be a positive integer, got '-1'"),
        ({"projection.n.digits": "two"}, "int",
         "Property: 'projection.n.digits' needs to be a non-negative integer, got 'two'"),
        ({"projection.n.values": "1,2"}, "int",
         "Property: 'projection.n.values' does not apply to integer projection"),
        ({}, "double", "Unsupported column type: double"),
        ({"projection.n.type": "enum", "projection.n.range": None,
          "projection.n.values": "1,2"}, "int", "Unsupported column type: int"),
        ({"projection.n.type": "enum", "projection.n.range": None}, "string",
         "Missing required property: 'projection.n.values'"),
        ({"projection.n.type": "enum", "projection.n.range": None,
          "projection.n.values": ",,"}, "string",
         "Property: 'projection.n.values' needs at least one value"),
        ({"projection.n.type": "injected"}, "string",
         "Property: 'projection.n.range' does not apply to injected projection"),
    ],
)
def test_integer_enum_injected_errors(changes: dict[str, str | None], column_type: str,
                                      message: str) -> None:
    properties = {**N, **changes}
    fails(N_COLUMN + message, {k: v for k, v in properties.items() if v is not None},
          ("n", column_type))


def test_table_level_errors() -> None:
    fails("Table db.t: Property 'projection.enabled' needs to be true or false, got 'yes'",
          {"projection.enabled": "yes"}, ("n", "int"))
    fails("Table db.t: Partition projection cannot be enabled on a table that is not "
          "partitioned", {})
    fails("Table db.t is configured for partition projection, but the following partition "
          "columns are missing projection configuration: [m, k]",
          {**N, "projection.m.range": "1,2"}, ("n", "int"), ("m", "int"), ("k", "string"))
    fails("Table db.t: Partition projection cannot be defined for non-partition column: "
          "'Price'", {**N, "projection.Price.type": "integer"}, ("n", "int"))
    fails("Table db.t: Column projection for column 'n' failed. Unknown property "
          "'projection.n.fromat'; known settings: digits, format, interval, interval.unit, max, "
          "min, range, type, unit, values", {**N, "projection.n.fromat": "x"}, ("n", "int"))
    fails("Table db.t: Property 'projection.N.range' is set twice (keys differ in case)",
          {**N, "projection.N.range": "0,1"}, ("n", "int"))
    fails("Table db.t: Property 'hmscatalog.projection.max-partitions' needs to be a positive "
          "integer, got '0'", {**N, "hmscatalog.projection.max-partitions": "0"}, ("n", "int"))


def test_template_errors() -> None:
    two = {**N, "projection.m.type": "enum", "projection.m.values": "a"}
    fails("Table db.t: Partition projection location template: s3://b/${n}/ is missing "
          "partition column: 'm' placeholder",
          {**two, "storage.location.template": "s3://b/${n}/"}, ("n", "int"), ("m", "string"))
    fails("Table db.t: Partition projection location template: s3://b/${n}/${m}/${x} has "
          "placeholder '${x}', which is not a partition column (columns: ['n', 'm'])",
          {**two, "storage.location.template": "s3://b/${n}/${m}/${x}"},
          ("n", "int"), ("m", "string"))


def test_messages_without_a_table_name() -> None:
    with pytest.raises(InvalidProjection, match=r"^Column projection for column 'n' failed\. "):
        parse_projection({"projection.enabled": "true", "projection.n.type": "integer"},
                         [("n", parse_hive_type("int"))], "s3://b/t")


# -- the partition cap ------------------------------------------------------------------------

HOURS_10Y = {"projection.dt.type": "date", "projection.dt.format": "yyyy-MM-dd-HH",
             "projection.dt.range": "2014-01-01-00,2023-12-31-23",
             "projection.dt.interval.unit": "HOURS"}


def test_cap_fails_before_enumerating_and_names_table_and_count() -> None:
    projection = parse({**HOURS_10Y, "projection.r.type": "enum",
                        "projection.r.values": ",".join(f"r{i}" for i in range(12))},
                       ("dt", "string"), ("r", "string"))
    assert projection is not None
    with pytest.raises(TooManyPartitions, match=(
            r"^Query over table 'db\.t' can potentially read 1,051,776 projected partitions, "
            r"more than the limit of 1,000,000; add conditions on the partition columns "
            r"\['dt', 'r'\] or raise the table property "
            r"'hmscatalog\.projection\.max-partitions'$")):
        projection.scan()
    assert projection.scan(eq("r", "r1")).count() == 87_648
    assert projection.scan(max_partitions=2_000_000).count() == 1_051_776
    with pytest.raises(TooManyPartitions, match="limit of 10;"):
        projection.scan(eq("r", "r1") & Compare("dt", "<", "2014-01-01-12"), max_partitions=10)


def test_cap_from_table_property() -> None:
    projection = parse({**N, "hmscatalog.projection.max-partitions": "5"}, ("n", "int"))
    assert projection is not None and projection.max_partitions == 5
    with pytest.raises(TooManyPartitions, match="can potentially read 11 projected"):
        projection.scan()
    assert projection.scan(Compare("n", "<", 5)).count() == 5


def test_a_scan_over_more_than_the_warning_count_says_what_would_bound_it(
        caplog: pytest.LogCaptureFixture) -> None:
    projection = parse({**N, "hmscatalog.projection.warn-partitions": "5"}, ("n", "int"))
    assert projection is not None and projection.warn_partitions == 5
    projection.scan(Compare("n", "<", 5))
    assert caplog.records == []
    projection.scan()
    assert [r.getMessage() for r in caplog.records] == [
        "query over table 'db.t' considers 11 projected partitions (warning above 5, "
        "hmscatalog.projection.warn-partitions); conditions on the partition columns ['n'] "
        "would bound it"]
    with pytest.raises(InvalidProjection, match=re.escape(
            "'hmscatalog.projection.warn-partitions' needs to be a whole number, got 'many'")):
        parse({**N, "hmscatalog.projection.warn-partitions": "many"}, ("n", "int"))


def test_huge_integer_ranges_are_counted_not_generated() -> None:
    projection = parse({"projection.n.type": "integer",
                        "projection.n.range": f"{-(2**63)},{2**63 - 1}"}, ("n", "bigint"))
    assert projection is not None
    with pytest.raises(TooManyPartitions, match="18,446,744,073,709,551,616"):
        projection.scan()
    scan = projection.scan(Compare("n", ">", 2**63 - 3))
    assert [p.values for p in scan] == [(str(2**63 - 2),), (str(2**63 - 1),)]
    assert scan.candidates_generated == 2


# -- laziness ---------------------------------------------------------------------------------


def test_one_hour_of_ten_years_generates_one_candidate() -> None:
    projection = parse({**HOURS_10Y, "projection.r.type": "enum", "projection.r.values": "a,b"},
                       ("dt", "string"), ("r", "string"))
    assert projection is not None
    assert projection.column("dt").size == 87_648  # type: ignore[union-attr]
    by_equality = projection.scan(eq("dt", "2019-06-30-17") & eq("r", "b"))
    assert [p.name for p in by_equality] == ["dt=2019-06-30-17/r=b"]
    assert by_equality.candidates_generated == 2  # one hour, one region
    by_range = projection.scan(Compare("dt", ">=", "2019-06-30-17")
                               & Compare("dt", "<", "2019-06-30-18"))
    assert by_range.count() == 2
    assert [p.name for p in by_range] == ["dt=2019-06-30-17/r=a", "dt=2019-06-30-17/r=b"]
    assert by_range.candidates_generated == 3


def test_iteration_is_lazy() -> None:
    projection = parse(HOURS_10Y, ("dt", "string"))
    assert projection is not None
    scan = projection.scan()
    first = next(iter(scan))
    assert first.values == ("2014-01-01-00",)
    assert scan.candidates_generated == 1
    assert [p.values for p in scan][:2] == [("2014-01-01-00",), ("2014-01-01-01",)]  # again


def test_a_scan_can_be_iterated_twice() -> None:
    projection = parse({**N, "projection.m.type": "enum", "projection.m.values": "a,b"},
                       ("n", "int"), ("m", "string"))
    assert projection is not None
    scan = projection.scan(Compare("n", "<", 2))
    assert [p.name for p in scan] == [p.name for p in scan] == [
        "n=0/m=a", "n=0/m=b", "n=1/m=a", "n=1/m=b"]
