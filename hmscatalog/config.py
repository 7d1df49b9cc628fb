"""Every setting hmscatalog reads, in one table: its key, where it is read, its kind and
default, and one parser per kind. No other module parses a setting's value.

Settings are read from three places (:attr:`Setting.source`):

``table``
    Table properties, and the ``read_partitioned`` options that mirror them.
``catalog``
    The Spark session conf of a catalog attached with ``attach(spark, name)``:
    ``spark.hmscatalog.<name>.<key>``, else ``spark.hmscatalog.<key>`` (an empty value counts
    as unset). :data:`SETTINGS` holds the second spelling.
``hive``
    Hive's own settings, from the Spark session conf, as ``<key>`` or
    ``spark.hadoop.<key>`` (the plain key wins), with Hive's defaults.

Each setting's meaning is its :attr:`Setting.doc`; the documentation's settings reference is
rendered from :data:`SETTINGS` (:func:`hmscatalog.cli.reference.render_settings`).

A typo must never change a result silently: ``hmscatalog.discovery.enabled='ture'`` used to
turn discovery off (0 rows), and ``hmscatalog.discovery.enable`` was ignored. So booleans are
``true`` or ``false`` (any case, surrounding blanks ignored, as Spark reads its own boolean
settings), counts are whole numbers (an optional ``+``, decimal digits) at or above their
minimum, seconds are positive decimal numbers, a choice is one of its words (any case), and a
glob must compile; anything else is an error naming the key and the value. Unknown keys under
our prefixes are refused with the closest known key: table properties under ``hmscatalog.``
(and any key that differs from a known one only in case, since readers look keys up exactly, as
Hive, Trino and Athena do) by :func:`check_properties`, at CREATE TABLE and ALTER TABLE before
the metastore changes and on ``read_partitioned``'s options; Spark conf keys under
``spark.hmscatalog.`` by :func:`check_session_conf`, at ``attach``. The readers use the same
parsers at query time, for tables made by other tools.

``projection.enabled`` is only spelt here: its value is read by
:mod:`hmscatalog.projection.config`, with Athena's messages but :func:`parse_boolean`, and so is
every ``projection.<column>.*`` key.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from hmscatalog.errors import DynamicPartitionError, InvalidGlob, InvalidSetting

if TYPE_CHECKING:
    from hmscatalog.storage.globs import Glob

# Table properties.
PREFIX = "hmscatalog."
DISCOVERY_PREFIX = "hmscatalog.discovery."
DISCOVERY_ENABLED = "hmscatalog.discovery.enabled"
DISCOVERY_WARN_PARTITIONS = "hmscatalog.discovery.warn-partitions"
DISCOVERY_MAX_PARTITIONS = "hmscatalog.discovery.max-partitions"
DISCOVERY_MAX_LIST_CALLS = "hmscatalog.discovery.max-list-calls"
DISCOVERY_GLOB = "hmscatalog.discovery.glob"
PROJECTION_MAX_PARTITIONS = "hmscatalog.projection.max-partitions"
PROJECTION_WARN_PARTITIONS = "hmscatalog.projection.warn-partitions"
WRITE_KEEP_REPLACED_SECONDS = "hmscatalog.write.keep-replaced-seconds"
# Read the files in subdirectories of partition directories too (Hive on Tez writes UNION ALL
# output to HIVE_UNION_SUBDIR_<n>/), as Trino's hive.recursive-directories.
READ_RECURSIVE_DIRECTORIES = "hmscatalog.read.recursive-directories"
PROJECTION_ENABLED = "projection.enabled"
# Outside the prefix, for the spelling ClickHouse users know (SRS-045).
PARTITION_COLUMNS_IN_DATA_FILE = "partition_columns_in_data_file"

# Spark session conf of a catalog (spark.hmscatalog.<name>.<rest> first).
CATALOG_PREFIX = "spark.hmscatalog."
URI = "spark.hmscatalog.uri"
TIMEOUT = "spark.hmscatalog.timeout"
POOL_SIZE = "spark.hmscatalog.pool-size"  # metastore connections per catalog
METASTORE_CATALOG = "spark.hmscatalog.metastore-catalog"  # Hive 3+: the catalog of databases
CACHE_TTL = "spark.hmscatalog.cache-ttl"  # how long queries reuse the metastore's answers
# Keep the cache current from the metastore's notification log (hmscatalog.metastore.events).
EVENTS = "spark.hmscatalog.events"
EVENTS_POLL_INTERVAL = "spark.hmscatalog.events.poll-interval"
EVENTS_CATCH_UP = "spark.hmscatalog.events.catch-up"
S3_ENDPOINT = "spark.hmscatalog.s3.endpoint"
S3_REGION = "spark.hmscatalog.s3.region"
S3_ACCESS_KEY_ID = "spark.hmscatalog.s3.access-key-id"
S3_SECRET_ACCESS_KEY = "spark.hmscatalog.s3.secret-access-key"
S3_SESSION_TOKEN = "spark.hmscatalog.s3.session-token"
S3_KEYS = (S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_SESSION_TOKEN)
# Kerberos to the metastore: its principal, and who the client logs in as with which keytab
# (else the ticket cache). By default Hive's and Spark's settings (see catalog_kerberos).
KERBEROS_PRINCIPAL = "spark.hmscatalog.kerberos.principal"
KERBEROS_CLIENT_PRINCIPAL = "spark.hmscatalog.kerberos.client-principal"
KERBEROS_KEYTAB = "spark.hmscatalog.kerberos.keytab"
KERBEROS_KEYS = (KERBEROS_PRINCIPAL, KERBEROS_CLIENT_PRINCIPAL, KERBEROS_KEYTAB)
# TLS to the metastore: on (by default as Hive's hive.metastore.use.SSL), the CAs to trust (PEM).
TLS_ENABLED = "spark.hmscatalog.tls.enabled"
TLS_CA_FILE = "spark.hmscatalog.tls.ca-file"
HIVE_USE_SSL = "hive.metastore.use.SSL"
# The Spark catalog each lakehouse format's tables are handed to (hmscatalog.metastore.kinds).
REDIRECT_PREFIX = "spark.hmscatalog.redirect."
REDIRECT_FORMATS = ("iceberg", "delta", "hudi", "paimon")
REDIRECT_KEYS = tuple(REDIRECT_PREFIX + fmt for fmt in REDIRECT_FORMATS)
HIVE_SASL_ENABLED = "hive.metastore.sasl.enabled"
HIVE_KERBEROS_PRINCIPAL = "hive.metastore.kerberos.principal"
SPARK_KERBEROS_PRINCIPAL = "spark.kerberos.principal"
SPARK_KERBEROS_KEYTAB = "spark.kerberos.keytab"

# Hive's settings, from the Spark session conf (also as spark.hadoop.<key>).
HIVE_DYNAMIC_PARTITION = "hive.exec.dynamic.partition"
HIVE_DYNAMIC_PARTITION_MODE = "hive.exec.dynamic.partition.mode"
HIVE_MAX_DYNAMIC_PARTITIONS = "hive.exec.max.dynamic.partitions"
HIVE_MAX_DYNAMIC_PARTITIONS_PER_NODE = "hive.exec.max.dynamic.partitions.pernode"
HADOOP_PREFIX = "spark.hadoop."

Source = Literal["table", "catalog", "hive"]
# boolean: true/false; count: a whole number; seconds: a positive number; duration: a number
# of seconds, minutes or hours, 0 included (30s, 5m); choice: one of Setting.choices; glob: a
# pattern below the table location; text: any string.
Kind = Literal["boolean", "count", "seconds", "duration", "choice", "glob", "text"]
Value = bool | int | float | str | None
T = TypeVar("T", bool, int, float, str)
# How session settings are looked up: the Spark conf's get(key, None).
Getter = Callable[[str], str | None]
SESSION = "Spark conf"  # the ``where`` of session settings in errors


@dataclass(frozen=True)
class Setting:
    """One known key: where it is read, what its value must be, what an absent key means."""

    key: str
    source: Source
    kind: Kind
    default: Value
    doc: str  # what it does, for the settings reference (Markdown; never empty)
    minimum: int = 0  # counts only
    choices: tuple[str, ...] = ()  # choices only, lower case
    # False where another parser owns the value (projection's, with Athena's wording).
    checked_here: bool = True


_S3_DOCS = {
    S3_ENDPOINT: "The S3 endpoint pyarrow lists `s3://` and `s3a://` locations through "
                 "(MinIO, moto...). Unset: the session's `fs.s3a.endpoint`, else AWS.",
    S3_REGION: "The S3 region of those listings. Unset: the session's `fs.s3a.endpoint.region`, "
               "else the AWS SDK's (`AWS_REGION`, `~/.aws`).",
    S3_ACCESS_KEY_ID: "The access key of those listings. Unset: the session's "
                      "`fs.s3a.access.key`, else the AWS SDK's usual sources.",
    S3_SECRET_ACCESS_KEY: "The secret key of those listings. Unset: the session's "
                          "`fs.s3a.secret.key`, else the AWS SDK's usual sources.",
    S3_SESSION_TOKEN: "The session token of those listings. Unset: the session's "
                      "`fs.s3a.session.token`, else the AWS SDK's usual sources.",
}
_KERBEROS_DOCS = {
    KERBEROS_PRINCIPAL: "The metastore's Kerberos principal (`hive/_HOST@EXAMPLE.COM`; `_HOST` "
                        "is the host connected to): setting it turns Kerberos on. Unset: "
                        "`hive.metastore.kerberos.principal` when `hive.metastore.sasl.enabled` "
                        "is true, else no Kerberos.",
    KERBEROS_CLIENT_PRINCIPAL: "The principal the catalog logs in as with the keytab. Unset: "
                               "`spark.kerberos.principal`, else the ticket cache's.",
    KERBEROS_KEYTAB: "The keytab the catalog logs in with (logging in again as its tickets "
                     "near their end). Unset: `spark.kerberos.keytab`, else the ticket cache "
                     "(`kinit`).",
}

_FORMAT_TITLES = {"iceberg": "Iceberg", "delta": "Delta", "hudi": "Hudi", "paimon": "Paimon"}


def _redirect_doc(key: str) -> str:
    title = _FORMAT_TITLES[key[len(REDIRECT_PREFIX):]]
    return (f"The Spark catalog that the catalog's {title} tables are handed to: a statement "
            f"naming such a table through hms runs on that catalog's table of the same name "
            f"(it must be configured, `spark.sql.catalog.<name>`, or be `spark_catalog`). "
            f"Unset: every statement on a {title} table is refused, naming this setting, "
            "since its directory holds files its own metadata has removed.")


SETTINGS: dict[str, Setting] = {s.key: s for s in (
    Setting(DISCOVERY_ENABLED, "table", "boolean", False,
            "Find the table's partitions under its location at query time, from its "
            "`key=value` directories, instead of asking the metastore; the walk prunes by the "
            "query's filters as it descends."),
    Setting(DISCOVERY_WARN_PARTITIONS, "table", "count", 5_000,
            "Log a warning, naming the table, the count and the partition columns a filter "
            "would bound it by, when a discovery scan or path read selects more partitions."),
    Setting(DISCOVERY_MAX_PARTITIONS, "table", "count", 50_000,
            "Fail a discovery scan or path read, naming the table, when it would select more "
            "partitions; nothing is read.", minimum=1),
    Setting(DISCOVERY_MAX_LIST_CALLS, "table", "count", 10_000,
            "Fail a discovery scan or path read, naming the table, when listing its "
            "directories takes more list calls; nothing is read. Path reads whose type "
            "inference would need more sample the tree instead.", minimum=1),
    Setting(DISCOVERY_GLOB, "table", "glob", None,
            "Walk only the paths below the table location that match this glob (`*`, `**`, "
            "`?`, `{a,b}`, `{N..M}`), directories first and, last, file names. Path reads set "
            "it from their glob."),
    Setting(PROJECTION_MAX_PARTITIONS, "table", "count", 1_000_000,
            "Fail a scan of a projection table, naming the table and the count, when it could "
            "read more projected partitions; nothing is read.", minimum=1),
    Setting(PROJECTION_WARN_PARTITIONS, "table", "count", 100_000,
            "Log a warning, naming the table, the count and the partition columns a filter "
            "would bound it by, when a scan of a projection table considers more projected "
            "partitions."),
    Setting(WRITE_KEEP_REPLACED_SECONDS, "table", "count", 300,
            "Seconds the files an overwrite replaced are kept after the switch, for queries "
            "still reading them; the first write, query or `hmscatalog recover` after that "
            "deletes them. 0 for tables read as directory trees."),
    Setting(READ_RECURSIVE_DIRECTORIES, "table", "boolean", False,
            "Also read the files in subdirectories of a partition directory, at any depth, "
            "except hidden ones (`_x`, `.x`), as Trino's `hive.recursive-directories` does "
            "(Hive on Tez writes `UNION ALL` output to `HIVE_UNION_SUBDIR_<n>/`)."),
    Setting(PROJECTION_ENABLED, "table", "boolean", False,
            "Compute the table's partitions from its `projection.<column>.*` properties "
            "instead of fetching or listing them (Athena's partition projection); the "
            "metastore's partitions are ignored while it is on.", checked_here=False),
    Setting(PARTITION_COLUMNS_IN_DATA_FILE, "table", "boolean", False,
            "Write the partition columns into the data files too; by default they are only "
            "in the directory names, as in Hive and Spark."),
    Setting(URI, "catalog", "text", "",
            "The metastore's `thrift://host:port` URI; several, comma-separated, fail over "
            "in order. Required unless `attach` is given `uri=`."),
    Setting(TIMEOUT, "catalog", "seconds", 600.0,
            "Seconds a metastore call may take before it fails (it is not sent again)."),
    Setting(POOL_SIZE, "catalog", "count", 2,
            "Metastore connections the catalog's sessions share; calls beyond them wait for "
            "a free one.", minimum=1),
    Setting(CACHE_TTL, "catalog", "duration", 0.0,
            "How long queries may reuse the metastore's answers (tables, partition lists, "
            "partition counts), as Trino's `hive.metastore-cache-ttl`: `30s`, `5m`, `1h`, or "
            "seconds. Writes, DDL, MSCK and procedures through any hms catalog of the driver "
            "are seen at once, as is everything after `REFRESH TABLE`; changes by other "
            "engines or processes after at most this long. `0` (the default, as in Trino): "
            "every query asks the metastore. While the catalog follows the metastore's "
            "notification log (`events`), entries are kept until an event names their table; "
            "a TTL set here still caps their age."),
    Setting(EVENTS, "catalog", "choice", "auto",
            "Follow the metastore's notification log (`get_next_notification`), invalidating "
            "the cached metadata of each table an event names, with the cache on: `auto` (the "
            "default) does so once the log has an event (the metastore has a notification "
            "listener, such as Hive's `DbNotificationListener` or the embedded metastore's); "
            "`off` never, leaving the cache to `cache-ttl`.", choices=("auto", "off")),
    Setting(EVENTS_POLL_INTERVAL, "catalog", "seconds", 1.0,
            "Seconds between two polls of the notification log: another engine's change is "
            "seen by queries that begin this long after it at most."),
    Setting(EVENTS_CATCH_UP, "catalog", "boolean", True,
            "While following the log, before a query looks up a table, apply every event the "
            "log has (one metastore call, `get_current_notificationEventId`, and the events "
            "if there are new ones), so that a change any engine committed before the query "
            "began is seen by it, as Impala's `SYNC_HMS_EVENTS_WAIT_TIME_S`, and as every "
            "query through Spark's built-in catalog sees it. `false`: no metastore call at "
            "all for an unchanged table; other engines' changes are then seen within one "
            "`events.poll-interval`."),
    Setting(METASTORE_CATALOG, "catalog", "text", "",
            "The Hive 3+ metastore catalog holding the databases. Unset: the server's default "
            "(`metastore.catalog.default`, `hive` unless changed); an error on Hive 2.x."),
    *(Setting(key, "catalog", "text", "", _S3_DOCS[key]) for key in S3_KEYS),
    *(Setting(key, "catalog", "text", "", _KERBEROS_DOCS[key]) for key in KERBEROS_KEYS),
    Setting(TLS_ENABLED, "catalog", "boolean", False,
            "Speak TLS to the metastore. Unset: on when Hive's `hive.metastore.use.SSL` is "
            "true or `tls.ca-file` is set."),
    Setting(TLS_CA_FILE, "catalog", "text", "",
            "The CA certificates (PEM) the metastore's certificate must chain to; setting it "
            "turns TLS on unless `tls.enabled` is false. Unset: the system's CAs."),
    *(Setting(key, "catalog", "text", "", _redirect_doc(key)) for key in REDIRECT_KEYS),
    Setting(HIVE_DYNAMIC_PARTITION, "hive", "boolean", True,
            "Allow INSERTs with dynamic partition columns; false refuses every such INSERT "
            "of a statement, with Hive's message."),
    Setting(HIVE_DYNAMIC_PARTITION_MODE, "hive", "choice", "strict",
            "`strict` refuses an INSERT whose PARTITION clause has no static column; "
            "`nonstrict` allows it. Creates (CTAS, `saveAsTable`...) are not refused.",
            choices=("strict", "nonstrict")),
    Setting(HIVE_MAX_DYNAMIC_PARTITIONS, "hive", "count", 1_000,
            "Fail a write, before anything is committed, that would write more partitions.",
            minimum=1),
    Setting(HIVE_MAX_DYNAMIC_PARTITIONS_PER_NODE, "hive", "count", 100,
            "Fail a write in which one task writes more partitions; nothing is committed.",
            minimum=1),
)}
_TABLE = {key: s for key, s in SETTINGS.items() if s.source == "table"}
# What follows spark.hmscatalog[.<name>]. in a catalog key: uri, timeout, s3.endpoint...
CATALOG_SUFFIXES = [key[len(CATALOG_PREFIX):] for key, s in SETTINGS.items()
                    if s.source == "catalog"]
_BY_FOLDED_KEY = {key.lower(): key for key in _TABLE}
# Hive's settings fail as the writes they govern do, so that Spark reports them alike.
_ERRORS: dict[Source, type[InvalidSetting | DynamicPartitionError]] = {
    "table": InvalidSetting, "catalog": InvalidSetting, "hive": DynamicPartitionError}

_COUNT = re.compile(r"\+?[0-9]+")
_SECONDS = re.compile(r"\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_DURATION = re.compile(r"(\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*(ms|s|m|h|d)?", re.IGNORECASE)
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_boolean(text: str) -> bool | None:
    """``True``/``False`` for ``true``/``false`` in any case, else ``None``."""
    lowered = text.strip().lower()
    return {"true": True, "false": False}.get(lowered)


def parse_count(text: str, minimum: int = 0) -> int | None:
    """A whole number in decimal digits (an optional ``+``), at least ``minimum``; else
    ``None``."""
    stripped = text.strip()
    if not _COUNT.fullmatch(stripped):
        return None
    number = int(stripped)
    return number if number >= minimum else None


def parse_seconds(text: str) -> float | None:
    """A positive decimal number (``30``, ``2.5``); else ``None``."""
    stripped = text.strip()
    if not _SECONDS.fullmatch(stripped) or float(stripped) <= 0:
        return None
    return float(stripped)


def parse_duration(text: str) -> float | None:
    """Seconds of a duration: a number of ``ms``, ``s``, ``m``, ``h`` or ``d`` (seconds without a
    unit), 0 included; else ``None``."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        return None
    return float(match.group(1)) * _UNITS[(match.group(2) or "s").lower()]


