"""The hms catalog in a real SparkSession, beside Spark's built-in Hive catalog (spark_catalog)
on the same metastore."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.errors import InvalidUri
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import StorageFormat
from hmscatalog.spark import attach

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _scan_text(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


def _error_class(exc: BaseException) -> str:
    getter = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    return str(getter()) if getter else str(exc)


def test_namespaces(spark: Any, hms: Any, client: MetastoreClient, tmp_path: Path) -> None:
    spark.sql("DROP NAMESPACE IF EXISTS hms.ns_a CASCADE")
    location = f"file:{tmp_path / 'ns_a'}"
    spark.sql(f"CREATE NAMESPACE hms.ns_a COMMENT 'team a' LOCATION '{location}' "
              "WITH DBPROPERTIES ('k' = 'v')")
    assert ("ns_a",) in _rows(spark.sql("SHOW NAMESPACES IN hms"))
    info = dict(_rows(spark.sql("DESCRIBE NAMESPACE EXTENDED hms.ns_a")))
    assert info["Comment"] == "team a"
    assert urlparse(info["Location"]).path == str(tmp_path / "ns_a")
    assert "(k,v)" in info["Properties"]
    assert client.get_database("ns_a").parameters["k"] == "v"
    with pytest.raises(Exception) as exists:
        spark.sql("CREATE NAMESPACE hms.ns_a")
    assert _error_class(exists.value) == "SCHEMA_ALREADY_EXISTS"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS hms.ns_a")
    spark.sql("CREATE TABLE hms.ns_a.t (a INT) USING parquet")
    with pytest.raises(Exception) as not_empty:
        spark.sql("DROP NAMESPACE hms.ns_a")
    assert _error_class(not_empty.value) == "SCHEMA_NOT_EMPTY"
    spark.sql("USE hms.ns_a")
    assert _rows(spark.sql("SHOW TABLES")) == [("ns_a", "t", False)]
    spark.sql("USE spark_catalog.default")
    spark.sql("DROP NAMESPACE hms.ns_a CASCADE")
    assert not client.database_exists("ns_a")
    with pytest.raises(Exception) as missing:
        spark.sql("SHOW TABLES IN hms.ns_a")
    assert _error_class(missing.value) == "SCHEMA_NOT_FOUND"


@pytest.mark.builtin
def test_create_table_spark_and_hive_syntax(spark: Any, db: str, client: MetastoreClient,
                                           tmp_path: Path) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.s (a INT, b STRING, dt STRING, hr INT) USING parquet "
              "PARTITIONED BY (dt, hr) COMMENT 'spark syntax' TBLPROPERTIES ('p' = '1')")
    spark.sql(f"CREATE TABLE hms.{db}.h (a INT COMMENT 'the a', b STRING) "
              "PARTITIONED BY (dt DATE, hr INT) STORED AS ORC")
    ext = tmp_path / "ext"
    spark.sql(f"CREATE EXTERNAL TABLE hms.{db}.e (a INT) PARTITIONED BY (p STRING) "
              f"STORED AS PARQUET LOCATION 'file:{ext}'")
    spark.sql(f"CREATE TABLE IF NOT EXISTS hms.{db}.s (x INT) USING parquet")
    s, h, e = (client.get_table(db, n) for n in ("s", "h", "e"))
    assert [c.name for c in s.columns] == ["a", "b"]
    assert [(c.name, c.type) for c in s.partition_keys] == [("dt", "string"), ("hr", "int")]
    assert s.format is StorageFormat.PARQUET and s.parameters["p"] == "1"
    assert s.parameters["comment"] == "spark syntax"
    assert [(c.name, c.type) for c in h.partition_keys] == [("dt", "date"), ("hr", "int")]
    assert h.columns[0].comment == "the a"
    assert h.format is StorageFormat.ORC
    assert e.is_external and urlparse(e.location or "").path == str(ext)
    assert _rows(spark.sql(f"SHOW TABLES IN hms.{db}")) == [(db, n, False) for n in "ehs"]
    described = dict((r[0], r[1]) for r in spark.sql(f"DESCRIBE TABLE EXTENDED hms.{db}.s")
                     .collect())
    assert described["Provider"] == "parquet"
    assert described["Type"] == "MANAGED"
    assert "# Partition Information" in described
    # The built-in Hive catalog sees an ordinary Hive table.
    hive_described = _rows(spark.sql(f"DESCRIBE TABLE spark_catalog.{db}.h"))
    assert ("dt", "date", None) in hive_described


def test_create_table_errors(spark: Any, db: str, client: MetastoreClient) -> None:
    with pytest.raises(Exception, match="format 'csv' is not supported"):
        spark.sql(f"CREATE TABLE hms.{db}.c (a INT) USING csv")
    with pytest.raises(Exception, match="cannot name a partition directory"):
        spark.sql(f"CREATE TABLE hms.{db}.m (a INT, p MAP<STRING, INT>) USING parquet "
                  "PARTITIONED BY (p)")
    with pytest.raises(Exception, match="partitioned by columns only"):
        spark.sql(f"CREATE TABLE hms.{db}.b (a INT) USING parquet PARTITIONED BY (bucket(4, a))")
    assert client.list_tables(db) == []
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) USING parquet")
    with pytest.raises(Exception) as exists:
        spark.sql(f"CREATE TABLE hms.{db}.t (a INT) USING parquet")
    assert _error_class(exists.value) == "TABLE_OR_VIEW_ALREADY_EXISTS"
    with pytest.raises(Exception) as missing:
        spark.sql(f"SELECT * FROM hms.{db}.nope")
    assert _error_class(missing.value) == "TABLE_OR_VIEW_NOT_FOUND"


def _load_with_builtin(spark: Any, db: str, table: str) -> None:
    """Rows written by Spark's built-in Hive catalog into a table."""
    spark.sql(f"""
        INSERT INTO spark_catalog.{db}.{table} PARTITION (dt, hr)
        SELECT id AS a, concat('v', id) AS b, concat('2024-01-0', CAST(id % 3 + 1 AS STRING)),
               CAST(id % 2 AS INT)
        FROM range(60)
    """)


