"""Attach a Hive Metastore to a SparkSession as a catalog."""

from __future__ import annotations

from typing import Any

from hmscatalog import config
from hmscatalog.errors import InvalidUri
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.spark import statements
from hmscatalog.spark.catalog import HmsCatalog
from hmscatalog.spark.jvm import Jvm


def _conf(spark: Any) -> config.Getter:
    """The session conf's ``get(key, None)``, for :mod:`hmscatalog.config`'s readers."""
    return lambda key: spark.conf.get(key, None)


def proxy_jvm(spark: Any) -> Jvm:
    """The session's JVM, ready for Python objects that implement Java interfaces (one per
    session, so that what it resolves once is kept)."""
    from pyspark.java_gateway import ensure_callback_server_started

    jvm: Jvm | None = getattr(spark, "_hmscatalog_jvm", None)
    if jvm is None or jvm.jsession is not spark._jsparkSession:
        jvm = Jvm(spark)
        ensure_callback_server_started(jvm.gateway)
        jvm.gateway.python_parameters.propagate_java_exceptions = True
        spark._hmscatalog_jvm = jvm
    return jvm


def storage_options(spark: Any, name: str | None = None) -> dict[str, str]:
    """S3 settings from the Spark conf: ``spark.hmscatalog[.<name>].s3.endpoint``, ``.region``,
    ``.access-key-id``, ``.secret-access-key``, ``.session-token``."""
    return config.catalog_storage_options(_conf(spark), name or "")


def attach(spark: Any, name: str = "hms", uri: str | None = None,
           timeout_s: float | None = None) -> HmsCatalog:
    """Make a Hive Metastore available to ``spark.sql`` as catalog ``name``.

    Settings not passed come from the Spark conf: ``spark.hmscatalog.<name>.uri`` or
    ``spark.hmscatalog.uri`` (comma-separated ``thrift://`` URIs), and likewise ``timeout``
    (seconds). Keys under ``spark.hmscatalog.`` are checked first
    (:func:`hmscatalog.config.check_session_conf`). Attaching the same name again replaces the
    catalog.

    Returns:
        The catalog (its ``client`` is the metastore client it uses).

    Raises:
        InvalidUri: when no URI is given or configured, or it is malformed.
        InvalidSetting: an unknown key under ``spark.hmscatalog.``, or a value of the wrong kind.
    """
    config.check_session_conf(spark.conf.getAll.items(), [name])
    get = _conf(spark)
    uri = uri or config.catalog_setting(get, name, config.URI, str)
    if not uri:
        own, shared = config.catalog_keys(name, config.URI)
        raise InvalidUri(f"no metastore URI for catalog {name!r}: pass uri= or set "
                         f"{own} (or {shared})")
    timeout = timeout_s or config.catalog_setting(get, name, config.TIMEOUT, float)
    client = MetastoreClient(uri, timeout_s=timeout)
    jvm = proxy_jvm(spark)
    catalog = HmsCatalog(jvm, client, name, storage_options(spark, name))
    manager = jvm.jsession.sessionState().catalogManager()
    field = manager.getClass().getDeclaredField("catalogs")
    field.setAccessible(True)
    field.get(manager).put(name, catalog)
    statements.install(spark, jvm, name, client)
    return catalog
