"""Table settings through ``spark.sql`` on a real metastore: a misspelt key or value is refused
before the metastore changes, or fails the query that would read it, and never reads as if
the setting were off. And ``SHOW PARTITIONS`` answers as the built-in catalog does for the
default (NULL) partition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_versions import needs_spark

from hmscatalog.errors import InvalidSetting
from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def _user_parameters(client: MetastoreClient, db: str, name: str) -> dict[str, str]:
    """The table's parameters without the one the metastore rewrites on every change."""
    return {k: v for k, v in client.get_table(db, name).parameters.items()
            if k != "transient_lastDdlTime"}


def _partitioned_files(spark: Any, root: Path) -> None:
    """Parquet files under ``root/p=1`` and ``root/p=2`` (two rows each)."""
    (spark.range(4).selectExpr("CAST(id AS INT) AS a", "CAST(id % 2 + 1 AS INT) AS p")
     .write.partitionBy("p").mode("overwrite").parquet(str(root)))


@pytest.mark.parametrize(("properties", "first_line"), [
    ("'PROJECTION.ENABLED'='true', 'projection.p.type'='integer', 'projection.p.range'='1,2'",
     "[HMS_INVALID_SETTING] Table {db}.t: unknown property 'PROJECTION.ENABLED'; did you mean "
     "'projection.enabled'?"),
    ("'Partition_Columns_In_Data_File'='true'",
     "[HMS_INVALID_SETTING] Table {db}.t: unknown property 'Partition_Columns_In_Data_File'; "
     "did you mean 'partition_columns_in_data_file'?"),
    ("'hmscatalog.discovery.enabled'='true', 'hmscatalog.discovery.glob'='{a,b'",
     "[HMS_INVALID_SETTING] Table {db}.t: property 'hmscatalog.discovery.glob' must be a glob "
     "below the table location, not '{{a,b': invalid glob '{location}/{{a,b': unclosed '{{' at "
     "position {at}"),
], ids=["projection-switch-case", "data-file-columns-case", "unclosed-glob"])
@pytest.mark.cases(1)
def test_misspellings_are_refused_at_create_and_alter(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path, properties: str,
        first_line: str) -> None:
    """A key spelt in another case is read by no one (the readers look keys up exactly), and a
    glob that cannot compile breaks every query: CREATE makes no table, ALTER changes nothing."""
    location = f"file:{tmp_path}"
    expected = first_line.format(db=db, location=location, at=len(location) + 1)
    ddl = (f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET "
           f"LOCATION '{location}' TBLPROPERTIES ({{}})")
    with pytest.raises(Exception) as refused:
        spark.sql(ddl.format(properties))
    assert _first_line(refused.value) == expected
    assert client.list_tables(db) == []
    spark.sql(ddl.format("'team'='x'"))
    before = _user_parameters(client, db, "t")
    with pytest.raises(Exception) as altered:
        spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ({properties})")
    assert _first_line(altered.value) == expected
    assert _user_parameters(client, db, "t") == before


def test_a_misspelt_key_set_by_another_catalog_fails_the_query_until_unset(
        spark: Any, db: str, client: MetastoreClient, tmp_path: Path) -> None:
    """The built-in catalog stores any key; read through hms, a misspelt discovery switch fails
    the query naming it (it used to read as a table without discovery: no rows). UNSET through
    hms removes it, and the spelling hms knows then finds the files."""
    _partitioned_files(spark, tmp_path)
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t (a INT) PARTITIONED BY (p INT) "
              f"STORED AS PARQUET LOCATION 'file:{tmp_path}' "
              "TBLPROPERTIES ('hmscatalog.discovery.enable'='true')")
    with pytest.raises(Exception) as refused:
        spark.sql(f"SELECT * FROM hms.{db}.t").collect()
    assert _first_line(refused.value) == (
        f"[HMS_INVALID_SETTING] Table {db}.t: unknown property 'hmscatalog.discovery.enable'; "
        "did you mean 'hmscatalog.discovery.enabled'?")
    with pytest.raises(Exception) as still:
        spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ('team'='x')")
    assert _first_line(still.value) == _first_line(refused.value)
    spark.sql(f"ALTER TABLE hms.{db}.t UNSET TBLPROPERTIES ('hmscatalog.discovery.enable')")
    spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT a, p FROM hms.{db}.t").collect()) == [
        (0, 1), (1, 2), (2, 1), (3, 2)]


