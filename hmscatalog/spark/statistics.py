"""Size and row-count estimates a scan reports to Spark's optimizer before it reads.

A scan whose partitions are chosen while the query is planned reports the size of their files,
as Spark's own file scans do. A scan that waits for the runtime values of a join (see
:class:`hmscatalog.spark.scan.HmsScan`) has no files yet; it reports the table's statistics from
the metastore, read as Spark's built-in Hive catalog reads them
(``HiveClientImpl.readHiveStats`` and the ``spark.sql.statistics.*`` properties it writes), or
nothing, which Spark takes as ``spark.sql.defaultSizeInBytes`` ("too large to broadcast").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from hmscatalog.metastore.model import SPARK_NUM_ROWS, SPARK_TOTAL_SIZE
from hmscatalog.spark.jvm import JavaProxy, Jvm

READ = "org.apache.spark.sql.connector.read"


class TableStatistics(NamedTuple):
    """Bytes and rows of a table; ``None`` where the metastore does not know."""

    size: int | None
    rows: int | None


def _number(parameters: Mapping[str, str], key: str) -> int | None:
    try:
        return int(parameters[key])
    except (KeyError, ValueError):
        return None


def table_statistics(parameters: Mapping[str, str]) -> TableStatistics:
    """The statistics in a table's parameters, with the built-in catalog's precedence: Spark's
    own (``spark.sql.statistics.totalSize``/``numRows``, written by ``ANALYZE TABLE``) over
    Hive's; of Hive's, ``totalSize`` if above zero, else ``rawDataSize`` if above zero (an
    external table's ``totalSize`` is zero), with ``numRows`` only if above zero (Hive writes
    zeros when it gathers no statistics)."""
    spark_size = _number(parameters, SPARK_TOTAL_SIZE)
    if spark_size is not None:
        return TableStatistics(spark_size, _number(parameters, SPARK_NUM_ROWS))
    rows = _number(parameters, "numRows")
    rows = rows if rows is not None and rows > 0 else None
    for key in ("totalSize", "rawDataSize"):
        size = _number(parameters, key)
        if size is not None and size > 0:
            return TableStatistics(size, rows)
    return TableStatistics(None, None)


class Statistics(JavaProxy):
    """A ``Statistics`` of known or unknown size and row count."""

    class Java:
        implements = [f"{READ}.Statistics"]

    def __init__(self, jvm: Jvm, known: TableStatistics) -> None:
        self._jvm = jvm
        self._known = known

    def _optional(self, value: int | None) -> Any:
        optional = self._jvm.cls("java.util.OptionalLong")
        return optional.empty() if value is None else optional.of(value)

    def sizeInBytes(self) -> Any:
        return self._optional(self._known.size)

    def numRows(self) -> Any:
        return self._optional(self._known.rows)

    def columnStats(self) -> Any:
        return self._jvm.hash_map({})
