"""Column names that are not lower case (``Id``, ``Dt``), which the metastore keeps in lower case
and Spark's built-in Hive catalog keeps, as written, in the table's properties: through hms as
through the built-in, under ``spark.sql.caseSensitive`` either way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from remote import Remote

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import SPARK_NUM_ROWS

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

DDL = "(Id INT, Val STRING) PARTITIONED BY (Dt STRING, HR INT) STORED AS {fmt}"
NAMES = ["Id", "Val", "Dt", "HR"]


@pytest.fixture
def case_sensitive(spark: Any) -> Iterator[Callable[[bool], None]]:
    """Sets ``spark.sql.caseSensitive`` for the test; the session's value is restored after
    it (the SparkSession is the whole test session's)."""
    before = spark.conf.get("spark.sql.caseSensitive")

    def set_to(value: bool) -> None:
        spark.conf.set("spark.sql.caseSensitive", str(value).lower())

    yield set_to
    spark.conf.set("spark.sql.caseSensitive", before)


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _names(spark: Any, table: str) -> list[str]:
    return [field.name for field in spark.table(table).schema]


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def _directories(client: MetastoreClient, db: str, table: str) -> list[str]:
    """Where each partition of the table is, relative to the table's location."""
    root = urlparse(client.get_table(db, table).location or "").path.rstrip("/")
    return sorted(urlparse(p.location or "").path[len(root) + 1:]
                  for p in client.list_partitions(db, table))


@pytest.mark.parametrize("fmt", ["PARQUET", "ORC", "TEXTFILE"])
def test_builtin_tables_read_with_their_case(spark: Any, db: str, client: MetastoreClient,
                                             fmt: str,
                                             case_sensitive: Callable[[bool], None]) -> None:
    """A table the built-in created and wrote, read through hms: the same schema (Id, not id),
    rows (the files' columns are Id and Val), SELECT of mixed-case names, partition filters,
    joins on partition columns, and SHOW PARTITIONS (Dt=x/HR=5), under either setting; ANALYZE
    of a partition."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t {DDL.format(fmt=fmt)}")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (Dt='x', HR=5) SELECT 4, 'd'")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (Dt='y', HR=6) SELECT 7, 'e'")
    queries = [
        "SELECT * FROM {t}",
        "SELECT Id, Val, Dt, HR FROM {t} WHERE Dt = 'x' AND HR = 5",
        "SELECT t.Id, t.HR FROM {t} t JOIN (SELECT 'y' AS d) s ON t.Dt = s.d",
        "SHOW PARTITIONS {t}",
        "SHOW PARTITIONS {t} PARTITION (Dt='y')",
    ]
    for sensitive in (True, False):
        case_sensitive(sensitive)
        for query in queries:
            ours = _rows(spark, query.format(t=f"hms.{db}.t"))
            assert ours == _rows(spark, query.format(t=f"spark_catalog.{db}.t")), \
                (sensitive, query)
        assert _names(spark, f"hms.{db}.t") == _names(spark, f"spark_catalog.{db}.t") == NAMES
        assert _rows(spark, f"SELECT * FROM hms.{db}.t") == [(4, "d", "x", 5), (7, "e", "y", 6)]
        assert _rows(spark, f"SHOW PARTITIONS hms.{db}.t") == [("Dt=x/HR=5",), ("Dt=y/HR=6",)]
    # ANALYZE counts a partition's rows with a query naming its columns as Spark sees them.
    case_sensitive(True)
    spark.sql(f"ANALYZE TABLE hms.{db}.t PARTITION (Dt='y', HR=6) COMPUTE STATISTICS")
    assert client.get_partition(db, "t", ["y", "6"]).parameters[SPARK_NUM_ROWS] == "1"


@pytest.mark.parametrize("sensitive", [True, False])
@pytest.mark.parametrize("fmt", ["PARQUET", "ORC", "TEXTFILE"])
def test_writes_name_partitions_as_the_builtin(spark: Any, db: str, client: MetastoreClient,
                                               fmt: str, sensitive: bool,
                                               case_sensitive: Callable[[bool], None]) -> None:
    """The same statements into two tables the built-in created, through hms into one and the
    built-in into the other: the same rows through either catalog, the same SHOW PARTITIONS,
    and each partition in the directory the built-in puts it in (Dt=y/HR=6 where it writes
    Parquet and ORC itself and adds partitions, dt=y/hr=6 where Hive's SerDe writes)."""
    case_sensitive(sensitive)
    _write_both(spark, db, client, fmt, hive_named=fmt == "TEXTFILE")


@pytest.mark.parametrize(("fmt", "setting"), [
    ("PARQUET", "spark.sql.hive.convertMetastoreParquet"),
    ("ORC", "spark.sql.hive.convertMetastoreOrc"),
    ("PARQUET", "spark.sql.hive.convertInsertingPartitionedTable")])
def test_writes_name_partitions_as_the_builtin_writing_through_serdes(
        spark: Any, db: str, client: MetastoreClient, fmt: str, setting: str) -> None:
    """With one of the settings that make the built-in write Parquet and ORC tables itself
    off, it writes them through their Hive SerDe, and Hive names new directories dt=y/hr=6:
    so do hms's writes then (ADD PARTITION still names them Dt=added/HR=9)."""
    spark.conf.set(setting, "false")
    try:
        _write_both(spark, db, client, fmt, hive_named=True)
    finally:
        spark.conf.unset(setting)


def _write_both(spark: Any, db: str, client: MetastoreClient, fmt: str,
                hive_named: bool) -> None:
    for table in ("ours", "theirs"):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{table} {DDL.format(fmt=fmt)}")
    statements = [
        "INSERT INTO {t} PARTITION (Dt='y', HR=6) SELECT 5, 'e'",
        "INSERT INTO {t} PARTITION (Dt='y', HR) SELECT 6, 'f', 7",
        "INSERT INTO {t} PARTITION (Dt, HR) SELECT 7, 'g', 'z/1', 8",
        "INSERT INTO {t} (Id, Val, Dt, HR) VALUES (8, 'h', 'y', 6)",
        "ALTER TABLE {t} ADD PARTITION (Dt='added', HR=9)",
        "INSERT OVERWRITE {t} PARTITION (Dt='o', HR=10) SELECT 9, 'i'",
    ]
    for statement in statements:
        spark.sql(statement.format(t=f"hms.{db}.ours"))
        spark.sql(statement.format(t=f"spark_catalog.{db}.theirs"))
    theirs = _rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs")
    assert len(theirs) == 5
    for catalog in ("hms", "spark_catalog"):
        assert _rows(spark, f"SELECT * FROM {catalog}.{db}.ours") == theirs, catalog
        assert _rows(spark, f"SELECT Id, Dt FROM {catalog}.{db}.ours WHERE HR = 6") == \
            [(5, "y"), (8, "y")], catalog
        assert _rows(spark, f"SHOW PARTITIONS {catalog}.{db}.ours") == \
            _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.theirs"), catalog
    assert _directories(client, db, "ours") == _directories(client, db, "theirs")
    added = "Dt=added/HR=9"
    assert _directories(client, db, "ours") == (
        [added, "Dt=o/HR=10", "Dt=y/HR=6", "Dt=y/HR=7", "Dt=z%2F1/HR=8"] if not hive_named
        else [added, "dt=o/hr=10", "dt=y/hr=6", "dt=y/hr=7", "dt=z%2F1/hr=8"])


@pytest.mark.parametrize("remote", ["s3a"], indirect=True)
def test_s3_writes_name_partitions_as_the_builtin(spark: Any, db: str, client: MetastoreClient,
                                                  remote: Remote,
                                                  case_sensitive: Callable[[bool], None]) -> None:
    """On S3, where hms's writes put each file at its final name: new partitions in the
    built-in's directories (Dt=y/HR=6), appends into the built-in's own partition (Dt=x/HR=5)
    and an overwrite of it read the same through both catalogs."""
    case_sensitive(True)
    for table in ("ours", "theirs"):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{table} {DDL.format(fmt='PARQUET')} "
                  f"LOCATION '{remote.location(table)}'")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{table} PARTITION (Dt='x', HR=5) "
                  "SELECT 4, 'd'")
    statements = [
        "INSERT INTO {t} PARTITION (Dt='y', HR=6) SELECT 5, 'e'",
        "INSERT INTO {t} PARTITION (Dt, HR) VALUES (6, 'f', 'x', 5), (7, 'g', 'z', 7)",
    ]
    for statement in [*statements, "INSERT OVERWRITE {t} PARTITION (Dt='x', HR=5) SELECT 8, 'h'"]:
        spark.sql(statement.format(t=f"hms.{db}.ours"))
        spark.sql(statement.format(t=f"spark_catalog.{db}.theirs"))
        theirs = _rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs")
        spark.sql(f"REFRESH TABLE spark_catalog.{db}.ours")  # the built-in keeps listings
        for catalog in ("hms", "spark_catalog"):
            assert _rows(spark, f"SELECT * FROM {catalog}.{db}.ours") == theirs, \
                (catalog, statement)
        if statement in statements:
            assert _directories(client, db, "ours") == _directories(client, db, "theirs")
    assert _directories(client, db, "ours")[1:] == ["Dt=y/HR=6", "Dt=z/HR=7"]


