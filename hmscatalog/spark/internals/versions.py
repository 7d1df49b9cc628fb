"""The Spark versions hmscatalog supports, and the version a session runs.

Every function in this package was checked against each minor in :data:`SUPPORTED`: its
signatures with ``javap`` on that release's jars, and its behaviour by the Spark-facing
integration tests (``pytest -m spark tests/integration``). Releases last tested: pyspark 4.0.5,
4.1.4, 4.2.1 and 4.3.0. CI runs those tests with the newest supported pyspark (the main suite) and
with the oldest (``.ci/run``, in ``.venv-oldest``). pyproject's ``pyspark`` range is this list.

Where Spark changed an internal between these versions, the function that wraps it picks the
form by the running version (:func:`running_version`) and says so in its docstring. A feature
built on a public API newer than the oldest supported minor refuses older ones by
:func:`require_spark`, naming the version (tests of it are marked ``needs_spark``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hmscatalog.errors import UnsupportedSparkVersion
from hmscatalog.javaparts.spark_plugin import SPARK_MINORS, listed_minors, minor_of

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

SUPPORTED: tuple[str, ...] = SPARK_MINORS

# Public Spark APIs newer than the oldest supported minor, and what of hmscatalog needs them.
# (Spark's own SQL also grew: CREATE TABLE ... LIKE into a catalog plugin parses from 4.2.)
PYTHON_SOURCE_FILTERS = (4, 1)  # filters pushed into Python data sources: the pyarrow reads

def check_spark_version(version: str) -> tuple[int, int]:
    """``(major, minor)`` of ``version`` when hmscatalog supports it (see :data:`SUPPORTED`).

    Raises:
        UnsupportedSparkVersion: naming ``version`` and the supported minors.
    """
    major, minor = minor_of(version)
    if f"{major}.{minor}" not in SUPPORTED:
        raise UnsupportedSparkVersion(
            f"hmscatalog does not support Spark {version.strip()}: it supports Spark "
            f"{listed_minors()} "
            f"(pyspark>={SUPPORTED[0]},<{_after(SUPPORTED[-1])})")
    return major, minor


def _after(version: str) -> str:
    major, minor = minor_of(version)
    return f"{major}.{minor + 1}"


def running_version(jvm: Jvm) -> tuple[int, int]:
    """``(major, minor)`` of the Spark the session runs (``SparkSession.version``, public API),
    asked once per session."""
    found: tuple[int, int] = jvm.once("spark-version",
                                      lambda: minor_of(str(jvm.jsession.version())))
    return found


def require_spark(jvm: Jvm, minor: tuple[int, int], what: str) -> None:
    """Raise :class:`UnsupportedSparkVersion` when the session runs a Spark older than
    ``minor``, which ``what`` (the start of the message) needs.

    Raises:
        UnsupportedSparkVersion: ``<what> needs Spark <minor> or later; this session runs Spark
        <version>``.
    """
    if running_version(jvm) < minor:
        raise UnsupportedSparkVersion(
            f"{what} needs Spark {minor[0]}.{minor[1]} or later; this session runs Spark "
            f"{jvm.jsession.version()}")
