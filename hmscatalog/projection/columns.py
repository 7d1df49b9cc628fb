"""The values one projected partition column can take.

``enum``, ``integer`` and ``date`` projections are finite sequences indexed from 0: value ``i`` is
computed in constant time (``low + i * interval``, ``start + i * interval units``) and a value maps
back to its index, so a scan can pick values and cut ranges without generating the sequence.
``injected`` columns have no values of their own: the query supplies them.

Each value has three forms:

* typed: the Python value the predicate evaluator compares (the column's Hive type: the padded
  text for a ``string`` column, ``int`` for an ``int`` column, ``datetime.date`` for a ``date``
  column...);
* the value string the metastore would store for the partition: the projected text (padded
  integer, enum value, formatted date), except on ``date`` and ``timestamp`` columns, whose
  strings are Hive's canonical ones (``2024-01-05``) since Hive could not read another format
  back (Trino does the same);
* the location text that replaces ``${col}`` in the location template: always the projected text
  (``20240105`` for a ``yyyyMMdd`` format).
"""

from __future__ import annotations

import datetime as dt
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hmscatalog.partitions.types import HiveType, format_value
from hmscatalog.projection.dates import DateFormat, Unit, add_months

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


class GridProjection(ABC):
    """A projection whose values are an indexed sequence (enum, integer, date)."""

    kind: ClassVar[str]
    name: str
    hive_type: HiveType

    @property
    @abstractmethod
    def size(self) -> int:
        """How many values the projection has."""

    @property
    @abstractmethod
    def monotone(self) -> bool:
        """Whether typed values increase with the index, so that a comparison with a literal
        selects a contiguous range of indices (found by bisection)."""

    @abstractmethod
    def typed_at(self, index: int) -> Any:
        """The typed value at ``index`` (``0 <= index < size``)."""

    @abstractmethod
    def strings_at(self, index: int) -> tuple[str, str]:
        """``(metastore value string, location text)`` of the value at ``index``."""

    @abstractmethod
    def index_of(self, typed: Any) -> int | None:
        """The index of a typed value, or ``None`` if the projection does not produce it
        (outside the range, off the interval grid, or not written the way it formats)."""


@dataclass(frozen=True)
class EnumProjection(GridProjection):
    """``projection.<col>.type = enum``: the listed values, in the order given."""

    kind: ClassVar[str] = "enum"
    name: str
    hive_type: HiveType
    values: tuple[str, ...]
    _positions: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_positions", {v: i for i, v in enumerate(self.values)})

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def monotone(self) -> bool:
        return False

    def typed_at(self, index: int) -> Any:
        return self.values[index]

    def strings_at(self, index: int) -> tuple[str, str]:
        return self.values[index], self.values[index]

    def index_of(self, typed: Any) -> int | None:
        return self._positions.get(typed) if isinstance(typed, str) else None


@dataclass(frozen=True)
class IntegerProjection(GridProjection):
    """``projection.<col>.type = integer``: ``low, low + interval, ...`` up to ``high``, written
    with at least ``digits`` digits (zero-padded after the sign, as Java's ``%0Nd``)."""

    kind: ClassVar[str] = "integer"
    name: str
    hive_type: HiveType
    low: int
    high: int
    interval: int = 1
    digits: int | None = None

    def text(self, number: int) -> str:
        return f"{number:0{self.digits}d}" if self.digits else str(number)

    @property
    def size(self) -> int:
        return (self.high - self.low) // self.interval + 1

    @property
    def monotone(self) -> bool:
        if self.hive_type.is_integral:
            return True
        # Strings sort as numbers only when they all have the same width and no sign.
        return self.low >= 0 and len(self.text(self.low)) == len(self.text(self.high))

    def typed_at(self, index: int) -> Any:
        number = self.low + index * self.interval
        return number if self.hive_type.is_integral else self.text(number)

    def strings_at(self, index: int) -> tuple[str, str]:
        text = self.text(self.low + index * self.interval)
        return text, text

    def index_of(self, typed: Any) -> int | None:
        if isinstance(typed, str):
            if not _INTEGER_TEXT.fullmatch(typed):
                return None
            number = int(typed)
            if self.text(number) != typed:
                return None
        elif isinstance(typed, int) and not isinstance(typed, bool):
            number = typed
        else:
            return None
        offset = number - self.low
        if number > self.high or offset < 0 or offset % self.interval:
            return None
        return offset // self.interval


