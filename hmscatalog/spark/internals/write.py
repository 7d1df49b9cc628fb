"""Writing files with Spark's own Parquet/ORC writers: the write job Spark's
``FileWriterFactory`` runs in the tasks (``WriteJobDescription``, ``FileFormat.prepareWrite``,
``BasicWriteJobStatsTracker``) and the ``FileCommitProtocol`` that commits its files, as
Spark's ``FileFormatWriter`` sets them up for its own file tables.

Checked in Spark 4.0 to 4.3: ``WriteJobDescription`` has the same twelve constructor arguments
in all four.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from py4j.java_gateway import JavaObject
from py4j.protocol import Py4JJavaError

from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.model import StorageFormat
from hmscatalog.spark.internals.session import hadoop_conf, sql_conf

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

DATASOURCES = "org.apache.spark.sql.execution.datasources"
# Files written once at their final names, visible only when the job commits: S3A's magic
# committer under hmscatalog's protocol (hmscatalog/spark/bridge/java/MagicCommitProtocol.java).
MAGIC_PROTOCOL = "io.hmscatalog.spark.MagicCommitProtocol"
# The job setting MagicCommitProtocol puts every file one directory further down by.
VERSION_DIRECTORY = "hmscatalog.write.version-directory"
MAGIC_SETTINGS = {
    "fs.s3a.committer.name": "magic",
    "fs.s3a.committer.magic.enabled": "true",
    "mapreduce.outputcommitter.factory.scheme.s3a":
        "org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory",
    "mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",  # no _SUCCESS file
    # Other writes into the same table have uploads under way too.
    "fs.s3a.committer.abort.pending.uploads": "false",
}


def attributes_by_name(jvm: Jvm, schema: Any) -> dict[str, Any]:
    """The Catalyst attributes of a ``StructType``'s fields, by lower-case name, in the
    schema's order (``DataTypeUtils.toAttributes``)."""
    attributes = jvm.cls("org.apache.spark.sql.catalyst.types.DataTypeUtils").toAttributes(schema)
    return {str(a.name()).lower(): a for a in jvm.seq_elements(attributes)}


_MAGIC_CAPABILITY = "fs.s3a.capability.magic.committer"
_IN_MEMORY = "fs.s3a.committer.magic.track.commits.in.memory.enabled"


def _use_magic(jvm: Jvm, conf: Any, destination: str, write_id: str) -> None:
    """Configure a write job for S3A's magic committer. The file system instance, made once
    per bucket from the session's configuration, decides how a task's uploads are recorded:
    it must support magic paths, and the committer must look where it records them.

    Raises:
        HmsCatalogError: the session's S3A has the magic committer turned off.
    """
    path = jvm.cls("org.apache.hadoop.fs.Path")(destination)
    filesystem = path.getFileSystem(conf)
    if not filesystem.hasPathCapability(path, _MAGIC_CAPABILITY):
        raise HmsCatalogError(
            f"hms writes {destination} through S3A's magic committer, which this session's "
            "S3A has turned off: remove spark.hadoop.fs.s3a.committer.magic.enabled=false")
    settings = {**MAGIC_SETTINGS, "spark.sql.sources.writeJobUUID": write_id,
                _IN_MEMORY: filesystem.getConf().get(_IN_MEMORY) or "false"}
    for key, value in settings.items():  # the work directory is __magic_job-<write id>
        conf.set(key, value)


def _partition_locations(jvm: Jvm,
                         locations: Sequence[tuple[Mapping[str, str], str]]) -> Any:
    """A Scala ``Map[TablePartitionSpec, String]``."""
    if not locations:
        return jvm.scala_map({})
    java_map = jvm.cls("java.util.HashMap")()
    for spec, location in locations:
        java_map.put(jvm.scala_map(spec), location)
    return jvm.cls("org.apache.spark.api.python.PythonUtils").toScalaMap(java_map)


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
        per_task = [len(names) for names in self.partitions(messages)]
        self.commit_job(messages)
        return per_task

    def partitions(self, messages: Sequence[Any]) -> list[list[str]]:
        """The partition directories (``k=v/...``) each task wrote files into."""
        return [[str(p) for p in self._jvm.seq_elements(m.summary().updatedPartitions())]
                for m in messages]

    def commit_job(self, messages: Sequence[Any]) -> None:
        """``FileCommitProtocol.commitJob``."""
        self._committer.commitJob(self._job, self._jvm.seq([m.commitMsg() for m in messages]))

    def abort(self) -> None:
        """``FileCommitProtocol.abortJob``: remove what the tasks wrote. A failed job's other
        tasks are cancelled, not stopped: one still running may write a file after it, so
        this first waits (a bounded while) until the driver's executors run no task."""
        _wait_for_running_tasks(self._jvm, ABORT_WAIT_S)
        self._committer.abortJob(self._job)

    def commit_within(self, messages: Sequence[Any],
                      commit: Callable[[Callable[[], None]], None]) -> None:
        """Run ``commit(complete)``, where ``complete()`` commits the job (on S3: completes
        the uploads, the moment the files show); if ``commit`` raises before that, the job is
        aborted (its pending uploads too)."""
        completed = False

        def complete() -> None:
            nonlocal completed
            self.commit_job(messages)
            completed = True

        try:
            commit(complete)
        except BaseException:
            if not completed:
                self.abort()
            raise


