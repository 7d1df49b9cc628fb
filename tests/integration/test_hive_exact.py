"""Statements whose result through hms must be the built-in Hive catalog's, on one metastore:
column placement in CTAS, the default partition, DDL the catalog must honour or refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from ports import closed_port
from spark_versions import needs_spark

from hmscatalog.errors import MetastoreUnavailable
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
@pytest.mark.cases(1)
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


@pytest.mark.thorough
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
@pytest.mark.cases(1)
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


@pytest.mark.thorough
def test_set_location_and_relative_locations(spark: Any, db: str, client: MetastoreClient,
                                             tmp_path: Path) -> None:
    """``ALTER TABLE ... SET LOCATION`` moves the table's storage descriptor (before, it became
    a table property and the next INSERT still wrote to the old place); a relative LOCATION
    lies under the database's location, as in the built-in catalog."""
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 1)")
    old = _location(client, db, "t")
    new = tmp_path / "moved"
    new.mkdir()
    spark.sql(f"ALTER TABLE hms.{db}.t SET LOCATION '{new}'")
    table = client.get_table(db, "t")
    assert table.location == f"file:{new}"
    assert "location" not in table.parameters
    described = dict(spark.sql(f"DESCRIBE TABLE EXTENDED hms.{db}.t").select(
        "col_name", "data_type").collect())
    assert described["Location"] == f"file:{new}"
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (2, 2)")
    assert (new / "p=2").is_dir() and not (old / "p=2").exists()
    assert (old / "p=1").is_dir()  # as in Hive: partitions keep their own locations
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == [(1, 1), (2, 2)]

    spark.sql(f"CREATE TABLE hms.{db}.ours (a INT) STORED AS PARQUET LOCATION 'rel/ours'")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs (a INT) STORED AS PARQUET "
              "LOCATION 'rel/theirs'")
    database = client.get_database(db).location
    assert client.get_table(db, "ours").location == f"{database}/rel/ours"
    assert client.get_table(db, "theirs").location == f"{database}/rel/theirs"


def test_row_format_delimited_alone_makes_a_text_table(spark: Any, db: str,
                                                        client: MetastoreClient) -> None:
    """Without STORED AS, ROW FORMAT DELIMITED means Hive's default format, text (before, hms
    made a Parquet table with a field delimiter); what the built-in writes there, hms reads."""
    ddl = "(a INT, b STRING) ROW FORMAT DELIMITED FIELDS TERMINATED BY ','"
    spark.sql(f"CREATE TABLE hms.{db}.ours {ddl}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {ddl}")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    assert ours.storage.input_format == theirs.storage.input_format == \
        "org.apache.hadoop.mapred.TextInputFormat"
    assert ours.storage.serde == theirs.storage.serde
    assert ours.storage.serde_parameters["field.delim"] == ","
    spark.sql(f"INSERT INTO spark_catalog.{db}.ours VALUES (1, 'x')")  # Hive's text writer
    assert _rows(spark, f"SELECT * FROM spark_catalog.{db}.ours") == [(1, "x")]
    assert _rows(spark, f"SELECT * FROM hms.{db}.ours") == [(1, "x")]


def test_writes_into_a_templated_projection_table_are_refused(spark: Any, db: str,
                                                              client: MetastoreClient,
                                                              tmp_path: Path) -> None:
    """Reads of such a table look only at the template's paths, so rows written to
    ``day=.../`` directories would be invisible: the write is refused, nothing changes."""
    root = tmp_path / "events"
    root.mkdir()
    spark.conf.set("spark.sql.variable.substitute", "false")
    try:
        spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (day STRING) "
                  f"STORED AS PARQUET LOCATION 'file:{root}' TBLPROPERTIES ("
                  "'projection.enabled'='true', 'projection.day.type'='enum', "
                  "'projection.day.values'='mon,tue', "
                  f"'storage.location.template'='file:{root}/by-day/${{day}}')")
    finally:
        spark.conf.unset("spark.sql.variable.substitute")
    for write in (f"INSERT INTO hms.{db}.t VALUES (1, 'mon')",
                  f"INSERT INTO hms.{db}.t PARTITION (day='tue') VALUES (2)"):
        with pytest.raises(Exception) as refused:
            spark.sql(write)
        assert _first_line(refused.value).startswith(
            f"hms cannot write table {db}.t: its partitions are read from "
            f"storage.location.template (file:{root}/by-day/${{day}})"), write
    assert [p for p in root.rglob("*") if p.is_file()] == []
    assert client.list_partition_names(db, "t") == []


