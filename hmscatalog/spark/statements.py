"""Statements on hms tables that Spark's catalog API cannot see or run: INSERT checks, repair,
SHOW PARTITIONS.

Spark hands a catalog the rows of ``INSERT INTO t PARTITION (dt='x', hr) SELECT ...`` with the
static values already folded into them, so whether a column was static or dynamic, on which
Hive's rules depend, is lost. :func:`install` therefore wraps the session's ``sql`` method: every
INSERT of a statement (plain, after WITH, FROM-first, each branch of a multi-insert) into a table
of an attached hms catalog is found in the plan Spark's own parser makes, and its PARTITION
clause checked against Hive's rules before it runs. Writes through the DataFrame API
(``df.writeTo(...).append()``) have no PARTITION clause and are not checked.

The same wrapper runs ``MSCK REPAIR TABLE`` and ``ALTER TABLE ... RECOVER PARTITIONS`` on hms
tables, which Spark refuses for tables outside its own catalog
(``NOT_SUPPORTED_COMMAND_FOR_V2_TABLE``): :func:`~hmscatalog.maintenance.repair.repair_table` does
the work, with Spark's rules; answers ``SHOW PARTITIONS`` with the metastore's partition names,
as the built-in catalog does; and lifts an hmscatalog error that Spark reports only deep inside
a failed job (``[HMS_...]`` from a task) to the first line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from py4j.protocol import Py4JJavaError
from pyspark.errors.exceptions.captured import CapturedException, convert_exception
from pyspark.sql.types import StructType

from hmscatalog.errors import InvalidPartitionValue, NoSuchObject
from hmscatalog.maintenance.repair import repair_table
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME, parse_part_name
from hmscatalog.partitions.types import format_value, parse_value
from hmscatalog.spark.jvm import Jvm, quoted
from hmscatalog.write.rules import DynamicPartitionSettings, check_partition_clause

_COMMENTS = r"\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*"  # leading comments
# Any statement that may hold an INSERT: plain, after WITH, Hive's FROM ... INSERT, multi-insert.
_INSERT = re.compile(r"\binsert\b", re.IGNORECASE)
# MSCK REPAIR TABLE, REPAIR TABLE, ALTER TABLE ... RECOVER PARTITIONS; the parser decides.
_REPAIR = re.compile(_COMMENTS + r"(?:msck\b|repair\b|alter\b.*\brecover\s+partitions\b)",
                     re.IGNORECASE | re.DOTALL)
_SHOW_PARTITIONS = re.compile(_COMMENTS + r"show\s+partitions\b", re.IGNORECASE | re.DOTALL)
_CATALOGS = "_hmscatalog_catalogs"
# Plans of the repair statements, and the command names Spark's errors give them.
_COMMANDS = {"RepairTable": "MSCK REPAIR TABLE",
             "RecoverPartitions": "ALTER TABLE RECOVER PARTITIONS"}


def install(spark: Any, jvm: Jvm, name: str, client: MetastoreClient) -> None:
    """Check INSERT statements and run repair statements, through ``spark.sql``, for catalog
    ``name``'s tables."""
    catalogs: dict[str, MetastoreClient] | None = getattr(spark, _CATALOGS, None)
    if catalogs is None:
        catalogs = {}
        setattr(spark, _CATALOGS, catalogs)
        spark.sql = _checked(spark.sql, jvm, catalogs)
    catalogs[name] = client


def _checked(run: Callable[..., Any], jvm: Jvm,
             catalogs: dict[str, MetastoreClient]) -> Callable[..., Any]:
    @functools.wraps(run)
    def sql(sqlQuery: str, *args: Any, **kwargs: Any) -> Any:
        if isinstance(sqlQuery, str) and _INSERT.search(sqlQuery):
            check_insert(jvm, catalogs, sqlQuery)
        elif isinstance(sqlQuery, str) and _REPAIR.match(sqlQuery) and repair(
                jvm, catalogs, sqlQuery):
            return jvm.spark.createDataFrame([], StructType([]))  # what Spark's MSCK returns
        elif isinstance(sqlQuery, str) and _SHOW_PARTITIONS.match(sqlQuery):
            shown = show_partitions(jvm, catalogs, sqlQuery)
            if shown is not None:
                return shown
        try:
            return run(sqlQuery, *args, **kwargs)
        except (CapturedException, Py4JJavaError) as exc:
            inside = _hms_error_inside(jvm, exc)
            if inside is None:
                raise
            raise inside from exc

    return sql