ABORT_WAIT_S = 30.0


def _wait_for_running_tasks(jvm: Jvm, seconds: float) -> None:
    """Wait until no executor runs a task (``SparkStatusTracker.getExecutorInfos``), at most
    ``seconds``: other jobs of the session may keep some running."""
    tracker = jvm.jsession.sparkContext().statusTracker()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(
            int(info.numRunningTasks()) for info in tracker.getExecutorInfos()):
        time.sleep(0.05)


HIVE_COMPRESS = "hive.exec.compress.output"
HIVE_COMPRESS_CODEC = "mapreduce.output.fileoutputformat.compress.codec"
HIVE_COMPRESS_TYPE = "mapreduce.output.fileoutputformat.compress.type"


def hive_compression(conf: Any, output_format: str) -> tuple[str | None, str | None] | None:
    """``(codec class, compression type)`` (each ``None`` when unset) with which a Hive SerDe
    write compresses its files, ``None`` when it does not: ``hive.exec.compress.output`` in
    the Hadoop configuration ``conf``, except for ORC, whose own properties say
    (``SaveAsHiveFile``).

    Raises:
        ValueError: ``hive.exec.compress.output`` is not true or false.
    """
    if output_format.lower().endswith("orcoutputformat"):
        return None
    flag = str(conf.get(HIVE_COMPRESS, "false")).strip().lower()
    if flag not in ("true", "false"):
        raise ValueError(flag)
    if flag == "false":
        return None
    codec, compression_type = conf.get(HIVE_COMPRESS_CODEC), conf.get(HIVE_COMPRESS_TYPE)
    return (None if codec is None else str(codec),
            None if compression_type is None else str(compression_type))


def codec_error(jvm: Jvm, file_format: StorageFormat, options: Mapping[str, str]) -> str | None:
    """Spark's message when its Parquet (ORC) options refuse the codec ``options`` name
    (``ParquetOptions.compressionCodecClassName``, ``OrcOptions.compressionCodec``), else
    ``None``."""
    name = (f"{DATASOURCES}.orc.OrcOptions" if file_format is StorageFormat.ORC
            else f"{DATASOURCES}.parquet.ParquetOptions")
    from pyspark.errors import IllegalArgumentException

    try:
        jvm.cls(name)(jvm.scala_map(dict(options)), sql_conf(jvm))
    except IllegalArgumentException as exc:  # as PySpark raises it in the driver
        return str(exc).strip()
    except Py4JJavaError as exc:
        if str(exc.java_exception.getClass().getName()) != "java.lang.IllegalArgumentException":
            raise
        return str(exc.java_exception.getMessage())
    return None


def codec_class_error(jvm: Jvm, name: str) -> bool:
    """Whether ``name`` is not a Hadoop ``CompressionCodec`` class Spark can load."""
    loader = jvm.cls("java.lang.Thread").currentThread().getContextClassLoader()
    java_class = jvm.cls("java.lang.Class")
    try:
        found = java_class.forName(name.strip(), False, loader)
    except Py4JJavaError:
        return True
    codec = java_class.forName("org.apache.hadoop.io.compress.CompressionCodec", False, loader)
    return not codec.isAssignableFrom(found)


def _hive_file_format(jvm: Jvm, staging: str, serde_properties: Mapping[str, str],
                      conf: Any) -> Any:
    """Spark's ``HiveFileFormat`` for a table of these SerDe properties: its output format and
    SerDe write the files, compressed as :func:`hive_compression` says (the job's Hadoop
    configuration ``conf`` is set up for it as ``SaveAsHiveFile`` does)."""
    loader = jvm.cls("java.lang.Thread").currentThread().getContextClassLoader()
    java_class = jvm.cls("java.lang.Class")
    properties = jvm.cls("java.util.Properties")()
    properties.putAll(jvm.hash_map(dict(serde_properties)))
    table_desc = jvm.cls("org.apache.hadoop.hive.ql.plan.TableDesc")(
        java_class.forName(serde_properties["file.inputformat"], True, loader),
        java_class.forName(serde_properties["file.outputformat"], True, loader), properties)
    sink = jvm.cls("org.apache.hadoop.hive.ql.plan.FileSinkDesc")(
        jvm.cls("org.apache.hadoop.fs.Path")(staging), table_desc, False)
    compression = hive_compression(conf, serde_properties["file.outputformat"])
    if compression is not None:
        conf.set("mapreduce.output.fileoutputformat.compress", "true")
        sink.setCompressed(True)
        sink.setCompressCodec(compression[0])
        sink.setCompressType(compression[1])
    else:  # Parquet's and ORC's output formats: their table properties, then the session's
        chosen = jvm.scala_object("org.apache.spark.sql.hive.execution.HiveOptions") \
            .getHiveWriteCompression(table_desc, sql_conf(jvm))
        if chosen.isDefined():
            conf.set(chosen.get()._1(), chosen.get()._2())
    return jvm.cls("org.apache.spark.sql.hive.execution.HiveFileFormat")(sink)


