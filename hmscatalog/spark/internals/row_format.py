"""``ROW FORMAT DELIMITED ... NULL DEFINED AS '<text>'`` of a CREATE TABLE, which Spark's parser
reads and then drops (``AstBuilder.visitRowFormatDelimited`` keeps the other delimiters as SerDe
properties, and no catalog ever sees the NULL text). Hive stores it as the SerDe property
``serialization.null.format``: here the text is taken from the statement (by Spark's own lexer,
``SqlBaseLexer``, and unescaped as Spark unescapes string literals) and put into the parsed
plan's ``SerdeInfo``, which Spark hands the catalog as ``option.serialization.null.format``.

Plan nodes: ``CreateTable``, ``CreateTableAsSelect``, ``ReplaceTable`` and
``ReplaceTableAsSelect`` (``name``, ``tableSpec``, ``query`` of the AS SELECT forms; their
``origin`` gives the statement's text and position), ``UnresolvedTableSpec`` (one element is
the ``Option[SerdeInfo]``) and ``SerdeInfo``; nodes are rebuilt by ``TreeNode.makeCopy`` from
their elements, whatever their number. Checked in Spark 4.0 to 4.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from py4j.java_gateway import JavaObject

from hmscatalog.spark.internals.plans import kind

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

NULL_FORMAT = "serialization.null.format"
CREATES = frozenset({"CreateTable", "CreateTableAsSelect", "ReplaceTable",
                     "ReplaceTableAsSelect"})
_PARSER = "org.apache.spark.sql.catalyst.parser"
_SERDE_INFO = "org.apache.spark.sql.catalyst.plans.logical.SerdeInfo"


def created_name(jvm: Jvm, node: Any) -> list[str] | None:
    """The multi-part name of the table a CREATE/REPLACE TABLE names, while unresolved."""
    name = node.name()
    if kind(name) != "UnresolvedIdentifier":
        return None
    return [str(part) for part in jvm.seq_elements(name.nameParts())]


def _statement_text(node: Any) -> str | None:
    """The text of the statement that ``node`` was parsed from, up to its AS SELECT query."""
    origin = node.origin()
    text, start, stop = origin.sqlText(), origin.startIndex(), origin.stopIndex()
    if not (text.isDefined() and start.isDefined() and stop.isDefined()):
        return None
    end = int(stop.get()) + 1
    if kind(node).endswith("AsSelect"):  # a TRANSFORM in the query has a ROW FORMAT too
        query_start = node.query().origin().startIndex()
        if query_start.isDefined():
            end = min(end, int(query_start.get()))
    return str(text.get())[int(start.get()):end]


def null_defined_as(jvm: Jvm, node: Any) -> str | None:
    """The text of the statement's ``NULL DEFINED AS`` clause, ``None`` without one."""
    text = _statement_text(node)
    if text is None or "defined" not in text.lower():
        return None
    streams = jvm.cls("org.antlr.v4.runtime.CharStreams")
    lexer = jvm.cls(f"{_PARSER}.SqlBaseLexer")(
        jvm.cls(f"{_PARSER}.UpperCaseCharStream")(streams.fromString(text)))
    tokens = [token for token in lexer.getAllTokens()
              if token.getChannel() == 0]  # not spaces nor comments
    words = [str(token.getText()).upper() for token in tokens]
    for at in range(len(words) - 3):
        if words[at:at + 3] == ["NULL", "DEFINED", "AS"]:
            utils = jvm.scala_object("org.apache.spark.sql.catalyst.util.SparkParserUtils")
            return str(utils.string(tokens[at + 3]))
    return None


def _class_name(element: Any) -> str:
    """The Java class name of a node's element (``""`` for one py4j made a Python value)."""
    return str(element.getClass().getName()) if isinstance(element, JavaObject) else ""


def _with_element(jvm: Jvm, node: Any, at: int, value: Any) -> Any:
    """``node`` (a ``TreeNode``) with its ``at``-th constructor argument replaced."""
    elements = [value if i == at else node.productElement(i)
                for i in range(node.productArity())]
    return node.makeCopy(jvm.array(jvm.cls("java.lang.Object"), elements))


def with_serde_property(jvm: Jvm, node: Any, key: str, value: str) -> Any | None:
    """The CREATE/REPLACE TABLE ``node`` with SerDe property ``key`` set to ``value`` in its
    ROW FORMAT; ``None`` when it has no ROW FORMAT, or has ``key`` already."""
    spec = node.tableSpec()
    for at in range(spec.productArity()):
        element = spec.productElement(at)
        if _class_name(element) == "scala.Some" and _class_name(element.get()) == _SERDE_INFO:
            break
    else:
        return None
    serde = element.get()
    if serde.serdeProperties().contains(key):
        return None
    serde = jvm.cls(_SERDE_INFO)(serde.storedAs(), serde.formatClasses(), serde.serde(),
                                 serde.serdeProperties().updated(key, value))
    spec = _with_element(jvm, spec, at, jvm.some(serde))
    place = next(i for i in range(node.productArity())
                 if isinstance(node.productElement(i), JavaObject)
                 and node.productElement(i).equals(node.tableSpec()))
    return _with_element(jvm, node, place, spec)
