"""Reading an hms table: pick partitions in Python, read them with Spark's own file scans.

The scan builder turns Spark's pushed filters into one predicate, asks the metastore source for
the partitions it cannot rule out, and builds Spark's ``ParquetScan``/``OrcScan`` over an
``InMemoryFileIndex`` given an explicit partition spec: each partition's *stored* location with
the values the metastore holds (typed by the declared partition columns), never values parsed
from paths. Every filter is also handed back to Spark, which evaluates it again above the scan,
so pruning never changes a result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmscatalog.expressions.predicates import and_all
from hmscatalog.metastore.model import StorageFormat, Table
from hmscatalog.sources.metastore import PartitionSelection, select_partitions
from hmscatalog.spark.filters import references, to_predicate, without_implied_not_null
from hmscatalog.spark.jvm import JavaProxy, Jvm
from hmscatalog.spark.rows import internal_row

READ = "org.apache.spark.sql.connector.read"
DATASOURCES = "org.apache.spark.sql.execution.datasources"


class ScanContext:
    """What a scan needs from its catalog: the JVM helpers and a metastore client."""

    def __init__(self, jvm: Jvm, client: Any, catalog_name: str) -> None:
        self.jvm = jvm
        self.client = client
        self.catalog_name = catalog_name


def _describe(table: Table, selection: PartitionSelection, partitioned: bool) -> str:
    if not partitioned:
        return f"hms {table.qualified_name} unpartitioned"
    sent = selection.metastore_filter or "none"
    client = "yes" if selection.client_filtered else "no"
    return (f"hms {table.qualified_name} partitions={len(selection.partitions)}/{selection.total}"
            f" (metastore filter: {sent}; client-side filter: {client})")


class HmsScan(JavaProxy):
    """Spark's own file scan, with hmscatalog's description for EXPLAIN."""

    class Java:
        implements = [f"{READ}.Scan", f"{READ}.SupportsReportStatistics"]

    def __init__(self, jvm: Jvm, inner: Any, text: str) -> None:
        self._jvm = jvm
        self._inner = inner
        self._text = text
        self._columnar: Any = None

    def readSchema(self) -> Any:
        return self._inner.readSchema()

    def description(self) -> str:
        return f"{self._text} {self._inner.description()}"

    def toBatch(self) -> Any:
        return self._inner.toBatch()

    def columnarSupportMode(self) -> Any:
        if self._columnar is None:
            self._columnar = self._jvm.call_default(self._inner, f"{READ}.Scan",
                                                    "columnarSupportMode")
        return self._columnar

    def supportedCustomMetrics(self) -> Any:
        return self._jvm.call_default(self._inner, f"{READ}.Scan", "supportedCustomMetrics")

    def reportDriverMetrics(self) -> Any:
        return self._jvm.call_default(self._inner, f"{READ}.Scan", "reportDriverMetrics")

    def estimateStatistics(self) -> Any:
        return self._inner.estimateStatistics()

    def estimateSizeInBytes(self) -> Any:
        return self._jvm.call_default(self._inner, f"{READ}.SupportsReportStatistics",
                                      "estimateSizeInBytes")

    def reflectsFullyPushedDownFilters(self) -> bool:
        return False  # Spark evaluates every filter again above the scan

    def toMicroBatchStream(self, checkpoint: str) -> Any:
        self._jvm.throw(self._jvm.jvm.java.lang.UnsupportedOperationException(
            "hms tables cannot be read as a stream"))

    def toContinuousStream(self, checkpoint: str) -> Any:
        return self.toMicroBatchStream(checkpoint)

    def toString(self) -> str:
        return self.description()


class EmptyScan(JavaProxy):
    """No partition can match: a local scan of zero rows."""

    class Java:
        implements = [f"{READ}.LocalScan"]

    def __init__(self, jvm: Jvm, schema: Any, text: str) -> None:
        self._jvm = jvm
        self._schema = schema
        self._text = text

    def readSchema(self) -> Any:
        return self._schema

    def rows(self) -> Any:
        row_class = self._jvm.jvm.org.apache.spark.sql.catalyst.InternalRow
        return self._jvm.gateway.new_array(row_class, 0)

    def description(self) -> str:
        return self._text

    def toString(self) -> str:
        return self._text


class HmsScanBuilder(JavaProxy):
    """Receives Spark's filters and required columns, then builds the scan."""

    class Java:
        implements = [f"{READ}.SupportsPushDownFilters",
                      f"{READ}.SupportsPushDownRequiredColumns"]

    def __init__(self, context: ScanContext, table: Table, schema: Any, options: Any) -> None:
        self._context = context
        self._jvm = context.jvm
        self._table = table
        self._schema = schema
        self._required = schema
        self._options = options
        self._filters: list[Any] = []
        self._partition_names = set(table.partition_spec.names)

    def pushFilters(self, filters: Any) -> Any:
        self._filters = list(filters)
        # All filters go back to Spark: pruning is conservative, Spark filters rows again.
        return filters

    def _filter_array(self, filters: Sequence[Any]) -> Any:
        return self._jvm.array(self._jvm.jvm.org.apache.spark.sql.sources.Filter, list(filters))

    def pushedFilters(self) -> Any:
        return self._filter_array([
            f for f in self._filters if references(f) and references(f) <= self._partition_names
        ])

    def pruneColumns(self, required: Any) -> None:
        self._required = required

    def build(self) -> Any:
        table = self._table
        spec = table.partition_spec
        partitioned = len(spec) > 0
        partition_filters = [f for f in self._filters if references(f) <= self._partition_names]
        data_filters = [f for f in self._filters if not references(f) & self._partition_names]
        if partitioned:
            predicate = and_all(without_implied_not_null(
                [to_predicate(f) for f in partition_filters]))
            selection = select_partitions(self._context.client, table, predicate,
                                          count_total=True)
        else:
            selection = PartitionSelection([], 0, None, None, False)
        text = _describe(table, selection, partitioned)
        if partitioned and not selection.partitions:
            return EmptyScan(self._jvm, self._required, text)
        inner = self._file_scan(selection, data_filters)
        return HmsScan(self._jvm, inner, text)

    def _file_scan(self, selection: PartitionSelection, data_filters: list[Any]) -> Any:
        jvm, j = self._jvm, self._jvm.jvm
        ds = getattr(j, DATASOURCES)
        table = self._table
        spec = table.partition_spec
        types = j.org.apache.spark.sql.types
        partition_fields = {name for name in spec.names}
        partition_schema = types.StructType()
        data_schema = types.StructType()
        for field in self._schema.fields():
            if str(field.name()).lower() in partition_fields:
                partition_schema = partition_schema.add(field)
            else:
                data_schema = data_schema.add(field)
        hadoop_path = j.org.apache.hadoop.fs.Path
        if len(spec):
            time_zone = str(self._jvm.spark.conf.get("spark.sql.session.timeZone"))
            paths = []
            for part in selection.partitions:
                row = internal_row(jvm, spec, part.values, time_zone)
                paths.append(ds.PartitionPath(row, hadoop_path(part.location)))
            partition_spec = ds.PartitionSpec(partition_schema, jvm.seq(paths))
            roots = [p.path() for p in paths]
        else:
            partition_spec = ds.PartitionSpec(partition_schema, jvm.seq([]))
            roots = [hadoop_path(table.location)]
        index = ds.InMemoryFileIndex(
            jvm.jsession, jvm.seq(roots), jvm.scala_map({}), jvm.some(partition_schema),
            ds.FileStatusCache.getOrCreate(jvm.jsession), jvm.some(partition_spec), jvm.none(),
        )
        fmt = table.format
        builder_class = (ds.v2.orc.OrcScanBuilder if fmt is StorageFormat.ORC
                         else ds.v2.parquet.ParquetScanBuilder)
        builder = builder_class(jvm.jsession, index, self._schema, data_schema, self._options)
        builder.pruneColumns(self._required)
        pushed = builder.pushDataFilters(self._filter_array(data_filters))
        getattr(builder, "pushedDataFilters_$eq")(pushed)
        return builder.build()