@pytest.mark.parametrize("fmt", ["PARQUET", "TEXTFILE", "AVRO"])
def test_tables_hms_creates_keep_their_case(spark: Any, db: str, client: MetastoreClient,
                                           fmt: str,
                                           case_sensitive: Callable[[bool], None]) -> None:
    """A table hms creates with mixed-case names keeps them as the built-in keeps those of one
    it creates: each catalog reads the other's table with them, and what either writes into
    either table reads the same through both, under caseSensitive=true. Avro's SerDe matches
    a file's fields by name and case: hms names them as the built-in does (Id, not id), or
    each read the other's values as NULL (harness seed 1137)."""
    case_sensitive(True)
    spark.sql(f"CREATE TABLE hms.{db}.ours {DDL.format(fmt=fmt)}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {DDL.format(fmt=fmt)}")
    for table in ("ours", "theirs"):
        for catalog in ("hms", "spark_catalog"):
            assert _names(spark, f"{catalog}.{db}.{table}") == NAMES, (catalog, table)
        spark.sql(f"INSERT INTO hms.{db}.{table} PARTITION (Dt='h', HR=1) SELECT 1, 'a'")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{table} PARTITION (Dt='b', HR=2) "
                  "SELECT 2, 'b'")
        for catalog in ("hms", "spark_catalog"):
            assert _rows(spark, f"SELECT Id, Val, Dt, HR FROM {catalog}.{db}.{table}") == [
                (1, "a", "h", 1), (2, "b", "b", 2)], (catalog, table)
    assert _directories(client, db, "ours") == _directories(client, db, "theirs")
    # Spark's bookkeeping is not among the properties shown, as the built-in shows none.
    assert not [key for key, _ in _rows(spark, f"SHOW TBLPROPERTIES hms.{db}.ours")
                if key.startswith("spark.sql.")]
    # A lower-case table keeps the properties it always had: none of Spark's.
    spark.sql(f"CREATE TABLE hms.{db}.lower (id INT) PARTITIONED BY (dt STRING)")
    assert not [key for key in client.get_table(db, "lower").parameters
                if key.startswith("spark.sql.")]


