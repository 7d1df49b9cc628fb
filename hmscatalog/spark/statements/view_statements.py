"""CREATE VIEW, ALTER VIEW ... AS, DROP VIEW, SHOW VIEWS and DESCRIBE of views in an hms
catalog, answered from the analyzer rule (:mod:`hmscatalog.spark.session.hooks`) the same way
on every supported Spark (4.0 and 4.1 have no view statements for catalog plugins).

A view is stored as Spark's built-in catalog stores one, so that each catalog reads what the
other made: a ``VIRTUAL_VIEW`` whose original and expanded texts are the query as written, its
columns typed by the analyzed query, and Spark's properties: the catalog and namespace the text
is resolved in (``view.catalogAndNamespace.*``; ``spark_catalog`` for the metastore's own
catalog, as the built-in records it, whatever the hms catalog's name), the query's output names
(``view.query.out.*``), the session's SQL settings that change what a query means
(``view.sqlConfig.*``), and ``spark.sql.create.version``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection
from typing import Any

from hmscatalog.errors import NoSuchObject
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import VIRTUAL_VIEW, Column, Storage, Table
from hmscatalog.spark.bridge.jvm import Jvm, quoted
from hmscatalog.spark.bridge.plugin import REGISTRY_CLASS
from hmscatalog.spark.internals import plans
from hmscatalog.spark.statements.describe import Row
from hmscatalog.spark.statements.views import SESSION_CATALOG

VIEW_PLANS = "io.hmscatalog.spark.ViewPlans"

# SQL settings a view does not keep: they change how, not what, a query computes (Spark's list),
# and those it always keeps, whose defaults depend on the machine or the release.
_NOT_CAPTURED = ("spark.sql.view.maxNestedViewDepth", "spark.sql.optimizer.",
                 "spark.sql.codegen.", "spark.sql.execution.", "spark.sql.shuffle.",
                 "spark.sql.adaptive.", "spark.sql.hive.convertMetastoreParquet",
                 "spark.sql.hive.convertMetastoreOrc",
                 "spark.sql.hive.convertInsertingPartitionedTable",
                 "spark.sql.hive.convertInsertingUnpartitionedTable",
                 "spark.sql.hive.convertMetastoreCtas",
                 "spark.sql.maven.additionalRemoteRepositories")
_ALWAYS_CAPTURED = ("spark.sql.session.timeZone", "spark.sql.ansi.enabled")
# How Hive and the built-in catalog store a view's (unused) storage.
_VIEW_STORAGE = Storage(location=None,
                        input_format="org.apache.hadoop.mapred.SequenceFileInputFormat",
                        output_format="org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat",
                        serde="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                        serde_parameters={"serialization.format": "1"})
SHOW_VIEWS_COLUMNS = "namespace STRING, viewName STRING, isTemporary BOOLEAN"


def _existing(client: MetastoreClient, database: str, name: str) -> Table | None:
    try:
        return client.get_table(database, name)
    except NoSuchObject:
        return None


def _wrong_type(jvm: Jvm, operation: str, qualified: str, found: Table) -> None:
    view = found.table_type == VIRTUAL_VIEW
    jvm.throw(plans.analysis_error(jvm, "WRONG_COMMAND_FOR_OBJECT_TYPE", {
        "operation": operation, "requiredType": "TABLE" if view else "VIEW",
        "objectName": qualified, "foundType": "VIEW" if view else "TABLE",
        "alternative": "DROP VIEW" if view else "DROP TABLE"}))


def create_view(jvm: Jvm, session: Any, client: MetastoreClient, catalog: str, database: str,
                name: str, command: Any, this_metastore: Collection[str] = ()) -> None:
    """CREATE [OR REPLACE] VIEW [IF NOT EXISTS] and ALTER VIEW ... AS on an hms view;
    ``this_metastore``: the catalogs that are the view's metastore (``catalog`` and any other
    hms catalog on it), recorded as ``spark_catalog`` when the text is resolved in one."""
    qualified = quoted(catalog, database, name)
    altering = plans.kind(command) == "AlterViewAs"
    existing = _existing(client, database, name)
    if existing is not None and existing.table_type != VIRTUAL_VIEW and (
            altering or command.replace()):
        jvm.throw(plans.analysis_error(jvm, "EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE", {
            "tableName": qualified,
            "operation": "ALTER VIEW ... AS" if altering else "CREATE OR REPLACE VIEW"}))
    if altering and existing is None:
        jvm.analysis_error("NoSuchTableException", jvm.identifier([database], name))
    if not altering and existing is not None and not command.replace():
        if command.allowExisting():
            return
        jvm.throw(plans.analysis_error(jvm, "TABLE_OR_VIEW_ALREADY_EXISTS",
                                       {"relationName": qualified}))
    text = str(command.originalText()) if altering else (
        str(command.originalText().get()) if command.originalText().isDefined() else None)
    if not text:
        jvm.unsupported(f"hms cannot create view {qualified} without its SQL text "
                        "(a view made from a DataFrame)")
    analyzed = plans.analyzed(session, text)  # the text as it is stored
    temporary = list(jvm.cls(VIEW_PLANS).temporaryViews(analyzed))
    if temporary:
        jvm.throw(plans.analysis_error(jvm, "INVALID_TEMP_OBJ_REFERENCE", {
            "obj": "VIEW", "objName": qualified, "tempObj": "VIEW",
            "tempObjName": temporary[0]}))
    fields = list(analyzed.schema().fields())
    out_names = [str(f.name()) for f in fields]
    comments: list[str | None] = [None for _ in fields]
    names = out_names
    if not altering:
        given = [(str(pair._1()), str(pair._2().get()) if pair._2().isDefined() else None)
                 for pair in jvm.seq_elements(command.userSpecifiedColumns())]
        if given:
            if len(given) != len(fields):
                reason = ("NOT_ENOUGH_DATA_COLUMNS" if len(given) > len(fields)
                          else "TOO_MANY_DATA_COLUMNS")
                jvm.throw(plans.analysis_error(
                    jvm, f"CREATE_VIEW_COLUMN_ARITY_MISMATCH.{reason}", {
                        "viewName": qualified,
                        "viewColumns": ", ".join(quoted(n) for n, _ in given),
                        "dataColumns": ", ".join(quoted(n) for n in out_names)}))
            names, comments = [n for n, _ in given], [c for _, c in given]
    columns = tuple(Column(n, jvm.hive_type(f.dataType()), c)
                    for n, f, c in zip(names, fields, comments, strict=True))
    renamed = []
    for n, f, c in zip(names, fields, comments, strict=True):
        field = f.copy(n, f.dataType(), f.nullable(), f.metadata())
        renamed.append(field.withComment(c) if c is not None else field)
    schema = jvm.cls("org.apache.spark.sql.types.StructType")(
        jvm.array(jvm.cls("org.apache.spark.sql.types.StructField"), renamed))
    parameters: dict[str, str] = {}
    if altering and existing is not None:  # ALTER VIEW ... AS keeps the view's own properties
        parameters = {k: v for k, v in existing.parameters.items() if not _spark_view_key(k)}
    else:
        parameters.update(jvm.to_dict(jvm.java_map(command.properties())))
        if command.comment().isDefined():
            parameters["comment"] = str(command.comment().get())
        parameters["view.schemaMode"] = str(command.viewSchemaMode().toString())
    parameters.update(_view_properties(jvm, session, out_names, {catalog, *this_metastore}))
    parameters["spark.sql.sources.schema"] = str(schema.json())
    view = Table(database=database, name=name, columns=columns, storage=_VIEW_STORAGE,
                 table_type=VIRTUAL_VIEW, parameters=parameters,
                 owner=(existing.owner if altering and existing else plans.current_user(jvm)),
                 create_time=(existing.create_time if altering and existing
                              else int(time.time())),
                 view_original_text=text, view_expanded_text=text)
    if existing is None:
        client.create_table(view)
    else:
        client.alter_table(view)
    jvm.cls(REGISTRY_CLASS).viewMade()  # the analyzer rule asks about the name again


def _spark_view_key(key: str) -> bool:
    """Whether ``key`` is one of the properties Spark writes anew for a view's query."""
    return key.startswith(("view.catalogAndNamespace.", "view.query.out.", "view.sqlConfig.",
                           "view.referredTemp", "spark.sql.sources.schema"))