def test_read_options_are_checked_like_table_properties(spark: Any, tmp_path: Path) -> None:
    """``read_partitioned`` options go through the same table of settings and parsers."""
    from hmscatalog.spark import read_partitioned

    _partitioned_files(spark, tmp_path)
    where = f"read_partitioned({str(tmp_path)!r})"
    for options, message in [
        ({"hmscatalog.discovery.max-partitions": "-5"},
         f"{where}: property 'hmscatalog.discovery.max-partitions' must be a whole number of "
         "at least 1, not '-5'"),
        ({"hmscatalog.discovery.max-list-call": "9"},
         f"{where}: unknown property 'hmscatalog.discovery.max-list-call'; did you mean "
         "'hmscatalog.discovery.max-list-calls'?"),
        ({"s3.regin": "eu-west-1"},
         f"{where}: unknown option 's3.regin'; did you mean 's3.region'?"),
        ({"max-partitions": "5"},
         f"{where}: unknown option 'max-partitions'; did you mean "
         "'hmscatalog.discovery.max-partitions'?"),
    ]:
        with pytest.raises(InvalidSetting) as refused:
            read_partitioned(spark, str(tmp_path), options=options)
        assert _first_line(refused.value) == message
    assert read_partitioned(spark, str(tmp_path), options={
        "hmscatalog.discovery.max-partitions": " 2 "}).count() == 4


def test_catalog_keys_in_the_spark_conf_are_checked_at_attach(spark: Any,
                                                              metastore_uri: str) -> None:
    """A misspelt ``spark.hmscatalog.*`` key is refused, not ignored (the timeout would
    silently stay at its default)."""
    from hmscatalog.spark import attach

    misspelt, known = "spark.hmscatalog.hms_conf.timout", "spark.hmscatalog.hms_conf.timeout"
    spark.conf.set(misspelt, "5")
    try:
        with pytest.raises(InvalidSetting) as refused:
            attach(spark, name="hms_conf", uri=metastore_uri)
        assert str(refused.value) == (f"Spark conf: unknown setting '{misspelt}'; did you mean "
                                      f"'{known}'?")
    finally:
        spark.conf.unset(misspelt)
    spark.conf.set(known, "5")
    try:
        assert attach(spark, name="hms_conf", uri=metastore_uri).client.uris == [metastore_uri]
    finally:
        spark.conf.unset(known)


# -- SHOW PARTITIONS ------------------------------------------------------------------------


def _shown(spark: Any, statement: str) -> list[str]:
    return [row[0] for row in spark.sql(statement).collect()]


def _same_table_in_both_catalogs(spark: Any, db: str, columns: str, rows: str) -> None:
    """``hms.<db>.ours`` and ``spark_catalog.<db>.theirs``: one definition, the same rows,
    each written by its own catalog."""
    ddl = f"(a INT) PARTITIONED BY ({columns}) STORED AS PARQUET"
    spark.sql(f"CREATE TABLE hms.{db}.ours {ddl}")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {ddl}")
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.theirs"):
        spark.sql(f"INSERT INTO {table} VALUES {rows}")


@pytest.mark.parametrize("statement", [
    "SHOW PARTITIONS {table} PARTITION (s=NULL)",
    "EXECUTE IMMEDIATE 'SHOW PARTITIONS {table}'",
    pytest.param("EXECUTE IMMEDIATE 'SHOW PARTITIONS {table} PARTITION (t=''x'')'",
                 marks=needs_spark((4, 1), "'' in SQL string literals")),
], ids=["null-spec", "execute-immediate", "execute-immediate-spec"])
@pytest.mark.cases(1)
def test_show_partitions_answered_by_spark_prints_the_default_partition_as_the_builtin_does(
        spark: Any, db: str, statement: str) -> None:
    """Statements that Spark itself answers from the catalog's partition identifiers (a NULL in
    the PARTITION clause, SQL run by EXECUTE IMMEDIATE) print a STRING column's NULL as
    ``__HIVE_DEFAULT_PARTITION__``, not as ``null`` like the partition of the string 'null'."""
    _same_table_in_both_catalogs(spark, db, "s STRING, t STRING",
                                 "(1, NULL, 'x'), (2, 'null', 'x'), (3, NULL, NULL), (4, 'b', 'y')")
    ours = _shown(spark, statement.format(table=f"hms.{db}.ours"))
    assert ours == _shown(spark, statement.format(table=f"spark_catalog.{db}.theirs"))
    assert "s=__HIVE_DEFAULT_PARTITION__/t=x" in ours
