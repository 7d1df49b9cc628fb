"""What an embedded metastore needs before it starts: backing database, configuration, class
path and schema, for each :mod:`hmscatalog.metastore.releases` release.

Hive 2.3 reads ``hive-site.xml`` and lets DataNucleus create its schema, as the pyspark wheel's
metastore always has here. Hive 3.1 and 4.x read ``metastore-site.xml``; their schema is created
once per data directory with the release's own schema tool and scripts, and checked by the server
at every start (``metastore.schema.verification``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape

from hmscatalog import jars
from hmscatalog.errors import InvalidUri, ServerError
from hmscatalog.metastore.releases import HiveRelease
from hmscatalog.storage import hadoop_jars

POSTGRES_JDBC_JARS = ("/usr/share/java/postgresql.jar",)
# Hadoop before 3.3 reads the default Kerberos realm through the JDK's internal Config class
# whenever Kerberos is configured (our core-site.xml): Java 17 must export it.
KERBEROS_ACCESS = ("--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED")
SCHEMA_TIMEOUT_S = 600.0
_VERSION_FILE = "hive-version"


@dataclass(frozen=True)
class BackingDb:
    """JDBC settings of the metastore's backing database."""

    url: str
    driver: str
    user: str | None = None
    password: str | None = None
    extra_jars: tuple[str, ...] = ()
    label: str = "derby"

    @property
    def schema_type(self) -> str:
        """The database's name for Hive's schema tool."""
        return "derby" if self.label == "derby" else "postgres"


def backing_db(db: str, data_dir: Path) -> BackingDb:
    """Resolve ``--db`` (``derby`` or ``postgresql://user:pass@host:port/name``).

    Raises:
        InvalidUri: for a malformed or unsupported ``db``.
        ServerError: when PostgreSQL's JDBC driver is not installed.
    """
    if db == "derby":
        url = f"jdbc:derby:;databaseName={data_dir / 'metastore_db'};create=true"
        return BackingDb(url=url, driver=DERBY_DRIVER)
    parts = urlsplit(db)
    if parts.scheme not in ("postgresql", "postgres"):
        raise InvalidUri(
            f"--db {db!r}: expected 'derby' or a postgresql://user:password@host:port/database URI"
        )
    try:
        port = parts.port or 5432
    except ValueError:
        raise InvalidUri(f"--db {db!r}: the port is not a number") from None
    name = parts.path.lstrip("/")
    if not parts.hostname or not name:
        raise InvalidUri(f"--db {db!r}: host and database name are required")
    found = tuple(j for j in POSTGRES_JDBC_JARS if Path(j).exists())
    if not found:
        raise ServerError(
            "PostgreSQL JDBC driver not found at "
            f"{', '.join(POSTGRES_JDBC_JARS)}: install Debian's libpostgresql-jdbc-java"
        )
    query = f"?{parts.query}" if parts.query else ""
    return BackingDb(
        url=f"jdbc:postgresql://{parts.hostname}:{port}/{name}{query}",
        driver="org.postgresql.Driver",
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        extra_jars=found,
        label=f"postgresql://{parts.hostname}:{port}/{name}",
    )


DERBY_DRIVER = "org.apache.derby.jdbc.EmbeddedDriver"
# The persistent classes of Hive 2.3's metastore (its package.jdo), each one schema table or more.
_HIVE2_MODEL = (
    "MDatabase", "MFieldSchema", "MType", "MTable", "MConstraint", "MSerDeInfo", "MOrder",
    "MColumnDescriptor", "MStringList", "MStorageDescriptor", "MPartition", "MIndex", "MRole",
    "MRoleMap", "MGlobalPrivilege", "MDBPrivilege", "MTablePrivilege", "MPartitionPrivilege",
    "MTableColumnPrivilege", "MPartitionColumnPrivilege", "MPartitionEvent", "MMasterKey",
    "MDelegationToken", "MTableColumnStatistics", "MPartitionColumnStatistics", "MVersionTable",
    "MResourceUri", "MFunction", "MNotificationLog", "MNotificationNextId")


