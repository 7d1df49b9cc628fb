"""Reading an hms table: pick partitions in Python, read them with Spark's own file scans.

The scan builder turns Spark's pushed filters into one predicate, asks the partition source of
what it reads (:func:`~hmscatalog.sources.choose.source_for`) for the partitions it cannot rule
out, and builds Spark's ``ParquetScan``/``OrcScan`` over an ``InMemoryFileIndex`` given an
explicit partition spec: each partition's *stored* location with its value strings (typed by
the declared partition columns); a directory name is only parsed when it spells exactly those
values. Listings are kept between queries while the
directories are unchanged (:mod:`hmscatalog.spark.read.listing`). Every filter is also handed
back to Spark, which evaluates it again above the scan, so pruning never changes a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import tzinfo
from functools import partial
from typing import Any, NamedTuple

from hmscatalog.errors import HmsCatalogError
from hmscatalog.expressions.instants import zone_of
from hmscatalog.expressions.predicates import IsNotNull, Predicate, and_all
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import NATIVE_FORMATS, StorageFormat, Table
from hmscatalog.partitions.codec import make_part_name, partition_path
from hmscatalog.sources.choose import source_for
from hmscatalog.sources.source import ReadTarget, Selection, describe
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm
from hmscatalog.spark.internals import read
from hmscatalog.spark.internals.session import sql_conf, time_zone
from hmscatalog.spark.read.filters import translate, translate_v2, without_implied_not_null
from hmscatalog.spark.read.listing import ListingCache, directory_stamps
from hmscatalog.spark.read.rows import checked_partition_row, parsed_as_cast
from hmscatalog.spark.read.runtime_scan import PREDICATE, READ, HmsScan, Runtime
from hmscatalog.spark.read.serde_io import recursive_directories, serde_scan
from hmscatalog.spark.read.statistics import ScanStatistics, table_statistics

# Partition counts of every session's queries: a few threads the driver's sessions share (a
# server has as many sessions as it has had clients; a thread each would stay for good).
_COUNTING = ThreadPoolExecutor(max_workers=8, thread_name_prefix="hms-count")

class CatalogContext:
    """What a catalog's tables, scans and writes share: the JVM helpers, the metastore clients
    and the file listings kept per table.

    Partition counts (for EXPLAIN's ``partitions=N/M``) run on another connection of the
    client's pool, in parallel with the partition selection, so they add no latency to a query.
    """

    def __init__(self, jvm: Jvm, client: MetastoreClient | None,
                 storage_options: Mapping[str, str] | None = None,
                 cache: MetadataCache | None = None) -> None:
        self.jvm = jvm
        self.client = client  # None for path reads, which have no metastore
        self.cache = cache or MetadataCache(0)  # the queries' answers (off unless given)
        self.storage_options = dict(storage_options or {})
        self.listings = ListingCache(jvm)

    @property
    def metastore(self) -> MetastoreClient:
        if self.client is None:
            raise HmsCatalogError("a path read has no metastore")
        return self.client

    def count_later(self, table: Table) -> Future[int]:
        """Start counting ``table``'s partitions; the future holds the count."""
        client, database, name = self.metastore, table.database, table.name
        return _COUNTING.submit(lambda: self.cache.count(
            database, name, lambda: client.count_partitions(database, name)).value)


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
        self._zone: tzinfo | None = None
        self._partition_names = set(target.partition_spec.names)

    def pushPredicates(self, predicates: Any) -> Any:
        v2, v1 = read.v1_filters(self._jvm, predicates)
        self._zone = zone_of(time_zone(self._jvm))
        self._filters = [
            _Pushed(p, f, *(translate(f, self._zone) if f is not None
                            else translate_v2(p, self._zone)))
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

        def file_scan(chosen: Selection, file_format: StorageFormat | None,
                      required: Any) -> Any:
            builder = self._file_scan_builder(chosen, chosen.files, file_format)
            return read.build_file_scan(self._jvm, builder, required, data_filters)

        by_serde: list[bool] = []  # the first scan's kind: Spark keeps its reader factory

        def scan(chosen: Selection) -> Any:
            serde = target.table is not None and (target.format not in NATIVE_FORMATS
                                                  or self._other_formats(chosen))
            if by_serde and by_serde[0] != serde:
                if not serde:
                    serde = True  # narrowed at run time: read as the scan was planned
                else:
                    self._refuse_other_formats(chosen)
            by_serde[:] = [serde]
            if serde:
                # Each partition through its own input format and SerDe, as Hive reads them
                # (Parquet and ORC ones through Spark's readers).
                assert target.table is not None
                return serde_scan(self._jvm, target.table, chosen, self._required,
                                  table_statistics(target.properties), file_scan,
                                  partition_values_used=bool(columns or partition_predicates))
            return file_scan(chosen, target.format, self._required)

        # Spark resolves runtime filters against the scan's output: only columns it reads.
        read_columns = {name.lower() for name in self._jvm.string_items(
            self._required.fieldNames())}
        columns = [c.name for c in target.partition_keys if c.name.lower() in read_columns]
        named = partial(describe, target.qualified_name, table_age=target.cache_age,
                        cache_state=self._context.cache.state()
                        if target.table is not None else None)
        report = ScanStatistics(self._jvm, target.qualified_name,
                                target.properties if target.table is not None else {},
                                self._schema, self._required, whole=not partition_predicates)
        if not columns:
            selection = source.select(predicate)
            return self._jvm.for_spark(
                HmsScan(self._jvm, scan(selection), named, selection, report=report))
        zone = self._zone or zone_of(time_zone(self._jvm))
        runtime = Runtime(columns, predicate, zone, source.select, scan)
        if target.table is not None and partition_predicates and all(
                isinstance(p, IsNotNull) for p in partition_predicates):
            # Nothing but the null check a join on a partition column implies limits the
            # partitions: wait for the join's runtime values rather than fetch (and list)
            # every partition now. (With no partition filter at all, the query is most
            # likely no such join, and EXPLAIN shows its selection as before.)
            return self._jvm.for_spark(HmsScan(
                self._jvm, scan(Selection([], "metastore")), named, None, runtime,
                table_statistics(target.properties), report))
        selection = source.select(predicate)
        return self._jvm.for_spark(
            HmsScan(self._jvm, scan(selection), named, selection, runtime, report=report))

    def _refuse_other_formats(self, selection: Selection) -> None:
        """Refuse partitions of other formats than the table's, selected when the query runs
        by a scan that Spark planned with the reader of the table's format (one waiting for a
        join's partition values)."""
        table = self._table
        others = sorted(make_part_name(table.partition_spec.names, list(c.values))
                        for c in selection.partitions
                        if c.partition is not None and c.partition.storage.format
                        is not table.format)
        raise HmsCatalogError(
            f"hms cannot read table {table.qualified_name} in this query: its partitions "
            f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''} are not stored as "
            f"{table.format.name if table.format else 'its format'}, and the scan, planned "
            "before its partitions were chosen (a join on its partition columns), reads "
            "only that format; filter the partition columns in the query, or store the "
            "partitions in one format")

    def _other_formats(self, selection: Selection) -> bool:
        """Whether a selected partition is stored in another format than its Parquet or ORC
        table (after Hive's ``ALTER TABLE ... SET FILEFORMAT``), which Spark's reader for the
        table's format would misread."""
        return any(chosen.partition is not None
                   and chosen.partition.storage.format is not self._table.format
                   for chosen in selection.partitions)

    def _file_scan_builder(self, selection: Selection, files: Mapping[str, Sequence[str]],
                           file_format: StorageFormat | None = None) -> Any:
        """Spark's Parquet/ORC scan builder (of ``file_format``, by default the table's) over an
        index of the selected partitions' stored locations, each with its metastore values,
        typed by the declared partition columns. Where ``files`` names a partition's files,
        only those are read."""
        jvm = self._jvm
        table = self._table
        # CHAR and VARCHAR partition values are read as strings (the values the metastore
        # stores, CHAR's padding included), as Spark's own Hive tables read them: Spark cannot
        # cast a partition's text to a CHAR or VARCHAR type.
        partition_schema = jvm.struct_type([
            replace(c, type="string") if c.type.lower().startswith(("char", "varchar")) else c
            for c in table.partition_keys])
        if table.partition_keys:
            stored = [part.location or "" for part in selection.partitions]
            locations = read.qualified(jvm, stored)
            paths = [path for location, at in zip(stored, locations, strict=True)
                     for path in files.get(location, [at])]
        else:
            locations = [table.location or ""]
            paths = locations
        stamps = directory_stamps(locations)
        cache = self._context.listings.cache_for(table.qualified_name, stamps)
        # The same partitions, listed through the same unchanged listing, make the same index:
        # the one an earlier query built is used again (Spark's own Hive tables rebuild it
        # from their file status cache every time).
        key = (table.qualified_name, repr(table.columns), repr(table.partition_keys),
               repr(file_format or table.format), tuple(paths),
               tuple(tuple(part.values) for part in selection.partitions))
        index = self._context.listings.index(key, cache)
        if index is None:
            if table.partition_keys:
                spec = self._partition_spec(selection, locations, partition_schema)
            else:
                spec = read.partition_spec(jvm, partition_schema, [])
            if table.table is not None and recursive_directories(table.table):
                # Spark reads the files directly in each partition's directory: each directory
                # below one joins the spec with its partition's values.
                spec = read.with_subdirectories(jvm, spec, locations)
            index = read.file_index(jvm, paths, {}, self._schema, cache, spec)
            if stamps is not None:  # elsewhere than on local disk a listing is never reused
                self._context.listings.keep_index(key, cache, index, len(paths))
        return read.file_scan_builder(jvm, file_format or table.format, index, self._schema,
                                      jvm.struct_type(table.columns), self._options)

    def _partition_spec(self, selection: Selection, locations: list[str],
                        partition_schema: Any) -> Any:
        """Spark's ``PartitionSpec`` of the selected partitions (stored at ``locations``).

        When every partition sits where Hive puts it (``<table>/<k=v>/...``), its directory name
        says exactly what its metastore values say, and Spark parses all of them in one JVM call,
        casting to the declared types as its own Hive tables do. Otherwise, or when Spark's
        parser refuses a value (``'7.9'`` in an INT column, which another engine registered) or
        would read one otherwise than the cast does (see ``parsed_as_cast``), each partition's
        values are cast one by one, as the built-in casts them: by the
        session's ``spark.sql.ansi.enabled``, strictly (an error naming the table, partition
        and value) or leniently (``'7.9'`` is 7, an overflow NULL).
        """
        jvm = self._jvm
        table = self._table
        names = [c.name for c in table.partition_keys]  # as Spark sees them: Dt=x, dt=x
        root = (table.location or "").rstrip("/")
        stripped = [location.rstrip("/") for location in locations]
        if stripped and all(location == f"{root}/{partition_path(names, list(part.values))}"
                            for location, part in zip(stripped, selection.partitions,
                                                      strict=True)) and parsed_as_cast(
                table.partition_spec, [part.values for part in selection.partitions]):
            # Every directory is named as the partition schema names its columns.
            try:
                return read.parsed_partition_spec(jvm, locations, root, partition_schema)
            except Exception as exc:  # Spark's error, as pyspark raises it in Python
                if "INVALID_PARTITION_VALUE" not in str(exc):
                    raise
        zone = time_zone(jvm)
        ansi = bool(sql_conf(jvm).ansiEnabled())
        rows = [(checked_partition_row(jvm, table.qualified_name, table.partition_spec,
                                      part.values, zone, ansi), part.location)
                for part in selection.partitions]
        return read.partition_spec(jvm, partition_schema, rows)
