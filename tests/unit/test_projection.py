"""Partition projection: configurations Athena and Trino accept, the partitions they produce."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import pytest

from hmscatalog.expressions.predicates import (
    AlwaysFalse,
    Cast,
    Compare,
    In,
    IsNull,
    Not,
    Opaque,
    Predicate,
    eq,
)
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import (
    DateProjection,
    InjectedProjection,
    Projection,
    UnsupportedProjectionFilter,
    parse_projection,
)

CLOCK = dt.datetime(2024, 5, 17, 13, 45, 12, 345678)


def project(properties: Mapping[str, str], *columns: tuple[str, str],
            location: str = "s3://b/t", clock: dt.datetime = CLOCK) -> Projection:
    projection = parse_projection(
        {"projection.enabled": "true", **properties},
        [(name, parse_hive_type(type_text)) for name, type_text in columns],
        location, lambda: clock, table="db.t",
    )
    assert projection is not None
    return projection


def names(projection: Projection, predicate: Predicate | None = None) -> list[str]:
    return [p.name for p in projection.scan(predicate)]


def values(projection: Projection, predicate: Predicate | None = None) -> list[str]:
    return [p.values[0] for p in projection.scan(predicate)]


# -- enabling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", [None, "false", "FALSE", " False "])
def test_not_enabled_gives_none_without_validating(flag: str | None) -> None:
    properties = {"projection.x.type": "bogus"}
    if flag is not None:
        properties["projection.enabled"] = flag
    assert parse_projection(properties, [("x", parse_hive_type("string"))], "s3://b/t") is None


def test_enabled_is_case_insensitive() -> None:
    properties = {"projection.enabled": "TRUE", "projection.x.type": "enum",
                  "projection.x.values": "a"}
    assert parse_projection(properties, [("x", parse_hive_type("string"))], "s3://b") is not None


# -- integer ----------------------------------------------------------------------------------


def test_integer_digits_pad_with_zeros() -> None:
    projection = project({"projection.n.type": "integer", "projection.n.range": "1,3",
                          "projection.n.digits": "4"}, ("n", "string"))
    assert values(projection) == ["0001", "0002", "0003"]


def test_integer_interval_steps_from_the_minimum() -> None:
    projection = project({"projection.n.type": "integer", "projection.n.range": " 0 , 10 ",
                          "projection.n.interval": "3"}, ("n", "int"))
    assert values(projection) == ["0", "3", "6", "9"]
    assert [p.typed for p in projection.scan()] == [(0,), (3,), (6,), (9,)]
    assert values(projection, eq("n", 5)) == []  # in range, off the grid
    assert values(projection, In("n", (6, 12, 9))) == ["6", "9"]


def test_integer_negative_and_leading_zero_range() -> None:
    projection = project({"projection.n.type": "integer", "projection.n.range": "-2,0001",
                          "projection.n.digits": "3"}, ("n", "bigint"))
    assert values(projection) == ["-02", "-01", "000", "001"]


def test_integer_on_string_column_picks_only_its_own_spelling() -> None:
    projection = project({"projection.hr.type": "integer", "projection.hr.range": "0,23",
                          "projection.hr.digits": "2"}, ("hr", "string"))
    assert values(projection, eq("hr", "07")) == ["07"]
    assert values(projection, eq("hr", "7")) == []
    assert values(projection, Compare("hr", ">", "21")) == ["22", "23"]


def test_integer_padded_values_on_int_column_keep_the_projected_text() -> None:
    projection = project({"projection.hr.type": "integer", "projection.hr.range": "0,23",
                          "projection.hr.digits": "2"}, ("hr", "int"))
    [part] = projection.scan(eq("hr", 7))
    assert part.values == ("07",) and part.typed == (7,) and part.location == "s3://b/t/hr=07"


def test_integer_range_64_bit() -> None:
    high = 2**63 - 1
    projection = project({"projection.n.type": "integer",
                          "projection.n.range": f"{high - 2},{high}"}, ("n", "bigint"))
    assert values(projection) == [str(high - 2), str(high - 1), str(high)]
    assert values(projection, Compare("n", ">=", high)) == [str(high)]


# -- enum -------------------------------------------------------------------------------------


def test_enum_keeps_white_space_drops_empty_and_repeated_items() -> None:
    projection = project({"projection.r.type": "enum",
                          "projection.r.values": "us east, eu west ,,apac,apac"}, ("r", "string"))
    assert values(projection) == ["us east", " eu west ", "apac"]
    assert values(projection, eq("r", "eu west")) == []
    assert values(projection, eq("r", " eu west ")) == [" eu west "]
    assert values(projection, In("r", ("apac", "mars"))) == ["apac"]


def test_enum_default_location_is_hive_escaped_template_is_not() -> None:
    properties = {"projection.r.type": "enum", "projection.r.values": "a/b,c:d"}
    default = project(properties, ("r", "string"), location="s3://b/t/")
    assert [p.location for p in default.scan()] == ["s3://b/t/r=a%2Fb", "s3://b/t/r=c%3Ad"]
    templated = project({**properties, "storage.location.template": "s3://b/x/${r}/"},
                        ("r", "string"))
    assert [p.location for p in templated.scan()] == ["s3://b/x/a/b/", "s3://b/x/c:d/"]


# -- date -------------------------------------------------------------------------------------


def hourly(**extra: str) -> dict[str, str]:
    return {"projection.dt.type": "date", "projection.dt.format": "yyyy-MM-dd-HH",
            "projection.dt.range": "2024-02-28-22,2024-03-01-01",
            "projection.dt.interval.unit": "HOURS", **extra}


def test_date_hours_with_dashed_hour_format() -> None:
    projection = project(hourly(), ("dt", "string"))
    assert values(projection) == ["2024-02-28-22", "2024-02-28-23", "2024-02-29-00",
                                  "2024-02-29-01"] + [f"2024-02-29-{h:02d}" for h in
                                                      range(2, 24)] + ["2024-03-01-00",
                                                                       "2024-03-01-01"]
    assert values(projection, Compare("dt", ">", "2024-03-01")) == ["2024-03-01-00",
                                                                    "2024-03-01-01"]
    assert values(projection, eq("dt", "2024-02-29-7")) == []  # not how the format writes it


def test_date_interval_in_hours() -> None:
    projection = project(hourly(**{"projection.dt.interval": "12"}), ("dt", "string"))
    assert values(projection) == ["2024-02-28-22", "2024-02-29-10", "2024-02-29-22"]
    assert values(projection, eq("dt", "2024-02-29-10")) == ["2024-02-29-10"]
    assert values(projection, eq("dt", "2024-02-29-11")) == []


def test_date_weeks() -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "yyyy-MM-dd",
                          "projection.d.range": "2024-01-01,2024-02-01",
                          "projection.d.interval.unit": "weeks"}, ("d", "string"))
    assert values(projection) == ["2024-01-01", "2024-01-08", "2024-01-15", "2024-01-22",
                                  "2024-01-29"]


def test_date_defaults_to_days_and_months() -> None:
    daily = project({"projection.d.type": "date", "projection.d.format": "yyyyMMdd",
                     "projection.d.range": "20240227,20240302"}, ("d", "string"))
    assert values(daily) == ["20240227", "20240228", "20240229", "20240301", "20240302"]
    monthly = project({"projection.m.type": "date", "projection.m.format": "yyyyMM",
                       "projection.m.range": "202311,202402"}, ("m", "string"))
    assert values(monthly) == ["202311", "202312", "202401", "202402"]


def test_months_are_calendar_months_clamped_without_drift() -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "yyyy-MM-dd",
                          "projection.d.range": "2024-01-31,2024-05-31",
                          "projection.d.interval.unit": "MONTHS"}, ("d", "string"))
    assert values(projection) == ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30",
                                  "2024-05-31"]
    assert values(projection, eq("d", "2024-04-30")) == ["2024-04-30"]
    assert values(projection, eq("d", "2024-03-29")) == []


@pytest.mark.parametrize(
    ("range_text", "expected"),
    [
        ("NOW-3DAYS,NOW", ["2024-05-14", "2024-05-15", "2024-05-16", "2024-05-17"]),
        ("NOW - 1 DAY , NOW + 1DAY", ["2024-05-16", "2024-05-17", "2024-05-18"]),
        ("2024-05-16,now", ["2024-05-16", "2024-05-17"]),
        ("NOW-1WEEK,NOW-6DAYS", ["2024-05-10", "2024-05-11"]),
        ("NOW-2YEARS,NOW-2YEARS", ["2022-05-17"]),
    ],
)
def test_now_relative_ranges_use_the_injected_clock(range_text: str,
                                                    expected: list[str]) -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "yyyy-MM-dd",
                          "projection.d.range": range_text}, ("d", "string"))
    assert values(projection) == expected


def test_now_plus_months_clamps_day_of_month() -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "yyyy-MM-dd",
                          "projection.d.range": "NOW,NOW+1MONTH",
                          "projection.d.interval.unit": "MONTHS"}, ("d", "string"),
                         clock=dt.datetime(2023, 1, 31, 8))
    assert values(projection) == ["2023-01-31", "2023-02-28"]


def test_now_is_cut_to_the_format_and_aware_clocks_are_utc() -> None:
    projection = project(hourly(**{"projection.dt.range": "NOW-2HOURS,NOW"}), ("dt", "string"),
                         clock=dt.datetime(2024, 5, 17, 15, 45, tzinfo=dt.timezone(
                             dt.timedelta(hours=2))))
    assert values(projection) == ["2024-05-17-11", "2024-05-17-12", "2024-05-17-13"]


def test_quoted_literals_in_date_formats() -> None:
    projection = project({"projection.ts.type": "date",
                          "projection.ts.format": "yyyy-MM-dd'T'HH'h'''",
                          "projection.ts.range": "2024-01-01T00h',2024-01-01T02h'",
                          "projection.ts.interval.unit": "HOURS"}, ("ts", "string"))
    assert values(projection) == ["2024-01-01T00h'", "2024-01-01T01h'", "2024-01-01T02h'"]


def test_date_column_stores_hive_dates_and_locates_by_format() -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "yyyy/MM/dd",
                          "projection.d.range": "2024/01/30,2024/02/02",
                          "storage.location.template": "s3://b/logs/${d}/"}, ("d", "date"))
    parts = list(projection.scan(Compare("d", ">=", dt.date(2024, 2, 1))))
    assert [p.values for p in parts] == [("2024-02-01",), ("2024-02-02",)]
    assert [p.typed for p in parts] == [(dt.date(2024, 2, 1),), (dt.date(2024, 2, 2),)]
    assert [p.location for p in parts] == ["s3://b/logs/2024/02/01/", "s3://b/logs/2024/02/02/"]
    assert [p.name for p in parts] == ["d=2024-02-01", "d=2024-02-02"]
    assert values(projection, eq("d", "2024-01-31")) == ["2024-01-31"]


def test_timestamp_column() -> None:
    projection = project(hourly(**{"projection.dt.range": "2024-01-01-00,2024-01-01-02"}),
                         ("dt", "timestamp"))
    parts = list(projection.scan(Compare("dt", ">", dt.datetime(2024, 1, 1, 0, 30))))
    assert [p.values for p in parts] == [("2024-01-01 01:00:00",), ("2024-01-01 02:00:00",)]
    assert parts[0].location == "s3://b/t/dt=2024-01-01-01"


def test_non_sortable_string_format_is_still_filtered_exactly() -> None:
    projection = project({"projection.d.type": "date", "projection.d.format": "dd-MM-yyyy",
                          "projection.d.range": "30-12-2023,02-01-2024"}, ("d", "string"))
    column = projection.column("d")
    assert isinstance(column, DateProjection) and not column.monotone
    # String order, not date order: the evaluator decides, as the engine would.
    assert values(projection, Compare("d", "<", "02")) == ["01-01-2024"]


# -- injected ---------------------------------------------------------------------------------


def injected(*extra: tuple[str, str]) -> Projection:
    return project({"projection.device.type": " Injected ",
                    "projection.day.type": "integer", "projection.day.range": "1,3",
                    "storage.location.template": "s3://b/${device}/day-${day}"},
                   ("device", "string"), ("day", "int"), *extra)


def test_injected_values_come_from_equality_and_in() -> None:
    projection = injected()
    assert [p.location for p in projection.scan(eq("device", "x1") & eq("day", 2))] == [
        "s3://b/x1/day-2"]
    assert names(projection, In("device", ("b", "a")) & Compare("day", ">=", 3)) == [
        "device=a/day=3", "device=b/day=3"]
    assert names(projection, eq("device", "a") & eq("device", "b")) == []


@pytest.mark.parametrize(
    "predicate",
    [None, Compare("day", "=", 1), Compare("device", ">", "a"),
     eq("device", "a") | eq("day", 1), Opaque("upper(device) = 'A'")],
)
def test_injected_without_equality_fails_like_athena(predicate: Predicate | None) -> None:
    with pytest.raises(UnsupportedProjectionFilter, match=(
            r"^For the injected projected partition column device, the WHERE clause must "
            r"contain only static equality conditions, and at least one such condition must "
            r"be present\. \(table db\.t\)$")):
        injected().scan(predicate)


def test_injected_typed_column() -> None:
    projection = project({"projection.n.type": "injected"}, ("n", "int"))
    assert isinstance(projection.column("n"), InjectedProjection)
    assert [p.values for p in projection.scan(In("n", ("07", 3)))] == [("3",), ("7",)]


# -- predicates -------------------------------------------------------------------------------


def two_columns() -> Projection:
    return project({"projection.a.type": "integer", "projection.a.range": "1,3",
                    "projection.b.type": "enum", "projection.b.values": "x,y"},
                   ("a", "int"), ("b", "string"))


def test_out_of_range_filters_give_nothing() -> None:
    projection = two_columns()
    for predicate in (eq("a", 9), Compare("a", ">", 3), Compare("a", "<", 1), eq("b", "z"),
                      AlwaysFalse(), Compare("a", "=", None), In("a", ())):
        scan = projection.scan(predicate)
        assert scan.count() == 0 and list(scan) == []


def test_product_is_exact_for_correlated_conditions() -> None:
    projection = two_columns()
    predicate = (eq("a", 1) & eq("b", "y")) | (eq("a", 3) & eq("b", "x"))
    scan = projection.scan(predicate)
    assert scan.count() == 4  # a in {1, 3}, b in {x, y}
    assert [p.name for p in scan] == ["a=1/b=y", "a=3/b=x"]


def test_between_not_and_conditions_the_model_cannot_read() -> None:
    projection = two_columns()
    between = Compare("a", ">=", 2) & Compare("a", "<=", 3)
    assert projection.scan(between).count() == 4
    assert names(projection, Not(Compare("a", "<", 3)) & eq("b", "x")) == ["a=3/b=x"]
    assert names(projection, Not(In("a", (1, 2)))) == ["a=3/b=x", "a=3/b=y"]
    assert len(names(projection, Opaque("rand() < 0.5"))) == 6
    cast = Cast("a", "string", eq("a", "2"))
    assert names(projection, cast) == ["a=2/b=x", "a=2/b=y"]


def test_picked_values_stay_within_the_range_conditions() -> None:
    projection = two_columns()
    assert projection.scan(In("a", (1, 3)) & Compare("a", "<", 2)).count() == 2  # a=1, b: 2
    # NOT (a <> 1) picks a = 1, but a IS NULL holds for no projected value
    impossible = Not(Compare("a", "<>", 1)) & IsNull("a")
    assert projection.scan(impossible).count() == 0


# -- templates --------------------------------------------------------------------------------


def test_template_with_fixed_prefix_and_non_hive_layout() -> None:
    projection = project({"projection.year.type": "integer", "projection.year.range": "2023,2024",
                          "projection.month.type": "integer", "projection.month.range": "1,12",
                          "projection.month.digits": "2",
                          "storage.location.template": "s3://b/t/${year}/${MONTH}"},
                         ("year", "int"), ("month", "int"))
    [part] = projection.scan(eq("year", 2024) & eq("month", 3))
    assert part.location == "s3://b/t/2024/03" and part.name == "year=2024/month=03"


def test_template_may_repeat_a_placeholder() -> None:
    projection = project({"projection.c.type": "enum", "projection.c.values": "v",
                          "storage.location.template": "s3://b/c=${c}/x/${c}/"}, ("c", "string"))
    assert [p.location for p in projection.scan()] == ["s3://b/c=v/x/v/"]


# -- YDB spellings ----------------------------------------------------------------------------


def test_ydb_spellings() -> None:
    projection = project({
        "projection.year.type": "integer", "projection.year.min": "2010",
        "projection.year.max": "2022", "projection.year.interval": "1",
        "projection.month.type": "integer", "projection.month.min": "1",
        "projection.month.max": "12", "projection.month.digits": "2",
        "projection.d.type": "date", "projection.d.format": "%Y/%m/%d/%H",
        "projection.d.min": "2022-01-01", "projection.d.max": "NOW-5DAYS",
        "projection.d.unit": "HOURS", "projection.d.interval": "6",
        "storage.location.template": "${year}/${month}/${d}",
    }, ("year", "int"), ("month", "int"), ("d", "string"), location="s3://b/root/")
    scan = projection.scan(eq("year", 2021) & eq("month", 2) & eq("d", "2022/01/01/06"))
    assert [p.location for p in scan] == ["s3://b/root/2021/02/2022/01/01/06"]
    column = projection.column("d")
    assert isinstance(column, DateProjection)
    assert column.end == dt.datetime(2024, 5, 12, 13)  # NOW-5DAYS cut to the format's hours
    assert column.typed_at(column.size - 1) == "2024/05/12/12"  # the last on the 6-hour grid
