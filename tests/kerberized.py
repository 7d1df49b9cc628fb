"""The Kerberized test session (``HMSCATALOG_TEST_KERBEROS=1``, a pass of .ci/run): the
session's metastore requires Kerberos (``hive/localhost`` in a KDC the session starts), and every
client of it, hms's and Spark's built-in catalog alike, authenticates from a ticket cache as
after ``kinit``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kdc import REALM, Kdc

from hmscatalog.metastore.sasl import Kerberos

ENABLED = os.environ.get("HMSCATALOG_TEST_KERBEROS") == "1"
SERVICE = f"hive/localhost@{REALM}"
# Why the few tests of a plain session metastore do not run in this pass (the plain passes do).
NOT_PLAIN = "the session's metastore requires Kerberos in this pass; the plain passes run it"
# A Kerberized metastore changes HDFS files as its client (a proxy user): the NameNode must be
# Kerberized too, or allow proxy users, which the tests' mini HDFS is not set up for.
NOT_ON_HDFS = ("HDFS with a Kerberized metastore needs a Kerberized NameNode, which the tests' "
               "mini HDFS is not; the plain passes run it")


def begin(folder: Path) -> tuple[Kdc, Path]:
    """Start the KDC in ``folder``, point this process (and its children) at it with a ticket
    for ``tester`` in their cache, and make the metastore's keytab; the KDC and the keytab."""
    kdc = Kdc(folder)
    os.environ.update(kdc.env)
    cache = folder / "tester.ccache"
    kdc.kinit(*kdc.principal("tester"), cache, lifetime="1h")
    os.environ["KRB5CCNAME"] = f"FILE:{cache}"
    _, keytab = kdc.principal(SERVICE.split("@")[0])
    return kdc, keytab


def client_options() -> dict[str, Any]:
    """What a MetastoreClient of the session's metastore is given."""
    return {"kerberos": Kerberos(SERVICE)} if ENABLED else {}


def cli_options() -> list[str]:
    """What the hmscatalog command is given to reach the session's metastore."""
    return ["--kerberos-principal", SERVICE] if ENABLED else []


def spark_settings() -> dict[str, str]:
    """The session's Spark settings: hms reads Hive's; Spark's built-in catalog (Hive's client in
    the driver's JVM) takes its ticket from the cache (GSS-API outside a JAAS login)."""
    if not ENABLED:
        return {}
    return {"spark.hadoop.hive.metastore.sasl.enabled": "true",
            "spark.hadoop.hive.metastore.kerberos.principal": SERVICE}


def java_options() -> list[str]:
    if not ENABLED:
        return []
    return [f"-Djava.security.krb5.conf={os.environ['KRB5_CONFIG']}",
            "-Djavax.security.auth.useSubjectCredsOnly=false"]