@pytest.mark.builtin
def test_reads_prune_and_match_the_builtin_catalog(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a BIGINT, b STRING) PARTITIONED BY (dt STRING, hr INT) "
              "STORED AS PARQUET")
    _load_with_builtin(spark, db, "t")
    queries = [
        ("dt = '2024-01-02' AND hr = 1", 1),
        ("dt IN ('2024-01-01', '2024-01-03')", 4),
        ("hr >= 1", 3),
        ("dt = '2024-01-02' OR hr = 0", 4),
        ("NOT (dt = '2024-01-02')", 4),
        ("dt LIKE '2024-01-0%' AND hr = 0", 3),
        ("hr = 1 AND a > 10", 3),
        ("dt = 'nope'", 0),
        # Casts of partition columns, written out or added by Spark (dt is a string).
        ("CAST(dt AS DATE) = DATE'2024-01-02'", 2),
        ("dt = DATE'2024-01-02'", 2),
        ("CAST(dt AS DATE) > DATE'2024-01-01' AND hr = 1", 2),
        ("CAST(dt AS DATE) BETWEEN DATE'2024-01-02' AND DATE'2024-01-03'", 4),
        ("CAST(hr AS STRING) = '1'", 3),
        ("NOT (CAST(hr AS STRING) IN ('0'))", 3),
        ("CAST(hr AS BIGINT) >= 1 OR CAST(dt AS DATE) IS NULL", 3),
    ]
    for where, selected in queries:
        ours = spark.sql(f"SELECT * FROM hms.{db}.t WHERE {where}")
        theirs = spark.sql(f"SELECT * FROM spark_catalog.{db}.t WHERE {where}")
        assert _rows(ours) == _rows(theirs), where
        assert f"partitions={selected}/6" in _scan_text(ours), where
    grouped = f"SELECT dt, hr, count(*), sum(a) FROM {{}}.{db}.t GROUP BY dt, hr"
    assert _rows(spark.sql(grouped.format("hms"))) == _rows(spark.sql(grouped.format(
        "spark_catalog")))
    joined = (f"SELECT x.a, y.dt FROM hms.{db}.t x JOIN spark_catalog.{db}.t y "
              "ON x.a = y.a AND x.dt = y.dt WHERE x.hr = 1")
    assert len(_rows(spark.sql(joined))) == 30


