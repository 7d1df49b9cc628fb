"""The analyzer's view of statements, for the plugin's rule (:mod:`hmscatalog.spark.session.hooks`):
parsed plan nodes (``InsertIntoStatement``, ``RepairTable``, ``RecoverPartitions``,
``ShowPartitions``, ``DescribeRelation``, ``DropPartitions``, whose fields are Catalyst's, not
API), the session's parser and catalog manager, local relations, and ``AnalysisException`` with
an error condition.

Plan nodes are told apart by class name, here and in the Java rule. Checked in Spark 4.0 to 4.3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JError, Py4JJavaError

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

ANALYSIS_EXCEPTION = "org.apache.spark.sql.AnalysisException"


def kind(node: Any) -> str:
    """The plan node's class name (``InsertIntoStatement``, ``RepairTable``...)."""
    return str(node.getClass().getSimpleName())


def named_table(jvm: Jvm, node: Any) -> list[str] | None:
    """The multi-part name of the table an INSERT (``table``) or a command (``child``) names,
    while it is unresolved; ``None`` when it is not a name (``IDENTIFIER(...)``)."""
    target = node.table() if kind(node) == "InsertIntoStatement" else node.child()
    if kind(target) == "UnresolvedIdentifier":  # CREATE VIEW, DROP VIEW
        return [str(part) for part in jvm.seq_elements(target.nameParts())]
    if kind(target) not in ("UnresolvedRelation", "UnresolvedTable", "UnresolvedTableOrView",
                            "UnresolvedView"):
        return None
    return [str(part) for part in jvm.seq_elements(target.multipartIdentifier())]


def named_namespace(jvm: Jvm, node: Any) -> list[str] | None:
    """The multi-part name of a namespace a command names (``UnresolvedNamespace``), ``[]``
    for the current one; ``None`` for anything else."""
    if kind(node) == "CurrentNamespace":
        return []
    if kind(node) != "UnresolvedNamespace":
        return None
    return [str(part) for part in jvm.seq_elements(node.multipartIdentifier())]


def partition_clause(jvm: Jvm, insert: Any) -> dict[str, str | None]:
    """An INSERT's (or ANALYZE TABLE's) PARTITION clause: column → static value, ``None`` for
    a dynamic column (one without a value)."""
    spec = jvm.java_map(insert.partitionSpec())
    return {str(key): (str(spec.get(key).get()) if spec.get(key).isDefined() else None)
            for key in jvm.elements(spec.keySet())}


def static_values(jvm: Jvm, insert: Any) -> dict[str, str | None]:
    """The static columns of an INSERT's PARTITION clause: column → value as written, ``None``
    for NULL (``PARTITION (p = NULL)``)."""
    spec = jvm.java_map(insert.partitionSpec())
    found: dict[str, str | None] = {}
    for key in jvm.elements(spec.keySet()):
        value = spec.get(key)
        if value.isDefined():
            text = value.get()
            found[str(key)] = None if text is None else str(text)
    return found


def if_partition_not_exists(insert: Any) -> bool:
    """Whether an ``InsertIntoStatement`` has IF NOT EXISTS (only an OVERWRITE parses with
    it)."""
    return bool(insert.ifPartitionNotExists())


def table_options(jvm: Jvm, insert: Any) -> dict[str, str]:
    """The options of an INSERT's table while it is an ``UnresolvedRelation`` (``INSERT INTO t
    WITH (...)``, which Spark hands the write builder), else none."""
    table = insert.table()
    if kind(table) != "UnresolvedRelation":
        return {}
    return jvm.to_dict(table.options().asCaseSensitiveMap())


def insert_with_options(jvm: Jvm, insert: Any, options: Mapping[str, str]) -> Any:
    """A copy of an ``InsertIntoStatement`` whose table (an ``UnresolvedRelation``) carries
    ``options`` besides its own, without IF NOT EXISTS; ``None`` when the table is not an
    ``UnresolvedRelation``. Fields are replaced by name (``TreeNode.makeCopy`` with the node's
    own fields), since the statement's constructor grew between Spark versions."""
    table = insert.table()
    if kind(table) != "UnresolvedRelation":
        return None
    merged = jvm.cls("java.util.HashMap")(table.options().asCaseSensitiveMap())
    for key, value in options.items():
        merged.put(key, value)
    options_map = jvm.cls("org.apache.spark.sql.util.CaseInsensitiveStringMap")(merged)
    relation = _with_fields(jvm, table, {"options": options_map})
    return _with_fields(jvm, insert, {"table": relation, "ifPartitionNotExists": False})


def _with_fields(jvm: Jvm, node: Any, fields: Mapping[str, Any]) -> Any:
    """A copy of the case-class plan node ``node`` with the fields ``fields`` (by name)."""
    arguments = []
    for index in range(node.productArity()):
        name = str(node.productElementName(index))
        arguments.append(fields[name] if name in fields else node.productElement(index))
    return node.makeCopy(jvm.array(jvm.cls("java.lang.Object"), arguments))


def analyzed_columns(jvm: Jvm, node: Any) -> list[str] | None:
    """The columns of ``ANALYZE TABLE ... FOR COLUMNS a, b``; ``None`` for FOR ALL COLUMNS."""
    if bool(node.allColumns()) or not node.columnNames().isDefined():
        return None
    return [str(name) for name in jvm.seq_elements(node.columnNames().get())]


