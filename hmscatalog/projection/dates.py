"""Dates of ``date`` projections: formats, interval units and ``NOW`` arithmetic.

Athena reads ``projection.<col>.format`` as a Java ``DateTimeFormatter`` pattern. This module
implements the subset that partition layouts use, for both formatting and parsing:

=========  =================================================================================
``yyyy``   year, four digits (``uuuu`` is accepted as the same); ``y``/``yyy``: at least one or
           three digits; ``yy``: two digits, 2000-2099 (Java's base year)
``MM``     month 01-12; ``M`` without padding (also ``d``, ``H``, ``m``, ``s`` below)
``dd``     day of month
``HH``     hour of day 00-23
``mm``     minute
``ss``     second
``S``..    fraction of a second, as many digits as letters (``SSS``: milliseconds)
``'..'``   literal text (``'T'``); ``''`` is one single quote, inside or outside quotes
other      characters that are not ASCII letters (``-``, ``/``, ``:``, ``_``, space...) are
           literal text
=========  =================================================================================

Anything else is rejected with a message naming the letter: text fields (``MMM``, ``EEE``),
12-hour clocks (``hh``, ``a``), zones, week fields, optional sections (``[...]``). A format must
name its fields from the year down without gaps (``yyyy-MM`` or ``dd-MM-yyyy-HH``, not
``yyyy-dd``), as Java needs to resolve a date; they may appear in any order.

For users of YDB, a format containing ``%`` followed by a letter is read as a ``strptime``
format and converted: ``%Y``→``yyyy``, ``%m``→``MM``, ``%d``→``dd``, ``%H``→``HH``, ``%M``→``mm``,
``%S``→``ss``, ``%y``→``yy``, ``%f``→``SSSSSS``, ``%F``→``yyyy-MM-dd``, ``%T``→``HH:mm:ss``,
``%R``→``HH:mm``, ``%D``→``MM/dd/yy``, ``%%``→``%``; other directives are rejected.

Parsing is strict: a value must match the pattern exactly (Java's default SMART resolver would
move ``2024-02-30`` to February 29; here it does not parse). Dates are naive UTC ``datetime``s,
as Athena generates projected dates in UTC.
"""

from __future__ import annotations

import calendar
import datetime as dt
import enum
import re
from dataclasses import dataclass

FIELD_ORDER = "yMdHmsS"
_SUPPORTED = "y (year), M (month), d (day), H (hour 0-23), m (minute), s (second), S (fraction)"
_STRPTIME = {
    "Y": "yyyy", "m": "MM", "d": "dd", "H": "HH", "M": "mm", "S": "ss", "y": "yy",
    "f": "SSSSSS", "F": "yyyy-MM-dd", "T": "HH:mm:ss", "R": "HH:mm", "D": "MM/dd/yy",
}
_STRPTIME_DIRECTIVE = re.compile(r"%[A-Za-z%]")
NOW_PATTERN = (
    r"\s*NOW\s*(([\+\-])\s*([0-9]+)\s*"
    r"(YEARS?|MONTHS?|WEEKS?|DAYS?|HOURS?|MINUTES?|SECONDS?)\s*)?"
)
_NOW = re.compile(NOW_PATTERN, re.IGNORECASE)


class DateFormatError(ValueError):
    """A date format pattern is malformed or uses something this module does not support."""


class Unit(enum.Enum):
    """Interval units of Athena's ``interval.unit`` (names of Java's ``ChronoUnit``)."""

    YEARS = "YEARS"
    MONTHS = "MONTHS"
    WEEKS = "WEEKS"
    DAYS = "DAYS"
    HOURS = "HOURS"
    MINUTES = "MINUTES"
    SECONDS = "SECONDS"
    MILLISECONDS = "MILLISECONDS"

    @property
    def is_calendar(self) -> bool:
        """Whether a step is a number of calendar months rather than a fixed duration."""
        return self in (Unit.YEARS, Unit.MONTHS)

    @property
    def delta(self) -> dt.timedelta:
        """The fixed duration of one unit (only for non-calendar units)."""
        return _FIXED[self]

    @classmethod
    def parse(cls, text: str) -> Unit | None:
        """``DAYS``, ``days``, ``Day`` → :attr:`DAYS`; ``None`` for anything else."""
        name = text.strip().upper()
        if name and not name.endswith("S"):
            name += "S"
        return cls.__members__.get(name)


_FIXED = {
    Unit.WEEKS: dt.timedelta(weeks=1),
    Unit.DAYS: dt.timedelta(days=1),
    Unit.HOURS: dt.timedelta(hours=1),
    Unit.MINUTES: dt.timedelta(minutes=1),
    Unit.SECONDS: dt.timedelta(seconds=1),
    Unit.MILLISECONDS: dt.timedelta(milliseconds=1),
}


