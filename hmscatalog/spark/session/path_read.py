"""``read_partitioned``: a DataFrame over ``key=value`` directories, pruned while listing.

The read is a :class:`~hmscatalog.sources.source.ReadTarget` without a metastore table (its
partitions are discovered below the base, or projected) that lives only in the DataFrame's plan:
a :class:`PathTable` (read-only) handed straight to Spark as a V2 relation, so Spark pushes the
query's filters into the same scan builder as ``hms`` tables, and its own Parquet/ORC scan reads
the chosen directories. No metastore is involved. Where Spark cannot open the storage itself,
the read goes through :mod:`hmscatalog.spark.read.arrow_source` instead, over the same target.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from hmscatalog.config import DISCOVERY_GLOB, DISCOVERY_PREFIX, check_options, check_properties
from hmscatalog.errors import InvalidPartitionSpec, StorageError
from hmscatalog.metastore.model import StorageFormat
from hmscatalog.partitions.inference import Inference
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.sources.paths import (
    HivePartitioning,
    PathLayout,
    partition_values,
    plan_path_read,
    plan_projected_read,
)
from hmscatalog.sources.source import ReadTarget, Selection
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals import read, session
from hmscatalog.spark.internals.versions import PYTHON_SOURCE_FILTERS, require_spark
from hmscatalog.spark.read.listing import directory_stamps
from hmscatalog.spark.read.scan import CatalogContext, HmsScanBuilder
from hmscatalog.spark.session.driver import proxy_jvm, storage_options
from hmscatalog.spark.table import ReadOnlyTable
from hmscatalog.storage.globs import expand

_FORMATS = {"parquet": StorageFormat.PARQUET, "orc": StorageFormat.ORC}


class PathTable(ReadOnlyTable):
    """Files under a path, read like a discovery (or projected) table; it cannot be written."""

    def __init__(self, context: CatalogContext, target: ReadTarget, label: str) -> None:
        """``label``: how messages about the directories read name the read (``read of ...``)."""
        super().__init__(context, target)
        self._label = label

    def newScanBuilder(self, options: Any) -> Any:
        if not self.target.values_from_paths:  # projected: locations need not be k=v
            return super().newScanBuilder(options)
        return PathScanBuilder(self._context, self.target, self._schema, options, self._label)


class PathScanBuilder(HmsScanBuilder):
    """The scan of a path read: the partitions are selected as for a discovery table, then
    Spark reads them as ``spark.read`` with ``basePath`` would.

    The file index is given the selected directories (or the files a glob picked in them) and
    the base as ``basePath``, and works the partition values out of the directory names itself,
    typed by the read's schema: the values are Spark's own (an escaped
    ``__HIVE_DEFAULT_PARTITION__`` is a string, timestamps are in the session time zone), and
    files in plain directories below a partition directory are read as part of it. Every value
    is checked first, so that one Spark could not read as its type fails the query, naming the
    directory, instead of becoming NULL.
    """

    def __init__(self, context: CatalogContext, target: ReadTarget, schema: Any, options: Any,
                 label: str) -> None:
        super().__init__(context, target, schema, options)
        self._label = label

    def _file_scan_builder(self, selection: Selection, files: Mapping[str, Sequence[str]],
                           file_format: StorageFormat | None = None) -> Any:
        table = self._table  # a path read is of one format: the read's
        locations = [part.location or "" for part in selection.partitions]
        self._check_values(locations)
        paths = [path for location in locations for path in files.get(location, [location])]
        index = self._index(locations, paths) if paths else None
        if index is None:  # no data file: an empty scan, with the read's partition columns
            return super()._file_scan_builder(replace(selection, partitions=[]), {})
        jvm = self._jvm
        return read.file_scan_builder(jvm, table.format, index, self._schema,
                                      jvm.struct_type(table.columns), self._options)

    def _check_values(self, locations: list[str]) -> None:
        table = self._table
        columns = [(c.name, parse_hive_type(c.type)) for c in table.partition_keys]
        for location in locations:
            partition_values(table.location or "", location, columns, self._label)

    def _index(self, locations: list[str], paths: list[str]) -> Any:
        """Spark's file index over ``paths``, partitioned below the base as Spark finds it
        (the partition columns must be the sampled ones); ``None`` when it holds no data
        file, and so no partition either."""
        jvm = self._jvm
        table = self._table
        cache = self._context.listings.cache_for(table.qualified_name,
                                                 directory_stamps(locations))
        index = read.file_index(jvm, paths, {"basePath": table.location or ""}, self._schema,
                                cache)
        found = read.index_partition_columns(index)
        if not found and read.index_file_count(index) == 0:
            return None
        sampled = [column.name for column in table.partition_keys]
        if found != sampled:
            raise InvalidPartitionSpec(
                f"{self._label}: the selected directories have partition columns "
                f"{found} where {sampled} were sampled: key=value directories below the "
                "partition directories, or of another depth, are not read as partitions")
        return index


def read_partitioned(spark: Any, path: str, format: str = "parquet",
                     hive_partitioning: HivePartitioning = "auto",
                     hive_types: Mapping[str, str] | None = None,
                     hive_types_autocast: bool = True,
                     options: Mapping[str, str] | None = None,
                     projection: Mapping[str, str] | None = None,
                     base_path: str | None = None,
                     type_inference: Inference = "spark") -> Any:
    """A DataFrame over the files at ``path``, with ``key=value`` directories as columns.

    Args:
        path: a directory or file, ``file:`` or ``s3://`` URI, or a glob (``*``, ``**``, ``?``,
            ``{a,b}``, ``{N..M}``) over directories and, last, file names.
        format: ``parquet`` or ``orc``.
        hive_partitioning: ``"auto"`` makes ``key=value`` directories columns when there are
            any; ``True`` requires them; ``False`` ignores them (every file is still read).
        hive_types: partition column → Hive type; these win over inference.
        hive_types_autocast: infer partition types from sampled values (see
            :mod:`hmscatalog.partitions.inference`); otherwise STRING.
        options: S3 settings (``s3.endpoint``, ``s3.region``, ``s3.access-key-id``,
            ``s3.secret-access-key``) over those of the Spark conf (``spark.hmscatalog.s3.*``),
            and discovery limits (``hmscatalog.discovery.max-partitions``...); another key is
            refused, naming the closest known one.
        projection: partition projection settings, as the table properties of a projected
            table (``projection.<col>.type``...; ``projection.enabled`` is implied): the
            partitions are computed, not listed, and ``path`` is the table location.
        base_path: Spark's ``basePath``: the directory whose ``key=value`` subdirectories are
            the partition columns, at or above ``path``. By default, as in Spark, ``path``
            itself (a file's directory); for a glob, the directory above its first glob
            segment, so that the levels a glob walks through keep their columns (Spark's own
            glob reads drop them).
        type_inference: ``"spark"`` infers the types Spark infers (``month=07`` is INT 7);
            ``"keep_spelling"`` infers a type only where every value is spelt as that type
            writes it back (``month=07`` stays STRING ``07``).
    """
    fmt = _FORMATS.get(format.lower())
    if fmt is None:
        raise ValueError(f"read_partitioned reads parquet or orc, not {format!r}")
    check_options(options or {}, f"read_partitioned({path!r})", properties=True)
    settings = {**storage_options(spark), **(options or {})}
    check_properties(settings, f"read_partitioned({path!r})")
    if projection is not None:
        layout, properties = plan_projected_read(path, projection, format.lower(), hive_types,
                                                 settings)
    else:
        layout = plan_path_read(path, format.lower(), hive_partitioning, hive_types,
                                hive_types_autocast, settings, base_path, type_inference)
        properties = {k: v for k, v in settings.items() if k.startswith(DISCOVERY_PREFIX)}
    if layout.relative:
        properties[DISCOVERY_GLOB] = layout.relative
    jvm = proxy_jvm(spark)
    native = _spark_can_open(jvm, layout.storage.scheme)
    if not layout.partition_keys:
        return _unpartitioned(spark, path, format.lower(), layout, native)
    label = f"read of {path}"
    from_paths = projection is None  # values as Spark reads them from key=value directories
    if not native:
        require_spark(jvm, PYTHON_SOURCE_FILTERS,
                      f"read of {path}: Spark cannot open {layout.storage.scheme}:// itself (add "
                      "hadoop-aws), and reading it through pyarrow (filters pushed into a Python "
                      "data source)")
        return _through_pyarrow(spark, layout.target(label, label, fmt, properties, from_paths),
                                settings)
    # Spark's scan names the read path.<path> in EXPLAIN (hms path.<path> partitions=...) and
    # in discovery's messages, as it always has; the pyarrow source says "read of <path>".
    target = layout.target(f"path.{path}", f"table path.{path}", fmt, properties, from_paths)
    context = jvm.once("path-read-context", lambda: CatalogContext(jvm, None, settings))
    if context.storage_options != settings:
        context = CatalogContext(jvm, None, settings)
    return session.dataframe(spark, jvm, jvm.for_spark(PathTable(context, target, label)))


def _spark_can_open(jvm: Jvm, scheme: str) -> bool:
    """Whether Spark's Hadoop file systems include ``scheme`` (``s3a`` needs hadoop-aws)."""
    return scheme == "file" or session.has_file_system(jvm, scheme)


_ARROW_SOURCE_REGISTERED: weakref.WeakSet[Any] = weakref.WeakSet()  # sessions that have it


def _through_pyarrow(spark: Any, target: ReadTarget, settings: Mapping[str, str]) -> Any:
    from hmscatalog.spark.read import arrow_source

    if spark not in _ARROW_SOURCE_REGISTERED:
        spark.dataSource.register(arrow_source.PartitionedFilesSource)
        _ARROW_SOURCE_REGISTERED.add(spark)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    options = arrow_source.source_options(target, settings)
    source = spark.read.format(arrow_source.NAME).options(**options).load()
    replan = source[arrow_source.REPLAN_COLUMN]
    return source.where(replan.isNull()).drop(replan)


def _unpartitioned(spark: Any, path: str, file_format: str, layout: PathLayout,
                   native: bool) -> Any:
    """Every file the path or glob stands for, without partition columns (Spark's own
    recursive file listing; nothing to prune)."""
    if not native:
        raise StorageError(f"read of {path}: without partition columns, Spark must be able to "
                           f"open {layout.storage.scheme}:// itself (add hadoop-aws for s3a)")
    storage = layout.storage
    if layout.glob is None:
        paths = [storage.uri(layout.root)]
    else:
        paths = [storage.uri(entry.path) for entry in expand(storage, layout.glob.pattern)]
    return spark.read.format(file_format).option("recursiveFileLookup", "true").load(paths)
