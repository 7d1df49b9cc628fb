"""Attach a Hive Metastore to a SparkSession as a catalog."""

from __future__ import annotations

from typing import Any

from hmscatalog.errors import InvalidUri
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.spark import statements
from hmscatalog.spark.catalog import HmsCatalog
from hmscatalog.spark.jvm import Jvm

CONF_PREFIX = "spark.hmscatalog"


def _conf(spark: Any, name: str, key: str) -> str | None:
    """``spark.hmscatalog.<catalog>.<key>``, else ``spark.hmscatalog.<key>``."""
    for full in (f"{CONF_PREFIX}.{name}.{key}", f"{CONF_PREFIX}.{key}"):
        value = spark.conf.get(full, None)
        if value:
            return str(value)
    return None


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
    keys = ("endpoint", "region", "access-key-id", "secret-access-key", "session-token")
    found = {f"s3.{key}": _conf(spark, name or "", f"s3.{key}") for key in keys}
    return {key: value for key, value in found.items() if value}


def attach(spark: Any, name: str = "hms", uri: str | None = None,
           timeout_s: float | None = None) -> HmsCatalog:
    """Make a Hive Metastore available to ``spark.sql`` as catalog ``name``.

    Settings not passed come from the Spark conf: ``spark.hmscatalog.<name>.uri`` or
    ``spark.hmscatalog.uri`` (comma-separated ``thrift://`` URIs), and likewise ``timeout``
    (seconds). Attaching the same name again replaces the catalog.

    Returns:
        The catalog (its ``client`` is the metastore client it uses).

    Raises:
        InvalidUri: when no URI is given or configured, or it is malformed.
    """
    uri = uri or _conf(spark, name, "uri")
    if not uri:
        raise InvalidUri(f"no metastore URI for catalog {name!r}: pass uri= or set "
                         f"{CONF_PREFIX}.{name}.uri (or {CONF_PREFIX}.uri)")
    timeout = timeout_s or float(_conf(spark, name, "timeout") or 600)
    client = MetastoreClient(uri, timeout_s=timeout)
    jvm = proxy_jvm(spark)
    catalog = HmsCatalog(jvm, client, name, storage_options(spark, name))
    manager = jvm.jsession.sessionState().catalogManager()
    field = manager.getClass().getDeclaredField("catalogs")
    field.setAccessible(True)
    field.get(manager).put(name, catalog)
    statements.install(spark, jvm, name, client)
    return catalog
