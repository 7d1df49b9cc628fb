"""Date formats, units and NOW arithmetic of date projections."""

from __future__ import annotations

import datetime as dt

import pytest

from hmscatalog.projection.dates import (
    DateFormat,
    DateFormatError,
    Unit,
    add,
    add_months,
    from_strptime,
    resolve_now,
)

MOMENT = dt.datetime(2024, 3, 5, 7, 8, 9, 123456)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy-MM-dd", "2024-03-05"),
        ("yyyyMMdd", "20240305"),
        ("dd-MM-yyyy", "05-03-2024"),
        ("yyyy/MM/dd/HH", "2024/03/05/07"),
        ("yyyy-MM-dd'T'HH:mm:ss", "2024-03-05T07:08:09"),
        ("yyyy-MM-dd HH:mm:ss.SSS", "2024-03-05 07:08:09.123"),
        ("yyyy-M-d H:m:s", "2024-3-5 7:8:9"),
        ("yy-MM", "24-03"),
        ("uuuu-MM", "2024-03"),
        ("'year='yyyy'/month='MM", "year=2024/month=03"),
        ("yyyy''MM", "2024'03"),
        ("'it''s' yyyy", "it's 2024"),
        ("yyyy_MM_dd-HH-mm", "2024_03_05-07-08"),
    ],
)
def test_format_and_parse_back(pattern: str, text: str) -> None:
    fmt = DateFormat(pattern)
    assert fmt.format(MOMENT) == text
    assert fmt.format(fmt.parse(text)) == text
    assert fmt.truncate(MOMENT) == fmt.parse(text)


def test_parse_defaults_missing_fields_and_is_strict() -> None:
    assert DateFormat("yyyyMM").parse("202402") == dt.datetime(2024, 2, 1)
    assert DateFormat("yy").parse("99") == dt.datetime(2099, 1, 1)
    for pattern, text in [("yyyy-MM-dd", "2024-02-30"), ("yyyy-MM-dd", "2024-2-03"),
                          ("yyyy-MM-dd", "2024-02-03 "), ("HH yyyy", "24 2024")]:
        with pytest.raises(ValueError, match=pattern):
            DateFormat(pattern).parse(text)


@pytest.mark.parametrize(
    ("strptime", "java"),
    [
        ("%Y-%m-%d", "yyyy-MM-dd"),
        ("%Y/%m/%d/%H", "yyyy/MM/dd/HH"),
        ("%F %T", "yyyy-MM-dd HH:mm:ss"),
        ("%D", "MM/dd/yy"),
        ("dt=%Y%m%d", "'dt='yyyyMMdd"),
        ("%Y-%m-%dT%H", "yyyy-MM-dd'T'HH"),
        ("%Y%%%m", "yyyy%MM"),
        ("%Y-%m-%d %H:%M:%S.%f", "yyyy-MM-dd HH:mm:ss.SSSSSS"),
    ],
)
def test_strptime_formats_convert(strptime: str, java: str) -> None:
    assert from_strptime(strptime) == java
    assert DateFormat(strptime).pattern == java
    assert DateFormat(strptime).format(MOMENT) == MOMENT.strftime(strptime)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("yyyy-MMM-dd", "month names (MMM)"),
        ("yyyy-MM-dd hh", "unsupported pattern letter 'h'"),
        ("yyyy-MM-dd HH a", "unsupported pattern letter 'a'"),
        ("yyyy-MM-dd[ HH]", "optional sections are not supported"),
        ("yyyy-MM-ddd", "too many pattern letters 'ddd'"),
        ("yyyy-MM-yyyy", "field 'y' appears twice"),
        ("MM-dd", "missing y"),
        ("yyyy-MM-dd HH:ss", "missing m"),
    ],
)
def test_unsupported_formats(pattern: str, message: str) -> None:
    with pytest.raises(DateFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DateFormat(pattern)


def test_precision_default_unit_and_step_fit() -> None:
    assert DateFormat("yyyy-MM-dd").default_unit() is Unit.DAYS
    assert DateFormat("yyyy-MM").default_unit() is Unit.MONTHS
    assert DateFormat("yyyy").default_unit() is None
    assert DateFormat("yyyy-MM-dd-HH").default_unit() is None
    hourly = DateFormat("yyyy-MM-dd-HH")
    assert hourly.step_fits(1, Unit.HOURS) and hourly.step_fits(90, Unit.MINUTES) is False
    assert hourly.step_fits(120, Unit.MINUTES) and hourly.step_fits(1, Unit.MONTHS)
    assert DateFormat("yyyy").step_fits(24, Unit.MONTHS)
    assert not DateFormat("yyyy").step_fits(6, Unit.MONTHS)
    assert not DateFormat("yyyy-MM").step_fits(5, Unit.WEEKS)
    assert DateFormat("yyyy-MM-dd HH:mm:ss.S").step_fits(100, Unit.MILLISECONDS)
    assert not DateFormat("yyyy-MM-dd HH:mm:ss.S").step_fits(10, Unit.MILLISECONDS)


def test_sortable_formats() -> None:
    assert DateFormat("yyyy-MM-dd'T'HH").sortable
    assert DateFormat("yyyyMM").sortable
    assert not DateFormat("dd-MM-yyyy").sortable
    assert not DateFormat("yyyy-M-d").sortable
    assert not DateFormat("yy-MM").sortable


def test_unit_names() -> None:
    assert Unit.parse(" days ") is Unit.DAYS
    assert Unit.parse("Hour") is Unit.HOURS
    assert Unit.parse("MILLISECONDS") is Unit.MILLISECONDS
    assert Unit.parse("FORTNIGHT") is None and Unit.parse("") is None


def test_calendar_arithmetic_clamps_like_java() -> None:
    assert add_months(dt.datetime(2023, 1, 31), 1) == dt.datetime(2023, 2, 28)
    assert add_months(dt.datetime(2024, 1, 31), 1) == dt.datetime(2024, 2, 29)
    assert add_months(dt.datetime(2024, 3, 31, 5), -1) == dt.datetime(2024, 2, 29, 5)
    assert add(dt.datetime(2024, 2, 29), 1, Unit.YEARS) == dt.datetime(2025, 2, 28)
    assert add(dt.datetime(2023, 1, 31), 30, Unit.DAYS) == dt.datetime(2023, 3, 2)
    with pytest.raises(ValueError, match="out of range"):
        add(dt.datetime(9999, 12, 1), 1, Unit.MONTHS)
    with pytest.raises(ValueError, match="out of range"):
        add(dt.datetime(9999, 12, 31), 1, Unit.DAYS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NOW", MOMENT),
        (" now ", MOMENT),
        ("NOW-3DAYS", MOMENT - dt.timedelta(days=3)),
        ("NOW + 4 HOURS", MOMENT + dt.timedelta(hours=4)),
        ("NOW-1MONTH", MOMENT.replace(month=2)),
        ("NOW+1WEEK", MOMENT + dt.timedelta(weeks=1)),
        ("NOW-6YEARS", MOMENT.replace(year=2018)),
        ("NOW - 5MINUTES", MOMENT - dt.timedelta(minutes=5)),
        ("NOW+6SECOND", MOMENT + dt.timedelta(seconds=6)),
        ("NOW-5MINUTES+6SECONDS", None),  # one operation only
        ("NOW-1MILLISECOND", None),  # not in Athena's pattern
        ("2024-01-01", None),
    ],
)
def test_now_expressions(text: str, expected: dt.datetime | None) -> None:
    assert resolve_now(text, MOMENT) == expected