def _settings(release: HiveRelease, data_dir: Path, db: BackingDb) -> dict[str, str]:
    warehouse = f"file:{(data_dir / 'warehouse').resolve()}"
    settings = {
        "javax.jdo.option.ConnectionURL": db.url,
        "javax.jdo.option.ConnectionDriverName": db.driver,
        "hive.metastore.warehouse.dir": warehouse,
        "hive.metastore.event.db.notification.api.auth": "false",
        "hive.metastore.try.direct.sql": "true",
        # Filters on integer partition columns evaluated by the database, not refused.
        "hive.metastore.integral.jdo.pushdown": "true",
        # Asynchronous logging needs the LMAX disruptor, which none of the releases ships.
        "hive.async.log.enabled": "false",
    }
    if db.user:
        settings["javax.jdo.option.ConnectionUserName"] = db.user
    if db.password:
        settings["javax.jdo.option.ConnectionPassword"] = db.password
    if release.from_wheel:
        settings.update({
            "datanucleus.schema.autoCreateAll": "true",
            "hive.metastore.schema.verification": "false",
            # The default pool (BoneCP) is not among pyspark's jars; Hive's transaction handler
            # opens a pool on DROP DATABASE/TABLE, so use no pooling.
            "datanucleus.connectionPoolingType": "None",
        })
        if db.driver != DERBY_DRIVER:
            settings.update({
                # Pooled connections (HikariCP is among pyspark's jars): without a pool every
                # call opens a PostgreSQL connection, and adding partitions runs 10x slower.
                "datanucleus.connectionPoolingType": "HikariCP",
                # Every schema table created when the server starts: created on first use
                # instead, a table's privileges table (TBL_PRIVS) is made inside the
                # create_table transaction, and PostgreSQL's DDL then waits for that very
                # transaction's lock, forever.
                "datanucleus.autoStartMechanism": "Classes",
                "datanucleus.autoStartClassNames": ",".join(
                    f"org.apache.hadoop.hive.metastore.model.{name}" for name in _HIVE2_MODEL),
            })
        return settings
    # The schema tool made the schema of this very release unless it names an older one.
    exact = release.schema_version is None
    settings.update({
        "metastore.warehouse.dir": warehouse,
        "metastore.async.log.enabled": "false",
        "metastore.schema.verification": str(exact).lower(),
        "datanucleus.schema.autoCreateAll": str(not exact).lower(),
        # Evaluates partition-filter expressions without Hive's query compiler (not here).
        "metastore.expression.proxy":
            "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy",
        # Only the event cleaner among the housekeeping threads: the others (compaction,
        # statistics, replication) need HiveServer2 parts this server does not have, and
        # starting them races with the first calls (4.1 closed a handler's persistence manager).
        "metastore.task.threads.always":
            "org.apache.hadoop.hive.metastore.events.EventCleanerTask",
        "metastore.task.threads.remote": "",
        "metastore.compactor.initiator.on": "false",
        "metastore.compactor.cleaner.on": "false",
    })
    return settings


def _site_xml(settings: Mapping[str, str]) -> str:
    body = "\n".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>"
        for k, v in settings.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{body}\n</configuration>\n'


_LOG4J2 = """\
status = error
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %-5p %c{1}: %m%n
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
logger.hms.name = org.apache.hadoop.hive.metastore.HiveMetaStore
logger.hms.level = info
"""


def kerberos_settings(principal: str, keytab: str) -> dict[str, str]:
    """What makes a metastore of any release require Kerberos (SASL GSSAPI) of its clients,
    as ``principal`` logged in from ``keytab`` (MetastoreConf reads Hive's own names too)."""
    return {"hive.metastore.sasl.enabled": "true",
            "hive.metastore.kerberos.principal": principal,
            "hive.metastore.kerberos.keytab.file": keytab,
            "hadoop.security.authentication": "kerberos"}


def tls_settings(keystore: str, password: str) -> dict[str, str]:
    """What makes a metastore of any release speak TLS only, with ``keystore``'s key."""
    return {"hive.metastore.use.SSL": "true", "hive.metastore.keystore.path": keystore,
            "hive.metastore.keystore.password": password}


