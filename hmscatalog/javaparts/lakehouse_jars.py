"""The Spark runtimes of Iceberg and Delta, for the catalogs hms redirects their tables to.

Both are built per Spark minor, and neither has a release for every minor hmscatalog supports:
:data:`RUNTIMES` names, for each format, the artifact that was tried against each minor. Jars
come from Maven Central through :mod:`hmscatalog.jars`, once, into the jars cache.
"""

from __future__ import annotations

from hmscatalog.errors import JarsUnavailable
from hmscatalog.jars import JarSet, classpath

# Spark minor -> format -> Maven coordinates (Iceberg's runtime jar is shaded and whole;
# delta-spark declares Spark as provided and brings delta-storage).
RUNTIMES: dict[str, dict[str, str]] = {
    "4.0": {"iceberg": "org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.10.0",
            "delta": "io.delta:delta-spark_2.13:4.0.0"},
}
# What Spark brings itself (delta-spark declares Spark as provided already).
_PROVIDED = ("org.scala-lang:*", "org.antlr:antlr4-runtime", "org.slf4j:*", "log4j:log4j")


def supported_minors(fmt: str) -> list[str]:
    """The Spark minors for which ``fmt``'s runtime is known here."""
    return [minor for minor, runtimes in RUNTIMES.items() if fmt in runtimes]


def runtime(fmt: str, spark_minor: str) -> JarSet:
    """``fmt``'s (``iceberg``, ``delta``) Spark runtime for Spark ``spark_minor`` (``4.0``).

    Raises:
        JarsUnavailable: no runtime of ``fmt`` is known for that minor (naming those that are).
    """
    coordinates = RUNTIMES.get(spark_minor, {}).get(fmt)
    if coordinates is None:
        known = ", ".join(supported_minors(fmt)) or "none"
        raise JarsUnavailable(f"no {fmt} runtime is known for Spark {spark_minor} (known for "
                              f"Spark {known})")
    version = coordinates.rsplit(":", 1)[1]
    return JarSet(f"{fmt}-spark-{spark_minor}-{version}",
                  f"{fmt}'s Spark {spark_minor} runtime {version}", (coordinates,), _PROVIDED)


def spark_jars(formats: tuple[str, ...], spark_minor: str) -> list[str]:
    """The jars of ``formats``' runtimes for ``spark.jars``, fetched on first use.

    Raises:
        JarsUnavailable: one line saying why they cannot be had.
    """
    return [jar for fmt in formats for jar in classpath(runtime(fmt, spark_minor))]
