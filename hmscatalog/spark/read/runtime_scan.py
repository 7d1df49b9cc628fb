"""The scan hms hands Spark: Spark's own file scan (or a SerDe scan), with hms's description for
EXPLAIN, narrowed when the query runs by the partition values a join selected."""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from typing import Any, NamedTuple

from hmscatalog.expressions.predicates import Predicate, and_all
from hmscatalog.sources.source import Selection
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm, quoted
from hmscatalog.spark.internals import read
from hmscatalog.spark.read.filters import translate, translate_v2
from hmscatalog.spark.read.statistics import ScanStatistics, TableStatistics

READ = "org.apache.spark.sql.connector.read"
PREDICATE = "org.apache.spark.sql.connector.expressions.filter.Predicate"


class HmsScan(JavaProxy):
    """Spark's own file scan, with hmscatalog's description for EXPLAIN, narrowed at run time.

    Spark's dynamic partition pruning hands the scan, before it runs, the partition-column
    values the other side of a join selected (an IN list): :meth:`filter` asks the partition
    source with those values added to the query's own partition predicate (a metastore filter,
    directories listed, values projected) and reads only what that selects; EXPLAIN shows it as
    ``RuntimeFilters``, and the scan's description then says how many partitions it read.

    A scan built *pending* (see :meth:`HmsScanBuilder.build`) makes no selection while the
    query is planned: until runtime values arrive or the scan runs without them, it stands on a
    file scan over no partitions (for its schema and reader), reports the table's metastore
    statistics, and describes itself as waiting. It is its own ``Batch`` then, so that Spark's
    planning, which compares and hashes scans through their batches, selects nothing early.

    The description is made when first asked for, so that counting the table's partitions
    overlaps with the rest of planning. What the scan reports to the optimizer (sizes, row
    counts, column statistics) is ``report``'s, for the partitions selected so far
    (:class:`~hmscatalog.spark.read.statistics.ScanStatistics`).
    """

    class Java:
        implements = [f"{READ}.Scan", f"{READ}.SupportsReportStatistics",
                      f"{READ}.SupportsRuntimeV2Filtering", f"{READ}.Batch"]

    # Spark asks for the description and columnar mode many times while it plans; they change
    # when the scan narrows (filter) or selects what it waited to (planInputPartitions).
    REMEMBERED = ("readSchema", "description", "columnarSupportMode", "supportedCustomMetrics",
                  "toBatch", "filterAttributes", "pushedPredicates", "supportsIterativePushdown",
                  "reflectsFullyPushedDownFilters", "toString")
    CHANGING = ("filter", "planInputPartitions")

    def __init__(self, jvm: Jvm, inner: Any, describe: Callable[[Selection | None], str],
                 selection: Selection | None, runtime: Runtime | None = None,
                 statistics: TableStatistics | None = None,
                 report: ScanStatistics | None = None) -> None:
        self._jvm = jvm
        self._inner = inner
        self._describe = describe
        self._selection = selection  # None: pending
        self._runtime = runtime
        self._statistics = statistics
        self._report = report
        self._description: str | None = None
        self._columnar: Any = None
        self._factory: Any = None
        self._filtered = False
        if statistics is not None:
            self.ITSELF = ("toBatch",)

    def _settle(self) -> None:
        """Select now what a pending scan waited to select: it runs without runtime values."""
        if self._selection is None:
            assert self._runtime is not None
            self._use(self._runtime.select(self._runtime.predicate))

    def _use(self, selection: Selection) -> None:
        assert self._runtime is not None
        self._inner = self._runtime.scan(selection)
        self._selection = selection
        self._description = None

    def readSchema(self) -> Any:
        return self._inner.readSchema()

    def description(self) -> str:
        if self._selection is None:
            return f"{self._describe(None)} {self._inner.description()}"  # pending
        if self._description is None:
            narrowed = " after runtime filtering" if self._filtered else ""
            self._description = (f"{self._describe(self._selection)}{narrowed} "
                                 f"{self._inner.description()}")
        return self._description

    def toBatch(self) -> Any:
        # A pending scan is its own Batch (handed to Spark, its JVM side answers this itself).
        return self if self._statistics is not None else self._inner.toBatch()

    def planInputPartitions(self) -> Any:
        self._settle()
        return self._inner.planInputPartitions()

    def createReaderFactory(self) -> Any:
        # A reader factory depends on the schemas, filters and options, not on the files.
        if self._factory is None:
            self._factory = self._inner.createReaderFactory()
        return self._factory

    def filterAttributes(self) -> Any:
        names = [] if self._runtime is None else self._runtime.columns
        make = self._jvm.cls("org.apache.spark.sql.connector.expressions.Expressions")
        return self._jvm.array(
            self._jvm.cls("org.apache.spark.sql.connector.expressions.NamedReference"),
            [make.column(quoted(name)) for name in names])  # parsed as a SQL name

    def filter(self, predicates: Any) -> None:
        if self._runtime is None:
            return
        v2, v1 = read.v1_filters(self._jvm, predicates)
        zone = self._runtime.zone
        found = [translate(f, zone)[0] if f is not None else translate_v2(p, zone)[0]
                 for p, f in zip(v2, v1, strict=True)]
        self._use(self._runtime.select(and_all([self._runtime.predicate, *found])))
        self._filtered = True

    def supportsIterativePushdown(self) -> bool:
        return False  # Spark 4.3: one filter() call with every runtime predicate

    def pushedPredicates(self) -> Any:
        return self._jvm.array(self._jvm.cls(PREDICATE), [])

    def columnarSupportMode(self) -> Any:
        if self._columnar is None:
            if self._statistics is None:
                self._columnar = self._jvm.call_default(self._inner, f"{READ}.Scan",
                                                        "columnarSupportMode")
            else:
                # Decided by the reader alone (Parquet's and ORC's readers ignore the
                # partition), not by "every input partition" as by default, which would make
                # Spark plan the input partitions, and so select them, while planning.
                mode = self._jvm.cls(f"{READ}.Scan$ColumnarSupportMode")
                columnar = self.createReaderFactory().supportColumnarReads(None)
                self._columnar = mode.SUPPORTED if columnar else mode.UNSUPPORTED
        return self._columnar

    def supportedCustomMetrics(self) -> Any:
        return self._jvm.call_default(self._inner, f"{READ}.Scan", "supportedCustomMetrics")

    def reportDriverMetrics(self) -> Any:
        return self._jvm.call_default(self._inner, f"{READ}.Scan", "reportDriverMetrics")

    def estimateStatistics(self) -> Any:
        if self._report is not None:
            files = None if self._selection is None else self._inner.estimateStatistics
            return self._report.report(self._selection, files)
        return self._inner.estimateStatistics()

    def estimateSizeInBytes(self) -> Any:
        if self._report is not None:
            return self.estimateStatistics().sizeInBytes()
        return self._jvm.call_default(self._inner, f"{READ}.SupportsReportStatistics",
                                      "estimateSizeInBytes")

    def reflectsFullyPushedDownFilters(self) -> bool:
        return False  # Spark evaluates every filter again above the scan

    def toMicroBatchStream(self, checkpoint: str) -> Any:
        self._jvm.unsupported("hms tables cannot be read as a stream")

    def toContinuousStream(self, checkpoint: str) -> Any:
        return self.toMicroBatchStream(checkpoint)

    def toString(self) -> str:
        return self.description()


class Runtime(NamedTuple):
    """What a scan needs to narrow itself at run time: its partition columns, the query's own
    partition predicate, the session time zone TIMESTAMP values compare in, a way to select
    partitions and one to build the file scan."""

    columns: list[str]
    predicate: Predicate
    zone: tzinfo | None
    select: Callable[[Predicate], Selection]
    scan: Callable[[Selection], Any]