def repair_flags(node: Any) -> tuple[bool, bool]:
    """Whether MSCK adds and drops partitions (``RecoverPartitions`` only adds)."""
    if kind(node) == "RepairTable":
        return bool(node.enableAddPartitions()), bool(node.enableDropPartitions())
    return True, False


def shown_partition(jvm: Jvm, show: Any) -> dict[str, str | None] | None:
    """The PARTITION clause of ``SHOW PARTITIONS``, ``None`` when it has none."""
    if not show.pattern().isDefined():
        return None
    given = jvm.java_map(show.pattern().get().spec())
    return {str(key): (None if given.get(key) is None else str(given.get(key)))
            for key in jvm.elements(given.keySet())}


def dropped_partitions(jvm: Jvm, drop: Any) -> list[dict[str, str | None]]:
    """The PARTITION clauses of ``ALTER TABLE ... DROP PARTITION`` (``DropPartitions``, still
    unresolved): column → value as written, ``None`` for NULL."""
    clauses = []
    for part in jvm.seq_elements(drop.parts()):
        given = jvm.java_map(part.spec())
        clauses.append({str(key): (None if given.get(key) is None else str(given.get(key)))
                        for key in jvm.elements(given.keySet())})
    return clauses


def described_partition(jvm: Jvm, describe: Any) -> dict[str, str]:
    """The PARTITION clause of ``DESCRIBE TABLE``, empty when it has none (or when the node
    does not hold it: from Spark 4.2 on, Spark describes a partition of any catalog itself)."""
    try:
        spec = describe.partitionSpec()
    except Py4JError:
        return {}
    given = jvm.java_map(spec)
    return {str(key): str(given.get(key)) for key in jvm.elements(given.keySet())}


def parse(session: Any, sql: str) -> Any:
    """The session parser's unresolved plan of ``sql``."""
    return session.sessionState().sqlParser().parsePlan(sql)


def conf_value(session: Any, key: str) -> str | None:
    value = session.sessionState().conf().getConfString(key, None)
    return None if value is None else str(value)


def current_catalog(session: Any) -> tuple[str, list[str]] | None:
    """The session's current catalog and namespace (``USE``), ``None`` if it cannot load."""
    manager = session.sessionState().catalogManager()
    try:
        return str(manager.currentCatalog().name()), [str(p) for p in manager.currentNamespace()]
    except Py4JJavaError:
        return None


def is_temporary_view(jvm: Jvm, session: Any, parts: Sequence[str]) -> bool:
    """Whether ``parts`` names a temporary view of the session (or a global one)."""
    return bool(session.sessionState().catalog().isTempView(jvm.seq(list(parts))))


def analyzed(session: Any, sql: str) -> Any:
    """The analyzed plan of the query ``sql`` (analysis errors are Spark's own)."""
    return session.sql(sql).queryExecution().analyzed()


def set_settings(jvm: Jvm, session: Any, always: Sequence[str]) -> dict[str, str]:
    """The session's SQL settings that can change per session and were set, with ``always``
    whether set or not (their current values)."""
    conf = session.sessionState().conf()
    settings = jvm.to_dict(jvm.java_map(conf.getAllConfs()))
    settings.update({key: str(conf.getConfString(key)) for key in always})
    return {k: v for k, v in settings.items() if conf.isModifiable(k)}


def temporary_views(jvm: Jvm, session: Any, pattern: str) -> list[str]:
    """The names of the session's (local) temporary views matching a SHOW-style pattern."""
    found = session.sessionState().catalog().listLocalTempViews(pattern)
    return [str(ident.table()) for ident in jvm.seq_elements(found)]


def filter_pattern(jvm: Jvm, names: Sequence[str], pattern: str) -> list[str]:
    """``names`` that match a SHOW-style pattern (``*`` any text, ``|`` alternatives), as Spark
    matches them."""
    utils = jvm.cls("org.apache.spark.sql.catalyst.util.StringUtils")
    return [str(n) for n in jvm.seq_elements(
        utils.filterPattern(jvm.seq(list(names)), pattern))]


def current_user(jvm: Jvm) -> str:
    """The user Spark names as a new object's owner."""
    return str(jvm.cls("org.apache.spark.util.Utils").getCurrentUserName())


def local_relation(jvm: Jvm, schema: str, values: Sequence[Sequence[Any]]) -> Any:
    """A logical plan (a ``LocalRelation``) of the rows ``values``, whose columns the DDL
    ``schema`` gives (``""``: none)."""
    rows = jvm.cls("java.util.ArrayList")()
    row = jvm.cls("org.apache.spark.sql.RowFactory")
    for value in values:
        rows.add(row.create(jvm.array(jvm.cls("java.lang.Object"), list(value))))
    struct = jvm.cls("org.apache.spark.sql.types.StructType")
    return jvm.jsession.createDataFrame(rows, struct.fromDDL(schema) if schema else struct()
                                        ).logicalPlan()


def analysis_error(jvm: Jvm, condition: str, parameters: Mapping[str, str]) -> Any:
    """``AnalysisException(condition, parameters)``, as Spark raises its own."""
    return jvm.cls(ANALYSIS_EXCEPTION)(condition, jvm.scala_map(dict(parameters)))