def test_ctas_and_added_columns_keep_their_case(spark: Any, db: str,
                                                case_sensitive: Callable[[bool], None]) -> None:
    """CREATE TABLE ... AS SELECT through hms names its columns as the query does; ADD COLUMNS
    through hms keeps a table's case (the built-in would otherwise fall back to the
    metastore's lower-case names, the schema in its properties no longer agreeing)."""
    case_sensitive(True)
    query = "SELECT 1 AS Id, 'v' AS Val, 'x' AS Dt"
    spark.sql(f"CREATE TABLE hms.{db}.ours PARTITIONED BY (Dt) STORED AS PARQUET AS {query}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs PARTITIONED BY (Dt) STORED AS PARQUET "
              f"AS {query}")
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.ours", f"hms.{db}.theirs"):
        assert _names(spark, table) == _names(spark, f"spark_catalog.{db}.theirs") == \
            ["Id", "Val", "Dt"], table
        assert _rows(spark, f"SELECT Id, Val, Dt FROM {table}") == [(1, "v", "x")], table
    spark.sql(f"ALTER TABLE hms.{db}.theirs ADD COLUMNS (NewCol INT COMMENT 'new')")
    spark.sql(f"ALTER TABLE spark_catalog.{db}.ours ADD COLUMNS (NewCol INT COMMENT 'new')")
    for table in ("ours", "theirs"):
        spark.sql(f"INSERT INTO hms.{db}.{table} PARTITION (Dt='y') SELECT 2, 'w', 3")
        for catalog in ("hms", "spark_catalog"):
            name = f"{catalog}.{db}.{table}"
            assert _names(spark, name) == ["Id", "Val", "NewCol", "Dt"], name
            assert _rows(spark, f"SELECT Id, NewCol, Dt FROM {name}") == [
                (1, None, "x"), (2, 3, "y")], name
    assert _rows(spark, f"DESCRIBE hms.{db}.theirs") == \
        _rows(spark, f"DESCRIBE spark_catalog.{db}.theirs")