def _view_properties(jvm: Jvm, session: Any, out_names: list[str],
                     this_metastore: Collection[str]) -> dict[str, str]:
    """Spark's properties of a view made now in ``session``.

    The text is resolved in the session's current catalog and namespace. When that catalog is
    the view's own metastore, it is recorded as the built-in catalog records it,
    ``spark_catalog``: the name every Spark session with Hive support has for its metastore
    (hms reads ``spark_catalog`` in a stored view as the metastore's own catalog, see
    :mod:`hmscatalog.spark.statements.views`), not the name of this session's hms catalog,
    which other sessions, and Hive, lack.
    """
    found = plans.current_catalog(session)
    current, namespace = found if found is not None else (SESSION_CATALOG, ["default"])
    if current in this_metastore:
        current = SESSION_CATALOG
    parts = [current, *namespace]
    props = {"view.catalogAndNamespace.numParts": str(len(parts)),
             "view.query.out.numCols": str(len(out_names)),
             "spark.sql.create.version": str(session.version()),
             "view.referredTempViewNames": "[]", "view.referredTempFunctionsNames": "[]",
             "view.referredTempVariablesNames": "[]"}
    props.update({f"view.catalogAndNamespace.part.{i}": p for i, p in enumerate(parts)})
    props.update({f"view.query.out.col.{i}": n for i, n in enumerate(out_names)})
    settings = plans.set_settings(jvm, session, _ALWAYS_CAPTURED)
    props.update({f"view.sqlConfig.{k}": v for k, v in settings.items()
                  if not k.startswith(_NOT_CAPTURED)})
    return props


