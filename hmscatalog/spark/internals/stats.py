"""Statistics as Spark computes them for ``ANALYZE TABLE``: the bytes under a table's
locations (``CommandUtils.calculateMultipleLocationSizes``) and column statistics
(``CommandUtils.computeColumnStats``), with the property names its Hive catalog stores them
under (``CatalogColumnStat.toMap``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

COMMAND_UTILS = "org.apache.spark.sql.execution.command.CommandUtils"


def location_sizes(jvm: Jvm, name: str, locations: Sequence[str | None]) -> list[int]:
    """Bytes of the data files under each location, as Spark measures a table for ANALYZE
    TABLE (``CommandUtils.calculateMultipleLocationSizes``: names starting with ``_`` or ``.``
    and Hive's staging directories do not count); ``name`` is the table's, for Spark's log."""
    utils = jvm.scala_object(COMMAND_UTILS)
    # As Spark reads a stored location (CatalogUtils.stringToURI): a Hadoop path, whose URI
    # escapes what a directory name may hold unescaped (``part key=1``).
    path = jvm.cls("org.apache.hadoop.fs.Path")
    paths = [jvm.none() if loc is None else jvm.some(path(loc).toUri()) for loc in locations]
    identifier = jvm.scala_object("org.apache.spark.sql.catalyst.TableIdentifier").apply(name)
    sizes = utils.calculateMultipleLocationSizes(jvm.jsession, identifier, jvm.seq(paths))
    return [int(str(sizes.apply(i))) for i in range(sizes.size())]


class UnanalyzableColumn(Exception):
    """A column ANALYZE cannot compute statistics of (its name, its type)."""


def column_statistics(jvm: Jvm, table: str, columns: Sequence[str] | None
                      ) -> tuple[int, dict[str, str]]:
    """Row count and column statistics of the table ``table`` (a quoted multi-part name) for
    ``columns`` (``None``: all), as ``ANALYZE TABLE ... FOR COLUMNS`` computes them; the
    statistics as the properties Spark stores, without the ``spark.sql.statistics.colStats.``
    prefix (``<column>.min``, ``<column>.distinctCount``...).

    Raises:
        UnanalyzableColumn: a column whose type Spark collects no statistics for.
        KeyError: a column the table does not have.
    """
    relation = jvm.jsession.table(table).logicalPlan()
    output = jvm.seq_elements(relation.output())
    by_name = {str(attr.name()).lower(): attr for attr in output}
    chosen = list(by_name.values()) if columns is None else [by_name[c.lower()]
                                                               for c in columns]
    for attr in chosen:
        if not _supported(str(attr.dataType().typeName())):
            raise UnanalyzableColumn(str(attr.name()), str(attr.dataType().catalogString()))
    result = jvm.scala_object(COMMAND_UTILS).computeColumnStats(
        jvm.jsession, relation, jvm.seq(chosen))
    stats = jvm.java_map(result._2())
    properties: dict[str, str] = {}
    for attr in chosen:
        name = str(attr.name())
        catalog_stat = stats.get(attr).toCatalogColumnStat(name, attr.dataType())
        properties.update(jvm.to_dict(jvm.java_map(catalog_stat.toMap(name))))
    return int(str(result._1())), properties


# The types AnalyzeColumnCommand collects statistics for (its supportsType): numbers, dates,
# timestamps, booleans, strings and binary.
_SUPPORTED = ("integer", "long", "short", "byte", "double", "float", "date", "timestamp",
              "timestamp_ntz", "boolean", "string", "binary")


def _supported(type_name: str) -> bool:
    return type_name in _SUPPORTED or type_name.startswith(("decimal", "char", "varchar"))