@dataclass(frozen=True)
class DateProjection(GridProjection):
    """``projection.<col>.type = date``: ``start + i * interval unit`` up to ``end``.

    Each value is computed from ``start`` (not from the previous value), so that stepping by
    months from January 31 gives February 29, March 31, April 30...: the day is clamped per value
    and does not drift. ``start`` and ``end`` are already cut to the format's precision.
    """

    kind: ClassVar[str] = "date"
    name: str
    hive_type: HiveType
    format: DateFormat
    start: dt.datetime
    end: dt.datetime
    interval: int = 1
    unit: Unit = Unit.DAYS

    @property
    def _months(self) -> int:
        return self.interval * (12 if self.unit is Unit.YEARS else 1)

    def instant_at(self, index: int) -> dt.datetime:
        if self.unit.is_calendar:
            return add_months(self.start, index * self._months)
        return self.start + index * self.interval * self.unit.delta

    @property
    def size(self) -> int:
        if not self.unit.is_calendar:
            return (self.end - self.start) // (self.interval * self.unit.delta) + 1
        months = (self.end.year - self.start.year) * 12 + self.end.month - self.start.month
        last = months // self._months
        if self.instant_at(last) > self.end:
            last -= 1
        return last + 1

    @property
    def monotone(self) -> bool:
        return not self.hive_type.is_string or self.format.sortable

    def typed_at(self, index: int) -> Any:
        return self._typed(self.instant_at(index))

    def _typed(self, instant: dt.datetime) -> Any:
        if self.hive_type.kind == "date":
            return instant.date()
        if self.hive_type.kind == "timestamp":
            return instant
        return self.format.format(instant)

    def strings_at(self, index: int) -> tuple[str, str]:
        instant = self.instant_at(index)
        text = self.format.format(instant)
        if self.hive_type.is_string:
            return text, text
        return format_value(self._typed(instant), self.hive_type) or "", text

    def index_of(self, typed: Any) -> int | None:
        instant: dt.datetime
        if isinstance(typed, str):
            if not self.hive_type.is_string:
                return None
            try:
                instant = self.format.parse(typed)
            except ValueError:
                return None
            if self.format.format(instant) != typed:
                return None
        elif isinstance(typed, dt.datetime):
            instant = typed
        elif isinstance(typed, dt.date):
            # Every value of a date column shares the start's time of day (steps are whole days
            # or calendar months).
            instant = dt.datetime.combine(typed, self.start.time())
        else:
            return None
        if not self.start <= instant <= self.end:
            return None
        if self.unit.is_calendar:
            months = (instant.year - self.start.year) * 12 + instant.month - self.start.month
            if months % self._months:
                return None
            index = months // self._months
            return index if self.instant_at(index) == instant else None
        step = self.interval * self.unit.delta
        offset = instant - self.start
        if offset % step:
            return None
        index = offset // step
        # A date column keeps only the day: the day's value must be the one the grid produces.
        return index if self._typed(self.instant_at(index)) == typed else None


@dataclass(frozen=True)
class InjectedProjection:
    """``projection.<col>.type = injected``: the values come from the query's equality
    conditions on the column, never from the table properties."""

    kind: ClassVar[str] = "injected"
    name: str
    hive_type: HiveType

    def strings_of(self, typed: Any) -> tuple[str, str]:
        """``(metastore value string, location text)`` of a value named by the query."""
        text = format_value(typed, self.hive_type) or ""
        return text, text


ColumnProjection = EnumProjection | IntegerProjection | DateProjection | InjectedProjection