@pytest.mark.parametrize("insert", [
    "WITH s AS (SELECT 1 AS a, 'x' AS p) INSERT INTO {t} SELECT * FROM s",
    "FROM (SELECT 1 AS a, 'x' AS p) s INSERT INTO {t} SELECT a, p",
    "FROM (SELECT 1 AS a, 'x' AS p) s INSERT INTO {t} PARTITION (p='y') SELECT a "
    "INSERT INTO {t} SELECT a, p",
])
@pytest.mark.cases(1)
def test_every_insert_form_gets_hives_rules(spark: Any, db: str, insert: str) -> None:
    """CTEs, Hive's FROM-first INSERT and multi-insert are checked like a plain INSERT: in
    strict mode, and with dynamic partitions switched off; nothing is written."""
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    statement = insert.format(t=f"hms.{db}.t")
    spark.sql("SET hive.exec.dynamic.partition.mode=strict")
    with pytest.raises(Exception) as strict:
        spark.sql(statement)
    assert _first_line(strict.value).startswith(
        "Dynamic partition strict mode requires at least one static partition column")
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    spark.sql("SET hive.exec.dynamic.partition=false")
    try:
        with pytest.raises(Exception) as disabled:
            spark.sql(statement)
        assert _first_line(disabled.value).startswith("Dynamic partition is disabled")
    finally:
        spark.sql("RESET hive.exec.dynamic.partition")
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == []
    spark.sql(statement)  # nonstrict, enabled: the statement runs
    assert (1, "x") in _rows(spark, f"SELECT * FROM hms.{db}.t")


def test_errors_have_one_readable_first_line(spark: Any, db: str, client: MetastoreClient,
                                             tmp_path: Path) -> None:
    """What a user of ``spark.sql`` sees first names the culprit (before: "An error occurred
    while calling o37.sql." and a Python traceback of 7-11 KB)."""
    from hmscatalog.spark import attach

    with closed_port() as port:
        uri = f"thrift://127.0.0.1:{port}"
        with pytest.raises(MetastoreUnavailable) as at_attach:
            attach(spark, name="hms_unreachable", uri=uri, timeout_s=2)
        # A metastore that stops after attach: the first query names it.
        attach(spark, name="hms_unreachable", uri=uri, timeout_s=2, check=False)
        with pytest.raises(Exception) as unreachable:
            spark.sql(f"SELECT * FROM hms_unreachable.{db}.t")
    assert str(at_attach.value).startswith(
        f"catalog hms_unreachable: is a metastore running at {uri}? metastore {uri} "
        "unavailable for get_all_databases after ")
    assert _first_line(unreachable.value).startswith(
        f"[HMS_METASTORE_UNAVAILABLE] metastore {uri} unavailable")

    root = tmp_path / "found"
    for key in ("a", "b", "c"):
        (root / f"k={key}").mkdir(parents=True)
    spark.sql(f"CREATE TABLE hms.{db}.d (v INT) PARTITIONED BY (k STRING) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES ('hmscatalog.discovery.enabled'='true', "
              "'hmscatalog.discovery.max-partitions'='2')")
    with pytest.raises(Exception) as too_many:
        spark.sql(f"SELECT * FROM hms.{db}.d").collect()
    assert _first_line(too_many.value) == (
        f"[HMS_TOO_MANY_PARTITIONS] discovery of table {db}.d found 3 matching partitions, more "
        "than 2; add a filter on the partition columns ['k'] or raise "
        "hmscatalog.discovery.max-partitions")

    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    with pytest.raises(Exception) as nul:
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p='x\\0y') VALUES (1)")
    assert _first_line(nul.value) == (
        f"[HMS_INVALID_PARTITION_VALUE] partition value 'x\\x00y' of column p of table {db}.t "
        "contains U+0000 (NUL), which a partition directory name cannot hold")
    with pytest.raises(Exception) as nul_added:
        spark.sql(f"ALTER TABLE hms.{db}.t ADD PARTITION (p='x\\0y')")
    assert _first_line(nul_added.value) == _first_line(nul.value)
    with pytest.raises(Exception) as long_value:
        spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (p='{'v' * 300}') VALUES (1)")
    assert _first_line(long_value.value).endswith(
        "makes a directory name of 302 bytes, over the 255 bytes file systems allow")
    # The same values from the query (dynamic partitions), checked in the tasks before any
    # directory is made, and reported by the writer rather than as "Mkdirs failed".
    with pytest.raises(Exception) as dynamic_nul:
        spark.sql(f"INSERT INTO hms.{db}.t SELECT 1, concat('x', char(0), 'y')")
    assert _first_line(dynamic_nul.value) == (
        f"[HMS_INVALID_PARTITION_VALUE] partition value 'x\\x00y' of column p of table {db}.t "
        "contains U+0000 (NUL), which a partition directory name cannot hold")
    with pytest.raises(Exception) as dynamic_long:
        spark.sql(f"INSERT INTO hms.{db}.t SELECT 1, repeat('/', 85)")  # 255 escaped + "p="
    assert _first_line(dynamic_long.value) == (
        f"[HMS_INVALID_PARTITION_VALUE] partition value '{'/' * 60}' of column p of table "
        f"{db}.t makes a directory name over the 255 bytes file systems allow")
    assert client.list_partition_names(db, "t") == []
    assert [p for p in _location(client, db, "t").rglob("*") if p.is_file()] == []
    spark.sql(f"INSERT INTO hms.{db}.t SELECT 1, repeat('/', 84)")  # exactly 255 bytes
    assert client.list_partition_names(db, "t") == ["p=" + "%2F" * 84]
    with pytest.raises(Exception) as drop_column:
        spark.sql(f"ALTER TABLE hms.{db}.t DROP COLUMN a")
    assert _first_line(drop_column.value) == (
        f"hms cannot apply DeleteColumn to table {db}.t; ALTER TABLE on hms tables can SET/UNSET "
        "TBLPROPERTIES, SET LOCATION and ADD COLUMNS")


