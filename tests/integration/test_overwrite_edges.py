"""INSERT OVERWRITE edges through hms, each checked against Spark's built-in Hive catalog on the
same metastore (and, where it says so, against the rows and partitions Hive gives):

* a fully static PARTITION clause overwritten by no rows under
  ``spark.sql.sources.partitionOverwriteMode=dynamic``: the partition is replaced (emptied), or
  registered empty when it did not exist, on local disk and on S3, Parquet and TEXTFILE; the
  same clause in an ``INSERT INTO`` of no rows makes the empty partition too;
* static overwrites of partition columns of every type Hive partitions by (TIMESTAMP and
  BOOLEAN ones were refused with ``Table does not support overwrite by expression``);
* ``INSERT OVERWRITE ... PARTITION (...) IF NOT EXISTS``, which Spark refuses for other
  catalogs: nothing changes when the partition exists, it is written when it does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]

MODE = "spark.sql.sources.partitionOverwriteMode"


def _rows(spark: Any, table: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()), key=repr)


def _partitions(spark: Any, table: str) -> list[str]:
    return sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {table}").collect())


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


@pytest.fixture(params=["static", "dynamic"])
def mode(spark: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    """``spark.sql.sources.partitionOverwriteMode`` for the test, reset afterwards."""
    spark.sql(f"SET {MODE}={request.param}")
    yield request.param
    spark.sql(f"RESET {MODE}")


@pytest.fixture
def dynamic_mode(spark: Any) -> Iterator[None]:
    spark.sql(f"SET {MODE}=dynamic")
    yield
    spark.sql(f"RESET {MODE}")


def _both(spark: Any, db: str, statement: str) -> None:
    """Run ``statement`` on hms table ``ours`` and built-in table ``theirs``; both then hold
    the same rows and partitions."""
    ours, theirs = f"hms.{db}.ours", f"spark_catalog.{db}.theirs"
    spark.sql(statement.format(t=ours))
    spark.sql(statement.format(t=theirs))
    assert _rows(spark, ours) == _rows(spark, theirs), statement
    assert _partitions(spark, ours) == _partitions(spark, theirs), statement


def _pq_tables(spark: Any, db: str, request: pytest.FixtureRequest, stored: str,
               storage: str) -> None:
    """Tables ``ours`` (hms) and ``theirs`` (built-in) ``(id INT) PARTITIONED BY (p STRING,
    q INT)`` stored as ``stored`` on ``storage`` (local or s3)."""
    locations = {"ours": "", "theirs": ""}
    if storage == "s3":
        from conftest import HIVE_VERSION
        from remote import Remote, unique_root

        if HIVE_VERSION != "2.3":
            # Registering the new empty partition has the metastore make its directory: Hive
            # 3.1's, on Java 17, fails there (NoClassDefFoundError: com.amazonaws.util.Base64),
            # a limit of that release's S3A, not of the writes these tests check.
            pytest.skip(f"the Hive {HIVE_VERSION} metastore cannot make directories on S3 here")

        request.getfixturevalue("s3a_jars")
        bucket = request.getfixturevalue("s3a_bucket")
        on_s3 = Remote("s3a", unique_root("o", f"s3a://{bucket}"), spark,
                       request.getfixturevalue("moto_s3"))
        locations = {name: f" LOCATION '{on_s3.location(name)}'" for name in locations}
    spark.sql(f"CREATE TABLE hms.{db}.ours (id INT) PARTITIONED BY (p STRING, q INT) "
              f"STORED AS {stored}{locations['ours']}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs (id INT) PARTITIONED BY (p STRING, "
              f"q INT) STORED AS {stored}{locations['theirs']}")


# -- 1. an empty overwrite of a fully static clause in dynamic mode ----------------------------

@pytest.mark.builtin
@pytest.mark.cases(2)
@pytest.mark.parametrize("stored", ["PARQUET", "TEXTFILE"])
@pytest.mark.parametrize("storage", ["local", "s3"])
def test_an_empty_static_overwrite_in_dynamic_mode_replaces_its_partition(
        spark: Any, db: str, client: MetastoreClient, dynamic_mode: None,
        request: pytest.FixtureRequest, stored: str, storage: str) -> None:
    """Under partitionOverwriteMode=dynamic, Spark states a fully static INSERT OVERWRITE to a
    catalog as a dynamic overwrite, which names no partition: with no rows, hms kept (1,a,1),
    and registered no (c, 9). Hive and the built-in empty the one and register the other
    (with an empty directory), as hms does in static mode."""
    _pq_tables(spark, db, request, stored, storage)
    _both(spark, db, "INSERT INTO {t} PARTITION (p, q) VALUES (1,'a',1),(2,'a',2),(3,'b',1)")
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='a', q=1) SELECT 5 WHERE 1 = 0")
    assert _rows(spark, f"hms.{db}.ours") == [(2, "a", 2), (3, "b", 1)]
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='c', q=9) SELECT 5 WHERE 1 = 0")
    assert _partitions(spark, f"hms.{db}.ours") == ["p=a/q=1", "p=a/q=2", "p=b/q=1",
                                                    "p=c/q=9"]
    if storage == "local":  # an empty directory, as the built-in makes
        made = client.get_partition(db, "ours", ["c", "9"]).location or ""
        assert Path(urlparse(made).path).is_dir(), made
    # Rows still replace exactly the partitions they go to.
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='b', q=1) SELECT 7")
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='a', q) SELECT 8, 2")
    assert _rows(spark, f"hms.{db}.ours") == [(7, "b", 1), (8, "a", 2)]


@pytest.mark.builtin
@pytest.mark.cases(2)
@pytest.mark.parametrize("stored", ["PARQUET", "TEXTFILE"])
@pytest.mark.parametrize("storage", ["local", "s3"])
def test_an_empty_static_insert_into_makes_its_partition(
        spark: Any, db: str, client: MetastoreClient, request: pytest.FixtureRequest,
        stored: str, storage: str) -> None:
    """``INSERT INTO ... PARTITION (p='c', q=9) SELECT ... WHERE 1 = 0`` reaches hms as an
    append with no clause: it registered nothing, where Hive and the built-in make the empty
    partition (harness seeds 1134 and 1198). Into an existing partition, nothing changes."""
    _pq_tables(spark, db, request, stored, storage)
    _both(spark, db, "INSERT INTO {t} PARTITION (p, q) VALUES (1,'a',1),(2,'a',2)")
    _both(spark, db, "INSERT INTO {t} PARTITION (p='c', q=9) SELECT 5 WHERE 1 = 0")
    _both(spark, db, "INSERT INTO TABLE {t} PARTITION (p='a', q=1) SELECT 5 WHERE 1 = 0")
    assert _partitions(spark, f"hms.{db}.ours") == ["p=a/q=1", "p=a/q=2", "p=c/q=9"]
    assert _rows(spark, f"hms.{db}.ours") == [(1, "a", 1), (2, "a", 2)]
    if storage == "local":  # an empty directory, as the built-in makes
        made = client.get_partition(db, "ours", ["c", "9"]).location or ""
        assert Path(urlparse(made).path).is_dir(), made
    # Rows then append to it.
    _both(spark, db, "INSERT INTO {t} PARTITION (p='c', q=9) SELECT 6")
    assert _rows(spark, f"hms.{db}.ours") == [(1, "a", 1), (2, "a", 2), (6, "c", 9)]


@pytest.mark.builtin
def test_empty_static_overwrites_of_one_table_in_one_statement(
        spark: Any, db: str, dynamic_mode: None) -> None:
    """Hive's multi-insert with two fully static branches into one table, one of them of no
    rows: each branch's clause reaches its own write."""
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"CREATE TABLE {table} (id INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    _both(spark, db, "INSERT INTO {t} PARTITION (p) VALUES (1, 'a'), (2, 'b')")
    _both(spark, db, "FROM (SELECT 9 AS id) s "
                     "INSERT OVERWRITE TABLE {t} PARTITION (p='a') SELECT id WHERE id = 0 "
                     "INSERT OVERWRITE TABLE {t} PARTITION (p='n') SELECT id WHERE id = 0")
    assert (_rows(spark, f"hms.{db}.ours"), _partitions(spark, f"hms.{db}.ours")) == \
        ([(2, "b")], ["p=a", "p=b", "p=n"])


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
@pytest.mark.cases(4)
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


