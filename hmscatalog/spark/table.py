"""An hms table as Spark sees it: schema, partitioning, properties, reads."""

from __future__ import annotations

from typing import Any

from hmscatalog.metastore.model import StorageFormat, Table
from hmscatalog.spark.jvm import CATALOG_PKG, JavaProxy
from hmscatalog.spark.scan import HmsScanBuilder, ScanContext

# Table parameters the metastore or Hive manage; not shown as user properties.
_HIDDEN_PARAMETERS = frozenset({"EXTERNAL", "transient_lastDdlTime", "comment"})
READABLE_FORMATS = (StorageFormat.PARQUET, StorageFormat.ORC)


def table_properties(table: Table) -> dict[str, str]:
    """The properties Spark shows for a table (DESCRIBE, SHOW TBLPROPERTIES)."""
    props = {k: v for k, v in table.parameters.items() if k not in _HIDDEN_PARAMETERS}
    fmt = table.format
    props["provider"] = fmt.name.lower() if fmt else "hive"
    if table.location:
        props["location"] = table.location
    if table.owner:
        props["owner"] = table.owner
    if "comment" in table.parameters:
        props["comment"] = table.parameters["comment"]
    if table.is_external:
        props["external"] = "true"
    return props


class HmsTable(JavaProxy):
    """A metastore table, readable by Spark's own Parquet and ORC scans."""

    class Java:
        implements = [f"{CATALOG_PKG}.SupportsRead"]

    def __init__(self, context: ScanContext, table: Table) -> None:
        self._context = context
        self._jvm = context.jvm
        self.table = table
        self._schema = self._jvm.struct_type([*table.columns, *table.partition_keys])

    def name(self) -> str:
        return self.table.qualified_name

    def id(self) -> None:
        return None

    def version(self) -> None:
        return None

    def schema(self) -> Any:
        return self._schema

    def columns(self) -> Any:
        util = getattr(self._jvm.jvm, CATALOG_PKG).CatalogV2Util
        return util.structTypeToV2Columns(self._schema, False)

    def partitioning(self) -> Any:
        expressions = self._jvm.jvm.org.apache.spark.sql.connector.expressions
        transforms = [expressions.Expressions.identity(c.name) for c in self.table.partition_keys]
        return self._jvm.array(expressions.Transform, transforms)

    def properties(self) -> Any:
        return self._jvm.hash_map(table_properties(self.table))

    def capabilities(self) -> Any:
        capability = getattr(self._jvm.jvm, CATALOG_PKG).TableCapability
        return self._jvm.hash_set([capability.BATCH_READ])

    def constraints(self) -> Any:
        constraint = getattr(self._jvm.jvm, CATALOG_PKG).constraints.Constraint
        return self._jvm.array(constraint, [])

    def newScanBuilder(self, options: Any) -> Any:
        fmt = self.table.format
        if fmt not in READABLE_FORMATS:
            stored = fmt.name.lower() if fmt else (self.table.storage.input_format or "unknown")
            self._jvm.throw(self._jvm.jvm.java.lang.UnsupportedOperationException(
                f"hms cannot read table {self.table.qualified_name}: it is stored as {stored}; "
                "readable formats are parquet and orc"))
        return HmsScanBuilder(self._context, self.table, self._schema, options)

    def toString(self) -> str:
        return f"HmsTable({self.table.qualified_name})"
