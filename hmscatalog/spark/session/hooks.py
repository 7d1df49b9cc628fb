"""Statements on hms tables that Spark's catalog API does not pass to a catalog, answered from
the analyzer rule of :mod:`hmscatalog.spark.bridge.plugin` (``io.hmscatalog.spark.HmsRule``), which
runs in every session before relations are resolved:

* **INSERT ... PARTITION (...)**: Spark folds static values into the query before a catalog
  sees the write, so whether a column was static or dynamic, on which Hive's rules depend, is
  lost by then. Every ``InsertIntoStatement`` (plain, after WITH, Hive's FROM-first form, each
  branch of a multi-insert, and ``DataFrameWriter.insertInto``, which has no PARTITION clause:
  all its partition columns are dynamic) into an hms table is checked here first. A fully
  static INSERT OVERWRITE clause, and IF NOT EXISTS (which Spark refuses for other catalogs),
  reach the write as options of the statement's table (:mod:`hmscatalog.spark.write.insert_clause`).
* **MSCK REPAIR TABLE** and **ALTER TABLE ... RECOVER PARTITIONS**, which Spark refuses for
  tables outside its own catalog, become ``CALL <catalog>.system.sync_partition_metadata``.
* **DESCRIBE TABLE ... PARTITION**, which Spark 4.0 and 4.1 refuse for tables outside their
  own catalog, is answered from the metastore (:mod:`hmscatalog.spark.statements.describe`).
* **Views** stored in the metastore, wherever a query names one, become the view's plan
  (:mod:`hmscatalog.spark.statements.views`); CREATE VIEW, ALTER VIEW ... AS, DROP VIEW, SHOW
  VIEWS and DESCRIBE of views are answered from the metastore
  (:mod:`hmscatalog.spark.statements.view_statements`).
* **ALTER TABLE ... PARTITION ... SET LOCATION** and **SET SERDE[PROPERTIES]**, which Spark
  refuses for tables outside its own catalog, change the metastore's definitions
  (:mod:`hmscatalog.spark.statements.alter_storage`).
* **SHOW CREATE TABLE ... AS SERDE** prints Hive's DDL of the table, in the built-in's words
  (:mod:`hmscatalog.spark.statements.show_create`).
* **CREATE TABLE ... ROW FORMAT DELIMITED ... NULL DEFINED AS**, whose NULL text Spark's parser
  drops, stores it as Hive does (SerDe property ``serialization.null.format``;
  :mod:`hmscatalog.spark.internals.row_format`).
* **SHOW PARTITIONS** is answered with the metastore's partition names, as the built-in catalog
  answers it (``k=__HIVE_DEFAULT_PARTITION__`` for NULL, whatever the column's type; columns
  named in the case Spark stored them, ``Dt=x``).
* **ALTER TABLE ... DROP PARTITION** with a clause that names only some partition columns,
  which Spark refuses for tables outside its own catalog, drops each partition it matches by
  its metastore name (:func:`hmscatalog.spark.statements.partitions.drop_partial`), as Hive
  and the built-in drop every partition holding those values.
"""

from __future__ import annotations

from typing import Any

from hmscatalog.errors import (
    DynamicPartitionError,
    HmsCatalogError,
    InvalidPartitionValue,
    NoSuchObject,
)
from hmscatalog.metastore.kinds import kind_of, refusal
from hmscatalog.metastore.model import VIRTUAL_VIEW, Table
from hmscatalog.metastore.spark_schema import with_spark_case
from hmscatalog.partitions.codec import with_keys
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm, quoted, sql_string
from hmscatalog.spark.internals import plans, row_format
from hmscatalog.spark.read.serde_io import partition_names, serde_columns
from hmscatalog.spark.session.attached import Attached
from hmscatalog.spark.statements.alter_storage import set_partition_location, set_serde
from hmscatalog.spark.statements.describe import DESCRIBE_COLUMNS, describe_partition
from hmscatalog.spark.statements.partitions import clause_strings, drop_partial, matching_names
from hmscatalog.spark.statements.show_create import show_create_as_serde
from hmscatalog.spark.statements.view_statements import (
    SHOW_VIEWS_COLUMNS,
    create_view,
    describe_view,
    drop_view,
    refuse_drop_table_of_view,
    show_views,
)
from hmscatalog.spark.statements.views import view_plan
from hmscatalog.spark.write.insert_clause import rewritten_insert
from hmscatalog.write.rules import DynamicPartitionSettings, check_partition_clause

