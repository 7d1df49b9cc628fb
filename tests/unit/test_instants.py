"""TIMESTAMP literals compared with partition values as Spark compares them: as instants, the
partition's wall-clock value read in the session time zone."""

from __future__ import annotations

import datetime as dt
import operator
import zoneinfo

import pytest

from hmscatalog.expressions import Compare, In, Not, bind
from hmscatalog.expressions.instants import Instant, wall_to_micros, zone_of
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import parse_projection

LA = zoneinfo.ZoneInfo("America/Los_Angeles")
TS = parse_hive_type("timestamp")


def at(text: str, zone: dt.tzinfo = LA) -> Instant:
    """The instant of an ISO time with an explicit offset."""
    moment = dt.datetime.fromisoformat(text)
    return Instant(wall_to_micros(moment.astimezone(dt.UTC).replace(tzinfo=None), dt.UTC),
                   zone)


@pytest.mark.parametrize(("wall", "utc"), [
    ("2024-01-15 12:00:00", "2024-01-15 20:00:00"),   # PST, UTC-8
    ("2024-07-15 12:00:00", "2024-07-15 19:00:00"),   # PDT, UTC-7
    # In the spring gap: moved forward by the gap, as java.time's ZonedDateTime.of does.
    ("2024-03-10 02:30:00", "2024-03-10 10:30:00"),
    ("2024-03-10 03:30:00", "2024-03-10 10:30:00"),
    # In the autumn overlap: the earlier offset (PDT).
    ("2024-11-03 01:30:00", "2024-11-03 08:30:00"),
    ("2024-11-03 02:30:00", "2024-11-03 10:30:00"),
])
def test_wall_clock_values_become_the_instants_spark_reads(wall: str, utc: str) -> None:
    micros = wall_to_micros(dt.datetime.fromisoformat(wall), LA)
    expected = dt.datetime.fromisoformat(utc).replace(tzinfo=dt.UTC)
    assert micros == wall_to_micros(expected.replace(tzinfo=None), dt.UTC)


def test_an_instant_compares_with_wall_clock_values_on_either_side() -> None:
    instant = at("2024-03-10T03:30:00-07:00")
    gap = dt.datetime(2024, 3, 10, 2, 30)
    before = dt.datetime(2024, 3, 10, 3, 0)  # 10:00 UTC: earlier than the gap value
    assert gap == instant and instant == gap
    assert (gap != instant) is False  # the __ne__ path
    assert before < instant and instant > before and before <= instant
    assert not before >= instant and not instant < before
    assert instant != "2024-03-10 03:30:00"  # a string is not a timestamp


def test_values_older_than_the_shared_zone_data_are_not_compared() -> None:
    """Java reads 1900 in Los Angeles as local mean time (UTC-7:52:58); Python's zone files
    may not say so. Such a value is kept (unknown), never dropped."""
    old = bind(Compare("ts", "=", at("2024-01-01T00:00:00+00:00")), [("ts", TS)])
    assert old.may_match([dt.datetime(1900, 1, 1)])
    assert old.evaluate([dt.datetime(1900, 1, 1)]) is None
    utc = zone_of("UTC")
    assert utc is not None
    fixed = bind(Compare("ts", "=", at("2024-01-01T00:00:00+00:00", utc)), [("ts", TS)])
    assert fixed.evaluate([dt.datetime(1900, 1, 1)]) is False


def test_comparisons_with_other_types_are_refused() -> None:
    with pytest.raises(TypeError):
        operator.lt(at("2024-01-01T00:00:00+00:00"), dt.date(2024, 1, 1))
    with pytest.raises(TypeError):
        operator.lt(at("2024-01-01T00:00:00+00:00"), dt.datetime(2024, 1, 1, tzinfo=dt.UTC))


@pytest.mark.parametrize(("name", "offset"), [
    ("UTC", dt.timedelta(0)), ("Z", dt.timedelta(0)), ("+08:00", dt.timedelta(hours=8)),
    ("-05:30", dt.timedelta(hours=-5, minutes=-30)), ("GMT+8", dt.timedelta(hours=8)),
    ("UTC-03:00", dt.timedelta(hours=-3)),
])
def test_fixed_offset_zones(name: str, offset: dt.timedelta) -> None:
    zone = zone_of(name)
    assert zone is not None and zone.utcoffset(None) == offset
    assert Instant(0, zone).fixed_offset


def test_region_zones_and_unknown_names() -> None:
    assert zone_of("Europe/Paris") == zoneinfo.ZoneInfo("Europe/Paris")
    assert not Instant(0, LA).fixed_offset
    assert zone_of("Mars/Olympus_Mons") is None


def test_bound_predicates_keep_exactly_the_partitions_of_the_instant() -> None:
    walls = [dt.datetime(2024, 3, 10, h, 30) for h in (1, 2, 3, 4)]
    equal = bind(Compare("ts", "=", at("2024-03-10T03:30:00-07:00")), [("ts", TS)])
    assert [equal.may_match([w]) for w in walls] == [False, True, True, False]
    before = bind(Compare("ts", "<", at("2024-03-10T03:00:00-07:00")), [("ts", TS)])
    assert [before.may_match([w]) for w in walls] == [True, False, False, False]
    not_in = bind(Not(In("ts", (at("2024-03-10T03:30:00-07:00"),))), [("ts", TS)])
    assert [not_in.may_match([w]) for w in walls] == [True, False, False, True]
    assert equal.pinned("ts") is None  # one instant, two wall-clock values: no name to probe


def test_projection_over_a_gap_checks_values_one_by_one() -> None:
    """Half-hourly wall-clock values are not sorted as instants across the spring gap (02:30
    is after 03:00), so a range cannot be bisected: each value is checked."""
    projection = parse_projection(
        {"projection.enabled": "true", "projection.ts.type": "date",
         "projection.ts.format": "yyyy-MM-dd HH:mm", "projection.ts.interval": "30",
         "projection.ts.interval.unit": "MINUTES",
         "projection.ts.range": "2024-03-10 01:00,2024-03-10 04:00"},
        [("ts", TS)], "s3://b/t", lambda: dt.datetime(2025, 1, 1), table="db.t")
    assert projection is not None
    chosen = [p.values[0] for p in projection.scan(
        Compare("ts", ">=", at("2024-03-10T03:30:00-07:00")))]
    assert chosen == ["2024-03-10 02:30:00", "2024-03-10 03:30:00", "2024-03-10 04:00:00"]
    utc = zone_of("UTC")
    assert utc is not None
    fixed = [p.values[0] for p in projection.scan(
        Compare("ts", ">=", at("2024-03-10T03:30:00+00:00", utc)))]
    assert fixed == ["2024-03-10 03:30:00", "2024-03-10 04:00:00"]
