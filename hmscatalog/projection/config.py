"""Partition projection: a table's partitions computed from its properties, never listed.

Athena's table properties are read (``projection.enabled``, ``projection.<col>.type`` and the
per-type settings, ``storage.location.template``); Trino reads the same ones. Where the two or
YDB differ, hmscatalog chooses:

* ``enum`` ``.values`` are split on commas and **not trimmed** (Athena: "any white space is part
  of an enum value"; Trino trims). Empty items are dropped (as Trino) and repeats are removed.
  Enum projections need a ``string`` or ``varchar`` column (as Trino).
* ``integer`` ``.range`` items are trimmed and are 64-bit (Athena; Trino reads 32-bit ints).
  Integer projections fit ``string``/``varchar`` and integral columns whose type holds the range.
  ``.digits`` pads with zeros; ``0`` (YDB's default) means no padding.
* ``date`` ``.range`` items are **not trimmed** (Athena: white space in a date literal is part of
  it), except around ``NOW`` expressions. ``min == max`` is allowed (Trino requires
  ``min < max``). Units are YEARS, MONTHS, WEEKS, DAYS, HOURS, MINUTES, SECONDS and MILLISECONDS
  (Athena's list; Trino accepts DAYS to SECONDS only), case-insensitive, singular or plural.
  Without ``.interval.unit`` the unit is DAYS for formats down to the day and MONTHS for formats
  down to the month (Athena); for any other format it is required (Trino defaults a year-only
  format to MONTHS). A step finer than the format shows (hours with ``yyyy-MM-dd``) is rejected,
  since every partition would repeat. Date projections fit ``string``, ``varchar``, ``date`` (with
  steps of whole days) and ``timestamp`` columns.
* ``injected`` columns take any partition column type and no other setting.
* ``storage.location.template`` must hold ``${col}`` for every partition column (Athena, Trino)
  and no placeholder for anything else; names match case-insensitively. Values are put in as
  they are (no escaping). Without a template, partitions live at
  ``<table location>/col=value/...`` with Hive's escaping.
* Unknown ``projection.<col>.*`` keys, and settings that do not apply to the column's type, are
  errors: a typo would otherwise silently change which partitions are read.

YDB spellings are accepted so that its users can move over: ``.min``/``.max`` instead of
``.range`` (for dates, in the column's format or ``yyyy-MM-dd``), ``.unit`` instead of
``.interval.unit``, ``strptime`` formats (``%Y-%m-%d``; see :mod:`hmscatalog.projection.dates`
for the mapping), and templates without a scheme or leading ``/`` (``${year}/${month}``), which
are taken relative to the table location. An absolute path without a scheme (``/data/${year}``)
is on the table location's file system (its scheme and authority, as Hadoop resolves a path
against a parent), which Hive and Spark qualified with the default file system when the table was
made. YDB's backslash escapes in templates are not supported (a ``$`` not followed by ``{`` needs
none).

``NOW`` is read from ``clock`` when the properties are parsed, in UTC; parse them again for each
scan (it is cheap) so that a long-lived object does not keep an old ``NOW``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Callable, Mapping, Sequence

from hmscatalog.config import (
    PROJECTION_ENABLED,
    PROJECTION_MAX_PARTITIONS,
    PROJECTION_WARN_PARTITIONS,
    parse_boolean,
    parse_count,
)
from hmscatalog.partitions.types import INTEGRAL_RANGES, HiveType
from hmscatalog.projection.columns import (
    ColumnProjection,
    DateProjection,
    EnumProjection,
    InjectedProjection,
    IntegerProjection,
)
from hmscatalog.projection.dates import NOW_PATTERN, DateFormat, DateFormatError, Unit, resolve_now
from hmscatalog.projection.errors import InvalidProjection
from hmscatalog.projection.values import (
    DEFAULT_MAX_PARTITIONS,
    DEFAULT_WARN_PARTITIONS,
    Projection,
)
from hmscatalog.storage.locations import resolve_location

ENABLED = PROJECTION_ENABLED
TEMPLATE = "storage.location.template"
MAX_PARTITIONS = PROJECTION_MAX_PARTITIONS
WARN_PARTITIONS = PROJECTION_WARN_PARTITIONS
TYPES = ("enum", "integer", "date", "injected")
_SETTINGS = {
    "enum": {"type", "values"},
    "integer": {"type", "range", "min", "max", "interval", "digits"},
    "date": {"type", "range", "min", "max", "format", "interval", "interval.unit", "unit"},
    "injected": {"type"},
}
_SUFFIXES = ("interval.unit", "type", "values", "range", "min", "max", "interval", "digits",
             "format", "unit")
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_LONG_MIN, _LONG_MAX = INTEGRAL_RANGES["bigint"]
_ISO = DateFormat("yyyy-MM-dd")


def utc_now() -> dt.datetime:
    """The default clock."""
    return dt.datetime.now(dt.UTC)


class _Column:
    """The settings of one column, for error messages that name the property."""

    def __init__(self, table: str | None, name: str, hive_type: HiveType,
                 settings: dict[str, str]) -> None:
        self.table, self.name, self.hive_type, self.settings = table, name, hive_type, settings

    def key(self, suffix: str) -> str:
        return f"projection.{self.name}.{suffix}"

    def fail(self, message: str) -> InvalidProjection:
        prefix = f"Table {self.table}: " if self.table else ""
        return InvalidProjection(
            f"{prefix}Column projection for column '{self.name}' failed. {message}")

    def required(self, suffix: str) -> str:
        value = self.settings.get(suffix)
        if value is None:
            raise self.fail(f"Missing required property: '{self.key(suffix)}'")
        return value

    def positive(self, suffix: str, default: int, allow_zero: bool = False) -> int:
        text = self.settings.get(suffix)
        if text is None:
            return default
        number = parse_count(text, minimum=0 if allow_zero else 1)
        if number is None:
            kind = "non-negative" if allow_zero else "positive"
            raise self.fail(f"Property: '{self.key(suffix)}' needs to be a {kind} integer, "
                            f"got {text!r}")
        return number

    def unsupported_type(self) -> InvalidProjection:
        return self.fail(f"Unsupported column type: {self.hive_type}")

    def bounds(self) -> tuple[str, list[str]]:
        """``(property named in errors, [min, max])`` from ``.range`` or YDB's ``.min/.max``."""
        has_range = "range" in self.settings
        if has_range and ("min" in self.settings or "max" in self.settings):
            raise self.fail(f"Set either '{self.key('range')}' or '{self.key('min')}' and "
                            f"'{self.key('max')}', not both")
        if has_range:
            return self.key("range"), self.settings["range"].split(",")
        if "min" in self.settings or "max" in self.settings:
            return self.key("min"), [self.required("min"), self.required("max")]
        raise self.fail(f"Missing required property: '{self.key('range')}'")