def parse_choice(text: str, choices: Iterable[str]) -> str | None:
    """The choice ``text`` names (any case, surrounding blanks ignored), else ``None``."""
    lowered = text.strip().lower()
    return lowered if lowered in choices else None


def parse(key: str, text: str, where: str, spelt: str | None = None) -> Value:
    """The value ``text`` of setting ``key`` (not a glob: see :func:`parse_glob`).

    ``spelt`` is the key as it was set (``spark.hmscatalog.hms.timeout``), named in errors.

    Raises:
        InvalidSetting: (:class:`DynamicPartitionError` for Hive's settings) the value is not
            of the setting's kind; the message names ``where`` (``Table db.t``), the key and
            the value.
    """
    setting = SETTINGS[key]
    value: Value
    if setting.kind == "boolean":
        value, expected = parse_boolean(text), "true or false"
    elif setting.kind == "count":
        value = parse_count(text, setting.minimum)
        expected = f"a whole number of at least {setting.minimum}"
    elif setting.kind == "seconds":
        value, expected = parse_seconds(text), "a positive number of seconds"
    elif setting.kind == "duration":
        value = parse_duration(text)
        expected = "a duration such as 30s, 5m or 1h (0 for none)"
    elif setting.kind == "choice":
        value, expected = parse_choice(text, setting.choices), " or ".join(setting.choices)
    elif setting.kind == "text":
        return text
    else:
        raise TypeError(f"{key} is a glob setting: use parse_glob")
    if value is None:
        raise _invalid(setting, spelt, text, where, expected)
    return value


