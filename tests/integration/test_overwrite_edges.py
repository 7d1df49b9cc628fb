"""INSERT OVERWRITE edges through hms, each checked against Spark's built-in Hive catalog on the
same metastore: static overwrites of partition columns of every type Hive partitions by
(TIMESTAMP and BOOLEAN ones were refused with ``Table does not support overwrite by
expression``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.spark]

MODE = "spark.sql.sources.partitionOverwriteMode"


def _rows(spark: Any, table: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()), key=repr)


def _partitions(spark: Any, table: str) -> list[str]:
    return sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {table}").collect())


@pytest.fixture(params=["static", "dynamic"])
def mode(spark: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    """``spark.sql.sources.partitionOverwriteMode`` for the test, reset afterwards."""
    spark.sql(f"SET {MODE}={request.param}")
    yield request.param
    spark.sql(f"RESET {MODE}")


def _both(spark: Any, db: str, statement: str) -> None:
    """Run ``statement`` on hms table ``ours`` and built-in table ``theirs``; both then hold
    the same rows and partitions."""
    ours, theirs = f"hms.{db}.ours", f"spark_catalog.{db}.theirs"
    spark.sql(statement.format(t=ours))
    spark.sql(statement.format(t=theirs))
    assert _rows(spark, ours) == _rows(spark, theirs), statement
    assert _partitions(spark, ours) == _partitions(spark, theirs), statement


# -- 2. static overwrites by partition type ----------------------------------------------------

TYPED = {
    "timestamp": ("TIMESTAMP", "'2024-01-05 10:00:00.5'"),
    "true": ("BOOLEAN", "true"),
    "false": ("BOOLEAN", "false"),
    "null": ("INT", "NULL"),
    "float": ("FLOAT", "0.1"),
    "double": ("DOUBLE", "2.25"),
    "decimal": ("DECIMAL(10,2)", "3.1"),
    "tinyint": ("TINYINT", "7"),
    "smallint": ("SMALLINT", "300"),
    "bigint": ("BIGINT", "5000000000"),
    "date": ("DATE", "DATE'2024-01-05'"),
    "char": ("CHAR(3)", "'ab'"),
    "varchar": ("VARCHAR(5)", "'xy'"),
}


def _static_overwrites(spark: Any, db: str, case: str) -> None:
    kind, value = TYPED[case]
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"CREATE TABLE {table} (id INT) PARTITIONED BY (k {kind}) STORED AS PARQUET")
    _both(spark, db, "INSERT INTO {t} PARTITION (k) VALUES (0, NULL)" if case != "null"
          else "INSERT INTO {t} PARTITION (k) VALUES (0, 4)")
    _both(spark, db, f"INSERT OVERWRITE TABLE {{t}} PARTITION (k={value}) SELECT 1")
    _both(spark, db, f"INSERT OVERWRITE TABLE {{t}} PARTITION (k={value}) SELECT 2")
    assert len(_rows(spark, f"hms.{db}.ours")) == 2
    _both(spark, db, f"INSERT OVERWRITE TABLE {{t}} PARTITION (k={value}) SELECT 3 WHERE 1 = 0")
    assert [r[0] for r in _rows(spark, f"hms.{db}.ours")] == [0]
    assert len(_partitions(spark, f"hms.{db}.ours")) == 2


@pytest.mark.builtin
@pytest.mark.parametrize(("case", "zone"), [
    ("timestamp", "UTC"), ("timestamp", "America/New_York"), ("true", "UTC"), ("false", "UTC"),
    ("null", "UTC")])
def test_static_overwrite_of_a_timestamp_boolean_or_null_partition(
        spark: Any, db: str, mode: str, case: str, zone: str) -> None:
    """``PARTITION (ts='2024-01-05 10:00:00.5')``, ``(b=true)``, ``(b=false)`` and ``(k=NULL)``
    were refused with ``Table does not support overwrite by expression``: Spark hands the
    write builder ``ts <=> <microseconds>``, ``b <=> TRUE`` (whose literal is the predicate
    AlwaysTrue) and ``k IS NULL``, which hms did not read as partition values."""
    spark.sql(f"SET spark.sql.session.timeZone={zone}")
    try:
        _static_overwrites(spark, db, case)
    finally:
        spark.sql("RESET spark.sql.session.timeZone")


@pytest.mark.builtin
@pytest.mark.cases(3)
@pytest.mark.parametrize("case", [c for c in TYPED
                                  if c not in ("timestamp", "true", "false", "null")])
def test_static_overwrite_of_other_partition_types(spark: Any, db: str, mode: str,
                                                   case: str) -> None:
    _static_overwrites(spark, db, case)
