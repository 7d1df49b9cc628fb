"""Lakehouse tables (Iceberg, Delta, Hudi, Paimon) through an hms catalog: handed to the Spark
catalog configured for their format, or shown but never read.

:func:`hmscatalog.metastore.kinds.kind_of` decides what a table is. With
``spark.hmscatalog.<catalog>.redirect.<format>`` naming a Spark catalog, every statement on such
a table runs on that catalog's table of the same identifier (:class:`Redirects`), as Trino's
Hive connector redirects to its Iceberg and Delta catalogs: reads, writes, row-level DML, time
travel and metadata tables (``hms.db.t.snapshots``) behave as through the target. Without one,
the catalog hands Spark a :class:`LakehouseStandIn`: DESCRIBE, SHOW TABLE EXTENDED and SHOW
CREATE TABLE show the table and its kind (``Provider``), and every statement that would read,
write or change it is refused with one line naming the table, the format and the setting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from hmscatalog.errors import InvalidSetting, LakehouseTable
from hmscatalog.metastore.kinds import Kind, TableKind, redirect_key, refusal
from hmscatalog.metastore.model import Table
from hmscatalog.spark.bridge.jvm import CATALOG_PKG, Jvm, NoMetrics, quoted
from hmscatalog.spark.internals.session import catalog_named
from hmscatalog.spark.table import SchemaTable

# What a stand-in's method would do to the table, for its refusal.
_VERBS = {"newWriteBuilder": "write", "newRowLevelOperationBuilder": "write",
          "loadPartitionMetadata": "describe a partition of",
          "listPartitionIdentifiers": "list the partitions of",
          "dropPartition": "drop partitions of", "dropPartitions": "drop partitions of",
          "purgePartition": "drop partitions of", "purgePartitions": "drop partitions of"}


class Redirects:
    """Which Spark catalog takes an hms catalog's tables of each lakehouse format."""

    def __init__(self, jvm: Jvm, targets: Mapping[Kind, str]) -> None:
        self._jvm = jvm
        self._targets = dict(targets)

    def catalog_for(self, kind: Kind) -> Any | None:
        """The target catalog (a Java ``TableCatalog``) of ``kind``'s tables, if one is set."""
        name = self._targets.get(kind)
        return None if name is None else catalog_named(self._jvm, name)

    def load(self, kind: Kind, ident: Any, rest: tuple[Any, ...]) -> Any | None:
        """The target catalog's table ``ident`` (``loadTable(ident, *rest)``: ``rest`` a version
        or a timestamp), or ``None`` when no catalog takes ``kind``."""
        target = self.catalog_for(kind)
        return None if target is None else target.loadTable(ident, *rest)


def check_targets(get: Callable[[str], str | None], catalog: str,
                  targets: Mapping[str, str]) -> dict[Kind, str]:
    """``targets`` (format → Spark catalog name, from the conf) checked at attach: each must be
    a configured Spark catalog other than ``catalog`` itself.

    Raises:
        InvalidSetting: naming the setting, the catalog it names and what is wrong with it.
    """
    checked = {}
    for fmt, name in targets.items():
        kind = Kind(fmt)
        key = redirect_key(catalog, kind)
        if name == catalog:
            raise InvalidSetting(f"Spark conf: {key}={name} names catalog {catalog} itself; "
                                 f"name a catalog that reads {kind.title} tables")
        if name != "spark_catalog" and not get(f"spark.sql.catalog.{name}"):
            raise InvalidSetting(f"Spark conf: {key}={name} names catalog {name}, which is not "
                                 f"configured: set spark.sql.catalog.{name} to a catalog that "
                                 f"reads {kind.title} tables")
        checked[kind] = name
    return checked