def parse_glob(key: str, text: str, where: str, location: str) -> Glob:
    """Glob setting ``key`` compiled below ``location``, as the discovery walk compiles it.

    Raises:
        InvalidSetting: the glob does not compile; naming ``where``, the key and the value.
    """
    from hmscatalog.storage.globs import compile_below  # storage imports stay lazy here

    try:
        return compile_below(location, text)
    except InvalidGlob as exc:
        raise _invalid(SETTINGS[key], None, text, where, "a glob below the table location",
                       f": {exc}") from None


def default(key: str, kind: type[T]) -> T:
    """The default of setting ``key``, whose values are of Python type ``kind``."""
    return _expect(key, kind, SETTINGS[key].default)


def _expect(key: str, kind: type[T], value: Value) -> T:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TypeError(f"{key} is not a setting of {kind.__name__} values")
    return value


def _invalid(setting: Setting, spelt: str | None, text: str, where: str, expected: str,
             detail: str = "") -> InvalidSetting | DynamicPartitionError:
    noun = "property" if setting.source == "table" else "setting"
    return _ERRORS[setting.source](f"{where}: {noun} '{spelt or setting.key}' must be "
                                   f"{expected}, not {text!r}{detail}")


# Table properties.

def read(properties: Mapping[str, str], key: str, where: str) -> Value:
    """The value of table setting ``key`` in ``properties`` (its default when absent); see
    :func:`parse`."""
    text = properties.get(key)
    return SETTINGS[key].default if text is None else parse(key, text, where)


