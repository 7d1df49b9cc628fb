"""Statements whose result through hms must be the built-in Hive catalog's, on one metastore:
column placement in CTAS, the default partition, DDL the catalog must honour or refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]

PEOPLE = ("SELECT * FROM VALUES ('2024-01-01', 'ann', 'paris'), ('2024-01-02', 'bob', 'rome') "
          "AS s(dt, name, city)")


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _named(spark: Any, table: str) -> list[dict[str, Any]]:
    """Rows as column → value, so that a shifted column cannot hide behind the same tuple."""
    return sorted((r.asDict() for r in spark.table(table).collect()), key=repr)


def _location(client: MetastoreClient, db: str, table: str) -> Path:
    return Path(urlparse(client.get_table(db, table).location or "").path)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


@pytest.mark.parametrize("create", [
    "CREATE TABLE {t} PARTITIONED BY (dt) STORED AS PARQUET AS {q}",
    "CREATE TABLE {t} USING parquet PARTITIONED BY (dt) AS {q}",
])
def test_ctas_places_columns_by_name(spark: Any, db: str, create: str) -> None:
    """The partition column first in the SELECT: each value still lands in its own column."""
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(create.format(t=table, q=PEOPLE.replace("*", "dt, name, city")))
    ours = _named(spark, f"hms.{db}.ours")
    assert ours == _named(spark, f"spark_catalog.{db}.theirs")
    assert {"dt": "2024-01-01", "name": "ann", "city": "paris"} in ours
    # Both catalogs read what the other wrote, and list the same partitions.
    assert _named(spark, f"spark_catalog.{db}.ours") == ours
    assert _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.ours") == [
        ("dt=2024-01-01",), ("dt=2024-01-02",)]


def test_ctas_with_mixed_types_and_dataframe_creates(spark: Any, db: str) -> None:
    """An INT partition column first (by position this failed with CANNOT_SAFELY_CAST), and
    the DataFrame API's two ways to create a partitioned table."""
    query = "SELECT id % 2 AS k, id AS a, CAST(id AS STRING) AS s FROM range(4)"
    spark.sql(f"CREATE TABLE hms.{db}.ours PARTITIONED BY (k) STORED AS PARQUET AS {query}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs PARTITIONED BY (k) STORED AS PARQUET "
              f"AS {query}")
    assert _named(spark, f"hms.{db}.ours") == _named(spark, f"spark_catalog.{db}.theirs")
    assert {"a": 3, "s": "3", "k": 1} in _named(spark, f"hms.{db}.ours")

    from pyspark.sql.functions import col

    people = spark.sql(PEOPLE.replace("*", "dt, name, city"))
    people.writeTo(f"hms.{db}.by_writeto").partitionedBy(col("dt")).create()
    people.write.partitionBy("dt").saveAsTable(f"hms.{db}.by_save")
    people.write.mode("overwrite").partitionBy("dt").saveAsTable(f"hms.{db}.by_save")
    for table in ("by_writeto", "by_save"):
        rows = _named(spark, f"hms.{db}.{table}")
        assert rows == [{"name": "ann", "city": "paris", "dt": "2024-01-01"},
                        {"name": "bob", "city": "rome", "dt": "2024-01-02"}], table
        assert [c.name for c in spark.table(f"hms.{db}.{table}").schema] == \
            ["name", "city", "dt"], table


@pytest.mark.parametrize("statement", [
    "CREATE TABLE {t} PARTITIONED BY (dt) STORED AS PARQUET AS SELECT * FROM VALUES {v} "
    "AS s(id, v, dt)",
    "INSERT INTO {t} SELECT * FROM VALUES {v} AS s(id, v, dt)",
])
def test_null_and_empty_string_share_the_default_partition(spark: Any, db: str,
                                                            statement: str) -> None:
    """NULL and '' rows of a string partition column in one task both go to
    ``__HIVE_DEFAULT_PARTITION__`` and read back as NULL, as in the built-in catalog (before,
    the second file of the same name failed the task with FileAlreadyExistsException)."""
    values = ", ".join(f"({i}, 'v{i}', {'NULL' if i % 2 else repr('')})" for i in range(40))
    if statement.startswith("INSERT"):
        for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
            spark.sql(f"CREATE TABLE {table} (id INT, v STRING) PARTITIONED BY (dt STRING) "
                      "STORED AS PARQUET")
    spark.sql(statement.format(t=f"hms.{db}.ours", v=values))
    spark.sql(statement.format(t=f"spark_catalog.{db}.theirs", v=values))
    ours = _rows(spark, f"SELECT id, v, dt FROM hms.{db}.ours")
    assert len(ours) == 40
    assert ours == _rows(spark, f"SELECT id, v, dt FROM spark_catalog.{db}.theirs")
    assert {row[2] for row in ours} == {None}
    assert _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.ours") == [
        ("dt=__HIVE_DEFAULT_PARTITION__",)]


def test_two_string_partition_columns_null_and_empty(spark: Any, db: str) -> None:
    """Every NULL/'' pattern over two string partition columns in one task."""
    spark.sql(f"CREATE TABLE hms.{db}.t (id INT) PARTITIONED BY (a STRING, b STRING) "
              "STORED AS PARQUET")
    values = [(i, a, b) for i, (a, b) in enumerate(
        (a, b) for a in ("NULL", "''", "'x'") for b in ("NULL", "''", "'y'"))]
    rows = ", ".join(f"({i}, {a}, {b})" for i, a, b in values)
    spark.sql(f"INSERT INTO hms.{db}.t SELECT /*+ REPARTITION(1) */ * FROM VALUES {rows} "
              "AS s(id, a, b)")
    got = _rows(spark, f"SELECT id, a, b FROM hms.{db}.t")
    assert sorted(r[0] for r in got) == list(range(9))
    for id_, a, b in got:
        _, want_a, want_b = values[id_]
        assert a == (None if want_a in ("NULL", "''") else "x")
        assert b == (None if want_b in ("NULL", "''") else "y")
