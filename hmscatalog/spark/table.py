"""An hms table as Spark sees it: schema, partitioning, properties, reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hmscatalog.errors import AlreadyExists, InvalidOperation, NoSuchPartition
from hmscatalog.metastore.model import NATIVE_FORMATS, Partition, Table
from hmscatalog.metastore.spark_schema import is_schema_property, with_spark_case
from hmscatalog.partitions.codec import make_part_name, parse_part_name, partition_path
from hmscatalog.projection.config import TEMPLATE
from hmscatalog.sources.projection import projection_of
from hmscatalog.sources.source import ReadTarget
from hmscatalog.spark.bridge.jvm import CATALOG_PKG, NoMetrics, quoted
from hmscatalog.spark.internals.session import v2_columns
from hmscatalog.spark.read.rows import internal_row, partition_strings
from hmscatalog.spark.read.scan import CatalogContext, HmsScanBuilder
from hmscatalog.spark.read.serde_io import (
    check_readable,
    check_writable,
    serde_columns,
    serde_refusal,
)
from hmscatalog.spark.statements.describe import partition_metadata
from hmscatalog.spark.write.table_write import HmsWriteBuilder
from hmscatalog.write.truncate import truncate

# Table parameters the metastore or Hive manage; not shown as user properties.
_HIDDEN_PARAMETERS = frozenset({"EXTERNAL", "transient_lastDdlTime", "comment"})


def table_properties(table: Table) -> dict[str, str]:
    """The properties Spark shows for a table (DESCRIBE, SHOW TBLPROPERTIES). Those Spark
    keeps the table's schema in are not shown, as the built-in catalog does not show them."""
    props = {k: v for k, v in table.parameters.items()
             if k not in _HIDDEN_PARAMETERS and not is_schema_property(k)}
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


class SchemaTable(NoMetrics):
    """What every table hms hands Spark answers alike: no id or version, its ``_schema`` as
    columns, no constraints and no metrics."""

    _schema: Any

    def id(self) -> None:
        return None

    def version(self) -> None:
        return None

    def schema(self) -> Any:
        return self._schema

    def columns(self) -> Any:
        return v2_columns(self._jvm, self._schema)

    def constraints(self) -> Any:
        constraint = self._jvm.cls(f"{CATALOG_PKG}.constraints.Constraint")
        return self._jvm.array(constraint, [])




class ReadOnlyTable(SchemaTable):
    """What Spark reads, as a table it can only read: a metastore table's or a path read's
    :class:`ReadTarget`, scanned by Spark's own Parquet and ORC scans."""

    class Java:
        implements = [f"{CATALOG_PKG}.SupportsRead"]

    # What Spark asks many times while it plans (name() about twenty times a query).
    REMEMBERED = ("name", "id", "version", "schema", "columns", "partitioning", "capabilities",
                  "constraints", "partitionSchema", "toString")

    def __init__(self, context: CatalogContext, target: ReadTarget,
                 column_order: Sequence[str] | None = None) -> None:
        """``column_order``: the order in which Spark should see the columns, when it is not the
        metastore's (data columns, then partition columns). A CTAS hands its query to the table
        that ``createTable`` returns *by position*; the created table reports the query's order
        so that every column lands in its own column, as the built-in catalog's CTAS does."""
        self._context = context
        self._jvm = context.jvm
        self.target = target
        columns = [*target.columns, *target.partition_keys]
        if column_order is not None:
            by_name = {c.name.lower(): c for c in columns}
            columns = [by_name[name.lower()] for name in column_order]
        self._schema = self._jvm.struct_type(columns, comments=True)

    def name(self) -> str:
        return self.target.qualified_name

    def partitioning(self) -> Any:
        expressions = "org.apache.spark.sql.connector.expressions"
        identity = self._jvm.cls(f"{expressions}.Expressions").identity
        transforms = [identity(quoted(c.name)) for c in self.target.partition_keys]  # SQL names
        return self._jvm.array(self._jvm.cls(f"{expressions}.Transform"), transforms)

    def properties(self) -> Any:
        target = self.target
        fmt = target.format
        return self._jvm.hash_map({**target.properties,
                                   "provider": fmt.name.lower() if fmt else "hive",
                                   "location": target.location or ""})

    def capabilities(self) -> Any:
        capability = self._jvm.cls(f"{CATALOG_PKG}.TableCapability")
        return self._jvm.once("read-capabilities",
                              lambda: self._jvm.hash_set([capability.BATCH_READ]))

    def newScanBuilder(self, options: Any) -> Any:
        return HmsScanBuilder(self._context, self.target, self._schema, options)

    def toString(self) -> str:
        return f"HmsTable({self.target.qualified_name})"