def read_flag(properties: Mapping[str, str], key: str, where: str) -> bool:
    """:func:`read` for a boolean setting."""
    return _expect(key, bool, read(properties, key, where))


def read_count(properties: Mapping[str, str], key: str, where: str) -> int:
    """:func:`read` for a count setting."""
    return _expect(key, int, read(properties, key, where))


def read_glob(properties: Mapping[str, str], where: str, root: str) -> Glob | None:
    """``hmscatalog.discovery.glob`` compiled below ``root``; ``None`` when unset or empty."""
    text = properties.get(DISCOVERY_GLOB)
    return parse_glob(DISCOVERY_GLOB, text, where, root) if text else None


def check_spelling(properties: Mapping[str, str], where: str, prefix: str = PREFIX) -> None:
    """Refuse table keys that no reader looks up: unknown keys under ``prefix``, and keys that
    differ from a known key only in case (wherever they are).

    Raises:
        InvalidSetting: naming ``where`` and the key, and the known key closest to it.
    """
    for key in properties:
        if key in _TABLE:
            continue
        lowered = key.lower()
        if lowered in _BY_FOLDED_KEY:
            raise InvalidSetting(f"{where}: unknown property '{key}'; did you mean "
                                 f"'{_BY_FOLDED_KEY[lowered]}'?")
        if lowered.startswith(prefix):
            known = [k for k in _TABLE if k.startswith(prefix)]
            close = difflib.get_close_matches(lowered, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(known)}"
            raise InvalidSetting(f"{where}: unknown property '{key}'{hint}")


