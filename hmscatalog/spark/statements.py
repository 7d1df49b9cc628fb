"""Checks on INSERT statements into hms tables that Spark's catalog API cannot see.

Spark hands a catalog the rows of ``INSERT INTO t PARTITION (dt='x', hr) SELECT ...`` with the
static values already folded into them, so whether a column was static or dynamic, on which
Hive's rules depend, is lost. :func:`install` therefore wraps the session's ``sql`` method: an
INSERT into a table of an attached hms catalog is parsed (by Spark's own parser) and its
PARTITION clause checked against Hive's rules before it runs. Writes through the DataFrame API
(``df.writeTo(...).append()``) have no PARTITION clause and are not checked.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from py4j.protocol import Py4JJavaError

from hmscatalog.errors import NoSuchObject
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.spark.jvm import Jvm
from hmscatalog.write.rules import DynamicPartitionSettings, check_partition_clause

_INSERT = re.compile(r"\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*insert\b",
                     re.IGNORECASE | re.DOTALL)  # after leading comments
_CATALOGS = "_hmscatalog_catalogs"


def install(spark: Any, jvm: Jvm, name: str, client: MetastoreClient) -> None:
    """Check INSERT statements run through ``spark.sql`` against catalog ``name``'s tables."""
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
        if isinstance(sqlQuery, str) and _INSERT.match(sqlQuery):
            check_insert(jvm, catalogs, sqlQuery)
        return run(sqlQuery, *args, **kwargs)

    return sql


def check_insert(jvm: Jvm, catalogs: dict[str, MetastoreClient], text: str) -> None:
    """Raise :class:`~hmscatalog.errors.DynamicPartitionError` if ``text`` is an INSERT into an
    hms table whose PARTITION clause breaks Hive's rules. Anything else passes unchecked (Spark
    reports its own errors when it runs the statement)."""
    try:
        plan = jvm.jsession.sessionState().sqlParser().parsePlan(text)
    except Py4JJavaError:
        return
    if str(plan.getClass().getSimpleName()) != "InsertIntoStatement":
        return
    target = _target(jvm, catalogs, [str(p) for p in _strings(
        jvm, plan.table().multipartIdentifier())])
    if target is None:
        return
    client, database, name = target
    try:
        table = client.get_table(database, name)
    except NoSuchObject:
        return  # Spark reports the missing table
    if not table.partition_keys:
        return
    clause: dict[str, str | None] = {}
    spec = jvm.cls("scala.jdk.javaapi.CollectionConverters").asJava(plan.partitionSpec())
    for key in spec.keySet():
        value = spec.get(key)
        clause[str(key)] = str(value.get()) if value.isDefined() else None
    settings = DynamicPartitionSettings.from_conf(
        lambda key: _optional(jvm.sql_conf.getConfString(key, None)))
    check_partition_clause(table.qualified_name, table.partition_spec.names, clause, settings)


def _strings(jvm: Jvm, seq: Any) -> list[str]:
    return [str(s) for s in jvm.cls("scala.jdk.javaapi.CollectionConverters").asJava(seq)]


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def _target(jvm: Jvm, catalogs: dict[str, MetastoreClient],
            parts: list[str]) -> tuple[MetastoreClient, str, str] | None:
    """The hms catalog, database and table an INSERT names, if it names one."""
    if len(parts) == 3 and parts[0] in catalogs:
        return catalogs[parts[0]], parts[1], parts[2]
    manager = jvm.jsession.sessionState().catalogManager()
    current = str(manager.currentCatalog().name())
    if current not in catalogs or len(parts) > 2:
        return None
    if len(parts) == 2:
        return catalogs[current], parts[0], parts[1]
    namespace = list(manager.currentNamespace())
    return (catalogs[current], str(namespace[0]), parts[0]) if len(namespace) == 1 else None