def _hms_error_inside(jvm: Jvm, exc: CapturedException | Py4JJavaError) -> Exception | None:
    """An error of hmscatalog's that Spark reports only deep inside another (a task's
    ``[HMS_...]`` error behind "Job aborted due to stage failure"), as an exception whose first
    line is hmscatalog's message; ``None`` when there is none, or it is on top already."""
    if str(exc).lstrip().startswith("[HMS_"):
        return None
    throwable = exc._origin if isinstance(exc, CapturedException) else exc.java_exception
    for _ in range(32):  # cause chains are short; a cycle must not hang the caller
        if throwable is None:
            return None
        message = str(throwable.getMessage() or "")
        start = message.find("[HMS_")
        if start >= 0:
            text = message[start:].split("\n", 1)[0]
            text = re.sub(r" SQLSTATE: \w+$", "", text)
            return convert_exception(jvm.bare_error(text, throwable))
        throwable = throwable.getCause()
    return None


def check_insert(jvm: Jvm, catalogs: dict[str, MetastoreClient], text: str) -> None:
    """Raise :class:`~hmscatalog.errors.DynamicPartitionError` if ``text`` inserts into an hms
    table with a PARTITION clause that breaks Hive's rules: every INSERT of the statement is
    checked, wherever it stands (after WITH, in Hive's ``FROM src INSERT ...`` and in each
    branch of a multi-insert). Anything else passes unchecked (Spark reports its own errors
    when it runs the statement)."""
    try:
        plan = jvm.jsession.sessionState().sqlParser().parsePlan(text)
    except Py4JJavaError:
        return
    for insert in _inserts(jvm, plan):
        _check_insert(jvm, catalogs, insert)


def _inserts(jvm: Jvm, plan: Any) -> list[Any]:
    """The ``InsertIntoStatement`` nodes of a parsed plan."""
    found, pending = [], [plan]
    while pending:
        node = pending.pop()
        if str(node.getClass().getSimpleName()) == "InsertIntoStatement":
            found.append(node)
        else:
            pending.extend(jvm.java_list(node.children()))
    return found


def _check_insert(jvm: Jvm, catalogs: dict[str, MetastoreClient], plan: Any) -> None:
    if str(plan.table().getClass().getSimpleName()) != "UnresolvedRelation":
        return  # INSERT INTO IDENTIFIER(...): resolved later, by Spark
    target = _target(jvm, catalogs, _strings(jvm, plan.table().multipartIdentifier()))
    if target is None:
        return
    catalog, database, name = target
    client = catalogs[catalog]
    try:
        table = client.get_table(database, name)
    except NoSuchObject:
        return  # Spark reports the missing table
    if not table.partition_keys:
        return
    clause: dict[str, str | None] = {}
    spec = jvm.java_map(plan.partitionSpec())
    for key in spec.keySet():
        value = spec.get(key)
        clause[str(key)] = str(value.get()) if value.isDefined() else None
    settings = DynamicPartitionSettings.from_conf(
        lambda key: _optional(jvm.sql_conf.getConfString(key, None)))
    check_partition_clause(table.qualified_name, table.partition_spec.names, clause, settings)


def _strings(jvm: Jvm, seq: Any) -> list[str]:
    return [str(s) for s in jvm.java_list(seq)]


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def _target(jvm: Jvm, catalogs: dict[str, MetastoreClient],
            parts: list[str]) -> tuple[str, str, str] | None:
    """The hms catalog, database and table a statement names, if it names one."""
    if len(parts) == 3 and parts[0] in catalogs:
        return parts[0], parts[1], parts[2]
    manager = jvm.jsession.sessionState().catalogManager()
    current = str(manager.currentCatalog().name())
    if current not in catalogs or len(parts) > 2:
        return None
    if len(parts) == 2:
        return current, parts[0], parts[1]
    namespace = list(manager.currentNamespace())
    return (current, str(namespace[0]), parts[0]) if len(namespace) == 1 else None