def check_options(options: Mapping[str, str], where: str, properties: bool) -> None:
    """Refuse the keys of a path read's or write's ``options`` that nothing looks up. Known:
    the storage options (``s3.endpoint``...) and, with ``properties``, table properties under
    ``hmscatalog.`` (whose spelling and values :func:`check_properties` checks).

    Raises:
        InvalidSetting: naming ``where`` and the key, and the known key closest to it.
    """
    storage = [key[len(CATALOG_PREFIX):] for key in S3_KEYS]
    known = storage + [key for key in _TABLE if properties and key.startswith(PREFIX)]
    for key in options:
        lowered = key.lower()
        if key in storage or (properties and lowered.startswith(PREFIX)):
            continue
        close = ([k for k in known if k.endswith("." + lowered)]
                 or difflib.get_close_matches(lowered, known, n=1))
        hint = (f"did you mean '{close[0]}'?" if close else
                f"known: {', '.join(storage)}"
                + (f" and table properties {PREFIX}*" if properties else ""))
        raise InvalidSetting(f"{where}: unknown option '{key}'; {hint}")


def check_properties(properties: Mapping[str, str], where: str, location: str = "") -> None:
    """Refuse misspelt keys (:func:`check_spelling`) and values of the wrong kind.

    Raises:
        InvalidSetting: naming ``where``, the key and the value (and the known key closest to an
            unknown one).
    """
    check_spelling(properties, where)
    for key, text in properties.items():
        setting = _TABLE.get(key)
        if setting is None or not setting.checked_here:
            continue
        if setting.kind == "glob":
            parse_glob(key, text, where, location)
        else:
            parse(key, text, where)


