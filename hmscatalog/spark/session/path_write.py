"""``write_partitioned``: a DataFrame into ``key=value`` directories under a path, no table.

The write is Spark's own file write (the same writer factory as ``hms`` tables, so directory
names are byte for byte those of ``df.write.partitionBy``), planned as a V2 write into a table
that lives only in the plan (:class:`PathWriteTable`), and committed by
:mod:`hmscatalog.write.paths`: staged and renamed into place under a commit lock on local disk
and HDFS, written once at the final names through S3A's magic committer on S3. Nothing is
visible before the commit; a write whose process dies is finished or undone by the next write
into the path.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hmscatalog.config import check_options
from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.model import StorageFormat
from hmscatalog.spark.bridge.jvm import CATALOG_PKG, JavaProxy, Jvm, quoted
from hmscatalog.spark.internals import session
from hmscatalog.spark.internals.write import FileWrite, attributes_by_name, prepare_file_write
from hmscatalog.spark.session.driver import proxy_jvm, storage_options
from hmscatalog.spark.table import SchemaTable
from hmscatalog.spark.write.partition_guard import partition_guard
from hmscatalog.spark.write.table_write import WRITE, SortedWrite, writers_umask
from hmscatalog.storage.filesystems import Storage, on_object_store
from hmscatalog.storage.opening import open_storage
from hmscatalog.write.paths import (
    PathCommit,
    PathDirectCommit,
    PathMode,
    check_filename_pattern,
    refuse_existing,
)

Mode = Literal["append", "overwrite_partitions", "error"]
_FORMATS = {"parquet": StorageFormat.PARQUET, "orc": StorageFormat.ORC}
_MODES: dict[str, PathMode] = {"append": "append", "overwrite_partitions": "overwrite",
                               "error": "error"}
# Spark types a partition directory can name and read back exactly (simpleString prefixes).
_PARTITION_TYPES = ("string", "char", "varchar", "tinyint", "smallint", "int", "bigint",
                    "decimal", "boolean", "date", "timestamp")


@dataclass(frozen=True)
class PathWriteResult:
    """What :func:`write_partitioned` did."""

    path: str
    partitions: list[str]  # the k=v/... directories that received files; "" for the path
    files: int
    rows: int
    # Partition column -> Hive type: ``read_partitioned(..., hive_types=...)`` reads the
    # values back as they were written, without inferring types from directory names.
    hive_types: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Plan:
    """Everything a path write decided before Spark runs it."""

    path: str
    storage: Storage
    root: Path
    format: StorageFormat
    mode: PathMode
    partition_by: list[str]
    in_data_file: bool
    filename_pattern: str | None
    refuse_null: bool
    string_columns: frozenset[str]


def write_partitioned(df: Any, path: str, partition_by: Sequence[str],
                      format: str = "parquet", mode: Mode = "append",
                      partition_columns_in_data_file: bool = False,
                      filename_pattern: str | None = None,
                      null_partition: Literal["default", "error"] = "default",
                      options: Mapping[str, str] | None = None) -> PathWriteResult:
    """Write ``df`` into Hive-style ``key=value`` directories under ``path``.

    Args:
        path: a directory: local, ``hdfs://`` (or any Hadoop file system that renames) or
            ``s3a://``.
        partition_by: the partition columns, outermost directory first. They may be STRING,
            CHAR/VARCHAR, integers, DECIMAL, BOOLEAN, DATE, TIMESTAMP; FLOAT, DOUBLE,
            BINARY, TIMESTAMP_NTZ (no Hive type holds it) and complex types are refused.
        format: ``parquet`` or ``orc``.
        mode: ``append`` adds files and never replaces one; ``overwrite_partitions`` replaces
            the partitions that receive rows and keeps the others (Spark's dynamic partition
            overwrite); ``error`` refuses a path that exists and holds files.
        partition_columns_in_data_file: also write the partition columns into the files (as
            the table property of that name does).
        filename_pattern: names the files: ``{i}`` becomes a number, counting from 0 past the
            names a partition directory already has, ``{uuid}`` a fresh UUID; the format's
            extension follows (``data_{i}`` → ``data_0.snappy.parquet``). By default files keep
            Spark's names, which hold the write's id. Local disk and HDFS only: on S3 files
            are written once at Spark's names and never renamed.
        null_partition: ``default`` writes NULL (and ``''``) values to
            ``__HIVE_DEFAULT_PARTITION__`` as Hive and Spark do; ``error`` fails the write
            naming the column instead, and nothing is written.
        options: S3 settings for listing (as for ``read_partitioned``); another key is
            refused, naming the closest known one.

    Returns:
        the partitions written, files and rows, and the partition columns' Hive types.

    Raises:
        ValueError: an argument is wrong (naming it).
        HmsCatalogError: the path cannot be written as asked (naming it).
    """
    spark = df.sparkSession
    jvm = proxy_jvm(spark)  # before opening the path: hdfs:// is listed through Hadoop
    plan = _plan(spark, jvm, df, path, partition_by, format, mode,
                 partition_columns_in_data_file, filename_pattern, null_partition, options)
    table = PathWriteTable(jvm, plan, df._jdf.schema())
    session.write_into(jvm, table, df, dynamic_overwrite=plan.mode == "overwrite")
    batch = table.batch
    assert batch is not None and batch.result is not None
    hive_types = {name: Jvm.hive_type(df._jdf.schema().apply(name).dataType())
                  for name in plan.partition_by}
    return PathWriteResult(**batch.result, hive_types=hive_types)


def _plan(spark: Any, jvm: Jvm, df: Any, path: str, partition_by: Sequence[str],
          format: str, mode: str, in_data_file: bool, filename_pattern: str | None,
          null_partition: str, options: Mapping[str, str] | None) -> _Plan:
    where = f"write_partitioned({path!r})"
    fmt = _FORMATS.get(str(format).lower())
    if fmt is None:
        raise ValueError(f"{where}: format {format!r}; it writes parquet or orc")
    if mode not in _MODES:
        raise ValueError(f"{where}: mode {mode!r}; it is one of {', '.join(map(repr, _MODES))}")
    if null_partition not in ("default", "error"):
        raise ValueError(f"{where}: null_partition {null_partition!r}; it is 'default' or "
                         "'error'")
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    fields = {f.name.lower(): f for f in df.schema.fields}
    names: list[str] = []
    for name in partition_by:
        found = fields.get(str(name).lower())
        if found is None:
            raise ValueError(f"{where}: partition column {name!r} is not a column of the "
                             f"DataFrame ({', '.join(f.name for f in df.schema.fields)})")
        if found.name in names:
            raise ValueError(f"{where}: partition column {found.name} is named twice")
        kind = found.dataType.simpleString()
        if kind.split("(")[0] not in _PARTITION_TYPES:
            raise ValueError(
                f"{where}: partition column {found.name} is {kind}, which a partition "
                "directory cannot hold exactly; partition by a string, integer, decimal, "
                "boolean, date or timestamp column (cast it)")
        names.append(found.name)
    if len(names) == len(fields) and not in_data_file:
        raise ValueError(f"{where}: every column is a partition column, so the files would "
                         "hold none; set partition_columns_in_data_file=True")
    check_options(options or {}, where, properties=False)
    location = path.rstrip("/") or path
    settings = {**storage_options(spark), **writers_umask(jvm, location), **(options or {})}
    storage, root = open_storage(location, settings)
    if on_object_store(location):
        if not location.startswith("s3a://"):
            raise HmsCatalogError(f"{where}: hms writes S3 through S3A; give the path as "
                                  f"s3a://{location.split('://', 1)[-1]}")
        if not session.has_file_system(jvm, "s3a"):
            raise HmsCatalogError(f"{where}: this Spark session cannot open s3a:// (start it "
                                  "with session_conf(s3=True), or hadoop-aws in spark.jars)")
        if filename_pattern is not None:
            raise ValueError(f"{where}: filename_pattern names files when they are renamed "
                             "into place, and on S3 nothing is renamed: files keep Spark's "
                             "names there")
    elif not storage.renames:
        raise HmsCatalogError(f"{where}: hms writes paths on local disk, HDFS and S3, where a "
                              f"commit can be atomic; not {storage.scheme}://")
    if filename_pattern is not None:
        check_filename_pattern(filename_pattern)
    if mode == "error":  # checked again when the write commits
        refuse_existing(storage, Path(root))
    return _Plan(path, storage, Path(root), fmt, _MODES[mode], names, in_data_file,
                 filename_pattern, null_partition == "error",
                 frozenset(n for n in names if fields[n.lower()].dataType.simpleString()
                           .split("(")[0] in ("string", "char", "varchar")))


class PathWriteTable(SchemaTable):
    """The path, as a table Spark can write into and nothing else (it lives in one plan)."""

    class Java:
        implements = [f"{CATALOG_PKG}.SupportsWrite"]

    def __init__(self, jvm: Jvm, plan: _Plan, schema: Any) -> None:
        self._jvm = jvm
        self._plan = plan
        self._schema = schema
        self.batch: PathBatchWrite | None = None

    def name(self) -> str:
        return f"path.{self._plan.path}"

    def partitioning(self) -> Any:
        expressions = "org.apache.spark.sql.connector.expressions"
        identity = self._jvm.cls(f"{expressions}.Expressions").identity
        return self._jvm.array(self._jvm.cls(f"{expressions}.Transform"),
                               [identity(quoted(name)) for name in self._plan.partition_by])

    def properties(self) -> Any:
        return self._jvm.hash_map({"provider": self._plan.format.name.lower(),
                                   "location": self._plan.path})

    def capabilities(self) -> Any:
        capability = self._jvm.cls(f"{CATALOG_PKG}.TableCapability")
        return self._jvm.hash_set([capability.BATCH_WRITE, capability.OVERWRITE_DYNAMIC])

    def newWriteBuilder(self, info: Any) -> Any:
        return PathWriteBuilder(self, info)

    def start(self, info: Any) -> PathBatchWrite:
        self.batch = PathBatchWrite(self._jvm, self._plan, info)
        return self.batch

    def toString(self) -> str:
        return f"PathWriteTable({self._plan.path})"


class PathWriteBuilder(JavaProxy):
    """The write as the path's mode has it (``overwriteDynamicPartitions`` for
    ``overwrite_partitions``, planned as such)."""

    class Java:
        implements = [f"{WRITE}.SupportsDynamicOverwrite"]

    def __init__(self, table: PathWriteTable, info: Any) -> None:
        self._table = table
        self._info = info

    def overwriteDynamicPartitions(self) -> Any:
        return self

    def build(self) -> Any:
        plan = self._table._plan
        return SortedWrite(self._table._jvm, f"hms {plan.mode} path {plan.path}",
                           f"path {plan.path}", plan.partition_by,
                           lambda: self._table.start(self._info))

    def buildForBatch(self) -> Any:
        return self.build().toBatch()


class PathBatchWrite(JavaProxy):
    """Sets up Spark's file writers over the staging directory (or, on S3, the path itself)
    and commits or aborts the write."""

    class Java:
        implements = [f"{WRITE}.BatchWrite"]

    def __init__(self, jvm: Jvm, plan: _Plan, info: Any) -> None:
        self._jvm = jvm
        self._plan = plan
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S")
        write_id = f"{stamp}-{uuid.uuid4().hex[:12]}"
        self._direct = on_object_store(plan.path)
        self._commit: PathCommit | PathDirectCommit
        if self._direct:
            self._commit = PathDirectCommit(plan.storage, plan.root, write_id, plan.mode)
            output = self._commit.base_uri
        else:
            self._commit = PathCommit(plan.storage, plan.root, write_id, plan.mode,
                                      len(plan.partition_by), plan.filename_pattern)
            output = self._commit.staging_uri
        self.result: dict[str, Any] | None = None
        self._committing = False
        self._commit.begin()
        try:
            self._files = self._setup(write_id, info, output)
        except BaseException:
            self._commit.abort()
            raise

    def _setup(self, write_id: str, info: Any, output: str) -> FileWrite:
        plan = self._plan
        attributes = attributes_by_name(self._jvm, info.schema())
        partition_columns = [attributes[n.lower()] for n in plan.partition_by]
        data_columns = [a for name, a in attributes.items()
                        if name not in {n.lower() for n in plan.partition_by}]
        if plan.in_data_file:
            data_columns += partition_columns
        guard = partition_guard(
            self._jvm, f"write to {plan.path}",
            [(name, name in plan.string_columns, attr)
             for name, attr in zip(plan.partition_by, partition_columns, strict=True)],
            refuse_null=plan.refuse_null)
        return prepare_file_write(self._jvm, write_id, output, plan.format, info.options(),
                                  list(attributes.values()), data_columns, partition_columns,
                                  guard, magic=self._direct)

    def createBatchWriterFactory(self, physical_info: Any) -> Any:
        return self._files.factory

    def useCommitCoordinator(self) -> bool:
        return False  # the file committer asks Spark's coordinator itself

    def onDataWriterCommit(self, message: Any) -> None:
        return None

    def commit(self, messages: Any, summary: Any = None) -> None:
        results = list(messages)
        self._committing = True  # from here the commit cleans up after itself
        written = sorted({name for names in self._files.partitions(results) for name in names})
        if not self._plan.partition_by:
            written = [""]
        stats = [s for m in results for s in self._jvm.seq_elements(m.summary().stats())]
        files = sum(int(s.numFiles()) for s in stats)
        rows = sum(int(s.numRows()) for s in stats)
        if isinstance(self._commit, PathDirectCommit):
            direct = self._commit
            self._files.commit_within(results, lambda complete: direct.commit(written, complete))
        else:
            try:
                self._files.commit_job(results)
            except BaseException:
                self._commit.abort()
                raise
            written = self._commit.commit()
        self.result = {"path": self._plan.storage.uri(str(self._plan.root)),
                       "partitions": written, "files": files, "rows": rows}

    def abort(self, messages: Any) -> None:
        if self._committing:
            return
        try:
            self._files.abort()
        finally:
            self._commit.abort()

    def toString(self) -> str:
        return f"PathBatchWrite({self._plan.path}, {self._plan.mode})"