def add_months(value: dt.datetime, months: int) -> dt.datetime:
    """``value`` plus calendar months, the day clamped to the month's length as Java's
    ``plusMonths`` does (January 31 + 1 month = February 28 or 29).

    Raises:
        ValueError: when the result is outside years 1-9999.
    """
    years, month0 = divmod(value.month - 1 + months, 12)
    year = value.year + years
    if not 1 <= year <= 9999:
        raise ValueError(f"date out of range: {value.isoformat()} + {months} months")
    day = min(value.day, calendar.monthrange(year, month0 + 1)[1])
    return value.replace(year=year, month=month0 + 1, day=day)


def add(value: dt.datetime, amount: int, unit: Unit) -> dt.datetime:
    """``value`` plus ``amount`` units (negative to subtract).

    Raises:
        ValueError: when the result is outside years 1-9999.
    """
    if unit is Unit.YEARS:
        return add_months(value, 12 * amount)
    if unit is Unit.MONTHS:
        return add_months(value, amount)
    try:
        return value + amount * unit.delta
    except OverflowError:
        raise ValueError(
            f"date out of range: {value.isoformat()} + {amount} {unit.value}") from None


def resolve_now(text: str, now: dt.datetime) -> dt.datetime | None:
    """The instant of a relative bound such as ``NOW``, ``NOW-3DAYS`` or ``NOW + 1 MONTH``, or
    ``None`` when ``text`` is not one (it is then a date in the projection's format).

    Raises:
        ValueError: when the arithmetic leaves years 1-9999.
    """
    match = _NOW.fullmatch(text)
    if not match:
        return None
    if match.group(1) is None:
        return now
    sign, amount, unit_text = match.group(2), int(match.group(3)), match.group(4)
    unit = Unit.parse(unit_text)
    assert unit is not None  # the pattern only lets unit words through
    return add(now, -amount if sign == "-" else amount, unit)


def from_strptime(pattern: str) -> str:
    """The Java pattern equivalent to a ``strptime`` format (see the module docstring).

    Raises:
        DateFormatError: for a directive without a Java equivalent here.
    """
    out: list[str] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            text = "".join(literal).replace("'", "''")
            out.append(f"'{text}'" if re.search(r"[A-Za-z\[\]{}#]", text) else text)
            literal.clear()

    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "%" and index + 1 < len(pattern):
            directive = pattern[index + 1]
            index += 2
            if directive == "%":
                literal.append("%")
                continue
            java = _STRPTIME.get(directive)
            if java is None:
                raise DateFormatError(
                    f"strptime directive %{directive} in {pattern!r} is not supported; "
                    f"supported: {', '.join('%' + key for key in _STRPTIME)}"
                )
            flush()
            out.append(java)
            continue
        literal.append(char)
        index += 1
    flush()
    return "".join(out)


def is_strptime(pattern: str) -> bool:
    """Whether a format is written the ``strptime`` way (YDB) rather than the Java way."""
    return bool(_STRPTIME_DIRECTIVE.search(pattern))


@dataclass(frozen=True)
class _Field:
    letter: str  # one of FIELD_ORDER
    count: int


