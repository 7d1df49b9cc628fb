"""ANALYZE TABLE through hms against Spark's built-in Hive catalog on the same table: each
stores the same statistics (sizes, row counts, column statistics), and each reads what the
other stored."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

STATS = "spark.sql.statistics."


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


@pytest.fixture
def sales(spark: Any, db: str, client: MetastoreClient) -> Iterator[str]:
    """A table of three partitions (one of them empty of rows), written by the built-in."""
    base = f"spark_catalog.{db}"
    spark.sql(f"CREATE TABLE {base}.sales (v BIGINT) PARTITIONED BY (dt STRING, hr INT) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.sales PARTITION (dt, hr) "
              "SELECT id, IF(id < 70, '2024-01-01', '2024-01-02'), CAST(id % 2 AS INT) "
              "FROM range(100)")
    spark.sql(f"ALTER TABLE {base}.sales ADD PARTITION (dt='2024-01-03', hr=0)")
    yield db


def _table_stats(client: MetastoreClient, db: str) -> dict[str, str]:
    table = client.get_table(db, "sales")
    return {k: v for k, v in table.parameters.items() if k.startswith(STATS)}


def _partition_stats(client: MetastoreClient, db: str) -> dict[tuple[str, ...], dict[str, str]]:
    return {tuple(p.values): {k: v for k, v in p.parameters.items() if k.startswith(STATS)}
            for p in client.list_partitions(db, "sales")}


def _forget(client: MetastoreClient, db: str) -> None:
    """Remove every statistic Spark stored, from the table and its partitions."""
    table = client.get_table(db, "sales")
    client.alter_table(table.with_parameters(
        {k: v for k, v in table.parameters.items() if not k.startswith(STATS)}))
    client.alter_partitions(db, "sales", [
        replace(p, parameters={k: v for k, v in p.parameters.items() if not k.startswith(STATS)})
        for p in client.list_partitions(db, "sales")])


@pytest.mark.parametrize("statement", [
    "ANALYZE TABLE {c}.sales COMPUTE STATISTICS",
    "ANALYZE TABLE {c}.sales COMPUTE STATISTICS NOSCAN",
    "ANALYZE TABLE {c}.sales PARTITION (dt='2024-01-01', hr=1) COMPUTE STATISTICS",
    "ANALYZE TABLE {c}.sales PARTITION (dt='2024-01-01') COMPUTE STATISTICS",
    "ANALYZE TABLE {c}.sales PARTITION (dt, hr) COMPUTE STATISTICS",
    "ANALYZE TABLE {c}.sales PARTITION (dt='2024-01-02', hr) COMPUTE STATISTICS NOSCAN",
    "ANALYZE TABLE {c}.sales COMPUTE STATISTICS FOR COLUMNS v, dt",
    "ANALYZE TABLE {c}.sales COMPUTE STATISTICS FOR ALL COLUMNS",
])
@pytest.mark.cases(2)
def test_both_catalogs_store_the_same_statistics(spark: Any, sales: str,
                                                 client: MetastoreClient, statement: str) -> None:
    stored = []
    for catalog in ("hms", "spark_catalog"):
        _forget(client, sales)
        spark.sql(statement.format(c=f"{catalog}.{sales}")).collect()
        stored.append((_table_stats(client, sales), _partition_stats(client, sales)))
    assert stored[0] == stored[1]
    if "NOSCAN" not in statement or "PARTITION" not in statement:
        assert stored[0] != ({}, {p: {} for p in stored[0][1]})  # something was stored
    # else each partition already holds its size as the metastore measured it (Hive's
    # totalSize, which both catalogs read): nothing changed, nothing is stored.


def test_each_reads_what_the_other_stored(spark: Any, sales: str,
                                          client: MetastoreClient) -> None:
    spark.sql(f"ANALYZE TABLE hms.{sales}.sales COMPUTE STATISTICS").collect()
    size = int(_table_stats(client, sales)[STATS + "totalSize"])
    described = {r[0]: r[1] for r in spark.sql(
        f"DESCRIBE TABLE EXTENDED spark_catalog.{sales}.sales").collect()}
    assert described["Statistics"] == f"{size} bytes, 100 rows"
    # ...and an hms scan that waits for runtime values reports them to the optimizer.
    plan = spark.table(f"hms.{sales}.sales").where("dt IS NOT NULL")._jdf \
        .queryExecution().optimizedPlan()
    assert int(str(plan.stats().sizeInBytes())) == size


def test_unchanged_statistics_are_not_stored_again(spark: Any, sales: str,
                                                   client: MetastoreClient) -> None:
    spark.sql(f"ANALYZE TABLE hms.{sales}.sales COMPUTE STATISTICS").collect()
    before = client.get_table(sales, "sales").parameters
    spark.sql(f"ANALYZE TABLE hms.{sales}.sales COMPUTE STATISTICS").collect()
    assert client.get_table(sales, "sales").parameters == before


@pytest.mark.parametrize(("statement", "message"), [
    ("ANALYZE TABLE hms.{db}.sales PARTITION (day='x') COMPUTE STATISTICS",
     "ANALYZE TABLE of table {db}.sales: day is not a partition column"),
    ("ANALYZE TABLE hms.{db}.sales PARTITION (dt='2030-01-01') COMPUTE STATISTICS",
     "partition (dt=2030-01-01) of table {db}.sales does not exist"),
    ("ANALYZE TABLE hms.{db}.sales PARTITION (hr=0) COMPUTE STATISTICS",
     "The list of partition columns with values in partition specification for table 'sales' "
     "in database '{db}' is not a prefix of the list of partition columns defined in the table "
     "schema. Expected a prefix of [dt,hr], but got [hr]."),
    ("ANALYZE TABLE hms.{db}.sales COMPUTE STATISTICS FOR COLUMNS v, nope",
     "ANALYZE TABLE ... FOR COLUMNS of table {db}.sales: it has no column nope"),
])
@pytest.mark.cases(2)
def test_refusals_name_the_table_and_store_nothing(spark: Any, sales: str,
                                                   client: MetastoreClient, statement: str,
                                                   message: str) -> None:
    before = (_table_stats(client, sales), _partition_stats(client, sales))
    with pytest.raises(Exception) as raised:
        spark.sql(statement.format(db=sales)).collect()
    line = first_line(raised.value)
    assert message.format(db=sales) in line
    assert line.startswith("[") and not line.startswith("[HMS_HMS_"), line  # one tag, once
    assert (_table_stats(client, sales), _partition_stats(client, sales)) == before


@pytest.mark.thorough
def test_analyze_tables_in_a_database_analyzes_each(spark: Any, sales: str,
                                                   client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{sales}.flat (v INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{sales}.flat VALUES (1), (2)")
    stored = []
    for catalog in ("hms", "spark_catalog"):
        _forget(client, sales)
        flat = client.get_table(sales, "flat")
        client.alter_table(flat.with_parameters(
            {k: v for k, v in flat.parameters.items() if not k.startswith(STATS)}))
        spark.sql(f"ANALYZE TABLES IN {catalog}.{sales} COMPUTE STATISTICS").collect()
        stored.append([_table_stats(client, sales),
                       {k: v for k, v in client.get_table(sales, "flat").parameters.items()
                        if k.startswith(STATS)}])
    assert stored[0] == stored[1]
    assert stored[0][0][STATS + "numRows"] == "100"
    # hms's own write already stored flat's size and row count as Hive does (numRows,
    # totalSize), which both read: unchanged, so neither stores Spark's.
    assert stored[0][1] == {}


@pytest.mark.thorough
def test_column_statistics_of_other_columns_stay(spark: Any, sales: str,
                                                 client: MetastoreClient) -> None:
    spark.sql(f"ANALYZE TABLE hms.{sales}.sales COMPUTE STATISTICS FOR COLUMNS v").collect()
    spark.sql(f"ANALYZE TABLE hms.{sales}.sales COMPUTE STATISTICS FOR COLUMNS hr").collect()
    stored = _table_stats(client, sales)
    assert stored[STATS + "colStats.v.max"] == "99"
    assert stored[STATS + "colStats.hr.distinctCount"] == "2"
    described = {r[0]: r[1] for r in spark.sql(
        f"DESCRIBE TABLE EXTENDED spark_catalog.{sales}.sales v").collect()}
    assert (described["min"], described["max"], described["num_nulls"]) == ("0", "99", "0")


def test_writes_and_truncates_drop_statistics_that_no_longer_hold(
        spark: Any, db: str, client: MetastoreClient) -> None:
    """After a write or a TRUNCATE through hms, the totals ANALYZE TABLE stored for the table
    are gone, as the built-in drops them, and so are those of every partition the write
    replaced (whose Hive statistics are the new files'; the built-in keeps the stale ones)."""
    for c, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name} (v INT) STORED AS TEXTFILE")
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name}_p (v INT) PARTITIONED BY (p INT) "
                  "STORED AS PARQUET")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name} VALUES (1), (2)")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name}_p PARTITION (p) VALUES (1, 1), (2, 2)")
        for table in (name, f"{name}_p"):
            spark.sql(f"ANALYZE TABLE spark_catalog.{db}.{table} COMPUTE STATISTICS")
        spark.sql(f"ANALYZE TABLE spark_catalog.{db}.{name}_p PARTITION (p) COMPUTE STATISTICS")
        spark.sql(f"TRUNCATE TABLE {c}.{db}.{name}")
        spark.sql(f"INSERT OVERWRITE {c}.{db}.{name}_p PARTITION (p=1) VALUES (5), (6), (7)")

    def stats(parameters: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in parameters.items() if k.startswith(STATS)}

    for name in ("ours", "theirs"):
        assert stats(dict(client.get_table(db, name).parameters)) == {}, name
        assert stats(dict(client.get_table(db, f"{name}_p").parameters)) == {}, name
        assert client.get_table(db, name).parameters["numFiles"] == "0"
    rewritten = client.get_partition(db, "ours_p", ["1"]).parameters
    assert stats(dict(rewritten)) == {} and rewritten["numRows"] == "3"
    untouched = client.get_partition(db, "ours_p", ["2"]).parameters
    assert untouched[STATS + "numRows"] == "1"
    assert rows_of(spark, f"SELECT count(*) FROM hms.{db}.ours_p") == [(4,)]


def rows_of(spark: Any, query: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(query).collect()]
