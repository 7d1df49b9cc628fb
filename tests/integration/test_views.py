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


# View texts with WITH clauses, each with the rows it reads from base (and other, a table whose
# name a WITH clause also defines).
WITH_VIEWS = {
    "top": ("WITH c AS (SELECT id, s FROM base WHERE p = 1) SELECT * FROM c",
            [(1, "a"), (2, "b")]),
    "nested": ("SELECT x FROM (WITH c AS (SELECT id FROM base WHERE p = 2) "
               "SELECT id * 10 AS x FROM c) sub", [(30,)]),
    "in_subquery": ("SELECT id FROM base WHERE id IN (WITH c AS (SELECT 2 AS id) "
                    "SELECT id FROM c)", [(2,)]),
    # Inside its own definition the name is the table's; after it, the WITH clause's.
    "shadowing": ("WITH base AS (SELECT id FROM base WHERE p = 2) SELECT count(*) AS n, "
                  "max(id) AS m FROM base", [(1, 3)]),
    "table_name": ("WITH other AS (SELECT 99 AS id) SELECT id FROM other", [(99,)]),
    "chained": ("WITH c AS (SELECT id FROM base), d AS (SELECT max(id) AS m FROM c) "
                "SELECT m FROM d", [(3,)]),
}


@pytest.mark.thorough
def test_views_with_with_clauses(spark: Any, db: str, base: str,
                                 client: MetastoreClient) -> None:
    """Views whose text has WITH clauses (at the top, in a subquery, in a subquery expression,
    with names of real tables), made by the built-in, by hms and as Hive stores them, read the
    same rows through hms as through the built-in: a WITH name is the view's own."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.other (id INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO spark_catalog.{db}.other VALUES (7)")
    spark.sql(f"USE spark_catalog.{db}")
    for name, (text, _) in WITH_VIEWS.items():
        spark.sql(f"CREATE VIEW spark_catalog.{db}.b_{name} AS {text}")
        spark.sql(f"CREATE VIEW hms.{db}.h_{name} AS {text}")
    spark.sql("USE spark_catalog.default")
    client.create_table(Table(
        database=db, name="hive_with", table_type=VIRTUAL_VIEW, columns=(Column("id", "int"),),
        storage=Storage(location=None, input_format=None, output_format=None, serde=None),
        view_original_text="with c as (select id from base where p = 2) select id from c",
        view_expanded_text=(f"with c as (select `base`.`id` from `{db}`.`base` where "
                            "`base`.`p` = 2) select `c`.`id` from c")))
    for name, (_, expected) in [*WITH_VIEWS.items(), ("hive_with", ("", [(3,)]))]:
        for view in ((f"b_{name}", f"h_{name}") if name != "hive_with" else (name,)):
            ours = rows(spark, f"SELECT * FROM hms.{db}.{view}")
            assert ours == expected, view
            assert ours == rows(spark, f"SELECT * FROM spark_catalog.{db}.{view}"), view
    # In a query with a WITH clause of its own, and named by another view.
    assert rows(spark, f"WITH c AS (SELECT 5 AS id) SELECT c.id, v.s FROM c, hms.{db}.h_top v "
                "WHERE v.id = 1") == [(5, "a")]
    spark.sql(f"CREATE VIEW hms.{db}.outer_view AS WITH c AS (SELECT * FROM hms.{db}.b_top) "
              "SELECT count(*) AS n FROM c")
    assert rows(spark, f"SELECT * FROM hms.{db}.outer_view") == [(2,)]


def refusal(spark: Any, statement: str) -> str:
    """The first line of the error ``statement`` fails with."""
    with pytest.raises(Exception) as raised:
        spark.sql(statement).collect()
    return str(raised.value).strip().splitlines()[0]


def test_create_view_through_hms_as_the_builtin_stores_it(spark: Any, db: str, base: str,
                                                          client: MetastoreClient) -> None:
    """CREATE VIEW through hms stores what the built-in's CREATE VIEW stores (texts, columns,
    Spark's view properties), so each catalog reads the other's view; IF NOT EXISTS, OR
    REPLACE and ALTER VIEW ... AS as the built-in."""
    spark.sql(f"USE spark_catalog.{db}")
    query = "SELECT id AS i, s FROM base WHERE p = 1"
    spark.sql(f"CREATE VIEW hms.{db}.ours (a COMMENT 'the id', b) COMMENT 'mine' "
              f"TBLPROPERTIES ('k' = 'v') AS {query}")
    spark.sql(f"CREATE VIEW spark_catalog.{db}.theirs (a COMMENT 'the id', b) COMMENT 'mine' "
              f"TBLPROPERTIES ('k' = 'v') AS {query}")
    spark.sql("USE spark_catalog.default")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    assert ours.table_type == theirs.table_type == VIRTUAL_VIEW
    assert ours.columns == theirs.columns
    assert (ours.view_original_text, ours.view_expanded_text) == (
        theirs.view_original_text, theirs.view_expanded_text)
    assert ours.storage == theirs.storage
    # Every property the built-in stored, the same but for the time of the change.
    assert {k: v for k, v in ours.parameters.items() if k != "transient_lastDdlTime"} == {
        k: v for k, v in theirs.parameters.items() if k != "transient_lastDdlTime"}
    for name in ("ours", "theirs"):
        expected = [(1, "a"), (2, "b")]
        assert rows(spark, f"SELECT * FROM hms.{db}.{name}") == expected, name
        assert rows(spark, f"SELECT * FROM spark_catalog.{db}.{name}") == expected, name
    # Existing views
    assert refusal(spark, f"CREATE VIEW hms.{db}.ours AS SELECT 1 AS x").startswith(
        "[TABLE_OR_VIEW_ALREADY_EXISTS]")
    spark.sql(f"CREATE VIEW IF NOT EXISTS hms.{db}.ours AS SELECT 1 AS x")
    assert rows(spark, f"SELECT * FROM hms.{db}.ours") == [(1, "a"), (2, "b")]
    spark.sql(f"CREATE OR REPLACE VIEW hms.{db}.ours AS SELECT 1 AS x")
    assert rows(spark, f"SELECT * FROM hms.{db}.ours") == [(1,)]
    assert "k" not in client.get_table(db, "ours").parameters
    spark.sql(f"ALTER VIEW hms.{db}.theirs AS SELECT count(*) AS n FROM spark_catalog.{db}.base")
    assert rows(spark, f"SELECT * FROM hms.{db}.theirs") == [(3,)]
    assert client.get_table(db, "theirs").parameters["k"] == "v"
    assert refusal(spark, f"ALTER VIEW hms.{db}.missing AS SELECT 1").startswith(
        "[TABLE_OR_VIEW_NOT_FOUND]")
    # A table replaced by a view right after a query read it: the view is read.
    spark.sql(f"CREATE TABLE hms.{db}.swap (id INT) STORED AS PARQUET")
    assert rows(spark, f"SELECT * FROM hms.{db}.swap") == []
    spark.sql(f"DROP TABLE hms.{db}.swap")
    spark.sql(f"CREATE VIEW hms.{db}.swap AS SELECT 5 AS id")
    assert rows(spark, f"SELECT * FROM hms.{db}.swap") == [(5,)]


def test_a_view_made_in_hms_records_the_metastores_own_catalog(
        spark: Any, db: str, base: str, client: MetastoreClient) -> None:
    """CREATE VIEW run while hms is the current catalog stores what the built-in stores for the
    same statement run in spark_catalog: the text resolved in ``spark_catalog`` (the name every
    Spark session with Hive support has for the metastore), so that a session without any hms
    catalog reads the view, and hms still does."""
    query = "SELECT id, s FROM base WHERE p = 1"
    spark.sql(f"USE hms.{db}")
    spark.sql(f"CREATE VIEW ours AS {query}")
    spark.sql("CREATE VIEW other AS SELECT 1 AS x")
    spark.sql(f"ALTER VIEW other AS SELECT count(*) AS n FROM {db}.base")
    spark.sql(f"USE spark_catalog.{db}")
    spark.sql(f"CREATE VIEW theirs AS {query}")
    spark.sql("USE spark_catalog.default")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    assert ours.parameters["view.catalogAndNamespace.part.0"] == "spark_catalog"
    assert {k: v for k, v in ours.parameters.items() if k != "transient_lastDdlTime"} == {
        k: v for k, v in theirs.parameters.items() if k != "transient_lastDdlTime"}
    assert (ours.view_original_text, ours.view_expanded_text) == (
        theirs.view_original_text, theirs.view_expanded_text)
    expected = [(1, "a"), (2, "b")]
    for catalog in ("hms", "spark_catalog"):
        assert rows(spark, f"SELECT * FROM {catalog}.{db}.ours") == expected, catalog
        assert rows(spark, f"SELECT * FROM {catalog}.{db}.other") == [(3,)], catalog
    # A session that has only the built-in catalog.
    plain = spark.newSession()
    plain.conf.unset("spark.sql.catalog.hms")
    assert rows(plain, f"SELECT * FROM spark_catalog.{db}.ours") == expected
    assert rows(plain, f"SELECT * FROM spark_catalog.{db}.other") == [(3,)]


def stored_views(spark: Any, db: str) -> list[str]:
    """SHOW VIEWS IN hms.db without the session's temporary views (other tests make some)."""
    return [name for _, name, temporary in rows(spark, f"SHOW VIEWS IN hms.{db}")
            if not temporary]


