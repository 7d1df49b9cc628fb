"""The embedded metastore's notification log: every change it commits, readable with
``get_next_notification`` (what :mod:`hmscatalog.metastore.events` follows).

A metastore writes its log only through a listener named in
``hive.metastore.transactional.event.listeners``. Hive's own (``DbNotificationListener``) ships in
``hive-hcatalog-server-extensions``, which is not among the jars the releases the embedded server
runs come from (the pyspark wheel's 2.3; the standalone metastores of Maven Central), so the
embedded server runs ``io.hmscatalog.metastore.NotificationLog`` (``java/NotificationLog.java``)
instead, compiled once per release against that release's jars into the jars cache. It records
the same event types with their database and table, inside each change's transaction. Its
messages are its own small JSON objects (``messageFormat`` ``hmscatalog-1``), not Hive's
replication messages.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from hmscatalog import jars as jar_cache
from hmscatalog import javaparts
from hmscatalog.errors import ServerError
from hmscatalog.javaparts.javac import build_jar
from hmscatalog.metastore.releases import HiveRelease

_SOURCES = ("NotificationLog.java",)
_BATCHES = "NotificationLogBatches.java"  # releases with AlterPartitionsEvent (4.1 on)
_PACKAGE = "io.hmscatalog.metastore"
LISTENERS = ("hive.metastore.transactional.event.listeners",
             "metastore.transactional.event.listeners")


def _batches(release: HiveRelease) -> bool:
    return release.line == "4.x"


def _sources(release: HiveRelease) -> dict[str, str]:
    names = (*_SOURCES, _BATCHES) if _batches(release) else _SOURCES
    folder = resources.files("hmscatalog.metastore") / "java"
    return {name: (folder / name).read_text() for name in names}


def listener_class(release: HiveRelease) -> str:
    return f"{_PACKAGE}.{'NotificationLogBatches' if _batches(release) else 'NotificationLog'}"


def settings(release: HiveRelease) -> dict[str, str]:
    """The server settings that turn the log on (both names: 2.3 reads Hive's, 3.0 on both)."""
    return dict.fromkeys(LISTENERS, listener_class(release))


# In a wheel (hmscatalog.javaparts): the listener of the release the wheel's pyspark ships.
PREBUILT_NAME = "hmscatalog-notification-log-2.3.jar"


def source_digest(release: HiveRelease) -> str:
    """What the release's listener is built from: its sources."""
    return hashlib.sha256("".join(_sources(release).values()).encode()).hexdigest()[:12]


def build(release: HiveRelease, target: Path, classpath: str) -> None:
    """Compile the release's listener against ``classpath`` (its jars) into ``target``.

    Raises:
        ServerError: no JDK, or the source does not compile against the release.
    """
    build_jar(_sources(release), target, f"the notification log of {release.label}",
              ServerError, classpath=classpath)


def listener_jar(release: HiveRelease, classpath: str) -> Path:
    """The listener for ``release``: the wheel's, else compiled against ``classpath`` (the
    release's jars) on first use into the jars cache.

    Raises:
        ServerError: no JDK, or the source does not compile against the release.
    """
    digest = source_digest(release)
    if release.from_wheel:
        prebuilt = javaparts.find(PREBUILT_NAME, digest)
        if prebuilt is not None:
            return prebuilt
    target = jar_cache.cache() / f"hmscatalog-notification-log-{release.version}-{digest}.jar"
    if not target.exists():
        build(release, target, classpath)
    return target
