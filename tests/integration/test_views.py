"""Views stored in the metastore, read through hms against Spark's built-in Hive catalog on the
same views: views Spark's built-in catalog made and views as Hive stores them (expanded text,
no Spark properties), nested views, views in subqueries, and the names a query's WITH clause
defines, which stay the query's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import VIRTUAL_VIEW, Column, Storage, Table

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]


def rows(spark: Any, query: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)


@pytest.fixture
def base(spark: Any, db: str) -> Iterator[str]:
    """A partitioned text table ``base`` with rows in p=1 and p=2; the session back in
    ``spark_catalog.default`` afterwards."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.base (id INT, s STRING) PARTITIONED BY (p INT) "
              "STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.base PARTITION (p) "
              "VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)")
    try:
        yield f"{db}.base"
    finally:
        spark.sql("USE spark_catalog.default")


def test_views_made_by_the_builtin_catalog(spark: Any, db: str, base: str) -> None:
    """Views the built-in catalog made (names relative to the database they were made in, column
    lists with comments, a view over a view) read the same rows through hms, and hms reads the
    tables inside them itself."""
    spark.sql(f"USE spark_catalog.{db}")
    spark.sql("CREATE VIEW v1 AS SELECT id, s FROM base WHERE p = 1")
    spark.sql("CREATE VIEW v2 (a COMMENT 'the id', b) AS SELECT id, upper(s) AS u FROM base")
    spark.sql("CREATE VIEW v3 AS SELECT a FROM v2 WHERE a > 1")
    spark.sql("USE spark_catalog.default")
    for view in ("v1", "v2", "v3"):
        ours = rows(spark, f"SELECT * FROM hms.{db}.{view}")
        assert ours == rows(spark, f"SELECT * FROM spark_catalog.{db}.{view}"), view
    assert rows(spark, f"SELECT * FROM hms.{db}.v1") == [(1, "a"), (2, "b")]
    assert rows(spark, f"SELECT * FROM hms.{db}.v3") == [(2,), (3,)]
    # Qualified by the name the query used, as a table is.
    assert rows(spark, f"SELECT hms.{db}.v2.a FROM hms.{db}.v2 WHERE v2.b = 'C'") == [(3,)]
    assert spark.table(f"hms.{db}.v2").schema["a"].metadata.get("comment") == "the id"
    optimized = spark.sql(f"SELECT * FROM hms.{db}.v1")._jdf.queryExecution().optimizedPlan()
    assert f"hms.{db}.base" in optimized.toString()


def test_views_as_hive_stores_them(spark: Any, db: str, base: str,
                                   client: MetastoreClient) -> None:
    """A view as Hive's CREATE VIEW stores it (expanded text naming ``db.table``, generated
    column names, no Spark properties) reads the same rows through hms as through the
    built-in catalog."""
    client.create_table(Table(
        database=db, name="hv", table_type=VIRTUAL_VIEW,
        columns=(Column("id", "int"), Column("_c1", "string")),
        storage=Storage(location=None, input_format=None, output_format=None, serde=None),
        view_original_text="select id, upper(s) from base where p = 2",
        view_expanded_text=(f"select `base`.`id`, upper(`base`.`s`) from `{db}`.`base` "
                            "where `base`.`p` = 2")))
    ours = rows(spark, f"SELECT * FROM hms.{db}.hv")
    assert ours == rows(spark, f"SELECT * FROM spark_catalog.{db}.hv") == [(3, "C")]
    stored = client.get_table(db, "hv")
    assert stored.view_expanded_text and stored.view_original_text  # kept through the client


def test_views_in_subqueries_and_with_names(spark: Any, db: str, base: str) -> None:
    """A view named in a subquery expression is read; a WITH name that is also a view's name
    is the WITH clause's, as Spark resolves it."""
    spark.sql(f"CREATE VIEW spark_catalog.{db}.ids AS SELECT id FROM spark_catalog.{db}.base "
              "WHERE id < 3")
    assert rows(spark, f"SELECT s FROM hms.{db}.base WHERE id IN (SELECT id FROM hms.{db}.ids)"
                ) == [("a",), ("b",)]
    spark.sql(f"USE hms.{db}")
    assert rows(spark, "SELECT count(*) FROM ids") == [(2,)]
    assert rows(spark, "WITH ids AS (SELECT 42 AS id) SELECT * FROM ids") == [(42,)]
    spark.sql("CREATE TEMPORARY VIEW ids AS SELECT 7 AS id")
    try:
        assert rows(spark, "SELECT * FROM ids") == [(7,)]
    finally:
        spark.sql("DROP VIEW ids")
