"""``CALL <catalog>.system.<procedure>(...)``: partition maintenance from SQL, in every
session, with Trino's Hive connector's names and arguments (Spark 4's procedures for catalog
plugins):

* ``sync_partition_metadata(schema_name, table_name, mode[, case_sensitive])``: mode ``ADD``,
  ``DROP`` or ``FULL`` (Spark's ``MSCK REPAIR TABLE ... ADD|DROP|SYNC PARTITIONS``, which runs
  this procedure on hms tables);
* ``register_partition(schema_name, table_name, partition_columns, partition_values[,
  location])``;
* ``unregister_partition(schema_name, table_name, partition_columns, partition_values)``;
* ``drop_partitions(schema_name, table_name, partition_names[, if_exists])``: hmscatalog's
  own; drops the partitions of those metastore names (``dt=2024-01-05/hr=7``) in one request,
  their files with them unless the table is external; what ``ALTER TABLE ... DROP PARTITION``
  runs when a clause names only some partition columns;
* ``flush_metadata_cache([schema_name, table_name[, partition_columns, partition_values]])``:
  forgets the file listings hms keeps (all, or the table's);
* ``analyze_table(schema_name, table_name[, partition_columns, partition_values[, noscan[,
  columns[, all_columns]]]])``: hmscatalog's own, what ``ANALYZE TABLE ... COMPUTE STATISTICS
  [FOR COLUMNS ...]`` runs on hms tables
  (:mod:`hmscatalog.spark.statements.analyze`); a NULL among ``partition_values`` is a column given
  without a value (``PARTITION (dt)``), NULL arrays the whole table, a NULL ``table_name``
  every table of the schema (``ANALYZE TABLES IN``: a table that fails is skipped with a
  warning, as the built-in catalog does).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from hmscatalog.errors import InvalidSetting
from hmscatalog.maintenance.partitions import (
    drop_partitions,
    register_partition,
    unregister_partition,
)
from hmscatalog.maintenance.repair import repair_table
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.kinds import refuse_lakehouse
from hmscatalog.metastore.model import Table
from hmscatalog.spark.bridge.jvm import CATALOG_PKG, JavaProxy, Jvm, quoted
from hmscatalog.spark.internals import plans
from hmscatalog.spark.statements.analyze import analyze, analyze_columns

log = logging.getLogger(__name__)

NAMESPACE = "system"
PROCEDURES_PKG = f"{CATALOG_PKG}.procedures"
_MODES = {"ADD": (True, False), "DROP": (False, True), "FULL": (True, True)}


class ProcedureHost(Protocol):
    """What a procedure uses of the catalog that runs it: the
    :class:`~hmscatalog.spark.catalog.HmsCatalog` that lists the procedures, a wing above."""

    client: MetastoreClient
    storage_options: dict[str, str]

    @property
    def jvm(self) -> Jvm: ...

    def name(self) -> str: ...

    def refresh(self, database: str, name: str) -> None: ...

    def forget_listings(self, table: str | None) -> None: ...


@dataclass(frozen=True)
class _Parameter:
    name: str
    type: str  # Spark DDL type
    default: str | None = None  # SQL text of the default; None: required


@dataclass(frozen=True)
class _Definition:
    description: str
    parameters: tuple[_Parameter, ...]
    run: Callable[[ProcedureHost, dict[str, Any]], None]


def _text(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if value is None:
        raise InvalidSetting(f"procedure argument {key} must not be NULL")
    return str(value)


def _on_table(change: Callable[[ProcedureHost, Table, dict[str, Any]], None]
              ) -> Callable[[ProcedureHost, dict[str, Any]], None]:
    """A procedure that changes the partitions of ``schema_name.table_name``: the table is
    looked up first, and Spark's cached data of it is refreshed after."""
    def run(catalog: ProcedureHost, args: dict[str, Any]) -> None:
        database, name = _text(args, "schema_name"), _text(args, "table_name")
        table = catalog.client.get_table(database, name)
        refuse_lakehouse(table, "run procedures on", catalog.name())
        change(catalog, table, args)
        catalog.refresh(database, name)

    return run


