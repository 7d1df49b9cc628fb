"""A session's internals: its settings and Hadoop configuration (``SessionState``, ``SQLConf``),
DataFrames over tables that no catalog holds and writes into them, the built-in catalog's tables
(``V1Table``) and ``CatalogV2Util``.

``SparkSession.sessionState`` is ``@Unstable`` and ``SessionState`` is ``private[sql]``;
``SQLConf`` lives in ``org.apache.spark.sql.internal``. Checked in Spark 4.0 to 4.3.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError

from hmscatalog.spark.internals.versions import running_version

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm


def sql_conf(jvm: Jvm) -> Any:
    """The session's ``SQLConf`` (``sessionState.conf``): one object, changed in place by
    ``SET``, so it is asked for once per session."""
    return jvm.once("sql-conf", lambda: jvm.jsession.sessionState().conf())


def conf_value(jvm: Jvm, key: str) -> str | None:
    """The session's value of ``key``, ``None`` when unset (``SQLConf.getConfString``)."""
    value = sql_conf(jvm).getConfString(key, None)
    return None if value is None else str(value)


def time_zone(jvm: Jvm) -> str:
    """The session time zone (``SQLConf.sessionLocalTimeZone``)."""
    return str(sql_conf(jvm).sessionLocalTimeZone())


def hadoop_conf(jvm: Jvm, options: Any = None) -> Any:
    """A Hadoop ``Configuration`` with the session's settings (``SessionState.newHadoopConf``),
    and the Scala ``Map`` ``options`` over them (``newHadoopConfWithOptions``), as Spark makes
    one for a read or write."""
    state = jvm.jsession.sessionState()
    if options is None:
        return state.newHadoopConf()
    return state.newHadoopConfWithOptions(options)


def has_file_system(jvm: Jvm, scheme: str) -> bool:
    """Whether Spark's Hadoop file systems, configured as the session configures them, include
    ``scheme`` (``s3a`` needs hadoop-aws): Hadoop's public ``FileSystem.getFileSystemClass``
    over ``SessionState.newHadoopConf``."""
    conf = hadoop_conf(jvm)
    try:
        jvm.cls("org.apache.hadoop.fs.FileSystem").getFileSystemClass(scheme, conf)
    except Py4JJavaError:  # UnsupportedFileSystemException: no file system for the scheme
        return False
    return True


def dataframe(spark: Any, jvm: Jvm, table: Any) -> Any:
    """A PySpark ``DataFrame`` reading ``table`` (a Python connector ``Table``) that no catalog
    holds: ``DataSourceV2Relation.create(table, None, None)`` planned by
    ``org.apache.spark.sql.classic.Dataset.ofRows``, what ``spark.read`` does for a V2 source.
    (The three-argument ``create`` and ``classic.Dataset`` are in Spark 4.0 to 4.3.)"""
    from pyspark.sql import DataFrame

    relation = jvm.scala_object(
        "org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation"
    ).create(table, jvm.none(), jvm.none())
    return DataFrame(jvm.scala_object("org.apache.spark.sql.classic.Dataset").ofRows(
        jvm.jsession, relation), spark)


def write_into(jvm: Jvm, table: Any, dataframe: Any, dynamic_overwrite: bool) -> None:
    """Write a PySpark ``DataFrame`` into ``table`` (a Python connector ``Table`` with
    ``SupportsWrite``) that no catalog holds, by position, as ``INSERT INTO`` (``AppendData``)
    or a dynamic partition overwrite (``OverwritePartitionsDynamic``) over
    ``DataSourceV2Relation.create(table, None, None)``, run eagerly by
    ``classic.Dataset.ofRows`` as ``spark.sql`` runs a command; errors as PySpark raises
    them. ``byPosition`` has a fourth argument (schema evolution) from Spark 4.1, taken at
    its default."""
    from py4j.protocol import Py4JError
    from pyspark.errors.exceptions.captured import capture_sql_exception

    logical = "org.apache.spark.sql.catalyst.plans.logical"
    command = jvm.scala_object(f"{logical}.OverwritePartitionsDynamic" if dynamic_overwrite
                               else f"{logical}.AppendData")
    relation = jvm.scala_object(
        "org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation"
    ).create(table, jvm.none(), jvm.none())
    arguments = [relation, dataframe._jdf.queryExecution().analyzed(), jvm.scala_map({})]
    with contextlib.suppress(Py4JError):  # Spark 4.0 has three arguments
        arguments.append(getattr(command, "byPosition$default$4")())
    plan = command.byPosition(*arguments)
    dataset = jvm.scala_object("org.apache.spark.sql.classic.Dataset")
    capture_sql_exception(lambda: dataset.ofRows(jvm.jsession, plan))()


def builtin_table_storage(jvm: Jvm, table: Any) -> tuple[str | None, str | None,
                                                        dict[str, str]] | None:
    """``(input format, SerDe, SerDe properties)`` of a connector ``Table`` of Spark's built-in
    catalog (a ``V1Table``, ``private[sql]``: its ``CatalogTable``'s storage); ``None`` for
    other tables."""
    if str(table.getClass().getSimpleName()) != "V1Table":
        return None
    storage = table.v1Table().storage()
    return (_optional(storage.inputFormat()), _optional(storage.serde()),
            jvm.to_dict(jvm.java_map(storage.properties())))