# What the statements hms answers itself would do to a table: refused on lakehouse tables that
# no catalog takes (the others, DESCRIBE, SHOW CREATE TABLE, DROP TABLE, are Spark's).
_LAKEHOUSE_VERBS = {"RepairTable": "repair", "RecoverPartitions": "repair",
                    "ShowPartitions": "list the partitions of", "AnalyzeTable": "analyze",
                    "AnalyzeColumn": "analyze", "SetTableLocation": "alter",
                    "SetTableSerDeProperties": "alter", "DropPartitions": "drop partitions of"}
# Repair plans, the command names Spark's errors give them, and sync_partition_metadata's mode.
_REPAIRS = {"RepairTable": "MSCK REPAIR TABLE",
            "RecoverPartitions": "ALTER TABLE RECOVER PARTITIONS"}


class SessionHooks(JavaProxy):
    """``io.hmscatalog.spark.SessionHooks``: one per driver, for every attached catalog."""

    class Java:
        implements = ["io.hmscatalog.spark.SessionHooks"]

    def __init__(self, jvm: Jvm, attached: dict[str, Attached]) -> None:
        self._jvm = jvm
        self._attached = attached

    def checkInsert(self, session: Any, insert: Any) -> Any:
        """Check an INSERT's PARTITION clause; the statement with the clause handed to the
        write (:mod:`hmscatalog.spark.write.insert_clause`), or ``None`` to keep it."""
        found = self._table(session, insert)
        if found is None:
            return None
        catalog, table = found
        if self._lakehouse(catalog, table, "write"):
            return None
        self._check(session, table, plans.partition_clause(self._jvm, insert))
        return rewritten_insert(self._jvm, catalog, table, insert)

    def checkPositionalWrite(self, session: Any, catalog: str, ident: Any) -> None:
        attached = self._attached.get(catalog)
        if attached is None:
            return
        database = self._jvm.string_items(ident.namespace())
        if len(database) != 1:
            return
        try:
            table = attached.client.get_table(database[0], str(ident.name()))
        except NoSuchObject:
            return
        if not self._lakehouse(catalog, table, "write"):
            self._check(session, table, {})

    def _lakehouse(self, catalog: str, table: Table, verb: str | None) -> bool:
        """Whether ``table`` is a lakehouse table, whose statements are Spark's, on the table
        of the catalog it is redirected to or on hms's stand-in for it
        (:mod:`hmscatalog.spark.lakehouse`). Raises the refusal to ``verb`` it when no catalog
        takes it (``None``: the stand-in refuses what the statement does)."""
        found = kind_of(table)
        if not found.lakehouse:
            return False
        if verb is not None and found.kind not in self._attached[catalog].redirects:
            raise refusal(table, found, verb, catalog)
        return True

    def _check(self, session: Any, table: Table, clause: dict[str, str | None]) -> None:
        if not table.partition_keys:
            return
        settings = DynamicPartitionSettings.from_conf(lambda key: plans.conf_value(session, key))
        try:
            check_partition_clause(table.qualified_name, table.partition_spec.names, clause,
                                   settings)
        except DynamicPartitionError as exc:  # Hive's own words, as the first line
            self._jvm.throw(self._jvm.bare_error(str(exc), None))
        except HmsCatalogError as exc:
            self._jvm.throw(self._jvm.readable_error(exc, "the PARTITION clause check"))

    def expandView(self, session: Any, catalog: str, database: str, name: str) -> Any:
        attached = self._attached.get(catalog)
        if attached is None:
            return None
        client = attached.client
        try:
            found = attached.cache.table(database, name,
                                         lambda: client.get_table(database, name))
        except NoSuchObject:
            return None  # Spark reports the missing table as for any catalog
        table = found.value
        if table.table_type != VIRTUAL_VIEW:
            attached.catalog_for(session).fetched(table, found.age)  # Spark loads it next
            return None
        return view_plan(self._jvm, session, catalog, table)

    def rewrite(self, session: Any, command: Any) -> Any:
        kind = plans.kind(command)
        if kind == "AnalyzeTables":
            return self._analyze_tables(session, command)
        if kind == "ShowViews":
            return self._show_views(session, command)
        if kind in ("DropView", "DropTable") and self._temporary(session, command):
            return None  # Spark drops temporary views first
        if kind in ("CreateView", "AlterViewAs", "DropView"):
            return self._view_statement(session, kind, command)
        if kind in row_format.CREATES:
            return self._create_table(session, command)
        found = self._table(session, command)
        if found is None:
            return None  # other catalogs, missing tables: Spark answers as for its own
        catalog, table = found
        verb = ("describe a partition of" if kind == "DescribeRelation"
                and plans.described_partition(self._jvm, command)
                else _LAKEHOUSE_VERBS.get(kind))
        if self._lakehouse(catalog, table, verb):
            return None
        if kind in ("SetTableLocation", "SetTableSerDeProperties"):
            return self._alter_storage(session, kind, catalog, table, command)
        if kind == "ShowCreateTable":
            if not command.asSerde() or table.table_type == VIRTUAL_VIEW:
                return None  # Spark's own form (USING ...), as the built-in prints it
            return plans.local_relation(self._jvm, "createtab_stmt STRING", [
                [show_create_as_serde(self._jvm, catalog,
                                      with_spark_case(serde_columns(self._jvm, table)[0]))]])
        if kind == "DropTable":
            if table.table_type == VIRTUAL_VIEW:
                refuse_drop_table_of_view(self._jvm, catalog, table)
            return None
        if kind == "DescribeRelation" and table.table_type == VIRTUAL_VIEW:
            if plans.described_partition(self._jvm, command):
                return None  # Spark refuses a PARTITION clause on a view
            return plans.local_relation(self._jvm, DESCRIBE_COLUMNS, describe_view(
                self._jvm, catalog, table, bool(command.isExtended())))
        if kind == "DescribeRelation":
            given = plans.described_partition(self._jvm, command)
            if not given:
                return None  # the table's own DESCRIBE, Spark's
            # Avro, OpenCSV: the SerDe's columns; named in the case Spark stored them
            described = with_spark_case(serde_columns(self._jvm, table)[0])
            rows = describe_partition(self._jvm, self._attached[catalog].client, catalog,
                                      described, given, bool(command.isExtended()),
                                      str(plans.conf_value(session, "spark.sql.session.timeZone")))
            return plans.local_relation(self._jvm, DESCRIBE_COLUMNS, rows)
        if kind == "ShowPartitions":
            return self._show_partitions(session, catalog, table, command)
        if kind == "DropPartitions":
            if table.table_type == VIRTUAL_VIEW:
                return None  # Spark refuses it
            return drop_partial(self._jvm, session, self._attached[catalog].client, catalog,
                                table, command)
        if kind == "AnalyzeTable":
            return plans.parse(session, _analyze_call(catalog, table, command, self._jvm))
        if kind == "AnalyzeColumn":
            return plans.parse(session, _analyze_columns_call(catalog, table, command,
                                                              self._jvm))
        qualified = quoted(catalog, table.database, table.name)
        if not table.partition_keys:
            self._jvm.throw(plans.analysis_error(
                self._jvm, "NOT_A_PARTITIONED_TABLE",
                {"operation": _REPAIRS[kind], "tableIdentWithDB": qualified}))
        add, drop = plans.repair_flags(command)
        mode = "FULL" if add and drop else "DROP" if drop else "ADD"
        call = (f"CALL {quoted(catalog)}.system.sync_partition_metadata("
                f"{sql_string(table.database)}, {sql_string(table.name)}, '{mode}')")
        return plans.parse(session, call)

    def _create_table(self, session: Any, command: Any) -> Any:
        """CREATE/REPLACE TABLE of an hms table with ROW FORMAT DELIMITED ... NULL DEFINED AS
        '<text>': the statement with the text as SerDe property ``serialization.null.format``,
        as Hive stores it (Spark's parser drops the clause); ``None`` for other statements."""
        parts = row_format.created_name(self._jvm, command)
        if parts is None or _target(session, set(self._attached), parts) is None:
            return None
        text = row_format.null_defined_as(self._jvm, command)
        if text is None:
            return None
        return row_format.with_serde_property(self._jvm, command, row_format.NULL_FORMAT, text)

    def _analyze_tables(self, session: Any, command: Any) -> Any:
        """ANALYZE TABLES IN an hms database: each of its tables, as the built-in does."""
        found = self._namespace(session, command)
        if found is None:
            return None
        catalog, database = found
        return plans.parse(session, (
            f"CALL {quoted(catalog)}.system.analyze_table({sql_string(database)}, NULL, NULL, "
            f"NULL, {str(bool(command.noScan())).lower()}, NULL, false)"))

    def _view_statement(self, session: Any, kind: str, command: Any) -> Any:
        """CREATE VIEW, ALTER VIEW ... AS, DROP VIEW naming an hms catalog's view, done now (the
        statement's plan becomes an empty relation)."""
        parts = plans.named_table(self._jvm, command)
        target = None if parts is None else _target(session, set(self._attached), parts)
        if target is None:
            return None
        catalog, database, name = target
        client = self._attached[catalog].client
        if kind == "DropView":
            drop_view(self._jvm, client, catalog, database, name, bool(command.ifExists()))
        else:
            same = [other for other, attached in list(self._attached.items())
                    if attached.client.uris == client.uris]
            create_view(self._jvm, session, client, catalog, database, name, command, same)
        return plans.local_relation(self._jvm, "", [])

    def _alter_storage(self, session: Any, kind: str, catalog: str, table: Table,
                       command: Any) -> Any:
        """A partition's SET LOCATION, a table's or partition's SET SERDE[PROPERTIES], done
        now (the statement's plan becomes an empty relation); a table's SET LOCATION is
        Spark's (``alterTable``)."""
        spec = command.partitionSpec()
        given = (self._jvm.to_dict(self._jvm.java_map(spec.get())) if spec.isDefined()
                 else None)
        if (kind == "SetTableLocation" and given is None) or table.table_type == VIRTUAL_VIEW:
            return None
        time_zone = str(plans.conf_value(session, "spark.sql.session.timeZone"))
        attached = self._attached[catalog]
        hms = attached.catalog_for(session)
        if kind == "SetTableLocation":
            set_partition_location(
                self._jvm, attached.client, catalog, table, given or {},
                hms.qualified_location(table.database, str(command.location())), time_zone)
        else:
            serde = command.serdeClassName()
            properties = command.serdeProperties()
            set_serde(self._jvm, attached.client, catalog, table,
                      str(serde.get()) if serde.isDefined() else None,
                      self._jvm.to_dict(self._jvm.java_map(properties.get()))
                      if properties.isDefined() else {}, given, time_zone)
        hms.forget_listings(table.qualified_name)
        return plans.local_relation(self._jvm, "", [])

    def _temporary(self, session: Any, command: Any) -> bool:
        parts = plans.named_table(self._jvm, command)
        return parts is not None and len(parts) <= 2 and plans.is_temporary_view(
            self._jvm, session, parts)

    def _namespace(self, session: Any, command: Any) -> tuple[str, str] | None:
        """The hms catalog and database a command's namespace names, if it names one."""
        parts = plans.named_namespace(self._jvm, command.namespace())
        found = None if parts is None else _target(session, set(self._attached),
                                                    [*parts, "-"])
        return None if found is None else (found[0], found[1])

    def _show_views(self, session: Any, command: Any) -> Any:
        found = self._namespace(session, command)
        if found is None:
            return None
        catalog, database = found
        pattern = command.pattern()
        rows = show_views(self._jvm, session, self._attached[catalog].client, database,
                          str(pattern.get()) if pattern.isDefined() else None)
        return plans.local_relation(self._jvm, SHOW_VIEWS_COLUMNS, rows)

    def _table(self, session: Any, node: Any) -> tuple[str, Table] | None:
        """The attached catalog and metastore table a statement names, if it names one."""
        parts = plans.named_table(self._jvm, node)
        target = None if parts is None else _target(session, set(self._attached), parts)
        if target is None:
            return None
        catalog, database, name = target
        attached = self._attached[catalog]
        try:
            table = attached.client.get_table(database, name)
        except NoSuchObject:
            return None
        attached.catalog_for(session).fetched(table)  # Spark loads it next
        return catalog, table

    def _show_partitions(self, session: Any, catalog: str, table: Table, command: Any) -> Any:
        """SHOW PARTITIONS as a local relation of the metastore's names; ``None`` leaves the
        statement to Spark (unpartitioned tables, a PARTITION clause it should judge)."""
        spec = table.partition_spec
        if not spec.names:
            return None
        try:
            wanted = clause_strings(table, plans.shown_partition(self._jvm, command) or {},
                                    quoted(catalog, table.database, table.name))
        except InvalidPartitionValue:
            return None  # Spark's cast error, as the built-in's
        if wanted is None:
            return None
        names = self._attached[catalog].client.list_partition_names(table.database, table.name)
        cased = partition_names(self._jvm, table)  # Dt=x, as the built-in names them
        rows = [with_keys(name, cased) for name in matching_names(names, wanted)]
        return plans.local_relation(self._jvm, "partition STRING", [[row] for row in rows])


