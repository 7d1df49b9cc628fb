"""Size, row-count and column estimates a scan reports to Spark's optimizer before it reads.

Statistics come from the metastore, read as Spark's built-in Hive catalog reads them
(``HiveClientImpl.readHiveStats`` and the ``spark.sql.statistics.*`` properties it writes):

* a scan of the whole table (unpartitioned, or with no partition filter) reports the table's
  size and row count; a scan whose partitions are chosen while the query is planned reports the
  sums over those partitions' statistics (each partition's ``spark.sql.statistics.*`` from
  ``ANALYZE TABLE ... PARTITION``, else Hive's ``numRows``/``totalSize``, which hms's and
  Hive's writes keep), each only when every selected partition has it. A size from the
  metastore is scaled to the columns read, as Spark's file scans scale the size of their files;
  where the metastore has no size, the file scan's own estimate (its files' size) is reported;
* the column statistics of ``ANALYZE TABLE ... FOR COLUMNS``
  (``spark.sql.statistics.colStats.<column>.<statistic>``, parsed by Spark's own
  ``CatalogColumnStat``: see ``ColumnStats.java``), for the columns the scan reads, so that
  with ``spark.sql.cbo.enabled`` the optimizer estimates filters and joins (and reorders joins)
  as it does over the built-in's tables; of a scan that reads some partitions only, their
  distinct and null counts shrink with the row count, as Spark's ``FilterEstimation`` shrinks
  them after the built-in prunes partitions.

A scan that waits for the runtime values of a join (see
:class:`hmscatalog.spark.read.runtime_scan.HmsScan`) has selected nothing
yet: it reports the table's
statistics, or nothing, which Spark takes as ``spark.sql.defaultSizeInBytes`` ("too large to
broadcast"). Like the built-in catalog, hms does not read the column statistics of Hive's own
``ANALYZE ... FOR COLUMNS`` (kept in the metastore's column statistics tables, not in
parameters): Spark's Hive client never asks for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from hmscatalog.metastore.model import SPARK_COLUMN_STATS, SPARK_NUM_ROWS, SPARK_TOTAL_SIZE
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm
from hmscatalog.spark.internals.session import conf_value

if TYPE_CHECKING:
    from hmscatalog.sources.source import Selection

READ = "org.apache.spark.sql.connector.read"
COLUMN_STATS_CLASS = "io.hmscatalog.spark.ColumnStats"
# The factor Spark's file scans multiply the size of their files by (a default of 1.0).
COMPRESSION_FACTOR = "spark.sql.sources.fileCompressionFactor"


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
    zeros when it gathers no statistics). A partition's parameters read the same way."""
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


def _sum(values: Sequence[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def selected_statistics(table: TableStatistics,
                        partitions: Sequence[Mapping[str, str] | None] | None,
                        whole: bool) -> TableStatistics:
    """Bytes and rows of what a scan reads.

    Args:
        table: the table's statistics.
        partitions: the parameters of each selected partition (``None`` for a partition the
            metastore does not hold: discovered on storage, or projected); ``None`` for an
            unpartitioned table, whose statistics are the table's.
        whole: the scan reads every partition (no partition filter): the table's statistics
            come first, the partitions' sums stand in for what the table lacks.

    Each sum is known only when every selected partition's term is.
    """
    if partitions is None:
        return table
    each = [TableStatistics(None, None) if p is None else table_statistics(p)
            for p in partitions]
    size = _sum([s.size for s in each])
    rows = _sum([s.rows for s in each])
    if whole:
        return TableStatistics(table.size if table.size is not None else size,
                               table.rows if table.rows is not None else rows)
    return TableStatistics(size, rows)


def column_properties(parameters: Mapping[str, str]) -> dict[str, str]:
    """Spark's column statistics in a table's parameters, without their prefix
    (``<column>.distinctCount``, ``<column>.version``...)."""
    return {k[len(SPARK_COLUMN_STATS):]: v for k, v in parameters.items()
            if k.startswith(SPARK_COLUMN_STATS)}


class Statistics(JavaProxy):
    """A ``Statistics`` of known or unknown size and row count, with column statistics.

    ``files`` gives the ``Statistics`` of the file scan over the selected partitions, whose
    size stands in when ``known`` has none; ``columns`` gives the
    ``Map<NamedReference, ColumnStatistics>``, asked for once, when Spark first wants it.
    """

    class Java:
        implements = [f"{READ}.Statistics"]

    def __init__(self, jvm: Jvm, known: TableStatistics,
                 columns: Callable[[], Any] | None = None,
                 files: Callable[[], Any] | None = None) -> None:
        self._jvm = jvm
        self._known = known
        self._columns = columns
        self._files = files
        self._column_map: Any = None

    def _optional(self, value: int | None) -> Any:
        optional = self._jvm.cls("java.util.OptionalLong")
        return optional.empty() if value is None else optional.of(value)

    def sizeInBytes(self) -> Any:
        if self._known.size is None and self._files is not None:
            return self._files().sizeInBytes()
        return self._optional(self._known.size)

    def numRows(self) -> Any:
        return self._optional(self._known.rows)

    def columnStats(self) -> Any:
        if self._column_map is None:
            empty = self._jvm.once("empty map", self._jvm.cls("java.util.Collections").emptyMap)
            self._column_map = empty if self._columns is None else self._columns()
        return self._column_map


class ScanStatistics:
    """What a scan of one table reports to the optimizer, for whichever partitions it reads.

    ``schema`` is the table's (a ``StructType``, data then partition columns) and ``required``
    the columns the scan reads; ``whole``: the query has no partition filter.
    """

    def __init__(self, jvm: Jvm, name: str, parameters: Mapping[str, str], schema: Any,
                 required: Any, whole: bool) -> None:
        self._jvm = jvm
        self._name = name
        self._table = table_statistics(parameters)
        self._columns = column_properties(parameters)
        self._schema = schema
        self._required = required
        self._whole = whole
        self._ratio: Fraction | None = None
        self._last: tuple[Selection | None, Statistics] | None = None

    def report(self, selection: Selection | None, files: Callable[[], Any] | None) -> Any:
        """The ``Statistics`` of a scan of ``selection`` (``None``: not selected yet, the
        table's); ``files`` gives the file scan's, for a size the metastore does not know. The
        last one made is kept: Spark asks again while it plans."""
        if self._last is not None and self._last[0] is selection:
            return self._last[1]
        if selection is None or selection.origin == "unpartitioned":
            known = self._table
        else:
            known = selected_statistics(
                self._table, [None if p.partition is None else p.partition.parameters
                              for p in selection.partitions], self._whole)
        if known.size is not None:
            known = known._replace(size=int(known.size * self._size_ratio()))
        rows = known.rows

        def columns() -> Any:
            keys = list(self._columns)
            return self._jvm.cls(COLUMN_STATS_CLASS).of(
                self._name, self._jvm.strings(keys),
                self._jvm.strings([self._columns[k] for k in keys]), self._required,
                -1 if self._table.rows is None else self._table.rows,
                -1 if rows is None else rows)

        statistics = Statistics(self._jvm, known, columns if self._columns else None, files)
        self._last = (selection, statistics)
        return statistics

    def _size_ratio(self) -> Fraction:
        """What a file scan multiplies the size of its files by: the compression factor and the
        share of the columns read in the row's default size (``FileScan.estimateStatistics``)."""
        if self._ratio is None:
            factor = Fraction(conf_value(self._jvm, COMPRESSION_FACTOR) or "1.0")
            full = int(self._schema.defaultSize())
            read = int(self._required.defaultSize())
            self._ratio = factor * read / full if full > 0 else factor
        return self._ratio