# The Spark session conf of a catalog.

def catalog_keys(name: str, key: str) -> tuple[str, str]:
    """The two spellings of catalog setting ``key`` for catalog ``name``, in the order they
    are looked up: ``spark.hmscatalog.<name>.<rest>``, ``spark.hmscatalog.<rest>``."""
    return f"{CATALOG_PREFIX}{name}.{key[len(CATALOG_PREFIX):]}", key


def catalog_setting(get: Getter, name: str, key: str, kind: type[T]) -> T:
    """Catalog setting ``key`` of catalog ``name``, read through ``get`` (the Spark conf's
    ``get(key, None)``); its default when neither spelling is set or both are empty (``""``
    for text). ``kind`` is the Python type of its values.

    Raises:
        InvalidSetting: the value is not of the setting's kind (naming the key as set).
    """
    for spelt in catalog_keys(name, key):
        text = get(spelt)
        if text:
            return _expect(key, kind, parse(key, str(text), SESSION, spelt=spelt))
    return default(key, kind)


def catalog_storage_options(get: Getter, name: str) -> dict[str, str]:
    """The S3 settings of catalog ``name`` that are set, as storage options
    (``s3.endpoint``...)."""
    found = {key[len(CATALOG_PREFIX):]: catalog_setting(get, name, key, str) for key in S3_KEYS}
    return {key: value for key, value in found.items() if value}