def _tokenize(pattern: str) -> list[_Field | str]:
    tokens: list[_Field | str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "'":
            end = index + 1
            text: list[str] = []
            while True:
                if end >= len(pattern):
                    raise DateFormatError(f"unterminated quote in date format {pattern!r}")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append("".join(text) if end > index + 1 else "'")
            index = end + 1
        elif char in "[]{}#":
            raise DateFormatError(
                f"{char!r} in date format {pattern!r} is reserved by Java patterns (optional "
                "sections are not supported); quote literal text: '[...]'"
            )
        elif "A" <= char <= "Z" or "a" <= char <= "z":
            end = index
            while end < len(pattern) and pattern[end] == char:
                end += 1
            tokens.append(_field(pattern, char, end - index))
            index = end
        else:
            tokens.append(char)
            index += 1
    return tokens


def _field(pattern: str, letter: str, count: int) -> _Field:
    if letter == "u":
        letter = "y"
    if letter not in FIELD_ORDER:
        raise DateFormatError(
            f"unsupported pattern letter {letter!r} in date format {pattern!r}; supported: "
            f"{_SUPPORTED}, and literal text in single quotes"
        )
    if letter == "M" and count > 2:
        raise DateFormatError(f"month names ({'M' * count}) in date format {pattern!r} are "
                              "not supported; use MM")
    if letter in "dHms" and count > 2:
        raise DateFormatError(f"too many pattern letters {letter * count!r} in date format "
                              f"{pattern!r}")
    if letter == "S" and count > 9:
        raise DateFormatError(f"too many pattern letters 'S' in date format {pattern!r}")
    return _Field(letter, count)


class DateFormat:
    """A compiled date format: formats ``datetime``s and parses strings back, exactly.

    Raises (from the constructor):
        DateFormatError: see the module docstring for what is supported.
    """

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self.pattern = from_strptime(pattern) if is_strptime(pattern) else pattern
        self._tokens = _tokenize(self.pattern)
        fields = [t for t in self._tokens if isinstance(t, _Field)]
        letters = [f.letter for f in fields]
        for letter in set(letters):
            if letters.count(letter) > 1:
                raise DateFormatError(f"field {letter!r} appears twice in date format "
                                      f"{self.pattern!r}")
        expected = FIELD_ORDER[: len(letters)]
        if set(letters) != set(expected):
            missing = [c for c in expected if c not in letters]
            raise DateFormatError(
                f"date format {self.pattern!r} must name its fields from the year down "
                f"without gaps (y, M, d, H, m, s, S); missing {', '.join(missing)}"
            )
        self._fields = {f.letter: f for f in fields}
        self.finest = FIELD_ORDER[len(letters) - 1]
        self._regex = re.compile("".join(_regex(t) for t in self._tokens))
        ordered = letters == list(expected)
        fixed = all(
            f.count == 4 if f.letter == "y" else f.letter == "S" or f.count == 2 for f in fields
        )
        self.sortable = ordered and fixed
        """Whether formatted strings sort as the instants they show (so string comparisons
        can be turned into ranges of the projection)."""

    def __repr__(self) -> str:
        return f"DateFormat({self.pattern!r})"

    @property
    def precision(self) -> dt.timedelta | None:
        """The smallest step the format tells apart, or ``None`` for year or month formats."""
        if self.finest in "yM":
            return None
        if self.finest == "S":
            digits = self._fields["S"].count
            return dt.timedelta(milliseconds=10 ** (3 - digits)) if digits < 3 else \
                dt.timedelta(milliseconds=1)
        return {"d": Unit.DAYS, "H": Unit.HOURS, "m": Unit.MINUTES, "s": Unit.SECONDS}[
            self.finest].delta

    def default_unit(self) -> Unit | None:
        """Athena's default unit: days for formats down to the day, months for formats down to
        the month; ``None`` (the unit is required) otherwise."""
        return {"d": Unit.DAYS, "M": Unit.MONTHS}.get(self.finest)

    def step_fits(self, interval: int, unit: Unit) -> bool:
        """Whether successive values ``interval`` ``unit`` apart format differently, i.e. the
        step is a whole multiple of what the format can show."""
        if self.finest == "y":
            return unit is Unit.YEARS or (unit is Unit.MONTHS and interval % 12 == 0)
        if self.finest == "M" or unit.is_calendar:
            return unit.is_calendar
        precision = self.precision
        assert precision is not None
        return (interval * unit.delta) % precision == dt.timedelta(0)

    def format(self, value: dt.datetime) -> str:
        return "".join(t if isinstance(t, str) else _format_field(t, value) for t in self._tokens)

    def parse(self, text: str) -> dt.datetime:
        """Read a string written in this format.

        Raises:
            ValueError: if it does not match the pattern or names an impossible date.
        """
        match = self._regex.fullmatch(text)
        if not match:
            raise ValueError(f"{text!r} does not match the date format {self.pattern!r}")
        parts = {"M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
        fields = [t for t in self._tokens if isinstance(t, _Field)]
        for field, digits in zip(fields, match.groups(), strict=True):
            if field.letter == "S":
                parts["S"] = int(digits[:6].ljust(6, "0"))
            elif field.letter == "y" and field.count == 2:
                parts["y"] = 2000 + int(digits)
            else:
                parts[field.letter] = int(digits)
        try:
            return dt.datetime(parts["y"], parts["M"], parts["d"], parts["H"], parts["m"],
                               parts["s"], parts["S"])
        except ValueError as exc:
            raise ValueError(f"{text!r} is not a valid date for {self.pattern!r}: {exc}") from None

    def truncate(self, value: dt.datetime) -> dt.datetime:
        """``value`` cut down to what the format shows (``NOW`` becomes the current hour for an
        hourly format), as Athena and Trino align range bounds."""
        return self.parse(self.format(value))


def _regex(token: _Field | str) -> str:
    if isinstance(token, str):
        return re.escape(token)
    if token.letter == "S" or (token.letter == "y" and token.count == 2):
        return rf"(\d{{{token.count}}})"
    if token.letter == "y":
        return rf"(\d{{{token.count},9}})"
    return r"(\d{2})" if token.count == 2 else r"(\d{1,2})"


def _format_field(field: _Field, value: dt.datetime) -> str:
    if field.letter == "y":
        return f"{value.year % 100:02d}" if field.count == 2 else f"{value.year:0{field.count}d}"
    if field.letter == "S":
        micros = f"{value.microsecond:06d}"
        return micros[: field.count] if field.count <= 6 else micros.ljust(field.count, "0")
    number = {"M": value.month, "d": value.day, "H": value.hour, "m": value.minute,
              "s": value.second}[field.letter]
    return f"{number:0{field.count}d}"
