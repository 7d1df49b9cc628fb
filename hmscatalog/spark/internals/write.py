"""Writing files with Spark's own Parquet/ORC writers: the write job Spark's
``FileWriterFactory`` runs in the tasks (``WriteJobDescription``, ``FileFormat.prepareWrite``,
``BasicWriteJobStatsTracker``) and the ``FileCommitProtocol`` that commits its files, as
Spark's ``FileFormatWriter`` sets them up for its own file tables.

Checked in Spark 4.0 to 4.3: ``WriteJobDescription`` has the same twelve constructor arguments
in all four.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hmscatalog.metastore.model import StorageFormat
from hmscatalog.spark.internals.session import hadoop_conf, sql_conf

if TYPE_CHECKING:
    from hmscatalog.spark.jvm import Jvm

DATASOURCES = "org.apache.spark.sql.execution.datasources"


def attributes_by_name(jvm: Jvm, schema: Any) -> dict[str, Any]:
    """The Catalyst attributes of a ``StructType``'s fields, by lower-case name, in the
    schema's order (``DataTypeUtils.toAttributes``)."""
    attributes = jvm.cls("org.apache.spark.sql.catalyst.types.DataTypeUtils").toAttributes(schema)
    return {str(a.name()).lower(): a for a in jvm.java_list(attributes)}


class FileWrite:
    """A write job's Hadoop job, file committer and the writer factory the tasks run."""

    def __init__(self, jvm: Jvm, job: Any, committer: Any, factory: Any) -> None:
        self._jvm = jvm
        self._job = job
        self._committer = committer
        self.factory = factory  # the DataWriterFactory handed to Spark

    def commit(self, messages: Sequence[Any]) -> list[int]:
        """Commit the job's files (``FileCommitProtocol.commitJob``) from the tasks' commit
        messages (``WriteTaskResult``s); returns how many partitions each task wrote, read
        before the commit."""
        per_task = [int(m.summary().updatedPartitions().size()) for m in messages]
        self._committer.commitJob(self._job, self._jvm.seq([m.commitMsg() for m in messages]))
        return per_task

    def abort(self) -> None:
        """``FileCommitProtocol.abortJob``: remove what the tasks wrote."""
        self._committer.abortJob(self._job)


def prepare_file_write(jvm: Jvm, write_id: str, staging: str, file_format: StorageFormat | None,
                       options: Any, columns: Sequence[Any], data_columns: Sequence[Any],
                       partition_columns: Sequence[Any], bucket_spec: Any) -> FileWrite:
    """Set up a write of Parquet (ORC for :attr:`StorageFormat.ORC`) files under ``staging``,
    with ``k=v`` directories for the partition columns.

    Args:
        options: the write's ``CaseInsensitiveStringMap``, for the file format and Hadoop.
        columns: the attributes of the rows Spark hands the write, in their order.
        data_columns: the attributes written into the files.
        partition_columns: the attributes the files are partitioned by, in directory order.
        bucket_spec: ``Option[WriterBucketSpec]`` (see :func:`~.catalyst.writer_bucket_spec`).
    """
    scala_options = jvm.cls("org.apache.spark.api.python.PythonUtils").toScalaMap(
        options.asCaseSensitiveMap())
    job = jvm.cls("org.apache.hadoop.mapreduce.Job").getInstance(
        hadoop_conf(jvm, scala_options))
    java_class = jvm.cls("java.lang.Class")
    job.setOutputKeyClass(java_class.forName("java.lang.Void"))
    job.setOutputValueClass(java_class.forName("org.apache.spark.sql.catalyst.InternalRow"))
    jvm.cls("org.apache.hadoop.mapreduce.lib.output.FileOutputFormat").setOutputPath(
        job, jvm.cls("org.apache.hadoop.fs.Path")(staging))

    data_schema = jvm.cls("org.apache.spark.sql.catalyst.types.DataTypeUtils") \
        .fromAttributes(jvm.seq(list(data_columns)))
    format_class = jvm.cls(f"{DATASOURCES}.orc.OrcFileFormat" if file_format is
                           StorageFormat.ORC else f"{DATASOURCES}.parquet.ParquetFileFormat")
    writer_factory = format_class().prepareWrite(jvm.jsession, job, scala_options, data_schema)

    conf = jvm.cls("org.apache.spark.util.SerializableConfiguration")(job.getConfiguration())
    tracker = jvm.cls(f"{DATASOURCES}.BasicWriteJobStatsTracker")(
        conf, jvm.scala_object(f"{DATASOURCES}.BasicWriteJobStatsTracker").metrics())
    session_conf = sql_conf(jvm)
    description = jvm.cls(f"{DATASOURCES}.WriteJobDescription")(
        write_id,  # uuid
        conf,  # serializableHadoopConf
        writer_factory,  # outputWriterFactory
        jvm.seq(list(columns)),  # allColumns
        jvm.seq(list(data_columns)),  # dataColumns
        jvm.seq(list(partition_columns)),  # partitionColumns
        bucket_spec,  # bucketSpec
        staging,  # path
        jvm.scala_map({}),  # customPartitionLocations
        session_conf.maxRecordsPerFile(),  # maxRecordsPerFile
        session_conf.sessionLocalTimeZone(),  # timeZoneId
        jvm.seq([tracker]))  # statsTrackers
    committer = jvm.scala_object("org.apache.spark.internal.io.FileCommitProtocol") \
        .instantiate(session_conf.fileCommitProtocolClass(), write_id, staging, False)
    committer.setupJob(job)
    factory = jvm.cls(f"{DATASOURCES}.v2.FileWriterFactory")(description, committer)
    return FileWrite(jvm, job, committer, factory)