def catalog_redirects(get: Getter, name: str) -> dict[str, str]:
    """The Spark catalog named for each lakehouse format of :data:`REDIRECT_FORMATS` that
    catalog ``name`` hands its tables of that format to (``{"iceberg": "ice"}``)."""
    found = {fmt: catalog_setting(get, name, REDIRECT_PREFIX + fmt, str).strip()
             for fmt in REDIRECT_FORMATS}
    return {fmt: target for fmt, target in found.items() if target}


def catalog_kerberos(get: Getter, name: str) -> tuple[str, str, str] | None:
    """``(metastore principal, client principal, keytab)`` of catalog ``name`` (client and
    keytab ``""``: the ticket cache), or None without Kerberos.

    Each comes from the catalog's own setting, else as Hive and Spark read it: the metastore's
    principal from ``hive.metastore.kerberos.principal`` when ``hive.metastore.sasl.enabled`` is
    true (either also as ``spark.hadoop.<key>``), the client's from ``spark.kerberos.principal``
    and ``spark.kerberos.keytab``.

    Raises:
        InvalidSetting: SASL enabled without a principal, a keytab without a client principal,
            or a ``hive.metastore.sasl.enabled`` that is not true or false.
    """
    service = catalog_setting(get, name, KERBEROS_PRINCIPAL, str)
    if not service:
        for spelt in (HIVE_SASL_ENABLED, HADOOP_PREFIX + HIVE_SASL_ENABLED):
            text = get(spelt)
            if text is None:
                continue
            enabled = parse_boolean(text)
            if enabled is None:
                raise InvalidSetting(f"{SESSION}: setting '{spelt}' must be true or false, "
                                     f"not {text!r}")
            if enabled:
                service = get(HIVE_KERBEROS_PRINCIPAL) or \
                    get(HADOOP_PREFIX + HIVE_KERBEROS_PRINCIPAL) or ""
                if not service:
                    raise InvalidSetting(
                        f"{SESSION}: '{spelt}' is true but the metastore's principal is not "
                        f"set: set {HIVE_KERBEROS_PRINCIPAL} (e.g. hive/_HOST@EXAMPLE.COM) or "
                        f"{catalog_keys(name, KERBEROS_PRINCIPAL)[0]}")
            break
    if not service:
        return None
    client = catalog_setting(get, name, KERBEROS_CLIENT_PRINCIPAL, str) or \
        get(SPARK_KERBEROS_PRINCIPAL) or ""
    keytab = catalog_setting(get, name, KERBEROS_KEYTAB, str) or \
        get(SPARK_KERBEROS_KEYTAB) or ""
    if keytab and not client:
        raise InvalidSetting(
            f"{SESSION}: a Kerberos keytab is set for catalog {name!r} but not the principal to "
            f"log in as: set {catalog_keys(name, KERBEROS_CLIENT_PRINCIPAL)[0]} or "
            f"{SPARK_KERBEROS_PRINCIPAL}")
    return service, client, keytab


