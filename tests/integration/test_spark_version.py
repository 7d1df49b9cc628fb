"""The Spark the tests run is one hmscatalog supports, read as the version checks read it."""

from __future__ import annotations

from typing import Any

import pytest

from hmscatalog.spark.internals import check_spark_version, running_version
from hmscatalog.spark.session.driver import proxy_jvm

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_the_running_spark_is_supported(spark: Any) -> None:
    """pyspark's version (the Python side) and the JVM's agree, and are supported: CI runs
    these tests with the newest and the oldest supported pyspark."""
    import pyspark

    assert running_version(proxy_jvm(spark)) == check_spark_version(pyspark.__version__)
