"""What kind of table a metastore entry is: the one place that decides, from the entry alone.

A metastore holds more than Hive tables. Iceberg's HiveCatalog, Delta through Spark's session
catalog, Hudi's Hive sync and Paimon's Hive catalog register their tables in it too, each with a
storage descriptor that points at the table's directory. That directory is not the table: the
format's own metadata (Iceberg's metadata files, Delta's ``_delta_log``, Hudi's ``.hoodie``
timeline, Paimon's snapshots) says which of its files are live, and the rest were removed by an
UPDATE, a DELETE or a compaction. Reading the directory would return removed rows. So every
statement hms runs asks :func:`kind_of` first; a lakehouse table is either handed to the Spark
catalog configured for its format (``spark.hmscatalog.<catalog>.redirect.<format>``) or refused
by :func:`refusal`, whose first line names the table, the format and that setting.

How each kind is recognised, first match wins:

* a view: ``tableType=VIRTUAL_VIEW``;
* Iceberg: ``table_type=ICEBERG`` (what HiveCatalog writes, with ``metadata_location``; its storage
  descriptor is ``FileInputFormat`` with ``LazySimpleSerDe`` unless Hive's engine is on), or
  Iceberg's storage handler, input format or Spark provider;
* Delta: Spark provider ``delta`` (Delta's catalog on the session, Trino's Delta connector), or
  Delta's Hive connector (``io.delta.hive.DeltaStorageHandler``, ``DeltaInputFormat``);
* Hudi: Spark provider ``hudi`` (Hudi's Hive sync writes it), or a Hudi input format
  (``org.apache.hudi.hadoop.HoodieParquetInputFormat`` for copy-on-write tables and the
  read-optimized view, ``...realtime.HoodieParquetRealtimeInputFormat`` for merge-on-read, the
  HFile ones, and ``com.uber.hoodie`` ones of the first releases);
* Paimon: ``table_type=PAIMON``, or Paimon's storage handler, input format or Spark provider;
* Hive ACID: ``transactional=true`` (full, or ``insert_only``);
* a Spark data source table: any other Spark provider than ``hive``;
* a Hive table: everything else.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from hmscatalog import config
from hmscatalog.errors import LakehouseTable
from hmscatalog.metastore.model import VIRTUAL_VIEW, Table

PROVIDER = "spark.sql.sources.provider"
STORAGE_HANDLER = "storage_handler"
TABLE_TYPE = "table_type"  # Iceberg's and Paimon's marker parameter


class Kind(enum.Enum):
    """A kind of metastore table. The value is the name settings and DESCRIBE use."""

    HIVE = "hive"
    VIEW = "view"
    HIVE_ACID = "hive-acid"
    SPARK_DATA_SOURCE = "spark-data-source"
    ICEBERG = "iceberg"
    DELTA = "delta"
    HUDI = "hudi"
    PAIMON = "paimon"

    @property
    def lakehouse(self) -> bool:
        """Whether the format's own metadata, not the table's directory, lists its files."""
        return self in LAKEHOUSE

    @property
    def title(self) -> str:
        return _TITLES[self]


LAKEHOUSE = (Kind.ICEBERG, Kind.DELTA, Kind.HUDI, Kind.PAIMON)
_TITLES = {Kind.HIVE: "Hive", Kind.VIEW: "view", Kind.HIVE_ACID: "Hive ACID",
           Kind.SPARK_DATA_SOURCE: "Spark data source", Kind.ICEBERG: "Iceberg",
           Kind.DELTA: "Delta", Kind.HUDI: "Hudi", Kind.PAIMON: "Paimon"}
# Where each lakehouse format's own files say which data files are live, for messages.
_METADATA = {Kind.ICEBERG: "its metadata files (metadata_location)",
             Kind.DELTA: "its transaction log (_delta_log)",
             Kind.HUDI: "its timeline (.hoodie)",
             Kind.PAIMON: "its snapshots (snapshot/)"}
# The class names each lakehouse format's storage handler, input format or SerDe start with.
_CLASS_PREFIXES = {Kind.ICEBERG: ("org.apache.iceberg.",),
                   Kind.DELTA: ("io.delta.",),
                   Kind.HUDI: ("org.apache.hudi.", "com.uber.hoodie."),
                   Kind.PAIMON: ("org.apache.paimon.",)}


@dataclass(frozen=True)
class TableKind:
    """A table's kind, and what in its metastore entry says so (``table_type=ICEBERG``)."""

    kind: Kind
    evidence: str

    @property
    def lakehouse(self) -> bool:
        return self.kind.lakehouse


