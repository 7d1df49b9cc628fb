"""TIMESTAMP literals as Spark compares them with partition values: instants.

Spark's TIMESTAMP is an instant. A partition value of a TIMESTAMP column is a wall-clock string
(``2024-03-10 02:30:00``) that Spark casts to an instant in the session time zone, and a filter's
literal is an instant already; the comparison is between instants. Comparing wall-clock values
instead would be wrong around daylight-saving changes: a wall time in a gap (02:30 on the day
clocks spring forward) moves forward by the gap, so it is the same instant as 03:30, and a wall
time in an overlap takes the earlier offset.

:class:`Instant` is such a literal. It compares with a partition's naive ``datetime`` (as
:func:`~hmscatalog.partitions.types.parse_value` reads it) by turning that into an instant in
its zone, with ``java.time``'s rules for gaps and overlaps, which are those of Python's
``fold=0``. Python asks the literal when ``datetime`` does not know the other operand, so the
evaluator's plain operators do the right thing on either side. A comparison that cannot be made
exactly raises ``TypeError``, which the evaluator takes as "unknown" and keeps the partition.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from dataclasses import dataclass
from typing import Any

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# The system's zone files may hold no rules before 1901-12-13 (the 32-bit range), where Java's
# own data has local mean times: older wall-clock values are not compared (the partition is kept).
_KNOWN_FROM = dt.datetime(1902, 1, 1)
_OFFSET = re.compile(r"(?:GMT|UTC|UT)?([+-])([0-9]{1,2})(?::?([0-9]{2}))?(?::?([0-9]{2}))?")


def zone_of(name: str) -> dt.tzinfo | None:
    """The time zone a Spark session time zone names (a region such as ``Europe/Paris``,
    ``UTC``, or an offset such as ``+08:00`` or ``GMT-5``); ``None`` if Python cannot read it."""
    if name.upper() in ("Z", "UTC", "GMT", "UT"):
        return dt.UTC
    match = _OFFSET.fullmatch(name)
    if match:
        sign, hours, minutes, seconds = match.groups()
        delta = dt.timedelta(hours=int(hours), minutes=int(minutes or 0),
                             seconds=int(seconds or 0))
        return dt.timezone(-delta if sign == "-" else delta)
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def wall_to_micros(wall: dt.datetime, zone: dt.tzinfo) -> int:
    """Microseconds since the epoch of the naive ``wall`` read in ``zone``, as Spark casts a
    string to TIMESTAMP (``ZonedDateTime.of``: a gap moves the time forward, an overlap takes
    the earlier offset)."""
    delta = wall.replace(tzinfo=zone, fold=0) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


@dataclass(frozen=True, eq=False)
class Instant:
    """A TIMESTAMP literal: ``micros`` since the epoch, compared with naive partition values
    read in ``zone`` (the session time zone)."""

    micros: int
    zone: dt.tzinfo

    @property
    def fixed_offset(self) -> bool:
        """Whether the zone keeps one offset, so later wall-clock values are later instants."""
        return isinstance(self.zone, dt.timezone)

    def _micros_of(self, other: Any) -> int | None:
        if isinstance(other, Instant):
            return other.micros
        if isinstance(other, dt.datetime) and other.tzinfo is None:
            if other < _KNOWN_FROM and not self.fixed_offset:
                raise TypeError(f"{other} is older than the time zone data both sides share")
            return wall_to_micros(other, self.zone)
        return None

    def __eq__(self, other: object) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros == theirs

    def __ne__(self, other: object) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros != theirs

    def __lt__(self, other: Any) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros < theirs

    def __le__(self, other: Any) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros <= theirs

    def __gt__(self, other: Any) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros > theirs

    def __ge__(self, other: Any) -> bool:
        theirs = self._micros_of(other)
        return NotImplemented if theirs is None else self.micros >= theirs

    def __hash__(self) -> int:
        return hash(self.micros)

    def __repr__(self) -> str:
        utc = _EPOCH + dt.timedelta(microseconds=self.micros)
        return f"TIMESTAMP '{utc.astimezone(self.zone).isoformat(sep=' ')}'"