def drop_view(jvm: Jvm, client: MetastoreClient, catalog: str, database: str, name: str,
              if_exists: bool) -> None:
    """DROP VIEW [IF EXISTS] of an hms view; a table is refused as the built-in refuses it."""
    qualified = quoted(catalog, database, name)
    existing = _existing(client, database, name)
    if existing is None:
        if not if_exists:
            jvm.analysis_error("NoSuchTableException", jvm.identifier([database], name))
        return
    if existing.table_type != VIRTUAL_VIEW:
        _wrong_type(jvm, "DROP VIEW", qualified, existing)
    client.drop_table(database, name, delete_data=False)


def refuse_drop_table_of_view(jvm: Jvm, catalog: str, view: Table) -> None:
    """DROP TABLE of a view: refused as the built-in refuses it."""
    _wrong_type(jvm, "DROP TABLE", quoted(catalog, view.database, view.name), view)


def view_dropped_as_table(jvm: Jvm, catalog: str, view: Table) -> None:
    """A catalog call that would drop a view as a table (its callers cannot throw Spark's
    analysis errors)."""
    jvm.unsupported(f"{view.qualified_name} in catalog {catalog} is a view: DROP VIEW drops it")


def show_views(jvm: Jvm, session: Any, client: MetastoreClient, database: str,
               pattern: str | None) -> list[tuple[str, str, bool]]:
    """SHOW VIEWS [IN db] [LIKE pattern]: the database's views, then the session's temporary
    views, as the built-in lists them."""
    names = client.list_views(database)
    temporary = plans.temporary_views(jvm, session, pattern or "*")
    if pattern is not None:
        names = plans.filter_pattern(jvm, names, pattern)
    return ([(database, n, False) for n in sorted(names)]
            + [("", n, True) for n in sorted(temporary)])


def describe_view(jvm: Jvm, catalog: str, view: Table, extended: bool) -> list[Row]:
    """DESCRIBE [EXTENDED] of an hms view: its columns, then (EXTENDED) what the built-in
    shows of a view's definition."""
    rows: list[Row] = [(c.name, _simple_type(jvm, c.type), c.comment) for c in view.columns]
    if not extended:
        return rows
    props = view.parameters
    count = int(props.get("view.catalogAndNamespace.numParts", "0") or 0)
    context = [props.get(f"view.catalogAndNamespace.part.{i}", "") for i in range(count)]
    outputs = int(props.get("view.query.out.numCols", "0") or 0)
    out_names = [props.get(f"view.query.out.col.{i}", "") for i in range(outputs)]
    rows += [("", "", ""), ("# Detailed Table Information", "", ""),
             ("Catalog", catalog, ""), ("Database", view.database, ""),
             ("Table", view.name, ""), ("Owner", view.owner or "", ""), ("Type", "VIEW", "")]
    if "comment" in props:
        rows.append(("Comment", props["comment"], ""))
    rows += [("View Text", view.view_expanded_text or "", ""),
             ("View Original Text", view.view_original_text or "", "")]
    if context:
        rows.append(("View Catalog and Namespace", ".".join(map(_quote_if_needed, context)),
                     ""))
    if out_names:
        rows.append(("View Query Output Columns",
                     "[" + ", ".join(quoted(n) for n in out_names) + "]", ""))
    shown = sorted((k, v) for k, v in props.items()
                   if not _spark_view_key(k) and k not in ("comment", "transient_lastDdlTime"))
    rows.append(("Table Properties", "[" + ", ".join(f"{k}={v}" for k, v in shown) + "]", ""))
    return rows


def _quote_if_needed(part: str) -> str:
    """A name part as Spark prints it in a multi-part name: bare when it is a plain word."""
    if re.fullmatch(r"[A-Za-z0-9_]+", part) and not part.isdigit():
        return part
    return quoted(part)


def _simple_type(jvm: Jvm, hive_type: str) -> str:
    return str(jvm.cls("org.apache.spark.sql.types.DataType").fromDDL(hive_type).simpleString())