class LakehouseStandIn(SchemaTable):
    """What Spark holds for a lakehouse table no catalog takes: its metastore columns and
    properties (``provider`` its format), and a refusal for anything that would touch its
    data or partitions."""

    class Java:
        implements = [f"{CATALOG_PKG}.SupportsRead", f"{CATALOG_PKG}.SupportsWrite",
                      f"{CATALOG_PKG}.TruncatableTable",
                      f"{CATALOG_PKG}.SupportsRowLevelOperations",
                      f"{CATALOG_PKG}.SupportsPartitionManagement",
                      "io.hmscatalog.spark.StandIn"]

    REMEMBERED = ("name", "schema", "columns", "partitioning", "capabilities", "properties",
                  "partitionSchema")

    def __init__(self, jvm: Jvm, catalog: str, table: Table, found: TableKind,
                 properties: Mapping[str, str]) -> None:
        self._jvm = jvm
        self._catalog = catalog
        self._table = table
        self._found = found
        self._properties = {**properties, "provider": found.kind.value}
        try:
            self._schema = jvm.struct_type([*table.columns, *table.partition_keys],
                                           comments=True)
        except Exception:  # a type Spark cannot parse: DESCRIBE shows no columns
            self._schema = jvm.cls("org.apache.spark.sql.types.StructType")()

    def _refuse(self, verb: str) -> NoReturn:
        raise refusal(self._table, self._found, verb, self._catalog)

    def refusal(self, verb: str) -> Any:
        """``io.hmscatalog.spark.StandIn``: the error the analyzer rule throws for a plan that
        would ``verb`` the table, before Spark resolves its columns against the metastore's."""
        try:
            self._refuse(verb)
        except LakehouseTable as exc:
            return self._jvm.readable_error(exc, "LakehouseStandIn.refusal")

    def __getattr__(self, method: str) -> Callable[..., Any]:
        """Any method Spark calls that the class does not answer (a write, a DELETE, a
        partition's change): a refusal."""
        if method.startswith("_"):
            raise AttributeError(method)

        def refused(*args: Any) -> Any:
            verb = _VERBS.get(method, "truncate" if method.startswith("truncate")
                              else "change the partitions of")
            try:
                self._refuse(verb)
            except Exception as exc:
                self._jvm.throw(self._jvm.readable_error(exc, f"LakehouseStandIn.{method}"))

        return refused

    def name(self) -> str:
        return quoted(self._catalog, self._table.database, self._table.name)

    def newScanBuilder(self, options: Any) -> Any:
        """A scan that reports no statistics and reads nothing: DESCRIBE TABLE EXTENDED builds
        one for the statistics it shows. A query's read never gets here (the analyzer rule
        refuses it first); were it to, the scan refuses to run."""
        return _NoScan(self._jvm, self._schema, self.refusal)

    def partitioning(self) -> Any:
        expressions = "org.apache.spark.sql.connector.expressions"
        identity = self._jvm.cls(f"{expressions}.Expressions").identity
        return self._jvm.array(self._jvm.cls(f"{expressions}.Transform"),
                               [identity(quoted(c.name)) for c in self._table.partition_keys])

    def partitionSchema(self) -> Any:
        try:
            return self._jvm.struct_type(self._table.partition_keys)
        except Exception:
            return self._jvm.cls("org.apache.spark.sql.types.StructType")()

    def properties(self) -> Any:
        return self._jvm.hash_map(self._properties)

    def capabilities(self) -> Any:
        capability = self._jvm.cls(f"{CATALOG_PKG}.TableCapability")
        return self._jvm.hash_set([capability.BATCH_READ, capability.BATCH_WRITE,
                                   capability.TRUNCATE, capability.OVERWRITE_BY_FILTER,
                                   capability.OVERWRITE_DYNAMIC,
                                   capability.ACCEPT_ANY_SCHEMA])

    def toString(self) -> str:
        return f"LakehouseStandIn({self._table.qualified_name}, {self._found.kind.value})"


class _NoScan(NoMetrics):
    """The scan of a :class:`LakehouseStandIn`: its schema, no statistics, and a refusal to
    run."""

    class Java:
        implements = ["org.apache.spark.sql.connector.read.ScanBuilder",
                      "org.apache.spark.sql.connector.read.Scan"]

    def __init__(self, jvm: Jvm, schema: Any, refused: Callable[[str], Any]) -> None:
        self._jvm = jvm
        self._schema = schema
        self._refused = refused

    def build(self) -> Any:
        return self

    def readSchema(self) -> Any:
        return self._schema

    def description(self) -> str:
        return "no scan (lakehouse table)"

    def toBatch(self) -> Any:
        self._jvm.throw(self._refused("read"))