def test_view_statements_refuse_as_the_builtin(spark: Any, db: str, base: str,
                                               client: MetastoreClient) -> None:
    """Column lists of the wrong length, temporary views in a permanent view, and DROP of the
    wrong kind are refused with the built-in's conditions; nothing is stored."""
    for catalog in ("hms", "spark_catalog"):
        assert refusal(spark, f"CREATE VIEW {catalog}.{db}.v (a, b, c) AS "
                       f"SELECT id FROM hms.{db}.base").startswith(
            "[CREATE_VIEW_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS]"), catalog
    for catalog in ("hms", "spark_catalog"):
        assert refusal(spark, f"CREATE VIEW {catalog}.{db}.v AS SELECT * FROM {db}.missing"
                       ).startswith("[TABLE_OR_VIEW_NOT_FOUND]"), catalog
    spark.sql("CREATE TEMPORARY VIEW tmp AS SELECT 1 AS x")
    try:
        for catalog in ("hms", "spark_catalog"):
            assert refusal(spark, f"CREATE VIEW {catalog}.{db}.v AS SELECT * FROM tmp"
                           ).startswith("[INVALID_TEMP_OBJ_REFERENCE]"), catalog
    finally:
        spark.sql("DROP VIEW tmp")
    assert stored_views(spark, db) == []
    spark.sql(f"CREATE VIEW hms.{db}.v AS SELECT 1 AS x")
    assert refusal(spark, f"DROP VIEW hms.{db}.base").startswith(
        "[WRONG_COMMAND_FOR_OBJECT_TYPE]")
    assert refusal(spark, f"DROP TABLE hms.{db}.v").startswith(
        "[WRONG_COMMAND_FOR_OBJECT_TYPE]")
    # Not answered by hms: Spark refuses it (UNSUPPORTED_FEATURE.CATALOG_OPERATION on 4.0,
    # MISSING_CATALOG_ABILITY.VIEWS on 4.3), and the view stays as it was.
    assert "does not support views" in refusal(
        spark, f"ALTER VIEW hms.{db}.v SET TBLPROPERTIES ('a' = 'b')")
    assert "a" not in client.get_table(db, "v").parameters
    assert refusal(spark, f"DROP VIEW hms.{db}.missing").startswith("[TABLE_OR_VIEW_NOT_FOUND]")
    spark.sql(f"DROP VIEW IF EXISTS hms.{db}.missing")
    spark.sql(f"DROP VIEW hms.{db}.v")
    assert stored_views(spark, db) == []
    assert rows(spark, f"SELECT count(*) FROM hms.{db}.base") == [(3,)]


