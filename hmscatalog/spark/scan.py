"""Reading an hms table: pick partitions in Python, read them with Spark's own file scans.

The scan builder turns Spark's pushed filters into one predicate, asks the partition source of
what it reads (:func:`~hmscatalog.sources.choose.source_for`) for the partitions it cannot rule
out, and builds Spark's ``ParquetScan``/``OrcScan`` over an ``InMemoryFileIndex`` given an
explicit partition spec: each partition's *stored* location with its value strings (typed by
the declared partition columns); a directory name is only parsed when it spells exactly those
values. Listings are kept between queries while the
directories are unchanged (:mod:`hmscatalog.spark.listing`). Every filter is also handed back to
Spark, which evaluates it again above the scan, so pruning never changes a result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, NamedTuple

from hmscatalog.errors import HmsCatalogError
from hmscatalog.expressions.predicates import Predicate, and_all
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import StorageFormat, Table
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.sources.choose import source_for
from hmscatalog.sources.source import ReadTarget, Selection, describe
from hmscatalog.spark.filters import translate, translate_v2, without_implied_not_null
from hmscatalog.spark.jvm import JavaProxy, Jvm
from hmscatalog.spark.listing import ListingCache, directory_stamps
from hmscatalog.spark.rows import internal_row

READ = "org.apache.spark.sql.connector.read"
PREDICATE = "org.apache.spark.sql.connector.expressions.filter.Predicate"
DATASOURCES = "org.apache.spark.sql.execution.datasources"


class CatalogContext:
    """What a catalog's tables, scans and writes share: the JVM helpers, the metastore clients
    and the file listings kept per table.

    Partition counts (for EXPLAIN's ``partitions=N/M``) run on another connection of the
    client's pool, in parallel with the partition selection, so they add no latency to a query.
    """

    def __init__(self, jvm: Jvm, client: MetastoreClient | None,
                 storage_options: Mapping[str, str] | None = None) -> None:
        self.jvm = jvm
        self.client = client  # None for path reads, which have no metastore
        self.storage_options = dict(storage_options or {})
        self.listings = ListingCache(jvm)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hms-count")

    @property
    def metastore(self) -> MetastoreClient:
        if self.client is None:
            raise HmsCatalogError("a path read has no metastore")
        return self.client

    def count_later(self, table: Table) -> Future[int]:
        """Start counting ``table``'s partitions; the future holds the count."""
        return self._pool.submit(self.metastore.count_partitions, table.database, table.name)


class HmsScan(JavaProxy):
    """Spark's own file scan, with hmscatalog's description for EXPLAIN.

    The description is made when first asked for, so that counting the table's partitions
    overlaps with the rest of planning.
    """

    class Java:
        implements = [f"{READ}.Scan", f"{READ}.SupportsReportStatistics"]

    def __init__(self, jvm: Jvm, inner: Any, describe: Callable[[], str]) -> None:
        self._jvm = jvm
        self._inner = inner
        self._describe = describe
        self._description: str | None = None
        self._columnar: Any = None

    def readSchema(self) -> Any:
        return self._inner.readSchema()

    def description(self) -> str:
        if self._description is None:
            self._description = f"{self._describe()} {self._inner.description()}"
        return self._description

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
        self._jvm.throw(self._jvm.cls("java.lang.UnsupportedOperationException")(
            "hms tables cannot be read as a stream"))

    def toContinuousStream(self, checkpoint: str) -> Any:
        return self.toMicroBatchStream(checkpoint)

    def toString(self) -> str:
        return self.description()


class _Pushed(NamedTuple):
    """A filter Spark pushed: its V2 and (if it has one) V1 form, as a predicate, and the
    lower-case columns it refers to."""

    v2: Any
    v1: Any
    predicate: Predicate
    columns: set[str]


class HmsScanBuilder(JavaProxy):
    """Receives Spark's filters and required columns, then builds the scan.

    Filters arrive as V2 predicates, which can say ``CAST(column AS type)``; each one that has
    a V1 form is read in that form (fewer py4j calls), the rest through their V2 expressions.
    """

    class Java:
        implements = [f"{READ}.SupportsPushDownV2Filters",
                      f"{READ}.SupportsPushDownRequiredColumns"]

    def __init__(self, context: CatalogContext, target: ReadTarget, schema: Any,
                 options: Any) -> None:
        self._context = context
        self._jvm = context.jvm
        self._table = target  # what is read: a metastore table's or a path read's shape
        self._schema = schema
        self._required = schema
        self._options = options
        self._filters: list[_Pushed] = []
        self._partition_names = set(target.partition_spec.names)

    def pushPredicates(self, predicates: Any) -> Any:
        utils = self._jvm.cls("org.apache.spark.sql.internal.connector.PredicateUtils")
        v2 = list(predicates)
        v1 = list(utils.toV1(predicates))
        if len(v1) != len(v2):  # some have no V1 form: find which
            options = [utils.toV1(p) for p in v2]
            v1 = [o.get() if o.isDefined() else None for o in options]
        self._filters = [
            _Pushed(p, f, *(translate(f) if f is not None else translate_v2(p)))
            for p, f in zip(v2, v1, strict=True)
        ]
        # All filters go back to Spark: pruning is conservative, Spark filters rows again.
        return predicates

    def supportsIterativePushdown(self) -> bool:
        return False

    def pushedPredicates(self) -> Any:
        return self._jvm.array(self._jvm.cls(PREDICATE), [
            f.v2 for f in self._filters if f.columns and f.columns <= self._partition_names
        ])

    def pruneColumns(self, required: Any) -> None:
        self._required = required

    def build(self) -> Any:
        target = self._table
        partition_predicates = [f.predicate for f in self._filters
                                if f.columns <= self._partition_names]
        data_filters = [f.v1 for f in self._filters
                        if f.v1 is not None and not f.columns & self._partition_names]
        predicate = and_all(without_implied_not_null(partition_predicates))
        source = source_for(target, self._context.storage_options, self._context)
        selection = source.select(predicate)
        builder = self._file_scan_builder(selection, selection.files)
        builder.pruneColumns(self._required)
        pushed = builder.pushDataFilters(self._jvm.array(
            self._jvm.cls("org.apache.spark.sql.sources.Filter"), data_filters))
        getattr(builder, "pushedDataFilters_$eq")(pushed)
        return HmsScan(self._jvm, builder.build(),
                       partial(describe, target.qualified_name, selection))

    def _file_scan_builder(self, selection: Selection,
                           files: Mapping[str, Sequence[str]]) -> Any:
        """Spark's Parquet/ORC scan builder over an index of the selected partitions' stored
        locations, each with its metastore values, typed by the declared partition columns.
        Where ``files`` names a partition's files, only those are read."""
        jvm = self._jvm
        table = self._table
        partition_schema = jvm.struct_type(table.partition_keys)
        if table.partition_keys:
            locations = [part.location or "" for part in selection.partitions]
            spec = self._partition_spec(selection, jvm.hadoop_paths(locations),
                                        partition_schema)
            paths = jvm.hadoop_paths([path for location in locations
                                      for path in files.get(location, [location])])
        else:
            locations = [table.location or ""]
            paths = jvm.hadoop_paths(locations)
            spec = jvm.cls(f"{DATASOURCES}.PartitionSpec")(partition_schema, jvm.seq([]))
        cache = self._context.listings.cache_for(table.qualified_name,
                                                 directory_stamps(locations))
        index = jvm.cls(f"{DATASOURCES}.InMemoryFileIndex")(
            jvm.jsession, paths, jvm.scala_map({}),
            jvm.some(self._schema), cache, jvm.some(spec), jvm.none())
        builder_class = jvm.cls(f"{DATASOURCES}.v2.orc.OrcScanBuilder"
                                if table.format is StorageFormat.ORC
                                else f"{DATASOURCES}.v2.parquet.ParquetScanBuilder")
        return builder_class(jvm.jsession, index, self._schema, jvm.struct_type(table.columns),
                             self._options)

    def _partition_spec(self, selection: Selection, paths: Any,
                        partition_schema: Any) -> Any:
        """Spark's ``PartitionSpec`` of the selected partitions (at Hadoop ``paths``).

        When every partition sits where Hive puts it (``<table>/<k=v>/...``), its directory name
        says exactly what its metastore values say, and Spark parses all of them in one JVM call,
        casting to the declared types as its own Hive tables do. Otherwise each partition's
        values are sent one by one.
        """
        jvm = self._jvm
        table = self._table
        names = table.partition_spec.names
        root = (table.location or "").rstrip("/")
        locations = [(part.location or "").rstrip("/") for part in selection.partitions]
        if locations and all(location == f"{root}/{make_part_name(names, list(part.values))}"
                             for location, part in zip(locations, selection.partitions,
                                                       strict=True)):
            # Names are lower case on both sides, so matching them is case-insensitive.
            return jvm.scala_object(f"{DATASOURCES}.PartitioningUtils").parsePartitions(
                paths, False, jvm.hadoop_paths([root]).toSet(), jvm.some(partition_schema),
                False, jvm.sql_conf.validatePartitionColumns(),
                jvm.sql_conf.sessionLocalTimeZone(), False)
        time_zone = str(jvm.sql_conf.sessionLocalTimeZone())
        hadoop_path = jvm.cls("org.apache.hadoop.fs.Path")
        partition_path = jvm.cls(f"{DATASOURCES}.PartitionPath")
        paths = [partition_path(internal_row(jvm, table.partition_spec, part.values, time_zone),
                                hadoop_path(part.location))
                 for part in selection.partitions]
        return jvm.cls(f"{DATASOURCES}.PartitionSpec")(partition_schema, jvm.seq(paths))