def _write_private(path: Path, text: str) -> None:
    """Write ``path`` readable by its owner alone (also when it was there, wider)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with open(descriptor, "w", encoding="utf-8") as out:
        out.write(text)


def write_conf(release: HiveRelease, data_dir: Path, db: BackingDb,
               hadoop_conf: Mapping[str, str] | None = None,
               kerberos: tuple[str, str] | None = None) -> Path:
    """Write the configuration folder, ``<data dir>/conf``, and return it.

    Args:
        hadoop_conf: settings added to the server's (``fs.s3a.endpoint``, ...): the file
            systems the server opens to check and create locations read them there.
        kerberos: ``(principal, keytab)`` of a server that requires Kerberos.
    """
    conf = data_dir / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    conf.chmod(0o700)  # the site file holds keys and passwords: only the owner reads them
    (data_dir / "warehouse").mkdir(exist_ok=True)
    site = "hive-site.xml" if release.from_wheel else "metastore-site.xml"
    secure = kerberos_settings(*kerberos) if kerberos else {}
    _write_private(conf / site, _site_xml({**_settings(release, data_dir, db),
                                           **(hadoop_conf or {}), **secure}))
    # Hadoop's login (UserGroupInformation) reads core-site.xml, not the metastore's site file.
    core = conf / "core-site.xml"
    if secure:
        core.write_text(_site_xml({"hadoop.security.authentication": "kerberos"}))
    elif core.exists():
        core.unlink()
    (conf / "log4j2.properties").write_text(_LOG4J2)
    # Hive re-initialises logging from the first hive-log4j2.properties on the class path; without
    # this one it would write to a hive.log shared by every metastore under java.io.tmpdir.
    (conf / "hive-log4j2.properties").write_text(_LOG4J2)
    (conf / "metastore-log4j2.properties").write_text(_LOG4J2)
    return conf


def class_path(release: HiveRelease, conf: Path, db: BackingDb, wheel_jars: Path,
               with_s3: bool = False) -> str:
    """The server's class path: configuration first, then the release's jars, and with
    ``with_s3`` S3A (``hadoop-aws`` of the release's Hadoop and its AWS SDK).

    Raises:
        JarsUnavailable: when the release's jars are not cached and cannot be fetched.
    """
    entries = [str(wheel_jars / "*")] if release.jars is None else jars.classpath(release.jars)
    if with_s3:
        entries += jars.classpath(hadoop_jars.s3a(release.hadoop))
    return os.pathsep.join([str(conf), *entries, *db.extra_jars])


def check_data_dir(release: HiveRelease, data_dir: Path) -> None:
    """Refuse a data directory whose database another release created.

    Raises:
        ServerError: naming both releases.
    """
    try:
        recorded = (data_dir / _VERSION_FILE).read_text().strip()
    except OSError:
        # Data directories from before releases were recorded hold 2.3 databases.
        recorded = "2.3.10" if (data_dir / "metastore_db").exists() else ""
    if recorded and recorded != release.version:
        raise ServerError(
            f"data dir {data_dir} holds a Hive Metastore {recorded} database, not "
            f"{release.version}: use another --data-dir for --hive-version {release.line}"
        )


def init_schema(release: HiveRelease, data_dir: Path, db: BackingDb, java: str,
                classpath: str) -> None:
    """Create the metastore schema with the release's schema tool, once per data directory.

    Raises:
        ServerError: when the tool fails (the message ends with the tail of its output,
            which is kept in ``<data dir>/schema.log``).
    """
    marker = data_dir / _VERSION_FILE
    if marker.exists():
        return
    if release.schema_tool is None or release.jars is None:
        marker.write_text(release.version + "\n")  # DataNucleus creates the schema at start
        return
    def schema_tool(*args: str) -> subprocess.CompletedProcess[str]:
        assert release.schema_tool is not None and release.jars is not None
        command = [java, "-Xmx512m", *KERBEROS_ACCESS, "-Dderby.system.durability=test",
                   f"-Dderby.stream.error.file={data_dir / 'derby.log'}",
                   "-cp", classpath, release.schema_tool, "-dbType", db.schema_type, *args]
        if db.user:
            command += ["-userName", db.user]
        if db.password:
            command += ["-passWord", db.password]
        env = dict(os.environ, METASTORE_HOME=str(release.jars.unpacked / release.schema_scripts))
        try:
            return subprocess.run(command, cwd=data_dir, env=env, capture_output=True, text=True,
                                  timeout=SCHEMA_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ServerError(f"the {release.label} schema tool did not finish within "
                              f"{SCHEMA_TIMEOUT_S:.0f}s") from None

    log = data_dir / "schema.log"
    if db.schema_type != "derby":
        # A shared database may hold the schema already (another data dir made it).
        found = schema_tool("-info")
        # 4.x reports 4.0.1's schema with a non-zero exit (its own version differs).
        if found.returncode == 0 or re.search(r"Metastore schema version:\s*\d",
                                              found.stdout + found.stderr):
            log.write_text(found.stdout + found.stderr)
            marker.write_text(release.version + "\n")
            return
    target = (["-initSchemaTo", release.schema_version] if release.schema_version
              else ["-initSchema"])
    done = schema_tool(*target)
    log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        if db.schema_type == "derby":
            shutil.rmtree(data_dir / "metastore_db", ignore_errors=True)  # so a retry starts clean
        tail = "\n".join((done.stdout + done.stderr).rstrip().splitlines()[-15:])
        raise ServerError(f"the {release.label} schema tool could not create the schema in "
                          f"{db.label} (exit {done.returncode}); see {log}:\n{tail}")
    marker.write_text(release.version + "\n")
