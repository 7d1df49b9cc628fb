"""Markers for tests that need a newer Spark than the oldest supported one: CI runs the
Spark-facing tests with both ends of ``hmscatalog.spark.internals.SUPPORTED``."""

from __future__ import annotations

import pytest

from hmscatalog.javaparts.spark_plugin import minor_of


def running() -> tuple[int, int]:
    """``(major, minor)`` of the installed pyspark (the JVM's Spark is the same release)."""
    try:
        import pyspark
    except ImportError:  # the tests that need Spark skip themselves
        return (99, 0)
    return minor_of(pyspark.__version__)


def needs_spark(minor: tuple[int, int], why: str) -> pytest.MarkDecorator:
    """Skip unless the Spark is ``minor`` or later, which ``why`` needs."""
    return pytest.mark.skipif(running() < minor,
                              reason=f"needs Spark {minor[0]}.{minor[1]} or later: {why}")


def before_spark(minor: tuple[int, int], why: str) -> pytest.MarkDecorator:
    """Run only on a Spark older than ``minor`` (what hmscatalog does without ``why``)."""
    return pytest.mark.skipif(running() >= minor,
                              reason=f"for Spark before {minor[0]}.{minor[1]}: {why}")