def _optional(option: Any) -> str | None:
    return str(option.get()) if option.isDefined() else None


def struct_of_v2_columns(jvm: Jvm, columns: Any) -> Any:
    """The ``StructType`` of connector ``Column[]`` (``CatalogV2Util.v2ColumnsToStructType``,
    ``private[sql]``)."""
    return jvm.cls("org.apache.spark.sql.connector.catalog.CatalogV2Util").v2ColumnsToStructType(
        columns)


def char_varchar_as_string(jvm: Jvm, schema: Any) -> Any:
    """A ``StructType`` with its CHAR and VARCHAR columns as strings, their types in the
    field's metadata (``CharVarcharUtils.replaceCharVarcharWithStringInSchema``)."""
    utils = jvm.cls("org.apache.spark.sql.catalyst.util.CharVarcharUtils")
    return utils.replaceCharVarcharWithStringInSchema(schema)


def schema_json(jvm: Jvm, schema: Any) -> str:
    """The JSON of a ``StructType`` as the built-in catalog stores a table's schema in its
    properties: CHAR and VARCHAR columns as strings (:func:`char_varchar_as_string`)."""
    return str(char_varchar_as_string(jvm, schema).json())


def v2_columns(jvm: Jvm, schema: Any) -> Any:
    """The connector ``Column[]`` of a ``StructType``, without field ids
    (``CatalogV2Util.structTypeToV2Columns``, ``private[sql]``): Spark 4.2 added the
    ``includeIds`` argument and dropped the one-argument form, which 4.0 and 4.1 have."""
    util = jvm.cls("org.apache.spark.sql.connector.catalog.CatalogV2Util")
    if running_version(jvm) >= (4, 2):
        return util.structTypeToV2Columns(schema, False)
    return util.structTypeToV2Columns(schema)


def catalog_named(jvm: Jvm, name: str) -> Any:
    """The session's catalog ``name`` (``CatalogManager.catalog``, ``private[sql]``), made on
    first use as Spark makes the catalogs a statement names."""
    return jvm.jsession.sessionState().catalogManager().catalog(name)


def add_analyzer_rule(jvm: Jvm, registry: Any) -> bool:
    """Add hmscatalog's analyzer rule to the session's ``SparkSessionExtensions`` (``private
    [sql]``; shared with the sessions ``newSession`` makes), then build the session's
    analyzer if it was not built yet (``SessionState.analyzer`` is lazy). Whether the session
    has the rule: an analyzer built before cannot take it."""
    registry.extend(jvm.jsession.extensions())
    jvm.jsession.sessionState().analyzer()
    return bool(registry.covers(jvm.jsession))


def set_for_new_sessions(spark: Any, settings: dict[str, str]) -> None:
    """Set ``settings`` in the session and where sessions made later read theirs: the
    ``SparkContext``'s conf (``private[spark]``) and the shared state's (``private[sql]``),
    which ``newSession`` and the Thrift server's sessions start from."""
    jsession = spark._jsparkSession
    for key, value in settings.items():
        spark.conf.set(key, value)
        spark.sparkContext._jsc.sc().conf().set(key, value)
        jsession.sharedState().conf().set(key, value)


def start_thrift_server(spark: Any) -> Callable[[], None]:
    """Spark's Thrift server (``HiveThriftServer2.startWithContext``, a developer API of the
    spark-hive-thriftserver jar) over the session; each connection gets a ``newSession``.
    Returns what stops it."""
    server = getattr(spark.sparkContext._jvm,
                     "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2")
    return server.startWithContext(spark._jsparkSession.sqlContext()).stop


def start_connect_server(spark: Any) -> Callable[[], None]:
    """A Spark Connect server (``SparkConnectService.start``, of the spark-connect jar) on the
    session's SparkContext, configured by its ``spark.connect.*`` settings; each client session
    gets a ``newSession`` of the active one. Returns what stops it."""
    jvm = spark.sparkContext._jvm
    service = getattr(jvm, "org.apache.spark.sql.connect.service.SparkConnectService")
    service.start(spark.sparkContext._jsc.sc())
    none = getattr(jvm, "scala.Option").empty()
    return lambda: service.stop(none, none)


def kerberos_login(spark: Any, principal: str, keytab: str) -> None:
    """Log the driver's JVM in to Kerberos as ``principal`` from ``keytab``, with the session's
    Hadoop configuration (``hadoop.security.authentication=kerberos``) as Hadoop's security
    settings, as a Kerberized HiveServer2 does before it opens its port."""
    jvm = spark.sparkContext._jvm
    ugi = getattr(jvm, "org.apache.hadoop.security.UserGroupInformation")
    ugi.setConfiguration(spark.sparkContext._jsc.hadoopConfiguration())
    ugi.loginUserFromKeytab(principal, keytab)



def set_system_properties(spark: Any, properties: dict[str, str]) -> None:
    """Set Java system properties in the driver's JVM (read by Hive's classes that make a
    ``HiveConf`` of their own)."""
    system = spark.sparkContext._jvm.java.lang.System
    for key, value in properties.items():
        system.setProperty(key, value)