def test_show_views_and_describe_of_views(spark: Any, db: str, base: str) -> None:
    """SHOW VIEWS [LIKE] and DESCRIBE [EXTENDED] of a view through hms show what the built-in
    shows (its storage rows aside)."""
    spark.sql(f"USE spark_catalog.{db}")
    spark.sql("CREATE VIEW va (x COMMENT 'an id') AS SELECT id FROM base")
    spark.sql("CREATE VIEW vb AS SELECT s FROM base")
    spark.sql("USE spark_catalog.default")
    spark.sql("CREATE TEMPORARY VIEW vtmp AS SELECT 1 AS x")
    try:
        for like in ("", " LIKE 'va|vt*'"):
            assert (rows(spark, f"SHOW VIEWS IN hms.{db}{like}")
                    == rows(spark, f"SHOW VIEWS IN spark_catalog.{db}{like}")), like
        assert stored_views(spark, db) == ["va", "vb"]
        assert ("", "vtmp", True) in rows(spark, f"SHOW VIEWS IN hms.{db}")
    finally:
        spark.sql("DROP VIEW vtmp")
    assert (rows(spark, f"DESCRIBE hms.{db}.va") == rows(spark, f"DESCRIBE spark_catalog.{db}.va")
            == [("x", "int", "an id")])
    ours = {r[0]: r[1] for r in spark.sql(f"DESCRIBE EXTENDED hms.{db}.va").collect()}
    theirs = {r[0]: r[1] for r in spark.sql(f"DESCRIBE EXTENDED spark_catalog.{db}.va").collect()}
    for key in ("Database", "Table", "Type", "View Text", "View Original Text",
                "View Catalog and Namespace", "View Query Output Columns"):
        assert ours[key] == theirs[key], key
    assert ours["Catalog"] == "hms"