@needs_spark((4, 2), "Spark parses CREATE TABLE ... LIKE into a catalog plugin from 4.2")
def test_create_table_like(spark: Any, db: str, client: MetastoreClient,
                           tmp_path: Path) -> None:
    """``CREATE TABLE ... LIKE`` copies columns, partitioning and storage, and takes its own
    LOCATION, format and properties, as the built-in catalog does."""
    spark.sql(f"CREATE TABLE hms.{db}.src (a INT, b STRING) PARTITIONED BY (p INT) "
              "STORED AS ORC TBLPROPERTIES ('team'='x')")
    spark.sql(f"CREATE TABLE hms.{db}.ours LIKE hms.{db}.src")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs LIKE spark_catalog.{db}.src")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    for table in (ours, theirs):
        assert [(c.name, c.type) for c in table.columns] == [("a", "int"), ("b", "string")]
        assert [(c.name, c.type) for c in table.partition_keys] == [("p", "int")]
        assert table.storage.input_format == "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
        assert "team" not in table.parameters
        assert table.table_type == "MANAGED_TABLE"
    spark.sql(f"INSERT INTO hms.{db}.ours VALUES (1, 'x', 7)")
    assert _rows(spark, f"SELECT * FROM spark_catalog.{db}.ours") == [(1, "x", 7)]

    spark.sql(f"CREATE TABLE spark_catalog.{db}.builtin (a INT) STORED AS PARQUET")
    elsewhere = tmp_path / "like"
    spark.sql(f"CREATE TABLE hms.{db}.from_builtin LIKE spark_catalog.{db}.builtin "
              f"LOCATION '{elsewhere}' TBLPROPERTIES ('k'='v')")
    copied = client.get_table(db, "from_builtin")
    assert copied.format is not None and copied.format.name == "PARQUET"
    assert copied.location == f"file:{elsewhere}" and copied.table_type == "EXTERNAL_TABLE"
    assert copied.parameters["k"] == "v"