@pytest.mark.builtin
def test_special_characters_in_partition_values(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (s STRING) STORED AS PARQUET")
    values = ["a/b", "k=v", "100%", "10:30", "it's", 'say "hi"', "#1", "two words", "über", ""]
    selects = " UNION ALL ".join(
        f"SELECT {i} AS a, '{v.replace(chr(39), chr(92) + chr(39))}' AS s"
        for i, v in enumerate(values))
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (s) {selects}")
    ours = _rows(spark.sql(f"SELECT a, s FROM hms.{db}.t"))
    assert ours == _rows(spark.sql(f"SELECT a, s FROM spark_catalog.{db}.t"))
    # '' is stored as the default partition and reads back as NULL, in both catalogs.
    assert (9, None) in ours
    for i, value in enumerate(values[:-1]):
        literal = value.replace("'", "\\'")
        df = spark.sql(f"SELECT a FROM hms.{db}.t WHERE s = '{literal}'")
        assert _rows(df) == [(i,)], value
        assert "partitions=1/10" in _scan_text(df), value
    nulls = spark.sql(f"SELECT a FROM hms.{db}.t WHERE s IS NULL")
    assert _rows(nulls) == [(9,)]
    assert "partitions=1/10" in _scan_text(nulls)


def test_partition_values_come_from_the_metastore_not_the_path(
    spark: Any, db: str, client: MetastoreClient, tmp_path: Path
) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET")
    table = client.get_table(db, "t")
    # A partition far from the table root, in a directory whose name says nothing of p.
    elsewhere = tmp_path / "somewhere" / "p=999"
    spark.range(3).selectExpr("CAST(id AS INT) AS a").write.parquet(str(elsewhere))
    client.add_partitions(table, [client.new_partition(table, [7], location=f"file:{elsewhere}")])
    df = spark.sql(f"SELECT a, p FROM hms.{db}.t WHERE p = 7")
    assert _rows(df) == [(0, 7), (1, 7), (2, 7)]
    assert _rows(spark.sql(f"SELECT * FROM hms.{db}.t WHERE p = 999")) == []


@pytest.mark.builtin
def test_unpartitioned_tables_parquet_and_text(spark: Any, db: str) -> None:
    for stored in ("PARQUET", "TEXTFILE"):
        spark.sql(f"CREATE TABLE hms.{db}.u_{stored} (a INT, b STRING) STORED AS {stored}")
        spark.sql(f"INSERT INTO spark_catalog.{db}.u_{stored} VALUES (1, 'x'), (2, 'y')")
        assert _rows(spark.sql(f"SELECT * FROM hms.{db}.u_{stored}")) == [(1, "x"), (2, "y")]


@pytest.mark.builtin
def test_drop_table_managed_and_external(spark: Any, db: str, client: MetastoreClient,
                                         tmp_path: Path) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.m (a INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO spark_catalog.{db}.m VALUES (1)")
    managed_dir = Path(urlparse(client.get_table(db, "m").location or "").path)
    assert any(managed_dir.iterdir())
    ext = tmp_path / "ext"
    spark.range(2).write.parquet(str(ext))
    spark.sql(f"CREATE TABLE hms.{db}.e (id BIGINT) STORED AS PARQUET LOCATION 'file:{ext}'")
    assert _rows(spark.sql(f"SELECT * FROM hms.{db}.e")) == [(0,), (1,)]
    spark.sql(f"DROP TABLE hms.{db}.m")
    spark.sql(f"DROP TABLE hms.{db}.e")
    spark.sql(f"DROP TABLE IF EXISTS hms.{db}.nope")
    assert not managed_dir.exists()
    assert any(ext.glob("*.parquet"))
    assert client.list_tables(db) == []


def test_alter_table(spark: Any, db: str, client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) USING parquet TBLPROPERTIES ('x' = '1')")
    spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ('y' = '2')")
    spark.sql(f"ALTER TABLE hms.{db}.t UNSET TBLPROPERTIES ('x')")
    spark.sql(f"ALTER TABLE hms.{db}.t ADD COLUMNS (b STRING COMMENT 'new')")
    table = client.get_table(db, "t")
    assert table.parameters["y"] == "2" and "x" not in table.parameters
    assert [(c.name, c.type, c.comment) for c in table.columns] == [
        ("a", "int", None), ("b", "string", "new")]
    spark.sql(f"ALTER TABLE hms.{db}.t RENAME TO {db}.t2")
    assert client.list_tables(db) == ["t2"]


@pytest.mark.builtin
def test_partition_ddl_matches_the_builtin_catalog(spark: Any, db: str, tmp_path: Path,
                                                   client: MetastoreClient) -> None:
    for catalog, table in (("hms", "a"), ("spark_catalog", "b")):
        spark.sql(f"CREATE TABLE hms.{db}.{table} (x INT) PARTITIONED BY (dt DATE, s STRING) "
                  "STORED AS PARQUET")
        spark.sql(f"ALTER TABLE {catalog}.{db}.{table} ADD PARTITION (dt='2024-01-01', s='a/b')")
        spark.sql(f"ALTER TABLE {catalog}.{db}.{table} ADD IF NOT EXISTS "
                  "PARTITION (dt='2024-01-01', s='a/b') PARTITION (dt='2024-01-02', s='x') "
                  "PARTITION (dt='2024-01-03', s='x')")
        with pytest.raises(Exception) as exists:
            spark.sql(f"ALTER TABLE {catalog}.{db}.{table} ADD PARTITION (dt='2024-01-02', s='x')")
        assert _error_class(exists.value) == "PARTITIONS_ALREADY_EXIST"
        spark.sql(f"ALTER TABLE {catalog}.{db}.{table} DROP PARTITION (dt='2024-01-03', s='x')")
    for spec in ("", " PARTITION (s='x')", " PARTITION (dt='2024-01-01')"):
        ours = _rows(spark.sql(f"SHOW PARTITIONS hms.{db}.a{spec}"))
        theirs = _rows(spark.sql(f"SHOW PARTITIONS spark_catalog.{db}.b{spec}"))
        assert ours == theirs, spec
    assert _rows(spark.sql(f"SHOW PARTITIONS hms.{db}.a")) == [
        ("dt=2024-01-01/s=a%2Fb",), ("dt=2024-01-02/s=x",)]
    # Both catalogs laid the directories out identically.
    table_a, table_b = client.get_table(db, "a"), client.get_table(db, "b")
    names = sorted(p.name(table_a.partition_spec) for p in client.list_partitions(db, "a"))
    assert names == sorted(p.name(table_b.partition_spec) for p in client.list_partitions(db, "b"))
    elsewhere = tmp_path / "p3"
    spark.sql(f"ALTER TABLE hms.{db}.a ADD PARTITION (dt='2024-02-01', s='y') "
              f"LOCATION 'file:{elsewhere}'")
    part = client.get_partition(db, "a", ["2024-02-01", "y"])
    assert urlparse(part.location or "").path == str(elsewhere)
    assert table_a.location != table_b.location


def test_attach_from_conf_and_several_catalogs(spark: Any, hms: Any, db: str,
                                               metastore_uri: str) -> None:
    spark.conf.set("spark.hmscatalog.second.uri", metastore_uri)
    try:
        second = attach(spark, name="second")
        assert second.client.uris == [metastore_uri]
        spark.sql(f"CREATE TABLE hms.{db}.t (a INT) USING parquet")
        # The same metastore under two names: both see the table.
        assert _rows(spark.sql(f"SHOW TABLES IN second.{db}")) == [(db, "t", False)]
        assert spark.table(f"second.{db}.t").columns == ["a"]
    finally:
        spark.conf.unset("spark.hmscatalog.second.uri")
    with pytest.raises(InvalidUri, match=r"spark\.hmscatalog\.third\.uri"):
        attach(spark, name="third")


def test_a_catalog_never_attached_says_to_attach_it(spark: Any, hms: Any) -> None:
    """The catalog's class configured (as session_conf() does) but attach() never called: the
    first line says so, not Py4J's "An error occurred while calling o36.sql"."""
    from hmscatalog.spark.bridge.plugin import PLUGIN_CLASS

    spark.conf.set("spark.sql.catalog.unattached", PLUGIN_CLASS)
    try:
        with pytest.raises(Exception) as refused:
            spark.sql("SHOW TABLES IN unattached.sales").collect()
    finally:
        spark.conf.unset("spark.sql.catalog.unattached")
    assert str(refused.value).splitlines()[0] == (
        "[HMS_NOT_ATTACHED] catalog unattached is served by hmscatalog's Python code, which "
        'this Spark driver has not started: call hmscatalog.spark.session.attach(spark, '
        'name="unattached") first')


@pytest.mark.builtin
def test_partition_without_directory_reads_as_empty(spark: Any, db: str,
                                                    client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p) VALUES (1, 1), (2, 2)")
    table = client.get_table(db, "t")
    gone = Path(urlparse(client.get_partition(db, "t", ["2"]).location or "").path)
    for f in gone.iterdir():
        f.unlink()
    gone.rmdir()
    assert _rows(spark.sql(f"SELECT * FROM hms.{db}.t")) == [(1, 1)]
    only_gone = spark.sql(f"SELECT * FROM hms.{db}.t WHERE p = 2")
    assert _rows(only_gone) == []
    assert "partitions=1/2" in _scan_text(only_gone)
    assert table.partition_spec.names == ["p"]


@pytest.mark.builtin
def test_reads_follow_changes_to_partition_directories(spark: Any, db: str,
                                                       client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p) VALUES (1, 1), (2, 2)")
    read = f"SELECT a, p FROM hms.{db}.t"
    assert _rows(spark.sql(read)) == [(1, 1), (2, 2)]
    # Another writer adds a file to a partition already listed, then replaces another one's.
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p) VALUES (3, 1)")
    assert _rows(spark.sql(read)) == [(1, 1), (2, 2), (3, 1)]
    spark.sql(f"INSERT OVERWRITE spark_catalog.{db}.t PARTITION (p = 2) VALUES (4)")
    assert _rows(spark.sql(read)) == [(1, 1), (3, 1), (4, 2)]
    # A partition whose directory exists but holds no file reads as empty.
    spark.sql(f"ALTER TABLE hms.{db}.t ADD PARTITION (p = 3)")
    empty = spark.sql(f"SELECT a FROM hms.{db}.t WHERE p = 3")
    assert _rows(empty) == []
    assert "partitions=1/3" in _scan_text(empty)
    # A file added without changing the directory's time (as on a file system with coarse
    # times) stays unseen, since the listing is kept, until REFRESH TABLE.
    directory = Path(urlparse(client.get_partition(db, "t", ["2"]).location or "").path)
    before = directory.stat()
    source = directory.parent / "_more"
    spark.createDataFrame([(40,), (41,)], "a INT").coalesce(1).write.parquet(str(source))
    for name in ("part-added.parquet", ".part-added.parquet.crc"):
        [written] = source.glob(name.replace("added", "*"))
        (directory / name).write_bytes(written.read_bytes())
    os.utime(directory, ns=(before.st_atime_ns, before.st_mtime_ns))
    in_p2 = f"{read} WHERE p = 2"
    assert _rows(spark.sql(in_p2)) == [(4, 2)]
    spark.sql(f"REFRESH TABLE hms.{db}.t")
    assert _rows(spark.sql(in_p2)) == [(4, 2), (40, 2), (41, 2)]


@pytest.mark.builtin
@pytest.mark.thorough
def test_partition_columns_whose_names_need_back_quotes(spark: Any, db: str,
                                                        client: MetastoreClient) -> None:
    """Partition (and data) columns named ```a-b``` and ```Part Key```, in tables made by
    either catalog: each catalog writes (static and dynamic partitions) and reads the other's
    table; hms prunes on them, narrows a join at run time by them, lists, describes and
    analyzes their partitions. The built-in cannot send a filter on such a column to the
    metastore (INTERNAL_ERROR_HIVE_METASTORE_PARTITION_FILTER) unless told to fall back."""
    columns = "(a INT, `x y` STRING) PARTITIONED BY (`a-b` STRING, `Part Key` INT)"
    spark.sql(f"CREATE TABLE hms.{db}.ours {columns} STORED AS PARQUET")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {columns} STORED AS PARQUET")
    spark.sql(f"CREATE TABLE hms.{db}.keys (k STRING, m INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.keys VALUES ('q', 1), ('r', 2)")
    spark.conf.set("spark.sql.hive.metastorePartitionPruningFallbackOnException", "true")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        for table in ("ours", "theirs"):
            for catalog, value in (("hms", 1), ("spark_catalog", 2)):
                spark.sql(f"INSERT INTO {catalog}.{db}.{table} PARTITION (`a-b` = 'q', "
                          f"`Part Key` = {value}) VALUES ({value}, 'static')")
                spark.sql(f"INSERT INTO {catalog}.{db}.{table} PARTITION (`a-b`, `Part Key`) "
                          f"VALUES ({value + 10}, 'dynamic', 'r', {value})")
            everything = f"SELECT * FROM {{}}.{db}.{table}"
            ours = _rows(spark.sql(everything.format("hms")))
            assert ours == _rows(spark.sql(everything.format("spark_catalog"))), table
            assert len(ours) == 4, table
            for where, selected in (("`a-b` = 'q'", 2), ("`Part Key` = 2 AND `a-b` = 'r'", 1),
                                    ("`x y` = 'static'", 4)):
                query = f"SELECT a, `a-b` FROM {{}}.{db}.{table} WHERE {where}"
                pruned = spark.sql(query.format("hms"))
                assert _rows(pruned) == _rows(spark.sql(query.format("spark_catalog"))), where
                assert f"partitions={selected}/4" in _scan_text(pruned), where
            join = (f"SELECT a, m FROM {{}}.{db}.{table} JOIN hms.{db}.keys ON `a-b` = k "
                    "WHERE m = 1")
            joined = spark.sql(join.format("hms"))
            assert _rows(joined) == _rows(spark.sql(join.format("spark_catalog")))
            assert _rows(joined) == [(1, 1), (2, 1)]
            scan = _scan_text(joined)
            assert "partitions=2/4" in scan and "after runtime filtering" in scan, scan
            shown = _rows(spark.sql(f"SHOW PARTITIONS hms.{db}.{table}"))
            # Both catalogs name the columns in the case Spark's recorded schema gives them.
            assert shown == _rows(spark.sql(f"SHOW PARTITIONS spark_catalog.{db}.{table}"))
            assert shown[0] == ("a-b=q/Part Key=1",), table
            spark.sql(f"ANALYZE TABLE hms.{db}.{table} PARTITION (`a-b` = 'q', `Part Key` = 1) "
                      "COMPUTE STATISTICS")
            assert client.get_partition(db, table, ["q", "1"]).parameters["numRows"] == "1"
    finally:
        spark.conf.unset("spark.sql.hive.metastorePartitionPruningFallbackOnException")
        spark.conf.unset("spark.sql.adaptive.enabled")
    created = spark.sql(f"SHOW CREATE TABLE hms.{db}.ours").collect()[0][0]
    assert "PARTITIONED BY (`a-b`, `Part Key`)" in created, created


@pytest.mark.thorough
def test_dataframe_writes_name_such_partition_columns_back_quoted(spark: Any, db: str) -> None:
    """Spark parses the partition column names of DataFrame writes into catalog plugins as SQL
    names (partitionedBy's once more): back-quoted they make the table partitioned by them;
    unquoted, Spark refuses the call before hms sees it (docs/spark-sql.md, differences)."""
    from pyspark.sql.functions import col

    rows = spark.sql("SELECT id AS a, CAST(id % 2 AS STRING) AS `part key`, "
                     "CAST(id % 2 AS STRING) AS `x.y` FROM range(4)")
    rows.write.partitionBy("`part key`").saveAsTable(f"hms.{db}.saved")
    rows.writeTo(f"hms.{db}.created").partitionedBy(col("```part key```")).create()
    rows.writeTo(f"hms.{db}.dotted").partitionedBy(col("`x.y`")).create()
    for name, key in (("saved", "part key"), ("created", "part key"), ("dotted", "x.y")):
        assert _rows(spark.sql(f"SHOW PARTITIONS hms.{db}.{name}")) == [
            (f"{key}=0",), (f"{key}=1",)], name
        assert _rows(spark.sql(f"SELECT a, `part key`, `x.y` FROM hms.{db}.{name}")) == _rows(
            rows), name
    for write in (lambda: rows.write.partitionBy("part key").saveAsTable(f"hms.{db}.plain"),
                  lambda: rows.writeTo(f"hms.{db}.plain").partitionedBy(
                      col("`part key`")).create()):
        with pytest.raises(Exception) as refused:
            write()
        assert str(refused.value).lstrip().startswith("[PARSE_SYNTAX_ERROR]"), refused.value
    assert not spark.catalog.tableExists(f"hms.{db}.plain")
