"""Every Spark internal hmscatalog touches, in one folder, and the Spark versions it supports.

hmscatalog implements Spark's public DataSource V2 API (``org.apache.spark.sql.connector``) in
the modules beside this package. What that API leaves to Spark's own file sources (reading and
writing Parquet/ORC files, typing partition values, a DataFrame over a table no catalog holds)
goes through Spark classes that are not public API, and only through the functions here:

* :mod:`.versions` — :data:`SUPPORTED` minors, :func:`check_spark_version`, the running version
  (by which a function picks a form that changed between supported releases), and the newer
  public APIs some features need (:func:`~.versions.require_spark`).
* :mod:`.session` — ``SessionState``/``SQLConf`` (settings, time zone, Hadoop configurations),
  ``DataSourceV2Relation`` + ``classic.Dataset.ofRows`` (reads, and writes by
  ``AppendData``/``OverwritePartitionsDynamic``), ``CatalogV2Util``.
* :mod:`.read` — ``PredicateUtils.toV1``, V2 operand classes and literal values,
  ``FileStatusCache``, ``InMemoryFileIndex``, ``PartitionSpec``/``PartitionPath``,
  ``PartitioningUtils.parsePartitions``, ``Parquet/OrcScanBuilder`` and their data-filter push.
* :mod:`.write` — ``DataTypeUtils`` attributes, ``WriteJobDescription``,
  ``Parquet/OrcFileFormat.prepareWrite``, ``BasicWriteJobStatsTracker``, ``FileCommitProtocol``,
  ``FileWriterFactory``, ``WriteTaskResult``.
* :mod:`.plans` — the analyzer's parsed plan nodes (INSERT, MSCK, SHOW PARTITIONS), the
  session's parser and catalog manager, local relations, ``AnalysisException``.
* :mod:`.catalyst` — Catalyst expression constructors, ``WriterBucketSpec``,
  ``GenericInternalRow``/``UTF8String`` rows cast by an interpreted ``UnsafeProjection``.

The rule: outside this package, hmscatalog names only public Spark API — the connector
interfaces and their types (``org.apache.spark.sql.connector``, ``sql.sources.Filter``,
``sql.types``, ``sql.util``, ``catalyst.InternalRow`` and the ``catalyst.analysis`` exceptions
that connector signatures use), ``SparkRuntimeException`` — plus the generic py4j plumbing of
:mod:`hmscatalog.spark.bridge.jvm`, which leans on PySpark's own bridge (``PythonUtils``).
``tests/unit/test_spark_internals.py`` checks it. :mod:`.session` also holds what makes the
catalog reach every session (the session's extensions, the configuration new sessions start
from) and the Thrift server's start. The Java side (``hmscatalog/spark/bridge/java/``) names plan
classes by their simple names only and compiles against the running Spark.
"""

from hmscatalog.spark.internals.versions import SUPPORTED, check_spark_version, running_version

__all__ = ["SUPPORTED", "check_spark_version", "running_version"]
