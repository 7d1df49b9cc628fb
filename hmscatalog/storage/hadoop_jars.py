"""The jars Spark and the metastore need beyond their own: S3A, HDFS, and Hive's JSON SerDe.

pyspark's wheel carries Hadoop's client (``hadoop-client-api``/``-runtime``), which opens
``file:`` and ``hdfs://`` but not ``s3a://``: that takes ``hadoop-aws`` of exactly the same Hadoop
version and the AWS SDK it was built against. Both come from Maven Central through
:mod:`hmscatalog.jars`, once, into the jars cache. A real HDFS for tests and trials is
``hadoop-client-minicluster`` of the same version.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from hmscatalog.errors import JarsUnavailable
from hmscatalog.jars import JarSet, classpath

# hadoop-aws declares the Hadoop it plugs into as provided; the host (Spark, the metastore)
# brings its own. Log4j 1 bindings would take slf4j over.
_PROVIDED = ("org.apache.hadoop:hadoop-common", "org.apache.hadoop:hadoop-client-api",
             "org.apache.hadoop:hadoop-client-runtime", "org.slf4j:slf4j-log4j12",
             "org.slf4j:slf4j-reload4j", "log4j:log4j", "ch.qos.reload4j:reload4j")


def wheel_hadoop_version() -> str:
    """The Hadoop version of the installed pyspark's client jars (``3.5.0``).

    Raises:
        JarsUnavailable: pyspark is not installed, or its jars name no Hadoop client.
    """
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise JarsUnavailable("pyspark is not installed: pip install 'hmscatalog[spark]'")
    jars = Path(spec.origin).parent / "jars"
    for jar in sorted(jars.glob("hadoop-client-api-*.jar")):
        found = re.fullmatch(r"hadoop-client-api-(\d+\.\d+\.\d+)\.jar", jar.name)
        if found:
            return found.group(1)
    raise JarsUnavailable(f"no hadoop-client-api jar in {jars}: reinstall pyspark")


def s3a(hadoop_version: str | None = None) -> JarSet:
    """``hadoop-aws`` of ``hadoop_version`` (default: pyspark's) with the AWS SDK it needs."""
    version = hadoop_version or wheel_hadoop_version()
    return JarSet(f"hadoop-aws-{version}", f"hadoop-aws {version} (S3A) and its AWS SDK",
                  (f"org.apache.hadoop:hadoop-aws:{version}",), _PROVIDED)


def minicluster(hadoop_version: str | None = None) -> JarSet:
    """``hadoop-client-minicluster`` of ``hadoop_version`` (default: pyspark's), with the
    JUnit classes its test-cluster launcher loads."""
    version = hadoop_version or wheel_hadoop_version()
    return JarSet(f"hadoop-minicluster-{version}", f"Hadoop {version} mini cluster (HDFS)",
                  (f"org.apache.hadoop:hadoop-client-minicluster:{version}",
                   "junit:junit:4.13.2", "org.junit.jupiter:junit-jupiter-api:5.10.2"),
                  ("org.slf4j:slf4j-log4j12", "org.slf4j:slf4j-reload4j", "log4j:log4j",
                   "ch.qos.reload4j:reload4j"))


def json_serde() -> JarSet:
    """Hive's JSON SerDe (``org.apache.hive.hcatalog.data.JsonSerDe``), of the Hive release
    whose classes pyspark's wheel carries (2.3), with the Jackson 1 it parses with (newer
    pyspark wheels lack it); nothing else, since the wheel has the rest of Hive."""
    return JarSet("hive-hcatalog-core-2.3.10", "Hive 2.3.10's JSON SerDe (hive-hcatalog-core)",
                  ("org.apache.hive.hcatalog:hive-hcatalog-core:2.3.10",
                   "org.codehaus.jackson:jackson-core-asl:1.9.13",
                   "org.codehaus.jackson:jackson-mapper-asl:1.9.13"), ("*:*",))


KINDS = {"s3": s3a, "hdfs": minicluster, "json": json_serde}


def spark_jars(kind: str) -> list[str]:
    """The jars of ``kind`` (``s3`` or ``hdfs``) for ``spark.jars``, fetched on first use.

    For ``hdfs`` these are the mini cluster's; Spark itself opens ``hdfs://`` without them.

    Raises:
        JarsUnavailable: one line saying why they cannot be fetched.
    """
    try:
        jar_set = KINDS[kind]
    except KeyError:
        raise JarsUnavailable(f"no jars named {kind!r}: choose one of "
                              f"{', '.join(sorted(KINDS))}") from None
    return classpath(jar_set())