def test_describe_partition_and_show_create(spark: Any, db: str) -> None:
    """DESCRIBE ... PARTITION and SHOW CREATE TABLE ... AS SERDE name the columns as the
    built-in does."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t {DDL.format(fmt='ORC')}")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (Dt='x', HR=5) SELECT 4, 'd'")
    describe = "DESCRIBE {t} PARTITION (Dt='x', HR=5)"
    assert _rows(spark, describe.format(t=f"hms.{db}.t")) == \
        _rows(spark, describe.format(t=f"spark_catalog.{db}.t"))
    extended = {catalog: {r[0]: r[1] for r in spark.sql(
        f"DESCRIBE EXTENDED {catalog}.{db}.t PARTITION (Dt='x', HR=5)").collect()}
        for catalog in ("hms", "spark_catalog")}
    assert extended["hms"]["Partition Values"] == \
        extended["spark_catalog"]["Partition Values"] == "[Dt=x, HR=5]"
    ours = spark.sql(f"SHOW CREATE TABLE hms.{db}.t AS SERDE").collect()[0][0]
    theirs = spark.sql(f"SHOW CREATE TABLE spark_catalog.{db}.t AS SERDE").collect()[0][0]
    assert ours.split("\n", 1)[1] == theirs.split("\n", 1)[1]
    assert "  Id INT,\n  Val STRING)\nPARTITIONED BY (Dt STRING, HR INT)\n" in ours


def test_a_schema_the_metastore_contradicts_is_not_used(
        spark: Any, db: str, client: MetastoreClient,
        case_sensitive: Callable[[bool], None]) -> None:
    """Where the metastore's columns no longer agree with the schema Spark stored (Hive changed
    a type), both catalogs read the table with the metastore's lower-case names."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t {DDL.format(fmt='PARQUET')}")
    table = client.get_table(db, "t")
    from dataclasses import replace

    client.alter_table(replace(table, columns=(replace(table.columns[0], type="bigint"),
                                               *table.columns[1:])))
    case_sensitive(True)
    assert _names(spark, f"hms.{db}.t") == _names(spark, f"spark_catalog.{db}.t") == \
        ["id", "val", "dt", "hr"]


