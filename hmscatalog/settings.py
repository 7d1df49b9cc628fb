"""hmscatalog's own table properties (and the read options that mirror them): one table of keys
with their kinds and defaults, and one parser per kind.

A typo must never change a result silently: ``hmscatalog.discovery.enabled='ture'`` used to
turn discovery off (0 rows), and ``hmscatalog.discovery.enable`` was ignored. So every key under
``hmscatalog.`` must be one of :data:`SETTINGS`, booleans are ``true`` or ``false`` (any case,
surrounding blanks ignored, as Spark reads its own boolean settings) and counts are whole
numbers at or above their minimum. :func:`check_properties` runs at CREATE TABLE and ALTER
TABLE, before the metastore changes; the readers use the same parsers at query time, for
tables made by other tools. (``projection.*`` keys are checked by
:mod:`hmscatalog.projection.config`, with Athena's messages.)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from hmscatalog.errors import InvalidSetting

PREFIX = "hmscatalog."

DISCOVERY_ENABLED = "hmscatalog.discovery.enabled"
DISCOVERY_WARN_PARTITIONS = "hmscatalog.discovery.warn-partitions"
DISCOVERY_MAX_PARTITIONS = "hmscatalog.discovery.max-partitions"
DISCOVERY_MAX_LIST_CALLS = "hmscatalog.discovery.max-list-calls"
DISCOVERY_GLOB = "hmscatalog.discovery.glob"
PROJECTION_MAX_PARTITIONS = "hmscatalog.projection.max-partitions"
# Outside the prefix, for the spelling ClickHouse users know (SRS-045).
PARTITION_COLUMNS_IN_DATA_FILE = "partition_columns_in_data_file"

Kind = Literal["boolean", "count", "text"]


@dataclass(frozen=True)
class Setting:
    key: str
    kind: Kind
    default: bool | int | str | None
    minimum: int = 0  # counts only


SETTINGS: dict[str, Setting] = {s.key: s for s in (
    Setting(DISCOVERY_ENABLED, "boolean", False),
    Setting(DISCOVERY_WARN_PARTITIONS, "count", 5_000),
    Setting(DISCOVERY_MAX_PARTITIONS, "count", 50_000, minimum=1),
    Setting(DISCOVERY_MAX_LIST_CALLS, "count", 10_000, minimum=1),
    Setting(DISCOVERY_GLOB, "text", None),
    Setting(PROJECTION_MAX_PARTITIONS, "count", 1_000_000, minimum=1),
    Setting(PARTITION_COLUMNS_IN_DATA_FILE, "boolean", False),
)}


def parse_boolean(text: str) -> bool | None:
    """``True``/``False`` for ``true``/``false`` in any case, else ``None``."""
    lowered = text.strip().lower()
    return {"true": True, "false": False}.get(lowered)


def parse_count(text: str, minimum: int = 0) -> int | None:
    """A whole number written in decimal digits, at least ``minimum``; else ``None``."""
    stripped = text.strip()
    if not stripped.isascii() or not stripped.isdigit():
        return None
    number = int(stripped)
    return number if number >= minimum else None


def read(properties: Mapping[str, str], key: str, where: str) -> bool | int | str | None:
    """The value of setting ``key`` in ``properties`` (its default when absent).

    Raises:
        InvalidSetting: the value is not of the setting's kind; the message names ``where``
            (``table db.t``), the key and the value.
    """
    setting = SETTINGS[key]
    text = properties.get(key)
    if text is None:
        return setting.default
    if setting.kind == "boolean":
        flag = parse_boolean(text)
        if flag is None:
            raise InvalidSetting(f"{where}: property '{key}' must be true or false, not {text!r}")
        return flag
    if setting.kind == "count":
        count = parse_count(text, setting.minimum)
        if count is None:
            raise InvalidSetting(f"{where}: property '{key}' must be a whole number of at least "
                                 f"{setting.minimum}, not {text!r}")
        return count
    return text


def check_properties(properties: Mapping[str, str], where: str) -> None:
    """Refuse unknown keys under ``hmscatalog.`` and values of the wrong kind.

    Raises:
        InvalidSetting: naming ``where``, the key and the value (and the known key closest to an
            unknown one).
    """
    for key in properties:
        if key.lower().startswith(PREFIX) and key not in SETTINGS:
            close = difflib.get_close_matches(key.lower(), list(SETTINGS), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else (
                f"; known: {', '.join(k for k in SETTINGS if k.startswith(PREFIX))}")
            raise InvalidSetting(f"{where}: unknown property '{key}'{hint}")
        if key in SETTINGS:
            read(properties, key, where)