class HmsTable(ReadOnlyTable):
    """A metastore table, readable by Spark's own Parquet and ORC scans, and writable."""

    class Java:
        implements = [f"{CATALOG_PKG}.SupportsRead", f"{CATALOG_PKG}.SupportsWrite",
                      f"{CATALOG_PKG}.SupportsAtomicPartitionManagement",
                      f"{CATALOG_PKG}.TruncatableTable"]

    def __init__(self, context: CatalogContext, table: Table,
                 column_order: Sequence[str] | None = None,
                 cache_age: float | None = None) -> None:
        """``cache_age``: how old ``table`` was when the metadata cache gave it."""
        # Avro, OpenCSV...: the columns the table's SerDe reads it with, as in Hive.
        table, self._serde_error = serde_columns(context.jvm, table)
        # Spark sees the names in the case Spark stored them (Id, Dt), where it stored them;
        # the metastore's table (lower-case names) is what is read, written and altered.
        cased = with_spark_case(table)
        super().__init__(context, replace(ReadTarget.of(table, cache_age), columns=cased.columns,
                                          partition_keys=cased.partition_keys), column_order)
        self.table = table

    def properties(self) -> Any:
        return self._jvm.hash_map(table_properties(self.table))

    def capabilities(self) -> Any:
        capability = self._jvm.cls(f"{CATALOG_PKG}.TableCapability")
        return self._jvm.once("capabilities", lambda: self._jvm.hash_set([
            capability.BATCH_READ, capability.BATCH_WRITE, capability.TRUNCATE,
            capability.OVERWRITE_BY_FILTER, capability.OVERWRITE_DYNAMIC]))

    def _refuse_acid(self, verb: str) -> None:
        acid = self.table.acid
        if acid is not None:
            kind = ("an insert-only ACID table (transactional=true, "
                    "transactional_properties=insert_only)" if acid == "insert_only"
                    else "a full ACID table (transactional=true)")
            self._jvm.unsupported(
                f"hms cannot {verb} table {self.table.qualified_name}: it is {kind}, whose files "
                "only readers of Hive's transactions can read exactly; hms reads and writes "
                "non-transactional tables")

    def newScanBuilder(self, options: Any) -> Any:
        self._refuse_acid("read")
        if self._serde_error is not None:
            self._jvm.illegal_argument(serde_refusal(self.table, self._serde_error, "read"))
        if self.table.format not in NATIVE_FORMATS:
            check_readable(self._jvm, self.table)
        return super().newScanBuilder(options)

    def newWriteBuilder(self, info: Any) -> Any:
        self._refuse_acid("write")
        if self._serde_error is not None:
            self._jvm.illegal_argument(serde_refusal(self.table, self._serde_error, "write"))
        storage = self.table.storage
        if storage.bucketed:
            self._jvm.unsupported(
                f"hms cannot write table {self.table.qualified_name}: it is bucketed "
                f"(CLUSTERED BY ({', '.join(storage.bucket_columns)}) INTO "
                f"{storage.num_buckets} BUCKETS), and hms does not write bucketed output "
                "that is compatible with Hive")
        if self.table.format not in NATIVE_FORMATS:
            check_writable(self._jvm, self.table)
        projection = projection_of(self.target)
        if projection is not None and projection.template is not None:
            self._jvm.unsupported(
                f"hms cannot write table {self.table.qualified_name}: its partitions are read "
                f"from {TEMPLATE} ({projection.template}), and hms writes partitions only to "
                "key=value directories under the table location")
        return HmsWriteBuilder(self._context, self.table, info)

    # -- partitions (ALTER TABLE ADD/DROP PARTITION, SHOW PARTITIONS) ----------------------

    def _time_zone(self) -> str:
        return str(self._jvm.spark.conf.get("spark.sql.session.timeZone"))

    def _client(self) -> Any:
        return self._context.metastore

    def partitionSchema(self) -> Any:
        return self._jvm.struct_type(self.target.partition_keys)

    def _strings(self, ident: Any) -> list[str]:
        spec = self.table.partition_spec
        values = partition_strings(ident, spec, self._time_zone())
        return [values[name] for name in spec.names]

    def _name(self, ident: Any) -> str:
        return make_part_name(self.table.partition_spec.names, self._strings(ident))

    def _new_partition(self, ident: Any, properties: Any) -> Partition:
        props = self._jvm.to_dict(properties)
        location = props.pop("location", None)
        spec = self.table.partition_spec
        strings = self._strings(ident)
        if location is None and self.table.location:
            # Named in Spark's case (Dt=x/HR=5), as the built-in catalog adds partitions.
            location = self.table.location.rstrip("/") + "/" + partition_path(
                [c.name for c in self.target.partition_keys], strings)
        return self._client().new_partition(self.table, spec.from_strings(strings),
                                            location=location, parameters=props)

    def createPartition(self, ident: Any, properties: Any) -> None:
        self.createPartitions([ident], [properties])

    def createPartitions(self, idents: Any, properties: Any) -> None:
        idents = list(idents)
        partitions = [self._new_partition(i, p) for i, p in zip(idents, properties, strict=True)]
        try:
            self._client().add_partitions(self.table, partitions)
        except AlreadyExists:
            existing = [i for i, p in zip(idents, partitions, strict=True)
                        if self._exists(list(p.values))]
            self._jvm.analysis_error("PartitionsAlreadyExistException", self.name(),
                                     self._jvm.seq(existing), self.partitionSchema())

    def _exists(self, strings: list[str]) -> bool:
        try:
            self._client().get_partition(self.table.database, self.table.name, strings)
        except NoSuchPartition:
            return False
        return True

    def partitionExists(self, ident: Any) -> bool:
        return self._exists(self._strings(ident))

    def dropPartition(self, ident: Any) -> bool:
        return self.dropPartitions([ident])

    def dropPartitions(self, idents: Any) -> bool:
        # Once each: the metastore drops none of a list that names one twice
        # (ALTER TABLE ... DROP PARTITION (p='x'), PARTITION (p='x') drops it in Spark).
        names = list(dict.fromkeys(self._name(i) for i in idents))
        try:
            # The metastore keeps the files of external tables whatever deleteData says.
            self._client().drop_partitions(self.table.database, self.table.name, names,
                                           delete_data=True)
        except NoSuchPartition:
            return False
        return True

    def truncateTable(self, options: Any = None) -> bool:
        self._truncate(None)
        return True

    def truncatePartition(self, ident: Any) -> bool:
        return self.truncatePartitions([ident])

    def truncatePartitions(self, idents: Any) -> bool:
        names = [self._name(i) for i in idents]
        for ident, name in zip(idents, names, strict=True):
            if not self._exists([value for _, value in parse_part_name(name)]):
                self._jvm.analysis_error("NoSuchPartitionException", self.name(), ident,
                                         self.partitionSchema())
        self._truncate(names)
        return True

    def _truncate(self, names: list[str] | None) -> None:
        self._refuse_acid("truncate")
        try:
            truncate(self._client(), self.table, names)
        except InvalidOperation as exc:
            self._jvm.unsupported(str(exc))

    def purgePartition(self, ident: Any) -> bool:
        return self.dropPartitions([ident])

    def purgePartitions(self, idents: Any) -> bool:
        return self.dropPartitions(idents)

    def loadPartitionMetadata(self, ident: Any) -> Any:
        try:
            part = self._client().get_partition(self.table.database, self.table.name,
                                                self._strings(ident))
        except NoSuchPartition:
            self._jvm.analysis_error("NoSuchPartitionException", self.name(), ident,
                                     self.partitionSchema())
        return self._jvm.hash_map(partition_metadata(part))

    def replacePartitionMetadata(self, ident: Any, properties: Any) -> None:
        part = self._client().get_partition(self.table.database, self.table.name,
                                            self._strings(ident))
        props = self._jvm.to_dict(properties)
        location = props.pop("location", part.location)
        self._client().alter_partitions(self.table.database, self.table.name, [
            replace(part, storage=replace(part.storage, location=location), parameters=props)])

    def listPartitionIdentifiers(self, names: Any, ident: Any) -> Any:
        """The partitions whose ``names`` columns hold ``ident``'s values. A STRING column's
        default partition is identified by ``__HIVE_DEFAULT_PARTITION__``, the value Spark then
        prints for it (SHOW PARTITIONS), as the built-in catalog does; dropping or reading the
        partition by that identifier finds the same partition as by NULL."""
        spec = self.table.partition_spec
        wanted = partition_strings(ident, spec, self._time_zone(), [str(n) for n in names])
        time_zone = self._time_zone()
        rows = []
        for name in self._client().list_partition_names(self.table.database, self.table.name):
            strings = [value for _, value in parse_part_name(name)]
            if all(strings[spec.names.index(k)] == v for k, v in wanted.items()):
                rows.append(internal_row(self._jvm, spec, strings, time_zone,
                                         default_name_in_strings=True))
        return self._jvm.array(self._jvm.cls("org.apache.spark.sql.catalyst.InternalRow"), rows)

    def renamePartition(self, old: Any, new: Any) -> bool:
        database, name = self.table.database, self.table.name
        before, after = self._strings(old), self._strings(new)
        try:
            part = self._client().get_partition(database, name, before)
        except NoSuchPartition:
            self._jvm.analysis_error("NoSuchPartitionException", self.name(), old,
                                     self.partitionSchema())
        if self._exists(after):
            self._jvm.analysis_error("PartitionsAlreadyExistException", self.name(),
                                     self._jvm.seq([new]), self.partitionSchema())
        self._client().rename_partition(database, name, before,
                                        replace(part, values=tuple(after)))
        return True


class CreatedHmsTable(HmsTable):
    """The table ``createTable`` returns. A CREATE TABLE ... AS SELECT (``writeTo(...).create()``,
    ``saveAsTable``) writes into this object by position; the analyzer rule knows it by its
    ``io.hmscatalog.spark.CreatedTable`` interface, and leaves that write out of Hive's strict
    dynamic-partition mode, which guards the partitions of tables that already exist (an
    INSERT's), not the ones of a table a statement creates."""

    class Java:
        implements = [*HmsTable.Java.implements, "io.hmscatalog.spark.CreatedTable"]
