"""The Hive Metastore releases the embedded server can run, and where each one's parts come from.

``2.3`` runs from the jars the pyspark wheel ships. The others come from Maven Central, fetched
once into the jars cache by :mod:`hmscatalog.jars`:

- ``3.1`` is ``hive-standalone-metastore`` 3.1.3 (the 3.1 line of EMR and HDP/CDP);
- ``4.0`` is ``hive-standalone-metastore-server`` 4.0.1, the newest release published as a
  standalone metastore;
- ``4.x`` is 4.1.0, the newest 4 release that runs on Java 17 (4.2.0 needs Java 21). From 4.1
  on, the metastore server is published only inside ``hive-exec``, with no schema scripts on
  Maven Central: its schema is created from 4.0.1's scripts, and DataNucleus adds what 4.1's
  object model has beyond them when the server starts.

Hive's metastore depends on a Hadoop that its pom leaves to the deployer; each release gets the
Hadoop it was built and tested with.
"""

from __future__ import annotations

from dataclasses import dataclass

from hmscatalog.errors import ServerError
from hmscatalog.jars import JarSet

_EXCLUDED = (
    "jdk.tools:jdk.tools",  # a JDK 8 system-scope jar some Hadoop poms still name
    # Logging goes through log4j2; these log4j 1 bindings would take slf4j over.
    "org.slf4j:slf4j-log4j12", "org.slf4j:slf4j-reload4j", "log4j:log4j",
    "ch.qos.reload4j:reload4j",
    # Hadoop's shaded client jars carry a second Configuration class; with them on the class
    # path before hadoop-common, the server would load that one without its shaded woodstox.
    "org.apache.hadoop:hadoop-client-api", "org.apache.hadoop:hadoop-client-runtime",
)
_SCRIPTS = "**/scripts/metastore/upgrade/derby/**,**/scripts/metastore/upgrade/postgres/**"
SERVER_MAIN = "org.apache.hadoop.hive.metastore.HiveMetaStore"


def _hadoop(version: str) -> tuple[str, ...]:
    return tuple(f"org.apache.hadoop:{name}:{version}"
                 for name in ("hadoop-common", "hadoop-mapreduce-client-core", "hadoop-hdfs"))


@dataclass(frozen=True)
class HiveRelease:
    """One metastore release the embedded server can run.

    Attributes:
        line: what ``--hive-version`` names (``2.3``, ``3.1``, ``4.0``, ``4.x``).
        version: the release (``3.1.3``).
        jars: its jars on Maven Central, or ``None`` for the pyspark wheel's.
        schema_tool: main class of its schema tool (``None``: DataNucleus creates the schema).
        schema_version: the schema the tool creates (``None``: the release's own).
        schema_scripts: folder of the schema scripts inside the unpacked archive.
        hadoop: the Hadoop version of its jars (``None``: the pyspark wheel's).
    """

    line: str
    version: str
    jars: JarSet | None = None
    schema_tool: str | None = None
    schema_version: str | None = None
    schema_scripts: str = ""
    hadoop: str | None = None

    @property
    def from_wheel(self) -> bool:
        return self.jars is None

    @property
    def label(self) -> str:
        return f"Hive Metastore {self.version}"


_TOOL_3 = "org.apache.hadoop.hive.metastore.tools.MetastoreSchemaTool"
_TOOL_4 = "org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool"
_TARBALL_401 = "org.apache.hive:hive-standalone-metastore-server:4.0.1:tar.gz:bin"

RELEASES: dict[str, HiveRelease] = {
    "2.3": HiveRelease("2.3", "2.3.10"),
    "3.1": HiveRelease(
        "3.1", "3.1.3",
        JarSet("hive-metastore-3.1.3", "Hive Metastore 3.1.3",
               ("org.apache.hive:hive-standalone-metastore:3.1.3", *_hadoop("3.1.0")),
               _EXCLUDED, ("org.apache.hive:hive-standalone-metastore:3.1.3:tar.gz:bin",),
               _SCRIPTS),
        schema_tool=_TOOL_3, schema_scripts="apache-hive-metastore-3.1.3-bin", hadoop="3.1.0",
    ),
    "4.0": HiveRelease(
        "4.0", "4.0.1",
        JarSet("hive-metastore-4.0.1", "Hive Metastore 4.0.1",
               ("org.apache.hive:hive-standalone-metastore-server:4.0.1", *_hadoop("3.3.6")),
               _EXCLUDED, (_TARBALL_401,), _SCRIPTS),
        schema_tool=_TOOL_4, schema_scripts="apache-hive-metastore-4.0.1-bin", hadoop="3.3.6",
    ),
    "4.x": HiveRelease(
        "4.x", "4.1.0",
        JarSet("hive-metastore-4.1.0", "Hive Metastore 4.1.0",
               ("org.apache.hive:hive-exec:4.1.0",
                "org.apache.hive:hive-standalone-metastore-common:4.1.0",
                *_hadoop("3.4.1"),
                # hive-exec declares these provided: the metastore server needs them at run time.
                "org.datanucleus:datanucleus-api-jdo:6.0.3",
                "org.datanucleus:datanucleus-rdbms:6.0.10",
                "org.datanucleus:javax.jdo:3.2.0-release",
                "com.zaxxer:HikariCP:4.0.3",
                "org.antlr:antlr4-runtime:4.9.3",  # the partition-filter parser
                "org.springframework:spring-jdbc:5.3.39",  # the transaction store
                "sqlline:sqlline:1.9.0"),  # the schema tool runs the scripts through it
               # hive-exec's jline 3.9 bundle would shadow the jline 3.12 modules sqlline needs.
               (*_EXCLUDED, "org.jline:jline"), (_TARBALL_401,), _SCRIPTS),
        schema_tool=_TOOL_4, schema_version="4.0.0",
        schema_scripts="apache-hive-metastore-4.0.1-bin", hadoop="3.4.1",
    ),
}
DEFAULT_LINE = "2.3"


def release(line: str | None) -> HiveRelease:
    """The release ``--hive-version`` names (``2.3`` when ``None``).

    Also accepts a full release number (``3.1.3``, ``4.1.0``).

    Raises:
        ServerError: naming the value and the versions there are.
    """
    text = (line or DEFAULT_LINE).strip().lower()
    for item in RELEASES.values():
        if text in (item.line, item.version):
            return item
    choices = ", ".join(f"{r.line} ({r.version})" for r in RELEASES.values())
    raise ServerError(f"--hive-version {line!r} is not one the embedded metastore runs: "
                      f"choose one of {choices}")
