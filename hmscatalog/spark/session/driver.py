"""The driver's side of a SparkSession that every entry point shares: its JVM ready for
Python objects that implement Java interfaces (one per session), the Hadoop file systems
hmscatalog lists through that JVM, and the S3 settings for listing with pyarrow."""

from __future__ import annotations

import weakref
from typing import Any

from hmscatalog import config
from hmscatalog.partitions.types import use_number_text
from hmscatalog.spark.bridge import plugin
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals import session
from hmscatalog.spark.read.rows import java_number_text
from hmscatalog.storage.filesystems import s3a_storage_options, use_hadoop
from hmscatalog.storage.hadoop import HadoopStorage
from hmscatalog.write.direct import use_upload_aborter


def conf_getter(spark: Any) -> config.Getter:
    """The session conf's ``get(key, None)``, for :mod:`hmscatalog.config`'s readers."""
    return lambda key: spark.conf.get(key, None)


_JVMS: weakref.WeakKeyDictionary[Any, Jvm] = weakref.WeakKeyDictionary()


def proxy_jvm(spark: Any) -> Jvm:
    """The session's JVM, ready for Python objects that implement Java interfaces (one per
    session, so that what it resolves once is kept)."""
    from pyspark.java_gateway import ensure_callback_server_started

    jvm = _JVMS.get(spark)
    if jvm is None or jvm.jsession is not spark._jsparkSession:
        jvm = Jvm(spark)
        ensure_callback_server_started(jvm.gateway)
        # A Java exception raised in a callback reaches Spark as itself, not wrapped in a
        # Py4JException: that is how hms's errors keep their first line.
        jvm.gateway.python_parameters.propagate_java_exceptions = True
        _JVMS[spark] = jvm
        _list_hadoop_file_systems(jvm)
        use_number_text(java_number_text(jvm))  # partitions named as this JVM's Spark names them
    return jvm


def _list_hadoop_file_systems(jvm: Jvm) -> None:
    """List and change files on the file systems pyarrow cannot open (``hdfs://``...) with
    Hadoop's, in this driver's JVM, configured as the session's Hadoop configuration."""
    plugin.load(jvm.gateway.jvm)  # its FileSystems class makes a listing one call
    conf = session.hadoop_conf(jvm)
    use_hadoop(lambda location: HadoopStorage(jvm.cls, conf, location))
    use_upload_aborter(lambda location, write_id: _abort_uploads(jvm, conf, location, write_id))


def _abort_uploads(jvm: Jvm, conf: Any, location: str, write_id: str) -> int:
    """Abort the multipart uploads under ``location`` (``s3a://...``) whose keys hold
    ``write_id``, through S3A (``S3AFileSystem.listUploads``); how many."""
    path = jvm.cls("org.apache.hadoop.fs.Path")(location)
    filesystem = path.getFileSystem(conf)
    prefix = str(path.toUri().getPath()).lstrip("/").rstrip("/") + "/"
    uploads = filesystem.listUploads(prefix)
    helper = filesystem.getWriteOperationHelper()
    aborted = 0
    while uploads.hasNext():
        upload = uploads.next()
        if write_id in str(upload.key()):
            helper.abortMultipartUpload(upload)
            aborted += 1
    return aborted


def storage_options(spark: Any, name: str | None = None) -> dict[str, str]:
    """S3 settings for listing S3 with pyarrow: ``spark.hmscatalog[.<name>].s3.endpoint``,
    ``.region``, ``.access-key-id``, ``.secret-access-key``, ``.session-token``; each unset one
    is taken from the session's Hadoop S3A settings (``spark.hadoop.fs.s3a.endpoint``...)."""
    hadoop = session.hadoop_conf(proxy_jvm(spark))
    return {**s3a_storage_options(hadoop.get),
            **config.catalog_storage_options(conf_getter(spark), name or "")}