def catalog_tls(get: Getter, name: str) -> tuple[bool, str]:
    """``(TLS on, CA file or "")`` of catalog ``name``: on per its ``tls.enabled``, else per
    Hive's ``hive.metastore.use.SSL`` (also as ``spark.hadoop.<key>``); a ``tls.ca-file`` alone
    turns it on.

    Raises:
        InvalidSetting: a value that is not true or false.
    """
    ca_file = catalog_setting(get, name, TLS_CA_FILE, str)
    if any(get(spelt) for spelt in catalog_keys(name, TLS_ENABLED)):
        return catalog_setting(get, name, TLS_ENABLED, bool), ca_file
    for spelt in (HIVE_USE_SSL, HADOOP_PREFIX + HIVE_USE_SSL):
        text = get(spelt)
        if text is not None:
            enabled = parse_boolean(text)
            if enabled is None:
                raise InvalidSetting(f"{SESSION}: setting '{spelt}' must be true or false, "
                                     f"not {text!r}")
            return enabled or bool(ca_file), ca_file
    return bool(ca_file), ca_file


def check_session_conf(items: Iterable[tuple[str, str]], catalog_names: Iterable[str]) -> None:
    """Refuse Spark conf keys under ``spark.hmscatalog.`` that no reader looks up, and values of
    the wrong kind. ``items`` are the session's ``(key, value)`` pairs
    (``spark.conf.getAll.items()``).

    ``spark.hmscatalog.<name>.<rest>`` is accepted for any ``name`` when ``<rest>`` is known,
    since the conf may hold the settings of catalogs attached later; ``catalog_names`` (the
    catalogs the caller knows) are offered in suggestions.

    Raises:
        InvalidSetting: naming the key, and the known key closest to it (or the value).
    """
    names = list(catalog_names)
    for key, text in items:
        if not key.lower().startswith(CATALOG_PREFIX):
            continue
        setting = _catalog_setting_of(key)
        if setting is None:
            raise InvalidSetting(f"{SESSION}: unknown setting '{key}'{_hint(key, names)}")
        if text:
            parse(setting, str(text), SESSION, spelt=key)


def _catalog_setting_of(key: str) -> str | None:
    """The catalog setting ``key`` spells (either spelling), if any."""
    if not key.startswith(CATALOG_PREFIX):
        return None
    rest = key[len(CATALOG_PREFIX):]
    suffix = rest if rest in CATALOG_SUFFIXES else rest.partition(".")[2]
    return CATALOG_PREFIX + suffix if suffix in CATALOG_SUFFIXES else None


def _hint(key: str, names: list[str]) -> str:
    """``; did you mean '<closest known key>'?``, among the keys of no catalog, of the catalogs
    ``names`` and of the one ``key`` seems to name."""
    rest = key[len(CATALOG_PREFIX):]  # compared without the prefix all keys share
    first, dot, _ = rest.partition(".")
    scopes = ["", *(f"{name}." for name in [*names, first if dot else ""] if name)]
    folded = {f"{scope}{suffix}".lower(): f"{scope}{suffix}"
              for scope in scopes for suffix in CATALOG_SUFFIXES}
    close = difflib.get_close_matches(rest.lower(), list(folded), n=1)
    if close:
        return f"; did you mean '{CATALOG_PREFIX}{folded[close[0]]}'?"
    return f"; known: {CATALOG_PREFIX}[<catalog>.]{{{', '.join(CATALOG_SUFFIXES)}}}"


# Hive's settings.

def hive_setting(get: Getter, key: str, kind: type[T]) -> T:
    """Hive setting ``key`` read through ``get`` (``None`` when unset): the plain key, else
    ``spark.hadoop.<key>``; Hive's default when neither is set. ``kind`` is the Python type of
    its values.

    Raises:
        DynamicPartitionError: the value is not of the setting's kind (naming the key as set).
    """
    for spelt in (key, HADOOP_PREFIX + key):
        text = get(spelt)
        if text is not None:
            return _expect(key, kind, parse(key, str(text), SESSION, spelt=spelt))
    return default(key, kind)
