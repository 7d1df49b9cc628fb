"""The sizes and row counts a scan reports, from the table's and the selected partitions'
parameters (hmscatalog.spark.read.statistics); Spark's own reading of them is checked against the
built-in catalog in tests/integration/test_optimizer_statistics.py."""

from __future__ import annotations

import pytest

from hmscatalog.spark.read.statistics import (
    TableStatistics,
    column_properties,
    selected_statistics,
)

HIVE_50 = {"numRows": "50", "totalSize": "1000", "numFiles": "2"}
HIVE_70 = {"numRows": "70", "totalSize": "3000"}
SPARK_9 = {"spark.sql.statistics.numRows": "9", "spark.sql.statistics.totalSize": "90",
           "numRows": "50", "totalSize": "1000"}
NO_ROWS = {"totalSize": "500"}  # Hive wrote no row count
EMPTY_HIVE = {"numRows": "0", "totalSize": "0"}  # Hive gathered nothing
TABLE = TableStatistics(10_000, 400)


UNKNOWN = TableStatistics(None, None)


@pytest.mark.parametrize(("table", "partitions", "whole", "expected"), [
    (TABLE, None, False, TABLE),  # unpartitioned: the table's
    (TABLE, [HIVE_50, HIVE_70], False, TableStatistics(4000, 120)),
    (TABLE, [SPARK_9, HIVE_70], False, TableStatistics(3090, 79)),  # Spark's own first
    (TABLE, [HIVE_50, NO_ROWS], False, TableStatistics(1500, None)),
    (TABLE, [HIVE_50, EMPTY_HIVE], False, UNKNOWN),
    (TABLE, [HIVE_50, None], False, UNKNOWN),  # a partition the metastore does not hold
    (TABLE, [], False, TableStatistics(0, 0)),  # nothing selected
    (TABLE, [HIVE_50, HIVE_70], True, TABLE),  # every partition: the table's first...
    (UNKNOWN, [HIVE_50, HIVE_70], True, TableStatistics(4000, 120)),  # ...else theirs
    (TableStatistics(10_000, None), [HIVE_50, HIVE_70], True, TableStatistics(10_000, 120)),
])
def test_selected_statistics(table: TableStatistics,
                             partitions: list[dict[str, str] | None] | None, whole: bool,
                             expected: TableStatistics) -> None:
    assert selected_statistics(table, partitions, whole) == expected


def test_column_properties_lose_their_prefix() -> None:
    assert column_properties({
        "spark.sql.statistics.colStats.v.distinctCount": "3",
        "spark.sql.statistics.colStats.v.version": "2",
        "spark.sql.statistics.numRows": "4", "numRows": "4",
    }) == {"v.distinctCount": "3", "v.version": "2"}