@_on_table
def _sync(catalog: ProcedureHost, table: Table, args: dict[str, Any]) -> None:
    mode = _text(args, "mode").upper()
    if mode not in _MODES:
        raise InvalidSetting(f"sync_partition_metadata mode {args['mode']!r} for table "
                             f"{table.qualified_name} is not one of ADD, DROP, FULL")
    if args.get("case_sensitive") is False:
        raise InvalidSetting(
            f"sync_partition_metadata of table {table.qualified_name}: case_sensitive => false "
            "is not supported; partition directory names are matched as Spark's MSCK does")
    add, drop = _MODES[mode]
    repair_table(catalog.client, table, add=add, drop=drop,
                 storage_options=catalog.storage_options)


@_on_table
def _register(catalog: ProcedureHost, table: Table, args: dict[str, Any]) -> None:
    register_partition(catalog.client, table, args["partition_columns"] or [],
                       args["partition_values"] or [], args.get("location"),
                       catalog.storage_options)


@_on_table
def _unregister(catalog: ProcedureHost, table: Table, args: dict[str, Any]) -> None:
    unregister_partition(catalog.client, table, args["partition_columns"] or [],
                         args["partition_values"] or [])


@_on_table
def _drop(catalog: ProcedureHost, table: Table, args: dict[str, Any]) -> None:
    names = args.get("partition_names")
    if not names:
        raise InvalidSetting(f"drop_partitions of table {table.qualified_name}: "
                             "partition_names must name at least one partition")
    drop_partitions(catalog.client, table, names, bool(args["if_exists"]))


def _flush(catalog: ProcedureHost, args: dict[str, Any]) -> None:
    database, name = args.get("schema_name"), args.get("table_name")
    if (database is None) != (name is None):
        raise InvalidSetting("flush_metadata_cache takes both schema_name and table_name, "
                             "or neither")
    catalog.forget_listings(None if name is None else f"{database}.{name}")


