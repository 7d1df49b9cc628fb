"""Reading an hms table: pick partitions in Python, read them with Spark's own file scans.

The scan builder turns Spark's pushed filters into one predicate, asks the metastore source for
the partitions it cannot rule out, and builds Spark's ``ParquetScan``/``OrcScan`` over an
``InMemoryFileIndex`` given an explicit partition spec: each partition's *stored* location with
the values the metastore holds (typed by the declared partition columns), never values parsed
from paths. Every filter is also handed back to Spark, which evaluates it again above the scan,
so pruning never changes a result.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from hmscatalog.expressions.predicates import and_all
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import StorageFormat, Table
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.sources.metastore import PartitionSelection, select_partitions
from hmscatalog.spark.filters import references, to_predicate, without_implied_not_null
from hmscatalog.spark.jvm import JavaProxy, Jvm
from hmscatalog.spark.rows import internal_row

READ = "org.apache.spark.sql.connector.read"
DATASOURCES = "org.apache.spark.sql.execution.datasources"


class ScanContext:
    """What a scan needs from its catalog: the JVM helpers and metastore clients.

    Partition counts (for EXPLAIN's ``partitions=N/M``) run on a second connection, in parallel
    with the partition selection, so they add no latency to a query.
    """

    def __init__(self, jvm: Jvm, client: MetastoreClient) -> None:
        self.jvm = jvm
        self.client = client
        self._counter: MetastoreClient | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hms-count")

    def count_later(self, table: Table) -> Future[int]:
        """Start counting ``table``'s partitions; the future holds the count."""
        if self._counter is None:
            self._counter = MetastoreClient(self.client.uris)
        return self._pool.submit(self._counter.count_partitions, table.database, table.name)


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
            total = self._context.count_later(table)
            selection = select_partitions(self._context.client, table, predicate)
            selection = replace(selection, total=total.result())
        else:
            selection = PartitionSelection([], 0, None, None, False)
        text = _describe(table, selection, partitioned)
        locations = self._standard_locations(selection) if partitioned else None
        if locations == []:  # nothing to read: an empty file scan still shows in EXPLAIN
            selection = replace(selection, partitions=[])
        builder = (self._path_builder(locations) if locations
                   else self._explicit_builder(selection))
        builder.pruneColumns(self._required)
        pushed = builder.pushDataFilters(self._filter_array(data_filters))
        getattr(builder, "pushedDataFilters_$eq")(pushed)
        return HmsScan(self._jvm, builder.build(), text)

    def _standard_locations(self, selection: PartitionSelection) -> list[str] | None:
        """The partitions' local directories, when every one sits where Hive puts it
        (``<table>/<k=v>/...``) so that its path says the same as its metastore values;
        directories that do not exist are left out. ``None`` for any other layout or storage.
        """
        table = self._table
        root = (table.location or "").rstrip("/")
        if not root.startswith("file:"):
            return None
        names = table.partition_spec.names
        locations = []
        for part in selection.partitions:
            location = (part.location or "").rstrip("/")
            if location != f"{root}/{make_part_name(names, list(part.values))}":
                return None
            if os.path.isdir(location.removeprefix("file:")):
                locations.append(location)
        return locations

    def _path_builder(self, locations: list[str]) -> Any:
        """Spark's file source over the partition directories, values read from their names.

        One JVM call whatever the number of partitions; Spark casts the values in the names to
        the declared partition column types, as its own Hive tables do.
        """
        j = self._jvm.jvm
        options = self._jvm.options_map({
            "paths": json.dumps(locations),
            "basePath": (self._table.location or "").rstrip("/"),
            "globPaths": "false",
        })
        ds = getattr(j, DATASOURCES).v2
        source = (ds.orc.OrcDataSourceV2() if self._table.format is StorageFormat.ORC
                  else ds.parquet.ParquetDataSourceV2())
        return source.getTable(options, self._schema).newScanBuilder(options)

    def _explicit_builder(self, selection: PartitionSelection) -> Any:
        """Spark's file scan over an index given each partition's location and values."""
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
        builder_class = (ds.v2.orc.OrcScanBuilder if table.format is StorageFormat.ORC
                         else ds.v2.parquet.ParquetScanBuilder)
        return builder_class(jvm.jsession, index, self._schema, data_schema, self._options)
