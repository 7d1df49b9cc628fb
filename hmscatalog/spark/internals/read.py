"""Reading files with Spark's own Parquet/ORC scans: pushed filters in their V1 form, file
listings (``FileStatusCache``, ``InMemoryFileIndex``), partition specs (``PartitionSpec``,
``PartitioningUtils``) and the file scan builders of ``org.apache.spark.sql.execution``.

Spark's own V2 file tables (``ParquetTable``, ``OrcTable``) read exactly this way; hmscatalog
hands them an index of the partitions it selected. Checked in Spark 4.0 to 4.3 (same signatures
in all four).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hmscatalog.metastore.model import StorageFormat
from hmscatalog.spark.internals.catalyst import decimal_value
from hmscatalog.spark.internals.session import hadoop_conf, sql_conf, time_zone

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

DATASOURCES = "org.apache.spark.sql.execution.datasources"


# -- pushed filters --------------------------------------------------------------------------

def v1_filters(jvm: Jvm, predicates: Any) -> tuple[list[Any], list[Any | None]]:
    """The V2 predicates Spark pushed (a Java array), and each one's V1 ``Filter`` (``None``
    where it has none that says the same), by
    ``org.apache.spark.sql.internal.connector.PredicateUtils.toV1``: all in one call, one by one
    only when some have no V1 form.

    ``toV1`` of an OR one side of which has no V1 form (``b <= true``: a BOOLEAN literal is
    the predicate ALWAYS_TRUE) returns the other side, which selects less than the OR: a V1
    filter counts only when it converts back to the very predicate (``toV2``)."""
    utils = jvm.cls("org.apache.spark.sql.internal.connector.PredicateUtils")
    v2 = jvm.items(predicates)
    v1: list[Any | None] = jvm.items(utils.toV1(predicates))
    if len(v1) != len(v2):  # some have no V1 form: find which
        options = [utils.toV1(p) for p in v2]
        v1 = [o.get() if o.isDefined() else None for o in options]
    return v2, [f if f is not None and f.toV2().equals(p) else None
                for p, f in zip(v2, v1, strict=True)]


# Implementation classes of V2 expression operands: FieldReference and LiteralValue are
# private[sql] case classes (of the public NamedReference and Literal); Cast is public. A
# BOOLEAN literal operand (``b <=> true``) comes as the predicate AlwaysTrue or AlwaysFalse,
# which are also Literal<Boolean> (value(), dataType()).
_V2_KINDS = {"FieldReference": "column", "Cast": "cast", "LiteralValue": "literal",
             "AlwaysTrue": "literal", "AlwaysFalse": "literal"}


def v2_operand_kind(expression: Any) -> str:
    """``"column"``, ``"cast"`` or ``"literal"`` for the operands Spark puts in pushed V2
    predicates, else the expression class's simple name. Told by the implementation class's
    name: one py4j call, where ``instanceof`` tests would take one per kind."""
    kind = str(expression.getClass().getSimpleName())
    return _V2_KINDS.get(kind, kind)


class UnreadableLiteral(Exception):
    """A V2 literal of a type :func:`v2_literal_value` does not read."""


def v2_literal_value(value: Any, type_name: str) -> Any:
    """A V2 literal's ``value()``, which Spark gives in Catalyst's internal form
    (``UTF8String``, days since the epoch for a DATE, ``Decimal``), as a Python value;
    ``type_name`` is its ``dataType().typeName()``.

    Raises:
        UnreadableLiteral: for other types (timestamps, binary...).
    """
    if value is None:
        return None
    if type_name == "string":
        return str(value.toString())
    if type_name == "date":
        return dt.date(1970, 1, 1) + dt.timedelta(days=int(value))
    if type_name in ("integer", "long", "short", "byte", "boolean", "double", "float"):
        return value
    if type_name.startswith("decimal"):
        return decimal_value(value)
    raise UnreadableLiteral(type_name)


# -- listings --------------------------------------------------------------------------------

def new_file_status_cache(jvm: Jvm) -> Any:
    """A new ``FileStatusCache`` (``FileStatusCache.getOrCreate(session)``: a fresh cache each
    call, sharing the session's memory budget), as Spark's Hive catalog keeps per table."""
    return jvm.cls(f"{DATASOURCES}.FileStatusCache").getOrCreate(jvm.jsession)


def invalidate_file_status_cache(cache: Any) -> None:
    """Forget every listing ``cache`` holds (``FileStatusCache.invalidateAll``)."""
    cache.invalidateAll()


def file_index(jvm: Jvm, paths: Sequence[str], options: Mapping[str, str], schema: Any,
               cache: Any, partition_spec: Any = None) -> Any:
    """An ``InMemoryFileIndex`` over ``paths`` (listed through ``cache``) with the read options
    ``options`` (``basePath``), the read's ``StructType`` and, when given, the partition spec
    to use instead of finding partitions in directory names."""
    return jvm.cls(f"{DATASOURCES}.InMemoryFileIndex")(
        jvm.jsession, jvm.hadoop_paths(paths), jvm.scala_map(options), jvm.some(schema), cache,
        jvm.none() if partition_spec is None else jvm.some(partition_spec), jvm.none())


def index_partition_columns(index: Any) -> list[str]:
    """The lower-case partition columns a file index found (``FileIndex.partitionSchema``)."""
    return [str(name).lower() for name in index.partitionSchema().fieldNames()]


def index_file_count(index: Any) -> int:
    """How many files a file index lists (``FileIndex.inputFiles``)."""
    return len(index.inputFiles())


def qualified(jvm: Jvm, locations: Sequence[str]) -> list[str]:
    """``locations`` with those that name no scheme (``/data/x``) qualified by Hadoop against
    the default file system (``FileSystem.makeQualified``), as Spark's own catalog file index
    qualifies a partition's location: a file index keys the files it lists by qualified
    directory, so an unqualified partition path would find none of them."""
    hadoop_path = jvm.cls("org.apache.hadoop.fs.Path")
    conf = None
    found = []
    for location in locations:
        if not location or ":" in location.partition("/")[0]:
            found.append(location)
            continue
        conf = conf if conf is not None else hadoop_conf(jvm)
        path = hadoop_path(location)
        found.append(str(path.getFileSystem(conf).makeQualified(path).toString()))
    return found


# -- partition specs -------------------------------------------------------------------------

def partition_spec(jvm: Jvm, partition_schema: Any,
                   partitions: Sequence[tuple[Any, str | None]]) -> Any:
    """A ``PartitionSpec`` of ``(InternalRow of values, location)`` pairs, each a
    ``PartitionPath``."""
    hadoop_path = jvm.cls("org.apache.hadoop.fs.Path")
    partition_path = jvm.cls(f"{DATASOURCES}.PartitionPath")
    paths = [partition_path(row, hadoop_path(location)) for row, location in partitions]
    return jvm.cls(f"{DATASOURCES}.PartitionSpec")(partition_schema, jvm.seq(paths))


def with_subdirectories(jvm: Jvm, spec: Any, locations: Sequence[str]) -> Any:
    """``spec`` (a ``PartitionSpec``) with every directory below each of ``locations`` as a
    partition path of the same values (``io.hmscatalog.spark.FileSystems.subdirectories``)."""
    listed = str(jvm.cls("io.hmscatalog.spark.FileSystems").subdirectories(
        hadoop_conf(jvm), "\n".join(locations)))
    below: dict[str, list[str]] = {}
    for line in listed.splitlines():
        location, directory = line.split("\t", 1)
        below.setdefault(location, []).append(directory)
    if not below:
        return spec
    hadoop_path = jvm.cls("org.apache.hadoop.fs.Path")
    partition_path = jvm.cls(f"{DATASOURCES}.PartitionPath")
    paths = []
    for existing in jvm.cls("scala.jdk.javaapi.CollectionConverters").asJava(spec.partitions()):
        paths.append(existing)
        for directory in below.get(str(existing.path()), []):
            paths.append(partition_path(existing.values(), hadoop_path(directory)))
    return jvm.cls(f"{DATASOURCES}.PartitionSpec")(spec.partitionColumns(), jvm.seq(paths))


def parsed_partition_spec(jvm: Jvm, locations: Sequence[str], root: str,
                          partition_schema: Any) -> Any:
    """The ``PartitionSpec`` Spark reads from the ``k=v`` names of ``locations`` below
    ``root``, values cast to ``partition_schema`` as its own Hive tables read them
    (``PartitioningUtils.parsePartitions``: no type inference, case-insensitive names, the
    session's partition-column validation and time zone)."""
    conf = sql_conf(jvm)
    return jvm.scala_object(f"{DATASOURCES}.PartitioningUtils").parsePartitions(
        jvm.hadoop_paths(locations), False, jvm.hadoop_paths([root]).toSet(),
        jvm.some(partition_schema), False, conf.validatePartitionColumns(), time_zone(jvm),
        False)


# -- scans -----------------------------------------------------------------------------------

def file_scan_builder(jvm: Jvm, file_format: StorageFormat | None, index: Any, schema: Any,
                      data_schema: Any, options: Any) -> Any:
    """Spark's ``ParquetScanBuilder`` or ``OrcScanBuilder`` over a file index; ``schema`` is the
    table's, ``data_schema`` its data columns', ``options`` the read's
    ``CaseInsensitiveStringMap``."""
    builder_class = jvm.cls(f"{DATASOURCES}.v2.orc.OrcScanBuilder"
                            if file_format is StorageFormat.ORC
                            else f"{DATASOURCES}.v2.parquet.ParquetScanBuilder")
    return builder_class(jvm.jsession, index, schema, data_schema, options)


def build_file_scan(jvm: Jvm, builder: Any, required: Any, data_filters: Sequence[Any]) -> Any:
    """The ``Scan`` of a file scan builder reading the columns ``required`` (a ``StructType``)
    with the V1 ``data_filters`` pushed into the file reader, as Spark's own pushdown rule
    does for its V2 file tables (``FileScanBuilder.pushDataFilters`` and its
    ``pushedDataFilters`` field)."""
    builder.pruneColumns(required)
    pushed = builder.pushDataFilters(jvm.array(
        jvm.cls("org.apache.spark.sql.sources.Filter"), data_filters))
    getattr(builder, "pushedDataFilters_$eq")(pushed)
    return builder.build()
