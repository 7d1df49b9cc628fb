"""Attach a Hive Metastore to Spark as a catalog, for every session of the driver.

``attach`` registers the catalog's Python side under its name and sets
``spark.sql.catalog.<name>`` to the Java plugin of :mod:`hmscatalog.spark.bridge.plugin`, in the
session and in the configuration new sessions start from, so ``spark.newSession()`` and the
sessions of Spark's Thrift server find it by name as they find any catalog. Nothing of PySpark's
is replaced: INSERT checks, MSCK and SHOW PARTITIONS are handled by the plugin's analyzer rule
(``spark.sql.extensions``), which ``attach`` adds to the session's extensions when the session
has not analyzed a statement yet; sessions built with :func:`session_conf` have it from the
start.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

from hmscatalog import config
from hmscatalog.errors import InvalidUri, MetastoreError
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.events import EventFollower
from hmscatalog.metastore.sasl import Kerberos
from hmscatalog.metastore.tls import Tls
from hmscatalog.spark.bridge import plugin
from hmscatalog.spark.bridge.jvm import JavaProxy
from hmscatalog.spark.catalog import HmsCatalog
from hmscatalog.spark.internals.session import add_analyzer_rule, set_for_new_sessions
from hmscatalog.spark.internals.versions import check_spark_version
from hmscatalog.spark.lakehouse import check_targets
from hmscatalog.spark.session.attached import Attached
from hmscatalog.spark.session.driver import conf_getter, proxy_jvm, storage_options
from hmscatalog.spark.session.hooks import SessionHooks


class _Factory(JavaProxy):
    """``io.hmscatalog.spark.CatalogFactory``: the catalog object for a session that names it."""

    class Java:
        implements = ["io.hmscatalog.spark.CatalogFactory"]

    def __init__(self, attached: Attached) -> None:
        self._jvm = attached.home
        self._attached = attached

    def create(self, name: str, jsession: Any) -> HmsCatalog:
        return self._attached.catalog_for(jsession)


_ATTACHED: dict[str, Attached] = {}
log = logging.getLogger(__name__)


def _check_answers(client: MetastoreClient, name: str) -> None:
    """Ask the metastore once; a failure names the catalog and the URI.

    Raises:
        MetastoreError: the metastore does not answer (or refuses the client).
    """
    try:
        client.list_databases()
    except MetastoreError as exc:
        client.close()
        where = ", ".join(client.uris)
        raise type(exc)(f"catalog {name}: is a metastore running at {where}? {exc}") from exc


def _follow(client: MetastoreClient, cache: MetadataCache, get: config.Getter,
            name: str) -> EventFollower | None:
    """The follower of the metastore's notification log that keeps ``cache`` current, unless
    the catalog's ``events`` is ``off`` or the metastore does not answer for its log (then the
    cache keeps its TTL, and the log says why)."""
    if config.catalog_setting(get, name, config.EVENTS, str) == "off":
        return None
    follower = EventFollower(client, cache,
                             config.catalog_setting(get, name, config.EVENTS_POLL_INTERVAL,
                                                    float))
    try:
        follower.start()
    except MetastoreError as exc:
        log.warning("catalog %s does not follow the metastore's notification log (its "
                    "metadata cache keeps cache-ttl): %s", name, str(exc).splitlines()[0])
        return None
    if not follower.current:
        log.info("catalog %s: the metastore's notification log is empty; its metadata cache "
                 "keeps cache-ttl until the log has an event", name)
    return follower


def security(get: config.Getter, name: str) -> tuple[Kerberos | None, Tls | None]:
    """Catalog ``name``'s Kerberos and TLS to its metastore, from the Spark conf read through
    ``get`` (see :func:`hmscatalog.config.catalog_kerberos` and ``catalog_tls``).

    Raises:
        InvalidSetting: settings that cannot work.
    """
    found = config.catalog_kerberos(get, name)
    enabled, ca_file = config.catalog_tls(get, name)
    return (Kerberos(found[0], found[1] or None, found[2] or None) if found else None,
            Tls(ca_file=ca_file or None) if enabled else None)


def attach(spark: Any, name: str = "hms", uri: str | None = None,
           timeout_s: float | None = None, kerberos: Kerberos | None = None,
           tls: Tls | None = None, check: bool = True) -> HmsCatalog:
    """Make a Hive Metastore available to ``spark.sql`` as catalog ``name``, in this session
    and in every session the driver makes after (``spark.newSession()``, the Thrift server's).

    Settings not passed come from the Spark conf: ``spark.hmscatalog.<name>.uri`` or
    ``spark.hmscatalog.uri`` (comma-separated ``thrift://`` URIs), and likewise ``timeout``
    (seconds), ``pool-size`` (metastore connections shared by the catalog's sessions) and
    ``metastore-catalog`` (on Hive 3+ metastores, the catalog holding the databases).
    ``kerberos`` (for a metastore that requires it) comes from ``kerberos.principal``,
    ``kerberos.client-principal`` and ``kerberos.keytab``, else from Hive's and Spark's own
    settings (:func:`hmscatalog.config.catalog_kerberos`); ``tls`` from ``tls.enabled``
    (else Hive's ``hive.metastore.use.SSL``) and ``tls.ca-file``. ``redirect.iceberg``,
    ``redirect.delta``, ``redirect.hudi`` and ``redirect.paimon`` name the Spark catalogs that
    take the metastore's tables of those formats (:mod:`hmscatalog.spark.lakehouse`).
    With ``check`` (the default), the metastore is asked once (``get_all_databases``), so that
    a wrong URI or a stopped metastore fails here, naming the URI, not at the first query.
    Keys under ``spark.hmscatalog.`` are checked first
    (:func:`hmscatalog.config.check_session_conf`). Attaching the same name again replaces the
    catalog in every session.

    Returns:
        This session's catalog (its ``client`` is the metastore client it uses).

    Raises:
        UnsupportedSparkVersion: a Spark outside the tested range (the message names both).
        InvalidUri: when no URI is given or configured, or it is malformed.
        MetastoreError: with ``check``, the metastore does not answer (or refuses the client);
            the message names the URI and asks whether a metastore runs there.
        InvalidSetting: an unknown key under ``spark.hmscatalog.``, a value of the wrong kind,
            or a redirect to a catalog that is not configured.
    """
    check_spark_version(spark.version)
    config.check_session_conf(spark.conf.getAll.items(), [name])
    get = conf_getter(spark)
    uri = uri or config.catalog_setting(get, name, config.URI, str)
    if not uri:
        own, shared = config.catalog_keys(name, config.URI)
        raise InvalidUri(f"no metastore URI for catalog {name!r}: pass uri= or set "
                         f"{own} (or {shared})")
    timeout = timeout_s or config.catalog_setting(get, name, config.TIMEOUT, float)
    configured_kerberos, configured_tls = security(get, name)
    kerberos = kerberos or configured_kerberos
    tls = tls or configured_tls
    client = MetastoreClient(
        uri, timeout_s=timeout,
        pool_size=config.catalog_setting(get, name, config.POOL_SIZE, int),
        catalog=config.catalog_setting(get, name, config.METASTORE_CATALOG, str) or None,
        kerberos=kerberos, tls=tls)
    if check:
        _check_answers(client, name)
    jvm = proxy_jvm(spark)
    plugin.load(jvm.gateway.jvm)
    registry = jvm.cls(plugin.REGISTRY_CLASS)
    cache = MetadataCache(config.catalog_setting(get, name, config.CACHE_TTL, float),
                          catch_up=config.catalog_setting(get, name, config.EVENTS_CATCH_UP,
                                                          bool))
    follower = _follow(client, cache, get, name) if check else None
    redirects = check_targets(get, name, config.catalog_redirects(get, name))
    attached = Attached(name, client, storage_options(spark, name), jvm, cache, redirects,
                        follower)
    replaced = _ATTACHED.get(name)
    if replaced is not None and replaced.follower is not None:
        replaced.follower.stop()
    _ATTACHED[name] = attached
    registry.register(name, _Factory(attached))
    registry.setHooks(SessionHooks(jvm, _ATTACHED))  # this driver JVM's, even after a restart
    set_for_new_sessions(spark, {f"spark.sql.catalog.{name}": plugin.PLUGIN_CLASS})
    if not add_analyzer_rule(jvm, registry):
        warnings.warn(
            f"catalog {name} is attached, but this session analyzed statements before, so "
            "Hive's PARTITION-clause rules, MSCK REPAIR TABLE and SHOW PARTITIONS on its "
            "tables work only in new sessions: attach before the first statement, or build "
            "the session with hmscatalog.spark.session_conf()", stacklevel=2)
    return attached.catalog_for(jvm.jsession)