def parse_projection(
    properties: Mapping[str, str],
    partition_columns: Sequence[tuple[str, HiveType]],
    table_location: str,
    clock: Callable[[], dt.datetime] = utc_now,
    *,
    table: str | None = None,
) -> Projection | None:
    """Read a table's partition projection, or ``None`` when ``projection.enabled`` is absent
    or false (the properties are then not validated, so a broken disabled setup never fails
    reads). A misspelt switch (``projection.enable``, ``Projection.Enabled``) is no disabled
    setup: it is refused, since the table's writer meant projection on and reading the table
    without it would silently find other partitions (or none).

    Args:
        properties: the table's parameters.
        partition_columns: ``(name, type)`` of the partition columns, in order.
        table_location: the table's location, for default partition locations and relative
            templates.
        clock: the current time (``NOW``), naive UTC or time-zone aware.
        table: ``db.table``, named in error messages.

    Raises:
        InvalidProjection: naming the table, column and property that is wrong.
    """
    enabled = properties.get(ENABLED)
    prefix = f"Table {table}: " if table else ""
    if enabled is None:
        misspelt = _misspelt_switch(properties)
        if misspelt is not None:
            raise InvalidProjection(f"{prefix}Unknown partition projection property "
                                    f"'{misspelt}'; did you mean '{ENABLED}'?")
        return None
    if _flag(enabled, table) is False:
        return None
    if not partition_columns:
        raise InvalidProjection(
            f"{prefix}Partition projection cannot be enabled on a table that is not partitioned")
    types = {name.lower(): hive_type for name, hive_type in partition_columns}
    grouped: dict[str, dict[str, str]] = {name: {} for name in types}
    for key, value in properties.items():
        if key.lower() == ENABLED or not key.lower().startswith("projection."):
            continue
        column, suffix = _split_key(key, types, prefix)
        if suffix in grouped[column]:
            raise InvalidProjection(f"{prefix}Property '{key}' is set twice (keys differ in case)")
        grouped[column][suffix] = value
    missing = [name for name in types if "type" not in grouped[name]]
    if missing:
        raise InvalidProjection(
            f"Table {table or '<unnamed>'} is configured for partition projection, but the "
            f"following partition columns are missing projection configuration: "
            f"[{', '.join(missing)}]")
    now = _naive_utc(clock())
    columns = tuple(_column(_Column(table, name, types[name], grouped[name]), now)
                    for name in types)
    template = _template(properties.get(TEMPLATE), list(types), table_location, prefix)
    max_partitions = _count(properties, MAX_PARTITIONS, DEFAULT_MAX_PARTITIONS, prefix,
                            minimum=1, kind="a positive integer")
    warn_partitions = _count(properties, WARN_PARTITIONS, DEFAULT_WARN_PARTITIONS, prefix,
                             minimum=0, kind="a whole number")
    return Projection(table, table_location, columns, template, max_partitions,
                      warn_partitions)


