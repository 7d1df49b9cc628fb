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
    from pyspark.java_gateway import ensure_callback_server_started

    uri = uri or _conf(spark, name, "uri")
    if not uri:
        raise InvalidUri(f"no metastore URI for catalog {name!r}: pass uri= or set "
                         f"{CONF_PREFIX}.{name}.uri (or {CONF_PREFIX}.uri)")
    timeout = timeout_s or float(_conf(spark, name, "timeout") or 600)
    client = MetastoreClient(uri, timeout_s=timeout)
    jvm = Jvm(spark)
    gateway = jvm.gateway
    ensure_callback_server_started(gateway)
    gateway.python_parameters.propagate_java_exceptions = True
    catalog = HmsCatalog(jvm, client, name)
    manager = jvm.jsession.sessionState().catalogManager()
    field = manager.getClass().getDeclaredField("catalogs")
    field.setAccessible(True)
    field.get(manager).put(name, catalog)
    statements.install(spark, jvm, name, client)
    return catalog
