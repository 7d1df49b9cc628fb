"""The ``hms`` catalog: Spark's TableCatalog and SupportsNamespaces over a Hive Metastore."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import Any

from hmscatalog.config import check_properties
from hmscatalog.errors import AlreadyExists, NoSuchNamespace, NoSuchTable
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.kinds import Kind, TableKind, kind_of, refusal
from hmscatalog.metastore.model import (
    VIRTUAL_VIEW,
    Column,
    Table,
)
from hmscatalog.projection.config import check_projection_keys
from hmscatalog.sources.projection import projection_of
from hmscatalog.sources.source import ReadTarget
from hmscatalog.spark.bridge.jvm import CATALOG_PKG, Jvm, quoted
from hmscatalog.spark.internals.session import struct_of_v2_columns
from hmscatalog.spark.lakehouse import LakehouseStandIn, Redirects
from hmscatalog.spark.namespaces import HmsNamespaces
from hmscatalog.spark.read.scan import CatalogContext
from hmscatalog.spark.read.serde_io import columns_for_create
from hmscatalog.spark.statements import procedures
from hmscatalog.spark.statements.table_definition import TableDefinitions
from hmscatalog.spark.statements.view_statements import view_dropped_as_table
from hmscatalog.spark.table import CreatedHmsTable, HmsTable, table_properties
from hmscatalog.write import recovery
from hmscatalog.write.journal import table_home

# How long a table the analyzer rule fetched may stand in for loadTable's own fetch: the rule
# runs moments before Spark loads the tables a statement names.
FETCHED_FOR = 1.0


class HmsCatalog(HmsNamespaces):
    """A Spark catalog whose namespaces are metastore databases and tables metastore tables."""

    class Java:
        implements = [f"{CATALOG_PKG}.TableCatalog", f"{CATALOG_PKG}.SupportsNamespaces",
                      f"{CATALOG_PKG}.ProcedureCatalog"]

    def __init__(self, jvm: Jvm, client: MetastoreClient, name: str,
                 storage_options: dict[str, str] | None = None,
                 cache: MetadataCache | None = None,
                 redirects: Mapping[Kind, str] | None = None) -> None:
        self._jvm = jvm
        self._redirects = Redirects(jvm, redirects or {})
        self.client = client
        self._name = name
        self.cache = cache or MetadataCache(0)  # what queries reuse (the catalog's cache-ttl)
        self._context = CatalogContext(jvm, client, storage_options, self.cache)
        self._definitions = TableDefinitions(jvm, client)
        self.storage_options = dict(storage_options or {})
        # Tables the analyzer rule fetched (to see whether a name is a view) just before
        # Spark loads them, with their age if the cache gave them: loadTable takes each once,
        # if it is that fresh.
        self._fetched: dict[tuple[str, str], tuple[float, Table, float | None]] = {}
        self._fetched_lock = threading.Lock()

    # -- CatalogPlugin ---------------------------------------------------------------------

    def initialize(self, name: str, options: Any) -> None:
        self._name = name

    def name(self) -> str:
        return self._name

    def defaultNamespace(self) -> Any:
        return self._jvm.strings(["default"])

    def capabilities(self) -> Any:
        return self._jvm.hash_set()

    def tableStateOptionKeys(self) -> Any:
        return self._jvm.hash_set()

    def changelogStateOptionKeys(self) -> Any:
        return self._jvm.hash_set()

    def useNullableQuerySchema(self) -> bool:
        return True

    # -- procedures (CALL <catalog>.system.<name>(...)) -------------------------------------

    def loadProcedure(self, ident: Any) -> Any:
        return procedures.load_procedure(self._jvm, self, ident)

    def listProcedures(self, namespace: Any) -> Any:
        return procedures.list_procedures(self._jvm, namespace)

    @property
    def jvm(self) -> Jvm:
        return self._jvm

    def fetched(self, table: Table, cache_age: float | None = None) -> None:
        """``table`` was just fetched for a statement that is about to load it (or given by
        the metadata cache, ``cache_age`` seconds old)."""
        with self._fetched_lock:
            if len(self._fetched) > 256:
                self._fetched.clear()
            self._fetched[(table.database, table.name)] = (time.monotonic(), table, cache_age)

    def _fresh(self, database: str, name: str) -> tuple[Table, float | None] | None:
        with self._fetched_lock:
            found = self._fetched.pop((database.lower(), name.lower()), None)
        if found is None or time.monotonic() - found[0] > FETCHED_FOR:
            return None
        return found[1], found[2]

    def _table_for_query(self, database: str, name: str) -> tuple[Table, float | None]:
        """The table, from the metadata cache while it has it; with the answer's age."""
        found = self.cache.table(database, name, lambda: self.client.get_table(database, name))
        return found.value, found.age

    def refresh(self, database: str, name: str) -> None:
        """What ``REFRESH TABLE`` does, after partitions changed behind Spark's back."""
        self._jvm.spark.catalog.refreshTable(quoted(self._name, database, name))

    def qualified_location(self, database: str, location: str) -> str:
        """``location`` as the built-in catalog stores it (see TableDefinitions)."""
        return self._definitions.qualified_location(database, location) or location

    def forget_listings(self, table: str | None) -> None:
        """Forget the file listings kept for ``db.table``, or for every table."""
        if table:
            self._context.listings.invalidate(table)
        else:
            self._context.listings.clear()

    # -- tables ----------------------------------------------------------------------------

    def _names(self, ident: Any) -> tuple[str, str]:
        namespace = self._jvm.string_items(ident.namespace())
        if len(namespace) == 2 and namespace[0] == self._name:
            namespace = namespace[1:]  # RENAME TO hms.db.t passes the catalog along
        if len(namespace) != 1:
            self._jvm.analysis_error("NoSuchTableException", ident)
        return namespace[0], str(ident.name())

    def _split(self, ident: Any) -> tuple[list[str], str]:
        database, name = self._names(ident)
        return [database], name

    def _lakehouse(self, database: str, name: str) -> tuple[Table, TableKind] | None:
        """The table, when it is a lakehouse table (:mod:`hmscatalog.spark.lakehouse`)."""
        try:
            table = self.client.get_table(database, name)
        except (NoSuchTable, NoSuchNamespace):
            return None
        found = kind_of(table)
        return (table, found) if found.lakehouse else None

    def _redirected(self, ident: Any, verb: str) -> Any | None:
        """For a statement that changes table ``ident``: the catalog that takes it when it is
        a lakehouse table (:class:`Redirects`), and ``None`` for an hms table. A lakehouse
        table no catalog takes is refused, naming the setting that would redirect it."""
        database, name = self._names(ident)
        found = self._lakehouse(database, name)
        if found is None:
            return None
        target = self._redirects.catalog_for(found[1].kind)
        if target is None:
            raise refusal(found[0], found[1], verb, self._name)
        return target

    def _metadata_table(self, ident: Any, rest: tuple[Any, ...]) -> Any | None:
        """``hms.db.t.snapshots``: the metadata table of redirected lakehouse table ``db.t``,
        as its target catalog names it; ``None`` when ``db.t`` is not one."""
        namespace = self._jvm.string_items(ident.namespace())
        if len(namespace) != 2 or namespace[0] == self._name:
            return None
        found = self._lakehouse(*namespace)
        if found is None:
            return None
        return self._redirects.load(found[1].kind, ident, rest)

    def listTables(self, namespace: Any) -> Any:
        database = self._database(namespace)
        try:
            names = self.client.list_tables(database)
        except NoSuchNamespace:
            self._no_such_namespace(database)
        identifier = self._jvm.cls(f"{CATALOG_PKG}.Identifier")
        return self._jvm.array(identifier, [self._jvm.identifier([database], n) for n in names])

    def loadTable(self, ident: Any, *rest: Any) -> Any:
        """The table a statement names. Spark passes the privileges a write needs when it loads
        the table to write it (a set, or since 4.1 in a ``TableContext``): a write's table is
        never the cache's."""
        context = rest[0] if len(rest) == 2 else None  # TableContext, options
        time_travel = bool(rest) and (
            isinstance(rest[0], str | int)
            or (context is not None and context.timeTravel().isPresent())
        )
        privileges = context.writePrivileges() if context is not None else rest[0] if rest \
            else None
        for_write = isinstance(privileges, AbstractSet) and len(privileges) > 0
        metadata_table = self._metadata_table(ident, rest if time_travel else ())
        if metadata_table is not None:
            return metadata_table
        database, name = self._names(ident)
        try:
            fresh = self._fresh(database, name)
            if for_write and (fresh is None or fresh[1] is not None):
                fresh = self.client.get_table(database, name), None
            table, age = fresh or self._table_for_query(database, name)
        except (NoSuchTable, NoSuchNamespace):
            self._jvm.analysis_error("NoSuchTableException", ident)
        found = kind_of(table)
        if found.lakehouse:
            # A version or timestamp goes along; write privileges do not (a catalog's
            # loadTable with them is TableCatalog's default, which py4j cannot call).
            redirected = self._redirects.load(found.kind, self._jvm.identifier([database], name),
                                              rest if time_travel else ())
            if redirected is not None:
                return redirected
            if time_travel:
                raise refusal(table, found, "time travel in", self._name)
            return self._jvm.for_spark(LakehouseStandIn(self._jvm, self._name, table, found,
                                                        table_properties(table)))
        if time_travel:
            self._jvm.spark_error("SparkUnsupportedOperationException",
                                  "UNSUPPORTED_FEATURE.TIME_TRAVEL",
                                  relationId=quoted(self._name, database, name))
        if table.table_type == VIRTUAL_VIEW:
            self._jvm.unsupported(
                f"{database}.{name} in catalog {self._name} is a view: hms reads views in "
                "queries, and this statement needs a table")
        if recovery.needs_recovery(table):  # writes whose process died
            done = recovery.recover(self.client, table)
            if done.finished or done.undone:  # the table's location may have moved
                table, age = self.client.get_table(database, name), None
        return self._jvm.for_spark(HmsTable(self._context, table, cache_age=age))

    def tableExists(self, ident: Any) -> bool:
        database, name = self._names(ident)
        try:
            return self.client.table_exists(database, name)
        except NoSuchNamespace:
            return False

    def invalidateTable(self, ident: Any) -> None:
        """``REFRESH TABLE``: forget the file listings and metastore answers kept for the
        table (and the target catalog's, for a redirected lakehouse table)."""
        database, name = self._names(ident)
        found = self._lakehouse(database, name)
        target = None if found is None else self._redirects.catalog_for(found[1].kind)
        if target is not None:
            target.invalidateTable(self._jvm.identifier([database], name))
        self._context.listings.invalidate(f"{database}.{name}")
        self.cache.invalidate(database, name)
        self._fresh(database, name)

    def createTable(self, ident: Any, *rest: Any) -> Any:
        if len(rest) == 1:  # TableInfo
            info = rest[0]
            struct = struct_of_v2_columns(self._jvm, info.columns())
            transforms, properties = info.partitions(), info.properties()
        else:
            first, transforms, properties = rest
            is_struct = str(first.getClass().getName()) == "org.apache.spark.sql.types.StructType"
            struct = first if is_struct else struct_of_v2_columns(self._jvm, first)
        database, name = self._names(ident)
        table = self._definitions.table(database, name, struct, transforms,
                                       self._jvm.to_dict(properties))
        return self._create(ident, table, [str(f.name()).lower() for f in struct.fields()])

    def _create(self, ident: Any, table: Table, column_order: list[str] | None) -> Any:
        database, name = table.database, table.name
        filled = columns_for_create(self._jvm, table)
        if filled.columns != table.columns:  # the SerDe's: Spark sees them in the table's order
            table, column_order = filled, None
        self._check_settings(table)
        try:
            self.client.create_table(table)
        except AlreadyExists:
            self._jvm.analysis_error("TableAlreadyExistsException", ident)
        except NoSuchNamespace:
            self._no_such_namespace(database)
        try:
            created = self.client.get_table(database, name)
        except (NoSuchTable, NoSuchNamespace):
            self._jvm.analysis_error("NoSuchTableException", ident)
        return self._jvm.for_spark(
            CreatedHmsTable(self._context, created, column_order=column_order))

    def createTableLike(self, ident: Any, info: Any, source: Any) -> Any:
        """``CREATE TABLE ... LIKE source``: the source's columns, partitioning, file format and
        SerDe properties, with this statement's own LOCATION, USING/STORED AS and TBLPROPERTIES
        (as the built-in catalog's CreateTableLikeCommand; the source's table properties are
        not copied)."""
        props = self._jvm.to_dict(info.properties())
        if "provider" not in props and "hive.stored-as" not in props:
            props.update(self._definitions.format_of(source))
        database, name = self._names(ident)
        table = self._definitions.table(database, name, info.schema(), info.partitions(), props)
        return self._create(ident, table, None)

    def _unsupported(self, message: str) -> Any:
        """Refuse an ALTER TABLE change (Spark wraps an IllegalArgumentException from
        alterTable in an error PySpark shows only as a Py4J trace)."""
        self._jvm.throw(self._jvm.cls("java.lang.UnsupportedOperationException")(message))

    def alterTable(self, ident: Any, changes: Any) -> Any:
        target = self._redirected(ident, "alter")
        if target is not None:
            return target.alterTable(self._jvm.identifier(*self._split(ident)), changes)
        database, name = self._names(ident)
        self._fresh(database, name)
        try:
            table = self.client.get_table(database, name)
        except (NoSuchTable, NoSuchNamespace):
            self._jvm.analysis_error("NoSuchTableException", ident)
        params = dict(table.parameters)
        columns = list(table.columns)
        added: list[Column] = []  # named as given (NewCol)
        location = table.location
        for change in changes:
            kind = str(change.getClass().getSimpleName())
            if kind == "SetProperty" and str(change.property()) == "location":
                location = self._definitions.qualified_location(database, str(change.value()))
            elif kind == "SetProperty":
                params[str(change.property())] = str(change.value())
            elif kind == "RemoveProperty":
                params.pop(str(change.property()), None)
            elif kind == "AddColumn":
                names = [str(p) for p in change.fieldNames()]
                if len(names) != 1:
                    self._unsupported(f"hms cannot add nested column {'.'.join(names)} to "
                                  f"{database}.{name}")
                comment = change.comment()
                added.append(Column(names[0], self._jvm.hive_type(change.dataType()),
                                    str(comment) if comment is not None else None))
                columns.append(replace(added[-1], name=names[0].lower()))
            else:
                self._unsupported(
                    f"hms cannot apply {kind} to table {database}.{name}; ALTER TABLE on hms "
                    "tables can SET/UNSET TBLPROPERTIES, SET LOCATION and ADD COLUMNS")
        params = self._definitions.with_added_columns(table, params, added)
        altered = replace(table, columns=tuple(columns), parameters=params,
                          storage=replace(table.storage, location=location))
        self._check_settings(altered)
        self.client.alter_table(altered)
        self._context.listings.invalidate(f"{database}.{name}")
        return self.loadTable(ident)

    def _check_settings(self, table: Table) -> None:
        """Refuse hmscatalog and projection settings that could not be read (a misspelt key, a
        value of the wrong kind), before the metastore changes. The error reaches the user as
        ``[HMS_INVALID_SETTING]`` or ``[HMS_INVALID_PROJECTION]`` naming table, key and value.
        """
        check_properties(table.parameters, f"Table {table.qualified_name}",
                         table.location or "")
        check_projection_keys(table.parameters,
                              [(c.name, c.type) for c in table.partition_spec.columns],
                              table.qualified_name)
        projection_of(ReadTarget.of(table))

    def dropTable(self, ident: Any) -> bool:
        target = self._redirected(ident, "drop")
        if target is not None:
            return bool(target.dropTable(self._jvm.identifier(*self._split(ident))))
        database, name = self._names(ident)
        self._fresh(database, name)
        self._context.listings.invalidate(f"{database}.{name}")
        try:
            table = self.client.get_table(database, name)
            if table.table_type == VIRTUAL_VIEW:
                view_dropped_as_table(self._jvm, self._name, table)
            self.client.drop_table(database, name, delete_data=True)
        except (NoSuchTable, NoSuchNamespace):
            return False
        home = table_home(table.location)
        if not table.is_external and home is not None:
            storage, root = home
            if str(root) != storage.path_of((table.location or "").rstrip("/")):
                # The metastore deleted the version directory an overwrite moved the table's
                # files to; the table's own directory above it goes too.
                storage.delete(str(root))
        return True

    def purgeTable(self, ident: Any) -> bool:
        target = self._redirected(ident, "drop")
        if target is not None:
            return bool(target.purgeTable(self._jvm.identifier(*self._split(ident))))
        return self.dropTable(ident)

    def renameTable(self, old: Any, new: Any) -> None:
        target = self._redirected(old, "rename")
        if target is not None:
            target.renameTable(self._jvm.identifier(*self._split(old)),
                               self._jvm.identifier(*self._split(new)))
            return
        database, name = self._names(old)
        new_database, new_name = self._names(new)
        self._context.listings.invalidate(f"{database}.{name}")
        self._fresh(database, name)
        try:
            self.client.rename_table(database, name, new_database, new_name)
        except (NoSuchTable, NoSuchNamespace):
            self._jvm.analysis_error("NoSuchTableException", old)
        except AlreadyExists:
            self._jvm.analysis_error("TableAlreadyExistsException", new)

    def toString(self) -> str:
        return f"HmsCatalog({self._name}: {', '.join(self.client.uris)})"