def _count(properties: Mapping[str, str], key: str, default: int, prefix: str, minimum: int,
           kind: str) -> int:
    """Count property ``key`` (``default`` when unset); refused, naming it, when not ``kind``."""
    text = properties.get(key)
    if text is None:
        return default
    parsed = parse_count(text, minimum=minimum)
    if parsed is None:
        raise InvalidProjection(f"{prefix}Property '{key}' needs to be {kind}, got {text!r}")
    return parsed


def _flag(text: str, table: str | None) -> bool:
    value = parse_boolean(text)
    if value is None:
        prefix = f"Table {table}: " if table else ""
        raise InvalidProjection(f"{prefix}Property '{ENABLED}' needs to be true or false, "
                                f"got {text!r}")
    return value


def check_projection_keys(properties: Mapping[str, str],
                          partition_columns: Sequence[tuple[str, HiveType]],
                          table: str | None = None) -> None:
    """Refuse ``projection.*`` keys that no projection reads, whether or not projection is
    enabled: a misspelt ``projection.enable`` would otherwise leave projection off, silently.

    Raises:
        InvalidProjection: naming the key.
    """
    prefix = f"Table {table}: " if table else ""
    types = {name.lower(): hive_type for name, hive_type in partition_columns}
    for key in properties:
        lowered = key.lower()
        if not lowered.startswith("projection.") or key == ENABLED:
            continue
        if lowered.count(".") == 1:  # projection.<word>: not a column setting
            hint = f"; did you mean '{ENABLED}'?" if _near_switch(key) else ""
            raise InvalidProjection(
                f"{prefix}Unknown partition projection property '{key}'{hint}")
        _split_key(key, types, prefix)


def _near_switch(key: str) -> bool:
    """Whether ``projection.<word>`` looks like a misspelling of ``projection.enabled`` (any
    case). The words are compared, not the keys: with ``projection.`` in common, every key
    would look close."""
    word = key.lower().partition(".")[2]
    return bool(difflib.get_close_matches(word, ["enabled"], n=1, cutoff=0.75))


def _misspelt_switch(properties: Mapping[str, str]) -> str | None:
    """The first ``projection.<word>`` key that misspells ``projection.enabled``, if any."""
    return next((key for key in properties
                 if key != ENABLED and key.lower().startswith("projection.")
                 and key.count(".") == 1 and _near_switch(key)), None)


def _naive_utc(value: dt.datetime) -> dt.datetime:
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _split_key(key: str, types: Mapping[str, HiveType], prefix: str) -> tuple[str, str]:
    rest = key[len("projection."):]
    lowered = rest.lower()
    for suffix in _SUFFIXES:
        if lowered.endswith("." + suffix):
            column = lowered[: -len(suffix) - 1]
            if column in types:
                return column, suffix
            raise InvalidProjection(f"{prefix}Partition projection cannot be defined for "
                                    f"non-partition column: '{rest[: -len(suffix) - 1]}'")
    for column in types:
        if lowered.startswith(column + "."):
            raise InvalidProjection(
                f"{prefix}Column projection for column '{column}' failed. Unknown property "
                f"'{key}'; known settings: {', '.join(sorted(_SUFFIXES))}")
    raise InvalidProjection(f"{prefix}Unknown partition projection property '{key}'")


def _column(col: _Column, now: dt.datetime) -> ColumnProjection:
    kind = col.settings["type"].strip().lower()
    if kind not in TYPES:
        raise col.fail(f"Property: '{col.key('type')}' value {col.settings['type']!r} is "
                       f"invalid. Available options: {', '.join(TYPES)}")
    for suffix in col.settings:
        if suffix not in _SETTINGS[kind]:
            raise col.fail(f"Property: '{col.key(suffix)}' does not apply to {kind} projection")
    if kind == "enum":
        return _enum(col)
    if kind == "integer":
        return _integer(col)
    if kind == "date":
        return _date(col, now)
    if not col.hive_type.can_partition:
        raise col.unsupported_type()
    return InjectedProjection(col.name, col.hive_type)


def _enum(col: _Column) -> EnumProjection:
    if col.hive_type.kind not in ("string", "varchar"):
        raise col.unsupported_type()
    values = tuple(dict.fromkeys(v for v in col.required("values").split(",") if v))
    if not values:
        raise col.fail(f"Property: '{col.key('values')}' needs at least one value")
    return EnumProjection(col.name, col.hive_type, values)