# -- 3. IF NOT EXISTS --------------------------------------------------------------------------

def _files(client: MetastoreClient, db: str, table: str) -> dict[str, list[str]]:
    found = {}
    for part in client.list_partitions(db, table):
        root = Path(urlparse(part.location or "").path)
        found["/".join(part.values)] = sorted(
            str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    return found


@pytest.mark.builtin
def test_insert_overwrite_if_not_exists(spark: Any, db: str, client: MetastoreClient,
                                        mode: str) -> None:
    """An existing partition is left as it is (files and all); a missing one is written, and
    registered even when no row comes, as Hive and the built-in do. Spark refused the
    statement for every catalog but its own."""
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"CREATE TABLE {table} (id INT) PARTITIONED BY (p STRING, q INT) "
                  "STORED AS PARQUET")
    _both(spark, db, "INSERT INTO {t} PARTITION (p, q) VALUES (1, 'a', 1), (2, 'b', 1)")
    files = _files(client, db, "ours")
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='a', q=1) IF NOT EXISTS SELECT 10")
    assert _files(client, db, "ours") == files
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='n', q=1) IF NOT EXISTS SELECT 11")
    _both(spark, db, "INSERT OVERWRITE TABLE {t} PARTITION (p='e', q=1) IF NOT EXISTS "
                     "SELECT 12 WHERE 1 = 0")
    assert _rows(spark, f"hms.{db}.ours") == [(1, "a", 1), (11, "n", 1), (2, "b", 1)]
    assert _partitions(spark, f"hms.{db}.ours") == ["p=a/q=1", "p=b/q=1", "p=e/q=1", "p=n/q=1"]
    # After WITH, and in each branch of a multi-insert.
    _both(spark, db, "WITH s AS (SELECT 13 AS id) INSERT OVERWRITE {t} PARTITION (p='b', q=1) "
                     "IF NOT EXISTS SELECT id FROM s")
    _both(spark, db, "FROM (SELECT 14 AS id) s "
                     "INSERT OVERWRITE TABLE {t} PARTITION (p='a', q=1) IF NOT EXISTS SELECT id "
                     "INSERT OVERWRITE TABLE {t} PARTITION (p='m', q=1) IF NOT EXISTS SELECT id")
    assert _rows(spark, f"hms.{db}.ours") == [(1, "a", 1), (11, "n", 1), (14, "m", 1),
                                             (2, "b", 1)]


def test_if_not_exists_with_a_dynamic_column_is_refused(spark: Any, db: str) -> None:
    """A clause that leaves a partition column out leaves it dynamic, which IF NOT EXISTS
    cannot have (Spark's parser refuses it when the clause names the column): refused, naming
    the table and the column, and nothing changes."""
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (id INT) PARTITIONED BY (p STRING, q INT) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 1)")
    with pytest.raises(Exception) as refused:
        spark.sql(f"INSERT OVERWRITE TABLE {table} PARTITION (p='a') IF NOT EXISTS SELECT 2, 2")
    assert _first_line(refused.value) == (
        f"INSERT OVERWRITE `hms`.`{db}`.`t` PARTITION (...) IF NOT EXISTS needs a value for "
        "every partition column; it has none for: q")
    assert _rows(spark, table) == [(1, "a", 1)]