def _analyze(catalog: ProcedureHost, args: dict[str, Any]) -> None:
    if args.get("table_name") is None:  # ANALYZE TABLES IN db
        database = _text(args, "schema_name")
        for name in catalog.client.list_tables(database):
            try:
                table = catalog.client.get_table(database, name)
                analyze(catalog.jvm, catalog.client, catalog.name(), table, None,
                        bool(args["noscan"]))
            except Exception as exc:  # as Spark does: skip the table, say why, go on
                log.warning("ANALYZE TABLES IN %s skips table %s.%s: %s", database, database,
                            name, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return
    _analyze_one(catalog, args)


@_on_table
def _analyze_one(catalog: ProcedureHost, table: Table, args: dict[str, Any]) -> None:
    columns, values = args.get("partition_columns"), args.get("partition_values")
    if (columns is None) != (values is None) or len(columns or []) != len(values or []):
        raise InvalidSetting(f"analyze_table of table {table.qualified_name}: partition_columns "
                             "and partition_values must be given together, of one length")
    spec = None if columns is None else dict(zip(columns, values or [], strict=True))
    if args.get("all_columns") or args.get("columns") is not None:
        if spec is not None or args.get("noscan"):
            raise InvalidSetting(f"analyze_table of table {table.qualified_name}: column "
                                 "statistics are of the whole table, with a scan")
        analyze_columns(catalog.jvm, catalog.client, catalog.name(), table,
                        None if args.get("all_columns") else args["columns"])
        return
    analyze(catalog.jvm, catalog.client, catalog.name(), table, spec, bool(args["noscan"]))


_TABLE = (_Parameter("schema_name", "STRING"), _Parameter("table_name", "STRING"))
_SPEC = (_Parameter("partition_columns", "ARRAY<STRING>"),
         _Parameter("partition_values", "ARRAY<STRING>"))
PROCEDURES: dict[str, _Definition] = {
    "sync_partition_metadata": _Definition(
        "Registers partition directories the metastore lacks (ADD), unregisters partitions "
        "whose directory is gone (DROP), or both (FULL).",
        (*_TABLE, _Parameter("mode", "STRING"), _Parameter("case_sensitive", "BOOLEAN", "true")),
        _sync),
    "register_partition": _Definition(
        "Registers one existing partition directory.",
        (*_TABLE, *_SPEC, _Parameter("location", "STRING", "NULL")), _register),
    "unregister_partition": _Definition(
        "Unregisters one partition; its files stay.", (*_TABLE, *_SPEC), _unregister),
    "drop_partitions": _Definition(
        "Drops partitions by their metastore names, with their files unless the table is "
        "external (what ALTER TABLE ... DROP PARTITION runs for a partial clause).",
        (*_TABLE, _Parameter("partition_names", "ARRAY<STRING>"),
         _Parameter("if_exists", "BOOLEAN", "false")), _drop),
    "flush_metadata_cache": _Definition(
        "Forgets the file listings kept for all tables, or for one.",
        (_Parameter("schema_name", "STRING", "NULL"), _Parameter("table_name", "STRING", "NULL"),
         _Parameter("partition_columns", "ARRAY<STRING>", "NULL"),
         _Parameter("partition_values", "ARRAY<STRING>", "NULL")), _flush),
    "analyze_table": _Definition(
        "Computes the table's or its partitions' size and row count, stored as Spark's "
        "built-in catalog stores them (what ANALYZE TABLE ... COMPUTE STATISTICS runs).",
        (_Parameter("schema_name", "STRING"), _Parameter("table_name", "STRING"),
         _Parameter("partition_columns", "ARRAY<STRING>", "NULL"),
         _Parameter("partition_values", "ARRAY<STRING>", "NULL"),
         _Parameter("noscan", "BOOLEAN", "false"), _Parameter("columns", "ARRAY<STRING>", "NULL"),
         _Parameter("all_columns", "BOOLEAN", "false")), _analyze),
}


class Procedure(JavaProxy):
    """One procedure, unbound and bound (its parameters do not depend on the call)."""

    class Java:
        implements = [f"{PROCEDURES_PKG}.UnboundProcedure", f"{PROCEDURES_PKG}.BoundProcedure"]

    def __init__(self, jvm: Jvm, catalog: ProcedureHost, name: str) -> None:
        self._jvm = jvm
        self._catalog = catalog
        self._name = name
        self._definition = PROCEDURES[name]

    def name(self) -> str:
        return self._name

    def description(self) -> str:
        return self._definition.description

    def bind(self, input_type: Any) -> Procedure:
        return self

    def isDeterministic(self) -> bool:
        return False

    def parameters(self) -> Any:
        parameter = self._jvm.cls(f"{PROCEDURES_PKG}.ProcedureParameter")
        parse = self._jvm.cls("org.apache.spark.sql.types.DataType").fromDDL
        made = []
        for p in self._definition.parameters:
            builder = getattr(parameter, "in")(p.name, parse(p.type))
            if p.default is not None:
                builder = builder.defaultValue(p.default)
            made.append(builder.build())
        return self._jvm.array(parameter, made)

    def call(self, row: Any) -> Any:
        args = {p.name: _value(row, i, p.type)
                for i, p in enumerate(self._definition.parameters)}
        self._definition.run(self._catalog, args)
        return self._jvm.cls("java.util.Collections").emptyIterator()

    def toString(self) -> str:
        return f"{quoted(self._catalog.name(), NAMESPACE, self._name)}"


def _value(row: Any, index: int, type_name: str) -> Any:
    if row.isNullAt(index):
        return None
    if type_name == "BOOLEAN":
        return bool(row.getBoolean(index))
    if type_name == "ARRAY<STRING>":
        array = row.getArray(index)
        return [None if array.isNullAt(i) else str(array.getUTF8String(i))
                for i in range(array.numElements())]
    return str(row.getUTF8String(index))


def load_procedure(jvm: Jvm, catalog: ProcedureHost, ident: Any) -> Procedure:
    namespace = [str(p) for p in ident.namespace()]
    name = str(ident.name())
    if namespace != [NAMESPACE] or name not in PROCEDURES:
        jvm.throw(plans.analysis_error(
            jvm, "ROUTINE_NOT_FOUND", {"routineName": quoted(catalog.name(), *namespace, name)}))
    return Procedure(jvm, catalog, name)


def list_procedures(jvm: Jvm, namespace: Any) -> Any:
    if [str(p) for p in namespace] != [NAMESPACE]:
        return jvm.array(jvm.cls(f"{CATALOG_PKG}.Identifier"), [])
    return jvm.array(jvm.cls(f"{CATALOG_PKG}.Identifier"),
                     [jvm.identifier([NAMESPACE], name) for name in PROCEDURES])