def test_a_schema_the_serde_contradicts_is_not_used(
        spark: Any, db: str, client: MetastoreClient,
        case_sensitive: Callable[[bool], None]) -> None:
    """An OpenCSV table Spark created with a BINARY column: its SerDe reads every column as a
    string, which contradicts the schema Spark stored, so the built-in names its columns in
    lower case, and hms does everywhere it names them: reads, SHOW PARTITIONS, the rows a
    dynamic insert sorts (under caseSensitive=true a name in the stored case is not found),
    ANALYZE of a partition."""
    for table in ("ours", "theirs"):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{table} (a BINARY) PARTITIONED BY "
                  "(`Part Key` TINYINT, Dt STRING) ROW FORMAT SERDE "
                  "'org.apache.hadoop.hive.serde2.OpenCSVSerde' STORED AS TEXTFILE")
    case_sensitive(True)
    for catalog, table in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"INSERT INTO {catalog}.{db}.{table} PARTITION (`part key`, dt) "
                  "VALUES (X'41', -23, 'x')")
    for table in ("ours", "theirs"):
        for catalog in ("hms", "spark_catalog"):
            assert _names(spark, f"{catalog}.{db}.{table}") == ["a", "part key", "dt"]
            assert _rows(spark, f"SELECT * FROM {catalog}.{db}.{table}") == [("A", -23, "x")]
            assert _rows(spark, f"SHOW PARTITIONS {catalog}.{db}.{table}") == [
                ("part key=-23/dt=x",)], (catalog, table)
    spark.sql(f"ANALYZE TABLE hms.{db}.ours PARTITION (`part key` = -23, dt = 'x') "
              "COMPUTE STATISTICS")
    assert client.get_partition(db, "ours", ["-23", "x"]).parameters[SPARK_NUM_ROWS] == "1"


def test_names_differing_only_in_case_are_refused(spark: Any, db: str, client: MetastoreClient,
                                                  case_sensitive: Callable[[bool], None]) -> None:
    """Under caseSensitive=true, columns Id and id cannot both be kept by the metastore: the
    CREATE is refused naming the table and both columns, and no table is made."""
    case_sensitive(True)
    with pytest.raises(Exception) as refused:
        spark.sql(f"CREATE TABLE hms.{db}.t (Id INT, id STRING) STORED AS PARQUET")
    assert _first_line(refused.value).endswith(
        f"hms table {db}.t cannot have both columns 'Id' and 'id': the metastore keeps column "
        "names in lower case")
    assert not client.table_exists(db, "t")


@pytest.mark.parametrize("sensitive", [True, False])
def test_partial_drop_partition(spark: Any, db: str, sensitive: bool,
                                case_sensitive: Callable[[bool], None]) -> None:
    """``DROP PARTITION (Dt='x')`` of a (Dt, HR) table names the partitions it drops in
    Spark's case: under caseSensitive=true, hms named them dt and Spark refused its own
    rewrite with ``PARTITIONS_NOT_FOUND`` (harness seed 5096)."""
    case_sensitive(sensitive)
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"CREATE TABLE {table} {DDL.format(fmt='PARQUET')}")
        spark.sql(f"INSERT INTO {table} PARTITION (Dt, HR) VALUES (1, 'a', 'x', 1), "
                  "(2, 'b', 'x', 2), (3, 'c', 'y', 1)")
        spark.sql(f"ALTER TABLE {table} DROP IF EXISTS PARTITION (Dt = 'x')")
        spark.sql(f"ALTER TABLE {table} DROP IF EXISTS PARTITION (HR = 9)")
    assert _rows(spark, f"SHOW PARTITIONS hms.{db}.ours") == \
        _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.theirs") == [("Dt=y/HR=1",)]