def _integer(col: _Column) -> IntegerProjection:
    if not (col.hive_type.is_integral or col.hive_type.kind in ("string", "varchar")):
        raise col.unsupported_type()
    prop, items = col.bounds()
    texts = [item.strip() for item in items]
    if len(texts) != 2 or not all(_INTEGER.fullmatch(t) for t in texts):
        raise col.fail(f"Property: '{prop}' needs to be a list of 2 integers, got "
                       f"{','.join(items)!r}")
    low, high = int(texts[0]), int(texts[1])
    if not (_LONG_MIN <= low <= _LONG_MAX and _LONG_MIN <= high <= _LONG_MAX):
        raise col.fail(f"Property: '{prop}' values need to fit a 64-bit signed integer")
    if low > high:
        raise col.fail(f"Property: '{prop}' needs to be sequential: {low} is greater than {high}")
    if col.hive_type.is_integral:
        type_low, type_high = INTEGRAL_RANGES[col.hive_type.kind]
        if low < type_low or high > type_high:
            raise col.fail(f"Property: '{prop}' range {low},{high} does not fit column type "
                           f"{col.hive_type}")
    interval = col.positive("interval", 1)
    digits = col.positive("digits", 0, allow_zero=True) or None
    return IntegerProjection(col.name, col.hive_type, low, high, interval, digits)


def _date(col: _Column, now: dt.datetime) -> DateProjection:
    if col.hive_type.kind not in ("string", "varchar", "date", "timestamp"):
        raise col.unsupported_type()
    try:
        fmt = DateFormat(col.required("format"))
    except DateFormatError as exc:
        raise col.fail(f"Property: '{col.key('format')}' is invalid: {exc}") from None
    prop, items = col.bounds()
    ydb = prop.endswith(".min")

    def invalid(detail: str) -> InvalidProjection:
        return col.fail(f"Property: '{prop}' needs to be a list of 2 valid dates formatted as "
                        f"'{fmt.pattern}' or '{NOW_PATTERN}' that are sequential: {detail}")

    if len(items) != 2:
        raise invalid(f"got {','.join(items)!r}")
    bounds = []
    for item in items:
        try:
            relative = resolve_now(item, now)
            bounds.append(_parse_bound(fmt, item, ydb) if relative is None
                          else fmt.truncate(relative))
        except ValueError as exc:
            raise invalid(str(exc)) from None
    start, end = bounds
    if start > end:
        raise invalid(f"{items[0]!r} is after {items[1]!r}")
    interval = col.positive("interval", 1)
    unit = _unit(col, fmt)
    if not fmt.step_fits(interval, unit):
        raise col.fail(f"Property: '{col.key('interval')}' of {interval} {unit.value} is finer "
                       f"than the format '{fmt.pattern}' shows: every partition would repeat")
    if col.hive_type.kind == "date" and not unit.is_calendar and (
            interval * unit.delta) % dt.timedelta(days=1):
        raise col.fail(f"Property: '{col.key('interval')}' of {interval} {unit.value} is not "
                       f"a whole number of days, as a column of type date needs")
    return DateProjection(col.name, col.hive_type, fmt, start, end, interval, unit)


def _parse_bound(fmt: DateFormat, text: str, ydb: bool) -> dt.datetime:
    try:
        return fmt.parse(text)
    except ValueError:
        if not ydb:
            raise
        return fmt.truncate(_ISO.parse(text))  # YDB writes min/max as YYYY-MM-DD


def _unit(col: _Column, fmt: DateFormat) -> Unit:
    if "interval.unit" in col.settings and "unit" in col.settings:
        raise col.fail(f"Set either '{col.key('interval.unit')}' or '{col.key('unit')}', "
                       "not both")
    suffix = "unit" if "unit" in col.settings else "interval.unit"
    text = col.settings.get(suffix)
    if text is None:
        default = fmt.default_unit()
        if default is None:
            raise col.fail(
                f"Property: '{col.key('interval.unit')}' needs to be set when "
                f"'{col.key('format')}' ('{fmt.pattern}') is not at single-day or single-month "
                "precision (the unit defaults to 1 DAYS or 1 MONTHS only for those)")
        return default
    unit = Unit.parse(text)
    if unit is None:
        raise col.fail(f"Property: '{col.key(suffix)}' value {text!r} is invalid. Available "
                       f"options: [{', '.join(u.value for u in Unit)}]")
    return unit


def _template(template: str | None, names: list[str], table_location: str,
              prefix: str) -> str | None:
    if template is None:
        return None
    placeholders = [p.lower() for p in _PLACEHOLDER.findall(template)]
    for placeholder in placeholders:
        if placeholder not in names:
            raise InvalidProjection(
                f"{prefix}Partition projection location template: {template} has placeholder "
                f"'${{{placeholder}}}', which is not a partition column (columns: {names})")
    for name in names:
        if name not in placeholders:
            raise InvalidProjection(
                f"{prefix}Partition projection location template: {template} is missing "
                f"partition column: '{name}' placeholder")
    return resolve_location(template, table_location)