def _target(session: Any, catalogs: set[str], parts: list[str]) -> tuple[str, str, str] | None:
    """The hms catalog, database and table a statement names, if it names one."""
    if len(parts) == 3 and parts[0] in catalogs:
        return parts[0], parts[1], parts[2]
    if len(parts) > 2:
        return None
    found = plans.current_catalog(session)
    if found is None or found[0] not in catalogs:
        return None
    current, namespace = found
    if len(parts) == 2:
        return current, parts[0], parts[1]
    return (current, namespace[0], parts[0]) if len(namespace) == 1 else None


def _analyze_call(catalog: str, table: Table, command: Any, jvm: Jvm) -> str:
    """The CALL that ANALYZE TABLE ... COMPUTE STATISTICS [NOSCAN] runs on an hms table."""
    clause = plans.partition_clause(jvm, command)
    spec = "NULL, NULL"
    if clause:
        names = ", ".join(sql_string(name) for name in clause)
        values = ", ".join("NULL" if v is None else sql_string(v) for v in clause.values())
        spec = f"array({names}), array({values})"
    return (f"CALL {quoted(catalog)}.system.analyze_table({sql_string(table.database)}, "
            f"{sql_string(table.name)}, {spec}, {str(bool(command.noScan())).lower()}, NULL, "
            "false)")


def _analyze_columns_call(catalog: str, table: Table, command: Any, jvm: Jvm) -> str:
    """The CALL that ANALYZE TABLE ... COMPUTE STATISTICS FOR [ALL] COLUMNS runs."""
    names = plans.analyzed_columns(jvm, command)
    columns = "NULL" if names is None else f"array({', '.join(map(sql_string, names))})"
    return (f"CALL {quoted(catalog)}.system.analyze_table({sql_string(table.database)}, "
            f"{sql_string(table.name)}, NULL, NULL, false, {columns}, "
            f"{str(names is None).lower()})")