def test_show_partitions_prints_the_default_partition_as_the_builtin_does(
        spark: Any, db: str) -> None:
    """NULL partitions show as ``__HIVE_DEFAULT_PARTITION__`` for every column type (before:
    ``s=null``, the same line as a partition whose value is the string 'null')."""
    ddl = "(a INT) PARTITIONED BY (s STRING, i INT, d DATE) STORED AS PARQUET"
    spark.sql(f"CREATE TABLE hms.{db}.ours {ddl}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {ddl}")
    rows = ("(1, NULL, NULL, NULL), (2, '', 7, DATE'2024-01-02'), (3, 'null', NULL, NULL), "
            "(4, 'a/b', 8, NULL)")
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"INSERT INTO {table} VALUES {rows}")
    for clause in ("", " PARTITION (s='null')", " PARTITION (i=7)", " PARTITION (i='08')",
                   " PARTITION (s='a/b', i=8)"):
        ours = _rows(spark, f"SHOW PARTITIONS hms.{db}.ours{clause}")
        assert ours == _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.theirs{clause}"), clause
        assert ours, clause
    assert sorted(_rows(spark, f"SHOW PARTITIONS hms.{db}.ours")) == [
        ("s=__HIVE_DEFAULT_PARTITION__/i=7/d=2024-01-02",),
        ("s=__HIVE_DEFAULT_PARTITION__/i=__HIVE_DEFAULT_PARTITION__/d=__HIVE_DEFAULT_PARTITION__",),
        ("s=a%2Fb/i=8/d=__HIVE_DEFAULT_PARTITION__",),
        ("s=null/i=__HIVE_DEFAULT_PARTITION__/d=__HIVE_DEFAULT_PARTITION__",),
    ]


@pytest.mark.parametrize(("properties", "first_line"), [
    ("'hmscatalog.discovery.enabled'='ture'",
     "[HMS_INVALID_SETTING] Table {db}.t: property 'hmscatalog.discovery.enabled' must be true "
     "or false, not 'ture'"),
    ("'hmscatalog.discovery.enable'='true'",
     "[HMS_INVALID_SETTING] Table {db}.t: unknown property 'hmscatalog.discovery.enable'; did "
     "you mean 'hmscatalog.discovery.enabled'?"),
    ("'hmscatalog.discovery.max-partitions'='-5'",
     "[HMS_INVALID_SETTING] Table {db}.t: property 'hmscatalog.discovery.max-partitions' must "
     "be a whole number of at least 1, not '-5'"),
    ("'hmscatalog.discovery.max-list-calls'='abc'",
     "[HMS_INVALID_SETTING] Table {db}.t: property 'hmscatalog.discovery.max-list-calls' must "
     "be a whole number of at least 1, not 'abc'"),
    ("'projection.enable'='true', 'projection.p.type'='integer', 'projection.p.range'='1,3'",
     "[HMS_INVALID_PROJECTION] Table {db}.t: Unknown partition projection property "
     "'projection.enable'; did you mean 'projection.enabled'?"),
], ids=["boolean", "unknown-key", "negative", "not-a-number", "projection-typo"])
@pytest.mark.cases(2)
def test_misspelt_settings_are_refused_at_create_and_alter(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path, properties: str,
        first_line: str) -> None:
    """A typo never changes results silently: CREATE makes no table, ALTER changes nothing."""
    ddl = (f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET "
           f"LOCATION 'file:{tmp_path}' TBLPROPERTIES ({{}})")
    with pytest.raises(Exception) as refused:
        spark.sql(ddl.format(properties))
    assert _first_line(refused.value) == first_line.format(db=db)
    assert client.list_tables(db) == []
    spark.sql(ddl.format("'team'='x'"))
    before = client.get_table(db, "t").parameters
    with pytest.raises(Exception) as altered:
        spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ({properties})")
    assert _first_line(altered.value) == first_line.format(db=db)
    after = client.get_table(db, "t").parameters
    assert {k: v for k, v in after.items() if k != "transient_lastDdlTime"} == \
        {k: v for k, v in before.items() if k != "transient_lastDdlTime"}


def test_a_bad_setting_written_by_another_tool_fails_the_query(spark: Any, db: str,
                                                                client: MetastoreClient,
                                                                tmp_path: Path) -> None:
    """A table whose properties were set past hms (here through the client) fails its query
    naming the property, rather than reading as a table without discovery (0 rows)."""
    (tmp_path / "p=1").mkdir()
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET "
              f"LOCATION 'file:{tmp_path}' TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    client.alter_table_parameters(db, "t", {"hmscatalog.discovery.enabled": "ture"})
    with pytest.raises(Exception) as refused:
        spark.sql(f"SELECT * FROM hms.{db}.t").collect()
    assert _first_line(refused.value) == (
        f"[HMS_INVALID_SETTING] Table {db}.t: property 'hmscatalog.discovery.enabled' must be "
        "true or false, not 'ture'")
