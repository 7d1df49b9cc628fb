"""hmscatalog's own table properties (and the read options that mirror them): one table of keys
with their kinds and defaults, and one parser per kind.

A typo must never change a result silently: ``hmscatalog.discovery.enabled='ture'`` used to
turn discovery off (0 rows), and ``hmscatalog.discovery.enable`` was ignored. So every key under
``hmscatalog.`` must be one of :data:`SETTINGS`, and so must every key that differs from a known
one only in case (``PROJECTION.ENABLED``): the readers look keys up exactly, as Hive, Trino and
Athena do, so such a key would be read by no one. Booleans are ``true`` or ``false`` (any case,
surrounding blanks ignored, as Spark reads its own boolean settings), counts are whole numbers
at or above their minimum, and a glob must compile. :func:`check_properties` runs at CREATE
TABLE and ALTER TABLE, before the metastore changes, and on ``read_partitioned``'s options; the
readers use the same parsers at query time, for tables made by other tools.

``projection.enabled`` is listed here for its spelling only: its value, and every
``projection.<column>.*`` key, is read by :mod:`hmscatalog.projection.config`, with Athena's
messages.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from hmscatalog.errors import InvalidGlob, InvalidSetting

PREFIX = "hmscatalog."
DISCOVERY_PREFIX = "hmscatalog.discovery."

DISCOVERY_ENABLED = "hmscatalog.discovery.enabled"
DISCOVERY_WARN_PARTITIONS = "hmscatalog.discovery.warn-partitions"
DISCOVERY_MAX_PARTITIONS = "hmscatalog.discovery.max-partitions"
DISCOVERY_MAX_LIST_CALLS = "hmscatalog.discovery.max-list-calls"
DISCOVERY_GLOB = "hmscatalog.discovery.glob"
PROJECTION_MAX_PARTITIONS = "hmscatalog.projection.max-partitions"
WRITE_KEEP_REPLACED_SECONDS = "hmscatalog.write.keep-replaced-seconds"
PROJECTION_ENABLED = "projection.enabled"
# Outside the prefix, for the spelling ClickHouse users know (SRS-045).
PARTITION_COLUMNS_IN_DATA_FILE = "partition_columns_in_data_file"

# boolean: true/false; count: a whole number; glob: a pattern below the table location.
Kind = Literal["boolean", "count", "glob"]


@dataclass(frozen=True)
class Setting:
    """One known key: what its value must be, and what an absent key means."""

    key: str
    kind: Kind
    default: bool | int | str | None
    minimum: int = 0  # counts only
    # False where another parser owns the value (projection's, with Athena's wording).
    checked_here: bool = True


SETTINGS: dict[str, Setting] = {s.key: s for s in (
    Setting(DISCOVERY_ENABLED, "boolean", False),
    Setting(DISCOVERY_WARN_PARTITIONS, "count", 5_000),
    Setting(DISCOVERY_MAX_PARTITIONS, "count", 50_000, minimum=1),
    Setting(DISCOVERY_MAX_LIST_CALLS, "count", 10_000, minimum=1),
    Setting(DISCOVERY_GLOB, "glob", None),
    Setting(PROJECTION_MAX_PARTITIONS, "count", 1_000_000, minimum=1),
    Setting(WRITE_KEEP_REPLACED_SECONDS, "count", 300),
    Setting(PROJECTION_ENABLED, "boolean", False, checked_here=False),
    Setting(PARTITION_COLUMNS_IN_DATA_FILE, "boolean", False),
)}
_BY_FOLDED_KEY = {key.lower(): key for key in SETTINGS}


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


def read(properties: Mapping[str, str], key: str, where: str,
         location: str = "") -> bool | int | str | None:
    """The value of setting ``key`` in ``properties`` (its default when absent).

    ``location`` is the root a glob is compiled below, as the discovery walk compiles it.

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
    from hmscatalog.storage.globs import compile_below  # storage imports stay lazy here

    try:
        compile_below(location, text)
    except InvalidGlob as exc:
        raise InvalidSetting(f"{where}: property '{key}' must be a glob below the table "
                             f"location, not {text!r}: {exc}") from None
    return text


def check_spelling(properties: Mapping[str, str], where: str, prefix: str = PREFIX) -> None:
    """Refuse keys that no reader looks up: unknown keys under ``prefix``, and keys that differ
    from a known key only in case (wherever they are).

    Raises:
        InvalidSetting: naming ``where`` and the key, and the known key closest to it.
    """
    for key in properties:
        if key in SETTINGS:
            continue
        lowered = key.lower()
        if lowered in _BY_FOLDED_KEY:
            raise InvalidSetting(f"{where}: unknown property '{key}'; did you mean "
                                 f"'{_BY_FOLDED_KEY[lowered]}'?")
        if lowered.startswith(prefix):
            known = [k for k in SETTINGS if k.startswith(prefix)]
            close = difflib.get_close_matches(lowered, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(known)}"
            raise InvalidSetting(f"{where}: unknown property '{key}'{hint}")


def read_flag(properties: Mapping[str, str], key: str, where: str) -> bool:
    """:func:`read` for a boolean setting."""
    return read(properties, key, where) is True


def read_count(properties: Mapping[str, str], key: str, where: str) -> int:
    """:func:`read` for a count setting."""
    value = read(properties, key, where)
    if not isinstance(value, int):
        raise TypeError(f"{key} is not a count setting")
    return value


def check_properties(properties: Mapping[str, str], where: str, location: str = "") -> None:
    """Refuse misspelt keys (:func:`check_spelling`) and values of the wrong kind.

    Raises:
        InvalidSetting: naming ``where``, the key and the value (and the known key closest to an
            unknown one).
    """
    check_spelling(properties, where)
    for key in properties:
        if key in SETTINGS and SETTINGS[key].checked_here:
            read(properties, key, where, location)
