"""One attached catalog, shared by the sessions of a driver: the metastore client, the cache
and the Python catalog that serves each session."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.events import EventFollower
from hmscatalog.metastore.kinds import Kind
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.catalog import HmsCatalog


@dataclass
class Attached:
    """One attached catalog: what its sessions share (the metastore client, S3 settings) and
    the Python catalog object serving each session."""

    name: str
    client: MetastoreClient
    storage_options: dict[str, str]
    home: Jvm  # the attaching session's
    cache: MetadataCache  # the metastore answers its sessions' queries reuse
    # The Spark catalog taking the metastore's tables of each lakehouse format.
    redirects: dict[Kind, str] = field(default_factory=dict)
    follower: EventFollower | None = None  # keeps ``cache`` current from the event log
    # Each session's catalog, by the session's identity hash (SparkSession keeps Object's):
    # one py4j call finds a session's entry among thousands, and ``equals`` confirms it.
    sessions: dict[int, list[tuple[Any, HmsCatalog]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def catalog_for(self, jsession: Any) -> HmsCatalog:
        key = int(jsession.hashCode())
        with self.lock:
            for known, catalog in self.sessions.get(key, ()):
                if known.equals(jsession):
                    return catalog
            jvm = self.home if self.home.jsession.equals(jsession) else _jvm_of(self.home,
                                                                                 jsession)
            catalog = HmsCatalog(jvm, self.client, self.name, self.storage_options, self.cache,
                                 self.redirects)
            self.sessions.setdefault(key, []).append((jsession, catalog))
            return catalog


def _jvm_of(home: Jvm, jsession: Any) -> Jvm:
    """A :class:`Jvm` for another session of the same driver."""
    from pyspark.sql import SparkSession

    return Jvm(SparkSession(home.spark.sparkContext, jsparkSession=jsession))
