"""Writing an hms table: Spark's own Parquet/ORC writers, hmscatalog's commit.

Spark's ``FileWriterFactory`` runs in the tasks and writes each row's file into a hidden staging
directory under the table (``k=v/`` subdirectories for partition values, partition columns left
out of the files as Hive does); Spark sorts the rows by the partition columns first, so each task
has one file open at a time. On the driver, :class:`~hmscatalog.write.commit.TableCommit` then
moves the files into place and registers the partitions (Hive's semantics: an overwrite replaces
the partitions that receive rows, or exactly the one a fully static PARTITION clause names).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from hmscatalog import config
from hmscatalog.errors import DynamicPartitionError, HmsCatalogError, WriteFailed
from hmscatalog.expressions.instants import Instant, zone_of
from hmscatalog.expressions.literals import Uncomparable, coerce_literal
from hmscatalog.expressions.predicates import AlwaysTrue, Compare, EqualNullSafe, IsNull
from hmscatalog.metastore.model import NATIVE_FORMATS, StorageFormat, Table
from hmscatalog.metastore.serde import table_properties
from hmscatalog.metastore.spark_schema import directory_names
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import format_value
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm, NoMetrics, quoted
from hmscatalog.spark.internals.session import conf_value, hadoop_conf, time_zone
from hmscatalog.spark.internals.write import FileWrite, attributes_by_name, prepare_file_write
from hmscatalog.spark.read.filters import translate_v2
from hmscatalog.spark.read.scan import CatalogContext
from hmscatalog.spark.read.serde_io import partition_names
from hmscatalog.spark.write.compression import check_compression, native_options
from hmscatalog.spark.write.insert_clause import InsertClause, partition_exists
from hmscatalog.spark.write.partition_guard import table_partition_guard
from hmscatalog.storage.filesystems import on_object_store
from hmscatalog.storage.local import umask_option
from hmscatalog.write import recovery
from hmscatalog.write.commit import TableCommit, new_write_id
from hmscatalog.write.direct import DirectCommit
from hmscatalog.write.rules import DynamicPartitionSettings, check_partition_counts

WRITE = "org.apache.spark.sql.connector.write"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _static_value(spec: PartitionSpec, predicate: Any,
                  zone: dt.tzinfo | None) -> tuple[str, str] | None:
    """``(column, metastore string)`` of an overwrite condition ``column = literal`` (Spark
    states a PARTITION clause's values as ``column <=> literal``, and a NULL one as ``column IS
    NULL``). A TIMESTAMP literal (an instant) names its partition by its wall-clock time in
    ``zone``, the session time zone, as the rows Spark writes do."""
    translated, _ = translate_v2(predicate, zone)
    if isinstance(translated, IsNull) and translated.column.lower() in spec.names:
        return translated.column.lower(), DEFAULT_PARTITION_NAME
    if isinstance(translated, EqualNullSafe) or (
            isinstance(translated, Compare) and translated.op == "="):
        name = translated.column.lower()
        if name in spec.names:
            column = spec.column(name)
            value = translated.value
            if isinstance(value, Instant):
                value = (_EPOCH + dt.timedelta(microseconds=value.micros)).astimezone(
                    value.zone).replace(tzinfo=None)
            try:
                text = format_value(coerce_literal(value, column.type), column.type)
            except Uncomparable:
                return None
            return name, text or DEFAULT_PARTITION_NAME
    return None


def _by_name(jvm: Jvm, schema: Any) -> dict[str, Any]:
    """The attributes of the rows Spark hands the write, by lower-case column name, in the
    rows' order. Spark lines a CTAS query up with the created table by position, and the table
    that ``createTable`` returns reports the query's order (see :class:`HmsTable`), so rows do
    not always come in the metastore's order (data columns, then partition columns): files and
    partition directories are laid out by name."""
    return attributes_by_name(jvm, schema)


def _named(attribute: Any, name: str) -> Any:
    """``attribute`` under the name ``name`` (the same column: Spark binds it by its id)."""
    return attribute if str(attribute.name()) == name else attribute.withName(name)


class HmsWriteBuilder(JavaProxy):
    """Append by default; ``overwrite`` with equality conditions on partition columns (Spark's
    form of a PARTITION clause), ``truncate`` or ``overwriteDynamicPartitions`` replace. A
    fully static clause and IF NOT EXISTS come as options from the analyzer rule
    (:mod:`hmscatalog.spark.write.insert_clause`): in dynamic mode the clause's partition is
    replaced even by no rows, as in static mode, and an append makes it even with no rows."""

    class Java:
        implements = [f"{WRITE}.SupportsOverwriteV2", f"{WRITE}.SupportsDynamicOverwrite"]

    def __init__(self, context: CatalogContext, table: Table, info: Any) -> None:
        self._context = context
        self._jvm = context.jvm
        self._table = table
        self._info = info
        self._mode: Literal["append", "overwrite"] = "append"
        self._static: dict[str, str] = {}
        self._clause = InsertClause.of(self._jvm.to_dict(info.options().asCaseSensitiveMap()))

    def _zone(self) -> dt.tzinfo | None:
        return zone_of(time_zone(self._jvm))

    def canOverwrite(self, predicates: Any) -> bool:
        spec = self._table.partition_spec
        zone = self._zone()
        return all(isinstance(translate_v2(p)[0], AlwaysTrue) or _static_value(spec, p, zone)
                   for p in predicates)

    def overwrite(self, predicates: Any) -> Any:
        spec = self._table.partition_spec
        zone = self._zone()
        self._mode = "overwrite"
        for predicate in predicates:
            static = _static_value(spec, predicate, zone)
            if static is not None:
                self._static[static[0]] = static[1]
            elif not isinstance(translate_v2(predicate)[0], AlwaysTrue):
                self._jvm.illegal_argument(
                    f"hms can overwrite table {self._table.qualified_name} only by partition "
                    f"values (column = value), not by {predicate.toString()}")
        return self

    def truncate(self) -> Any:
        self._mode = "overwrite"
        return self

    def overwriteDynamicPartitions(self) -> Any:
        self._mode = "overwrite"
        self._static = self._clause.metastore_strings(self._jvm, self._table)
        return self

    def build(self) -> Any:
        table = self._table
        if self._mode == "append":  # INSERT INTO ... PARTITION (every column static)
            self._static = self._clause.metastore_strings(self._jvm, table)
        check_compression(self._jvm, table,
                          self._jvm.to_dict(self._info.options().asCaseSensitiveMap()))
        return SortedWrite(
            self._jvm, f"hms {self._mode} {table.qualified_name}", f"table {table.qualified_name}",
            partition_names(self._jvm, table),  # as the rows name them (Dt), in Spark's case
            lambda: HmsBatchWrite(self._context, table, self._info, self._mode, self._static,
                                  if_absent=self._clause.if_not_exists))

    def buildForBatch(self) -> Any:
        return self.build().toBatch()


class SortedWrite(NoMetrics):
    """A write that asks Spark to sort rows by the partition columns within each task, so that
    each task has one file open at a time."""

    class Java:
        implements = [f"{WRITE}.RequiresDistributionAndOrdering"]

    def __init__(self, jvm: Jvm, label: str, target: str, partition_names: list[str],
                 batch: Callable[[], Any]) -> None:
        """``label``: what ``description`` shows; ``target``: what is written, for messages
        (``table db.t``); ``batch`` makes the ``BatchWrite``."""
        self._jvm = jvm
        self._label = label
        self._target = target
        self._partition_names = partition_names
        self._batch = batch

    def description(self) -> str:
        return self._label

    def requiredDistribution(self) -> Any:
        return self._jvm.cls("org.apache.spark.sql.connector.distributions.Distributions") \
            .unspecified()

    def distributionStrictlyRequired(self) -> bool:
        return True

    def requiredNumPartitions(self) -> int:
        return 0

    def advisoryPartitionSizeInBytes(self) -> int:
        return 0

    def requiredOrdering(self) -> Any:
        expressions = "org.apache.spark.sql.connector.expressions"
        make = self._jvm.cls(f"{expressions}.Expressions")
        ascending = self._jvm.cls(f"{expressions}.SortDirection").ASCENDING
        orders = [make.sort(make.column(quoted(name)), ascending)
                  for name in self._partition_names]
        return self._jvm.array(self._jvm.cls(f"{expressions}.SortOrder"), orders)

    def toBatch(self) -> Any:
        return self._batch()

    def toStreaming(self) -> Any:
        self._jvm.unsupported(f"hms cannot write {self._target} from a stream")


    def toString(self) -> str:
        return self.description()


def writers_umask(jvm: Jvm, location: str) -> dict[str, str]:
    """The storage option of the umask Spark's file writers apply at ``location``: that of the
    Hadoop file system they write through, which Hadoop keeps per scheme from its first use
    (``fs.<scheme>.impl.disable.cache`` aside), so that what a commit makes matches the files
    the tasks wrote. None on object stores, which keep no permissions, or without a location
    (the commit refuses those, naming the table)."""
    if not location or on_object_store(location):
        return {}
    conf = hadoop_conf(jvm)
    file_system = jvm.cls("org.apache.hadoop.fs.Path")(location).getFileSystem(conf)
    return umask_option(file_system.getConf().get)


def _spark_writers(jvm: Jvm, table: Table) -> bool:
    """Whether the built-in catalog writes partitions of ``table`` (Parquet or ORC) with Spark's
    own writers in this session (``RelationConversions``), naming their directories in Spark's
    case (Dt=x); with one of these settings off it writes them through the table's Hive SerDe,
    and Hive names the directories in lower case (dt=x). hms writes with Spark's writers
    either way."""
    settings = ["spark.sql.hive.convertInsertingPartitionedTable"]
    if table.format is StorageFormat.PARQUET:
        settings.append("spark.sql.hive.convertMetastoreParquet")
    elif table.format is StorageFormat.ORC:
        settings.append("spark.sql.hive.convertMetastoreOrc")
    return all((conf_value(jvm, key) or "true").strip().lower() == "true" for key in settings)


class HmsBatchWrite(JavaProxy):
    """Sets up Spark's file writers over the staging directory; commits or aborts the write."""

    class Java:
        implements = [f"{WRITE}.BatchWrite"]

    def __init__(self, context: CatalogContext, table: Table, info: Any,
                 mode: Literal["append", "overwrite"], static: dict[str, str],
                 if_absent: bool = False) -> None:
        """``if_absent``: IF NOT EXISTS (``static`` then names every partition column): the
        write commits nothing if that partition exists when it commits."""
        self._jvm = context.jvm
        self._context = context
        self._table = table
        self._mode = mode
        self._static = static
        self._if_absent = if_absent
        self._settings = DynamicPartitionSettings.from_conf(partial(conf_value, self._jvm))
        self._write_id = new_write_id()
        self._direct = on_object_store(table.location)
        self._committing = False
        self._commit: TableCommit | DirectCommit
        options = {**context.storage_options, **writers_umask(self._jvm, table.location or "")}
        # Each new directory named as the built-in catalog's writes name it (Dt=x, or dt=x).
        self._directories = directory_names(table, _spark_writers(self._jvm, table))
        if self._direct:
            # No lock, no read looks for records on S3: each write ends those of dead ones.
            recovery.recover(context.metastore, table, storage_options=options)
            self._commit = DirectCommit(context.metastore, table, self._write_id, mode, options,
                                        self._directories)
            output = self._commit.base_uri
            elsewhere = self._commit.partitions_elsewhere(static)
        else:
            self._commit = TableCommit(context.metastore, table, self._write_id, options,
                                       self._directories)
            output, elsewhere = self._commit.staging_uri, []
        self._commit.begin()
        try:
            self._files = self._setup(info, output, elsewhere)
        except BaseException:  # refused before any task ran: no record is left
            self._commit.abort()
            raise

    def _setup(self, info: Any, output: str,
               elsewhere: list[tuple[dict[str, str], str]]) -> FileWrite:
        jvm = self._jvm
        table = self._table
        attributes = _by_name(jvm, info.schema())
        data_columns = [attributes[c.name] for c in table.columns]
        partition_columns = [_named(attributes[c.name], name) for c, name
                             in zip(table.partition_keys, self._directories, strict=True)]
        if config.read_flag(table.parameters, config.PARTITION_COLUMNS_IN_DATA_FILE,
                            f"Table {table.qualified_name}"):
            data_columns += partition_columns
        return prepare_file_write(
            jvm, self._write_id, output, table.format,
            native_options(table, jvm.to_dict(info.options().asCaseSensitiveMap())),
            list(attributes.values()), data_columns, partition_columns,
            table_partition_guard(jvm, table, partition_columns), magic=self._direct,
            custom_locations=elsewhere,
            serde_properties=None if table.format in NATIVE_FORMATS else table_properties(table),
            version_directory=self._commit.version_directory
            if isinstance(self._commit, DirectCommit) else None)

    def createBatchWriterFactory(self, physical_info: Any) -> Any:
        return self._files.factory

    def useCommitCoordinator(self) -> bool:
        return False  # the file committer asks Spark's coordinator itself, as for file tables

    def onDataWriterCommit(self, message: Any) -> None:
        return None

    def commit(self, messages: Any, summary: Any = None) -> None:
        results = list(messages)
        if self._if_absent and partition_exists(self._context.metastore, self._table,
                                                self._static):
            self.abort(messages)  # IF NOT EXISTS, and it exists: nothing changes
            return
        self._committing = True
        try:
            if self._direct:
                self._commit_direct(results)
                return
            assert isinstance(self._commit, TableCommit)
            per_task = self._files.commit(results)
            limits = self._settings if self._table.partition_keys else None
            self._commit.commit(
                self._mode, self._static,
                check=None if limits is None else
                lambda written: check_partition_counts(written, per_task, limits))
        except DynamicPartitionError as exc:
            self._jvm.illegal_argument(str(exc))
        except WriteFailed:
            raise
        except (HmsCatalogError, OSError) as exc:
            raise WriteFailed(f"hms could not commit the write into "
                              f"{self._table.qualified_name}; the table is unchanged: {exc}") \
                from exc
        finally:
            self._context.listings.invalidate(self._table.qualified_name)

    def _commit_direct(self, results: list[Any]) -> None:
        """Files at their final names: the uploads complete inside the commit, after the
        partitions are planned; if it fails before that, they are aborted."""
        assert isinstance(self._commit, DirectCommit)
        per_task = self._files.partitions(results)
        written = sorted({name for names in per_task for name in names}) \
            if self._table.partition_keys else [""]
        limits = self._settings if self._table.partition_keys else None
        commit = self._commit
        self._files.commit_within(results, lambda complete: commit.commit(
            written, complete, self._static,
            check=None if limits is None else lambda count: check_partition_counts(
                count, [len(names) for names in per_task], limits)))

    def abort(self, messages: Any) -> None:
        if self._committing and self._direct:
            return  # the commit undid itself, or kept its record for recovery
        try:
            self._files.abort()
        finally:
            self._commit.abort()

    def toString(self) -> str:
        return f"HmsBatchWrite({self._table.qualified_name}, {self._mode})"