def kind_of(table: Table) -> TableKind:
    """The kind of ``table``, from its metastore entry alone (see the module's list)."""
    if table.table_type == VIRTUAL_VIEW:
        return TableKind(Kind.VIEW, f"tableType={VIRTUAL_VIEW}")
    params = table.parameters
    marker = params.get(TABLE_TYPE, "").strip()
    provider = params.get(PROVIDER, "").strip()
    handler = params.get(STORAGE_HANDLER, "").strip()
    classes = [("storage handler", handler),
               ("input format", table.storage.input_format or ""),
               ("SerDe", table.storage.serde or "")]
    for kind in LAKEHOUSE:
        if kind in (Kind.ICEBERG, Kind.PAIMON) and marker.lower() == kind.value:
            return TableKind(kind, f"{TABLE_TYPE}={marker}")
        if provider.lower() == kind.value:
            return TableKind(kind, f"{PROVIDER}={provider}")
        for what, name in classes:
            if name.startswith(_CLASS_PREFIXES[kind]):
                return TableKind(kind, f"{what} {name}")
    acid = table.acid
    if acid is not None:
        return TableKind(Kind.HIVE_ACID, "transactional=true" + (
            ", transactional_properties=insert_only" if acid == "insert_only" else ""))
    if provider and provider.lower() != "hive":
        return TableKind(Kind.SPARK_DATA_SOURCE, f"{PROVIDER}={provider}")
    return TableKind(Kind.HIVE, "a Hive storage descriptor")


def redirect_key(catalog: str, kind: Kind) -> str:
    """The Spark conf key naming the catalog that ``catalog``'s tables of ``kind`` go to."""
    return config.catalog_keys(catalog, config.REDIRECT_PREFIX + kind.value)[0]


def refusal(table: Table, found: TableKind, verb: str, catalog: str | None) -> LakehouseTable:
    """The error refusing to ``verb`` lakehouse table ``table`` (of kind ``found``): its first
    line names the table, the format and the setting that would hand the table to a catalog
    that reads the format (``catalog`` the hms catalog's name; ``None`` outside Spark)."""
    kind = found.kind
    what = (f"hms cannot {verb} table {table.qualified_name}: it is {_article(kind.title)} "
            f"{kind.title} table ({found.evidence}), whose live files only "
            f"{_METADATA[kind]} lists, so its directory is not read as a Hive table")
    if catalog is None:
        return LakehouseTable(f"{what}; read it through a Spark catalog of {kind.title}'s")
    return LakehouseTable(f"{what}; set {redirect_key(catalog, kind)} to a Spark catalog that "
                          f"reads {kind.title} tables to use it through {catalog}")


def refuse_lakehouse(table: Table, verb: str, catalog: str | None = None) -> None:
    """Raise :func:`refusal`'s error when ``table`` is a lakehouse table.

    Raises:
        LakehouseTable: ``table`` is an Iceberg, Delta, Hudi or Paimon table.
    """
    found = kind_of(table)
    if found.lakehouse:
        raise refusal(table, found, verb, catalog)


def directory_kind(names: AbstractSet[str],
                   listed: Callable[[str], AbstractSet[str]]) -> TableKind | None:
    """The lakehouse format whose table directory holds entries ``names`` (the names directly
    under it), if any: ``_delta_log`` (Delta), ``.hoodie`` (Hudi), ``snapshot`` and ``schema``
    (Paimon), or a ``metadata`` directory whose entries (``listed("metadata")``) include a
    ``*.metadata.json`` file (Iceberg)."""
    if "_delta_log" in names:
        return TableKind(Kind.DELTA, "a _delta_log directory")
    if ".hoodie" in names:
        return TableKind(Kind.HUDI, "a .hoodie directory")
    if "snapshot" in names and "schema" in names:
        return TableKind(Kind.PAIMON, "snapshot and schema directories")
    if "metadata" in names and any(n.endswith(".metadata.json") for n in listed("metadata")):
        return TableKind(Kind.ICEBERG, "metadata/*.metadata.json files")
    return None


def directory_refusal(what: str, directory: str, found: TableKind) -> LakehouseTable:
    """The error refusing ``what`` (``read of s3://b/t``): ``directory`` is the directory of a
    lakehouse table of kind ``found``."""
    kind = found.kind
    return LakehouseTable(
        f"{what}: {directory} is the directory of {_article(kind.title)} {kind.title} table "
        f"({found.evidence}), whose live files only {_METADATA[kind]} lists; read it through "
        f"{kind.title}'s own reader")


def _article(word: str) -> str:
    return "an" if word[0].lower() in "aeiou" else "a"
