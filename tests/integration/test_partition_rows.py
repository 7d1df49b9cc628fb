"""Partition rows built in the JVM (hms tables, projected reads) for several type lists."""

from __future__ import annotations

from typing import Any

import pytest

from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.spark.read.rows import internal_row, partition_strings
from hmscatalog.spark.session.driver import proxy_jvm

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]


def test_partition_rows_of_several_type_lists_in_one_session(spark: Any) -> None:
    """Partition rows are cast in the JVM by one projection per type list; a second list must
    not call the first one's code (hms tables and projected reads with partitions away from
    their Hive paths build their rows this way)."""
    jvm = proxy_jvm(spark)
    cases = [
        (PartitionSpec.of(("s", "string"), ("n", "bigint")), ["x y", "7"]),
        (PartitionSpec.of(("d", "date"), ("f", "double")), ["2024-01-02", "1.5"]),
        (PartitionSpec.of(("i", "int"),), ["__HIVE_DEFAULT_PARTITION__"]),
    ]
    for spec, strings in [*cases, *cases]:
        row = internal_row(jvm, spec, strings, "UTC")
        assert list(partition_strings(row, spec, "UTC").values()) == strings