def prepare_file_write(jvm: Jvm, write_id: str, staging: str, file_format: StorageFormat | None,
                       options: Any, columns: Sequence[Any], data_columns: Sequence[Any],
                       partition_columns: Sequence[Any], bucket_spec: Any,
                       magic: bool = False,
                       custom_locations: Sequence[tuple[Mapping[str, str], str]] = (),
                       serde_properties: Mapping[str, str] | None = None,
                       version_directory: str | None = None,
                       ) -> FileWrite:
    """Set up a write of Parquet (ORC for :attr:`StorageFormat.ORC`) files under ``staging``,
    with ``k=v`` directories for the partition columns; with ``serde_properties`` (a table's
    SerDe properties, :func:`hmscatalog.metastore.serde.table_properties`), files of the
    table's Hive output format and SerDe instead, written as the built-in catalog writes them
    (Spark's ``HiveFileFormat``).

    With ``magic`` (``staging`` on ``s3a://``), the files go to their final names under
    ``staging`` as uploads that the job's commit completes (:data:`MAGIC_SETTINGS`); the
    session's commit protocol otherwise.

    Args:
        options: the write's ``CaseInsensitiveStringMap``, or the options by name, for the
            file format and Hadoop.
        columns: the attributes of the rows Spark hands the write, in their order.
        data_columns: the attributes written into the files.
        partition_columns: the attributes the files are partitioned by, in directory order.
        bucket_spec: ``Option[WriterBucketSpec]`` (see :func:`~.catalyst.writer_bucket_spec`).
        custom_locations: ``(partition values by column, directory)`` of partitions whose
            files go somewhere else than ``<staging>/k=v`` (``customPartitionLocations``).
        version_directory: with ``magic``, every file goes one directory further down, into
            ``<staging>/k=v/<version_directory>/`` (an overwrite's ``hms-v<write id>``).
    """
    if isinstance(options, JavaObject):  # keys as given (py4j's map view lowers them)
        options = jvm.to_dict(options.asCaseSensitiveMap())
    scala_options = jvm.scala_map(options)
    job = jvm.cls("org.apache.hadoop.mapreduce.Job").getInstance(
        hadoop_conf(jvm, scala_options))
    java_class = jvm.cls("java.lang.Class")
    job.setOutputKeyClass(java_class.forName("java.lang.Void"))
    job.setOutputValueClass(java_class.forName("org.apache.spark.sql.catalyst.InternalRow"))
    jvm.cls("org.apache.hadoop.mapreduce.lib.output.FileOutputFormat").setOutputPath(
        job, jvm.cls("org.apache.hadoop.fs.Path")(staging))
    if magic:
        _use_magic(jvm, job.getConfiguration(), staging, write_id)
        if version_directory:
            job.getConfiguration().set(VERSION_DIRECTORY, version_directory)

    data_schema = jvm.cls("org.apache.spark.sql.catalyst.types.DataTypeUtils") \
        .fromAttributes(jvm.seq(list(data_columns)))
    if serde_properties is not None:
        file_format_object = _hive_file_format(jvm, staging, serde_properties,
                                               job.getConfiguration())
    else:
        file_format_object = jvm.cls(
            f"{DATASOURCES}.orc.OrcFileFormat" if file_format is StorageFormat.ORC
            else f"{DATASOURCES}.parquet.ParquetFileFormat")()
    writer_factory = file_format_object.prepareWrite(jvm.jsession, job, scala_options,
                                                     data_schema)

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
        _partition_locations(jvm, custom_locations),  # customPartitionLocations
        session_conf.maxRecordsPerFile(),  # maxRecordsPerFile
        session_conf.sessionLocalTimeZone(),  # timeZoneId
        jvm.seq([tracker]))  # statsTrackers
    committer = jvm.scala_object("org.apache.spark.internal.io.FileCommitProtocol") \
        .instantiate(MAGIC_PROTOCOL if magic else session_conf.fileCommitProtocolClass(),
                     write_id, staging, False)
    committer.setupJob(job)
    factory = jvm.cls(f"{DATASOURCES}.v2.FileWriterFactory")(description, committer)
    return FileWrite(jvm, job, committer, factory)