def show_partitions(jvm: Jvm, catalogs: dict[str, MetastoreClient], text: str) -> Any:
    """``SHOW PARTITIONS`` of a partitioned hms table, as the built-in catalog answers it: the
    partition names the metastore stores, so that the default partition reads
    ``k=__HIVE_DEFAULT_PARTITION__`` for every column type (Spark's answer for catalog plugins
    casts each value to a string and prints NULL as ``null``, which a string partition
    ``'null'`` also prints). ``None`` leaves the statement to Spark: other catalogs, missing or
    unpartitioned tables, a PARTITION clause it should judge."""
    try:
        plan = jvm.jsession.sessionState().sqlParser().parsePlan(text)
    except Py4JJavaError:
        return None
    if str(plan.getClass().getSimpleName()) != "ShowPartitions":
        return None
    target = _target(jvm, catalogs, _strings(jvm, plan.child().multipartIdentifier()))
    if target is None:
        return None
    catalog, database, name = target
    try:
        table = catalogs[catalog].get_table(database, name)
    except NoSuchObject:
        return None
    spec = table.partition_spec
    if not spec.names:
        return None
    wanted: dict[str, str] = {}
    if plan.pattern().isDefined():
        given = jvm.java_map(plan.pattern().get().spec())
        for key in given.keySet():
            column, value = str(key).lower(), given.get(key)
            if column not in spec.names or value is None:
                return None
            hive_type = spec.column(column).type
            try:
                wanted[column] = format_value(parse_value(str(value), hive_type), hive_type) \
                    or DEFAULT_PARTITION_NAME
            except InvalidPartitionValue:
                return None
    names = catalogs[catalog].list_partition_names(database, name)
    rows = [(n,) for n in names
            if all(dict(parse_part_name(n)).get(k) == v for k, v in wanted.items())]
    return jvm.spark.createDataFrame(rows, "partition STRING")


def repair(jvm: Jvm, catalogs: dict[str, MetastoreClient], text: str) -> bool:
    """Run ``text`` if it is ``MSCK REPAIR TABLE`` or ``ALTER TABLE ... RECOVER PARTITIONS``
    of an existing hms table; ``False`` leaves the statement to Spark (other catalogs, a
    missing table: Spark then reports it as for its own tables).

    Raises:
        AnalysisException: ``NOT_A_PARTITIONED_TABLE``, as Spark raises for its own tables.
    """
    try:
        plan = jvm.jsession.sessionState().sqlParser().parsePlan(text)
    except Py4JJavaError:
        return False
    kind = str(plan.getClass().getSimpleName())
    command = _COMMANDS.get(kind)
    if command is None:
        return False
    target = _target(jvm, catalogs, _strings(jvm, plan.child().multipartIdentifier()))
    if target is None:
        return False
    catalog, database, name = target
    client = catalogs[catalog]
    try:
        table = client.get_table(database, name)
    except NoSuchObject:
        return False
    qualified = quoted(catalog, database, name)
    if not table.partition_keys:
        error = jvm.cls("org.apache.spark.sql.AnalysisException")(
            "NOT_A_PARTITIONED_TABLE",
            jvm.scala_map({"operation": command, "tableIdentWithDB": qualified}))
        raise convert_exception(error)
    add, drop = ((bool(plan.enableAddPartitions()), bool(plan.enableDropPartitions()))
                 if kind == "RepairTable" else (True, False))
    from hmscatalog.spark.attach import storage_options  # attach imports this module

    repair_table(client, table, add=add, drop=drop,
                 storage_options=storage_options(jvm.spark, catalog))
    jvm.spark.catalog.refreshTable(qualified)  # as Spark does: cached data is stale now
    return True
