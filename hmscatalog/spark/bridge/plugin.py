"""The Java side of the ``hms`` catalog in a running driver: the plugin's jar for the installed
Spark (from the wheel, else built once with the JDK into ``~/.hmscatalog/jars/``), loading it,
and the settings that give a session the plugin from its start. The jar's sources and how it is
built: :mod:`hmscatalog.javaparts.spark_plugin`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hmscatalog import jars as jar_cache
from hmscatalog import javaparts
from hmscatalog.javaparts.spark_plugin import (
    EXTENSIONS_CLASS,
    PLUGIN_CLASS,
    REGISTRY_CLASS,
    PluginBuildError,
    build,
    digest,
    minor_of,
    prebuilt_name,
    spark_version,
)
from hmscatalog.metastore.server import find_spark_jars
from hmscatalog.storage import hadoop_jars

__all__ = ["EXTENSIONS_CLASS", "PLUGIN_CLASS", "REGISTRY_CLASS", "PluginBuildError", "load",
           "plugin_jar", "session_conf"]


def plugin_jar() -> Path:
    """The plugin's jar for the installed Spark: the wheel's for its minor, else one built
    with the JDK into the jars cache (first, if it is not there)."""
    jars = find_spark_jars()
    version = spark_version(jars)
    major, minor = minor_of(version)
    built_from = digest()
    prebuilt = javaparts.find(prebuilt_name(f"{major}.{minor}"), built_from)
    if prebuilt is not None:
        return prebuilt
    target = jar_cache.cache() / f"hmscatalog-spark-{version}-{built_from}.jar"
    if not target.exists():
        build(jars, target)
    return target


def load(jvm_view: Any) -> None:
    """Make the plugin's classes visible in a running driver: added to the class loader that
    Spark and py4j resolve class names with (PySpark's driver runs under spark-submit's
    mutable class loader), unless they are there already (``spark.jars`` at start)."""
    thread = jvm_view.java.lang.Thread.currentThread()
    loader = thread.getContextClassLoader()
    try:
        jvm_view.java.lang.Class.forName(REGISTRY_CLASS, False, loader)
        return
    except Exception:
        pass
    jar = plugin_jar()
    if "addURL" not in {str(m.getName()) for m in loader.getClass().getMethods()}:
        raise PluginBuildError(
            f"cannot add {jar} to this driver's class loader ({loader.getClass().getName()}): "
            f"start the session with spark.jars={jar}")
    loader.addURL(jvm_view.java.io.File(str(jar)).toURI().toURL())


def session_conf(names: Sequence[str] = ("hms",), s3: bool = False,
                 json: bool = False) -> dict[str, str]:
    """Settings that give a SparkSession the plugin from its start: its jar, the extension, and
    the catalog class for each name (``attach`` still registers the Python side).

    Args:
        s3: add S3A to ``spark.jars`` (``hmscatalog jars s3``: ``hadoop-aws`` matching
            pyspark's Hadoop, and its AWS SDK; fetched from Maven Central on first use), so
            that Spark reads and writes ``s3a://``.
        json: add Hive's JSON SerDe to ``spark.jars`` (``hmscatalog jars json``), so that
            tables stored with ``org.apache.hive.hcatalog.data.JsonSerDe`` are read and
            written (through hms and the built-in catalog alike).
    """
    jars = [str(plugin_jar()), *(hadoop_jars.spark_jars("s3") if s3 else ()),
            *(hadoop_jars.spark_jars("json") if json else ())]
    conf = {"spark.jars": ",".join(jars), "spark.sql.extensions": EXTENSIONS_CLASS}
    conf.update({f"spark.sql.catalog.{name}": PLUGIN_CLASS for name in names})
    return conf
