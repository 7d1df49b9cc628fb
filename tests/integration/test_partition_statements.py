"""Statements that name partitions (INSERT OVERWRITE ... PARTITION, TRUNCATE TABLE ... PARTITION,
ALTER TABLE ... DROP PARTITION, SHOW PARTITIONS ... PARTITION) through hms, with what Spark's
built-in Hive catalog does on the same metastore as the reference: DECIMAL partition columns,
and clauses that name only some of the partition columns; and scans of tables whose partitions
are stored in several formats."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def _state(spark: Any, table: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A table's rows and its partitions (SHOW PARTITIONS)."""
    return _rows(spark, f"SELECT * FROM {table}"), _rows(spark, f"SHOW PARTITIONS {table}")


# -- DECIMAL partition columns -----------------------------------------------------------------

_DECIMAL_ROWS = "(1, 1.5, 'x'), (2, 2.5, 'x'), (3, 3.5, 'x'), (4, 4.5, 'x'), (5, 4.5, 'y')"
_DECIMAL_PARTITIONS = ["d=1.50/k=x", "d=2.50/k=x", "d=3.50/k=x", "d=4.50/k=x", "d=4.50/k=y"]
_DECIMAL_DATA = [(1, 1.5, "x"), (2, 2.5, "x"), (3, 3.5, "x"), (4, 4.5, "x"), (5, 4.5, "y")]

# Each statement with a DECIMAL value in its PARTITION clause, run on a table of
# _DECIMAL_ROWS; the rows (a, d, k) and partitions it leaves.
_DECIMAL_STATEMENTS = {
    "INSERT OVERWRITE {t} PARTITION (d=1.5, k='x') VALUES (10)": (
        [*_DECIMAL_DATA[1:], (10, 1.5, "x")], _DECIMAL_PARTITIONS),
    "INSERT OVERWRITE {t} PARTITION (d=2.50, k) VALUES (20, 'x')": (
        [_DECIMAL_DATA[0], *_DECIMAL_DATA[2:], (20, 2.5, "x")], _DECIMAL_PARTITIONS),
    "TRUNCATE TABLE {t} PARTITION (d=2.5, k='x')": (
        [_DECIMAL_DATA[0], *_DECIMAL_DATA[2:]], _DECIMAL_PARTITIONS),
    "TRUNCATE TABLE {t} PARTITION (d=4.5)": (_DECIMAL_DATA[:3], _DECIMAL_PARTITIONS),
    "ALTER TABLE {t} DROP PARTITION (d=3.5, k='x')": (
        [*_DECIMAL_DATA[:2], *_DECIMAL_DATA[3:]],
        [p for p in _DECIMAL_PARTITIONS if p != "d=3.50/k=x"]),
    "ALTER TABLE {t} DROP IF EXISTS PARTITION (d=9.5, k='x')": (
        _DECIMAL_DATA, _DECIMAL_PARTITIONS),
    "ALTER TABLE {t} DROP PARTITION (d=4.5)": (_DECIMAL_DATA[:3], _DECIMAL_PARTITIONS[:3]),
    "ALTER TABLE {t} ADD PARTITION (d=7.25, k='z')": (
        _DECIMAL_DATA, [*_DECIMAL_PARTITIONS, "d=7.25/k=z"]),
}


def _decimal_statements(spark: Any, catalog: str, db: str) -> dict[str, Any]:
    """What each of _DECIMAL_STATEMENTS leaves, each on a table of its own: rows in the order
    of column a with decimals as floats, partition names; or the first line of its error."""
    seen: dict[str, Any] = {}
    for i, statement in enumerate(_DECIMAL_STATEMENTS):
        table = f"{catalog}.{db}.t{i}"
        spark.sql(f"CREATE TABLE {table} (a INT) PARTITIONED BY (d DECIMAL(5,2), k STRING) "
                  "STORED AS PARQUET")
        spark.sql(f"INSERT INTO {table} VALUES {_DECIMAL_ROWS}")
        try:
            spark.sql(statement.format(t=table))
        except Exception as exc:
            seen[statement] = _first_line(exc)
            continue
        data, partitions = _state(spark, table)
        seen[statement] = (
            sorted(((a, float(d), k) for a, d, k in data), key=lambda row: row[0]),
            [p for (p,) in partitions])
    return seen


def test_decimal_partition_values_in_every_statement(spark: Any, db: str) -> None:
    """INSERT OVERWRITE, TRUNCATE TABLE, DROP and ADD PARTITION with a DECIMAL value (1.5,
    2.50): hms failed each with HMS_INTERNAL_ERROR ('decimal.Decimal' object has no attribute
    'toPlainString'), converting the value Spark hands over (a row's or a literal's)."""
    assert _decimal_statements(spark, "hms", db) == _DECIMAL_STATEMENTS
    assert _rows(spark, f"SHOW PARTITIONS hms.{db}.t0 PARTITION (d=1.50)") == [("d=1.50/k=x",)]


@pytest.mark.builtin
def test_decimal_partition_values_as_the_builtin(spark: Any, db: str) -> None:
    """The built-in catalog, on the same statements, leaves what hms is expected to."""
    assert _decimal_statements(spark, "spark_catalog", db) == _DECIMAL_STATEMENTS


# -- PARTITION clauses of some of the partition columns ----------------------------------------

_PARTIAL_ROWS = ("(1, 'a', 1), (2, 'a', 2), (3, 'b', 1), (4, 'b', 2), (5, 'c', 1), (6, 'c', 2), "
                 "(7, 'd', 10), (8, 'e', 1), (9, NULL, 1), (10, 'f', NULL), (11, 'g', 1)")


def _partial_table(spark: Any, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (a INT) PARTITIONED BY (p STRING, q INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {table} VALUES {_PARTIAL_ROWS}")


def _partial_drops(spark: Any, table: str) -> list[Any]:
    """DROP PARTITION clauses of some of the columns; what each leaves."""
    _partial_table(spark, table)
    seen: list[Any] = []
    for statement in [
        "ALTER TABLE {t} DROP PARTITION (p='a')",  # a/1 and a/2
        "ALTER TABLE {t} DROP PARTITION (Q=2), PARTITION (p='e', q=01)",  # b/2, c/2; e/1
        "ALTER TABLE {t} DROP IF EXISTS PARTITION (p='zz'), PARTITION (p='g')",
        "ALTER TABLE {t} DROP IF EXISTS PARTITION (p='zz')",
        "ALTER TABLE {t} DROP PARTITION (p=NULL)",  # the default partition of p
        "ALTER TABLE {t} DROP PARTITION (q=NULL) PURGE",
        # A partition named twice is dropped (the metastore dropped none of such a list).
        "ALTER TABLE {t} DROP PARTITION (p='b'), PARTITION (q=1)",  # b/1 twice, c/1
        "ALTER TABLE {t} DROP PARTITION (p='d', q=10), PARTITION (P='d', q=10)",
    ]:
        spark.sql(statement.format(t=table))
        seen.append(_state(spark, table))
    return seen


_PARTIAL_DROPS = [
    ["p=__HIVE_DEFAULT_PARTITION__/q=1", "p=b/q=1", "p=b/q=2", "p=c/q=1", "p=c/q=2",
     "p=d/q=10", "p=e/q=1", "p=f/q=__HIVE_DEFAULT_PARTITION__", "p=g/q=1"],
    ["p=__HIVE_DEFAULT_PARTITION__/q=1", "p=b/q=1", "p=c/q=1", "p=d/q=10",
     "p=f/q=__HIVE_DEFAULT_PARTITION__", "p=g/q=1"],
    ["p=__HIVE_DEFAULT_PARTITION__/q=1", "p=b/q=1", "p=c/q=1", "p=d/q=10",
     "p=f/q=__HIVE_DEFAULT_PARTITION__"],
    ["p=__HIVE_DEFAULT_PARTITION__/q=1", "p=b/q=1", "p=c/q=1", "p=d/q=10",
     "p=f/q=__HIVE_DEFAULT_PARTITION__"],
    ["p=b/q=1", "p=c/q=1", "p=d/q=10", "p=f/q=__HIVE_DEFAULT_PARTITION__"],
    ["p=b/q=1", "p=c/q=1", "p=d/q=10"],
    ["p=d/q=10"],
    [],
]


def _values(partitions: list[str]) -> list[tuple[str | None, int | None]]:
    """The (p, q) of the rows the partitions ``p=.../q=...`` hold."""
    found = []
    for name in partitions:
        p, q = (part.split("=", 1)[1] for part in name.split("/"))
        found.append((None if p == "__HIVE_DEFAULT_PARTITION__" else p,
                      None if q == "__HIVE_DEFAULT_PARTITION__" else int(q)))
    return found


def _check_partial_drops(seen: list[Any]) -> None:
    assert [[p for (p,) in parts] for _, parts in seen] == _PARTIAL_DROPS
    for (data, _), partitions in zip(seen, _PARTIAL_DROPS, strict=True):
        assert sorted(((p, q) for _, p, q in data), key=repr) == \
            sorted(_values(partitions), key=repr)


def test_drop_partition_of_some_columns(spark: Any, db: str) -> None:
    """DROP PARTITION (p='a') of a (p, q) table drops every partition p=a/*, as Hive and the
    built-in do; Spark's analyzer refused it (``Partition spec is invalid``) before hms saw
    it."""
    _check_partial_drops(_partial_drops(spark, f"hms.{db}.t"))


@pytest.mark.builtin
def test_drop_partition_of_some_columns_as_the_builtin(spark: Any, db: str) -> None:
    _check_partial_drops(_partial_drops(spark, f"spark_catalog.{db}.t"))


def test_drop_partition_of_some_columns_refused(spark: Any, db: str,
                                                client: MetastoreClient) -> None:
    """A clause matching no partition is refused as the built-in refuses it, and nothing of
    the statement is dropped; a value its column cannot hold is refused naming the value, the
    column and the table."""
    _partial_table(spark, f"hms.{db}.t")
    before = client.list_partition_names(db, "t")
    with pytest.raises(Exception) as missing:
        spark.sql(f"ALTER TABLE hms.{db}.t DROP PARTITION (p='c'), PARTITION (p='zz')")
    assert _first_line(missing.value) == (
        f"[PARTITIONS_NOT_FOUND] The partition(s) PARTITION (`p` = zz) cannot be found in "
        f"table `{db}`.`t`.")
    with pytest.raises(Exception) as bad_value:
        spark.sql(f"ALTER TABLE hms.{db}.t DROP PARTITION (q='x')")
    assert _first_line(bad_value.value) == (
        f"[HMS_INVALID_PARTITION_VALUE] partition value 'x' of column q of `hms`.`{db}`.`t` is "
        "not a valid int")
    assert client.list_partition_names(db, "t") == before


@pytest.mark.builtin
def test_partial_clauses_of_truncate_and_show_partitions_as_the_builtin(spark: Any,
                                                                       db: str) -> None:
    """TRUNCATE TABLE and SHOW PARTITIONS with a clause of some columns (NULL among them: the
    default partition) give the built-in's answers. SHOW PARTITIONS ... PARTITION (q=NULL)
    printed ``q=null`` through hms where the built-in prints the metastore's name."""
    seen = {}
    for catalog in ("hms", "spark_catalog"):
        table = f"{catalog}.{db}.t"
        _partial_table(spark, table)
        shown = [_rows(spark, f"SHOW PARTITIONS {table} PARTITION ({clause})")
                 for clause in ("p='a'", "q=01", "q=NULL", "p=NULL", "p='zz'", "q=NULL, p='f'")]
        spark.sql(f"TRUNCATE TABLE {table} PARTITION (p='b')")
        spark.sql(f"TRUNCATE TABLE {table} PARTITION (q=NULL)")
        spark.sql(f"TRUNCATE TABLE {table} PARTITION (p='zz')")  # matches none: nothing
        seen[catalog] = (shown, _state(spark, table))
        spark.sql(f"DROP TABLE {table}")
    assert seen["hms"] == seen["spark_catalog"]
    shown, (data, partitions) = seen["hms"]
    assert shown[2] == [("p=f/q=__HIVE_DEFAULT_PARTITION__",)]
    assert sorted(a for a, _, _ in data) == [1, 2, 5, 6, 7, 8, 9, 11]
    assert len(partitions) == 11


# -- partitions of several formats -------------------------------------------------------------

_FORMATS: dict[str, dict[str, Any]] = {
    "text": {"input_format": "org.apache.hadoop.mapred.TextInputFormat",
             "output_format": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
             "serde": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
             "serde_parameters": {"serialization.format": "1"}},
    "pq": {"input_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
           "output_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
           "serde": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
           "serde_parameters": {}},
    "orc": {"input_format": "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
            "output_format": "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
            "serde": "org.apache.hadoop.hive.ql.io.orc.OrcSerde", "serde_parameters": {}},
}
# Each partition's rows, written while the table was stored in the partition's format.
_MIXED_ROWS = {
    "text": "(1, 1.25, named_struct('x', 1, 'y', 'a')), (4, NULL, NULL)",
    "pq": "(2, 2.50, named_struct('x', 2, 'y', 'b')), (5, -0.01, named_struct('x', NULL, "
          "'y', 'e'))",
    "orc": "(3, 999.99, named_struct('x', 3, 'y', 'c'))",
}
_MIXED_EXPECTED = [
    (1, "1.25", (1, "a"), "text"), (2, "2.50", (2, "b"), "pq"), (3, "999.99", (3, "c"), "orc"),
    (4, None, None, "text"), (5, "-0.01", (None, "e"), "pq")]


def _set_format(client: MetastoreClient, db: str, table: str, stored: str) -> None:
    """The table's storage format set as Hive's ALTER TABLE ... SET FILEFORMAT sets it: its
    partitions keep theirs."""
    found = client.get_table(db, table)
    client.alter_table(replace(found, storage=replace(found.storage, **_FORMATS[stored])))


def _mixed_table(spark: Any, client: MetastoreClient, catalog: str, db: str,
                 stored: str) -> str:
    """Table ``mixed`` with a TEXTFILE, a Parquet and an ORC partition (k = text, pq, orc),
    each written in its format, the table stored as ``stored`` in the end."""
    spark.sql(f"CREATE TABLE {catalog}.{db}.mixed (a INT, m DECIMAL(5,2), "
              "st STRUCT<x: INT, y: STRING>) PARTITIONED BY (k STRING) STORED AS TEXTFILE")
    for k, rows in _MIXED_ROWS.items():
        _set_format(client, db, "mixed", k)
        spark.sql(f"REFRESH TABLE {catalog}.{db}.mixed")
        spark.sql(f"INSERT INTO {catalog}.{db}.mixed PARTITION (k='{k}') VALUES {rows}")
    _set_format(client, db, "mixed", stored)
    spark.sql(f"REFRESH TABLE {catalog}.{db}.mixed")
    return f"{catalog}.{db}.mixed"


def _plain_rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    """Rows (a, m, st, k) with the decimal as its text and the struct as a tuple."""
    return sorted(((a, None if m is None else str(m), None if st is None else tuple(st), k)
                   for a, m, st, k in spark.sql(sql).collect()), key=lambda row: row[0])


@pytest.mark.parametrize("stored", ["text", "pq"])
def test_partitions_of_several_formats_read_together(spark: Any, db: str,
                                                     client: MetastoreClient,
                                                     stored: str) -> None:
    """A table whose partitions are TEXTFILE, Parquet and ORC (its format changed twice), with
    a DECIMAL column: a scan of all of them reads the Parquet and ORC ones with Spark's own
    readers and the text one with its SerDe. Through Hive's ParquetHiveSerDe, the scan failed
    (UnsupportedOperationException: ETypeConverter) on the DECIMAL Spark writes as an INT32."""
    table = _mixed_table(spark, client, "hms", db, stored)
    assert _plain_rows(spark, f"SELECT * FROM {table}") == _MIXED_EXPECTED
    assert _plain_rows(spark, f"SELECT * FROM {table} WHERE m > 2 OR m IS NULL") == [
        row for row in _MIXED_EXPECTED if row[0] in (2, 3, 4)]
    assert [tuple(r) for r in spark.sql(
        f"SELECT k, count(*), sum(m), max(st.y) FROM {table} GROUP BY k ORDER BY k")
        .collect()] == [("orc", 1, Decimal("999.99"), "c"), ("pq", 2, Decimal("2.49"), "e"),
                        ("text", 2, Decimal("1.25"), "a")]
    plan = spark.sql(f"SELECT * FROM {table}")._jdf.queryExecution().executedPlan().toString()
    assert "HiveSerdeScan LazySimpleSerDe, " in plan and "ParquetScan" in plan, plan


def test_partitions_of_several_formats_in_joins(spark: Any, db: str,
                                                client: MetastoreClient) -> None:
    """A Parquet table with partitions of other formats in a join on its partition column:
    narrowed at run time to its Parquet partition, the scan planned over all three keeps
    reading as planned (the narrowed scan was Spark's Parquet scan, handed to the SerDe
    scan's readers); a scan planned before its partitions were chosen, with Spark's Parquet
    reader, refuses the partitions of other formats in one line naming them."""
    table = _mixed_table(spark, client, "hms", db, "pq")
    spark.sql(f"CREATE TABLE hms.{db}.dim (k STRING, w INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.dim VALUES ('text', 1), ('pq', 2), ('orc', 3)")
    join = f"SELECT f.a, f.k FROM {table} f JOIN hms.{db}.dim d ON f.k = d.k WHERE "
    narrowed = spark.sql(join + "d.w = 2 AND f.k IN ('text', 'pq', 'orc')")
    assert sorted(tuple(r) for r in narrowed.collect()) == [(2, "pq"), (5, "pq")]
    assert "dynamicpruning" in narrowed._jdf.queryExecution().executedPlan().toString()
    assert sorted(tuple(r) for r in spark.sql(join + "d.w = 2").collect()) == [
        (2, "pq"), (5, "pq")]  # waits for the join's values: the Parquet partition alone
    with pytest.raises(Exception) as pending:
        spark.sql(join + "d.w <> 2").collect()
    assert _first_line(pending.value) == (
        f"[HMS_CATALOG_ERROR] hms cannot read table {db}.mixed in this query: its partitions "
        "k=orc, k=text are not stored as PARQUET, and the scan, planned before its partitions "
        "were chosen (a join on its partition columns), reads only that format; filter the "
        "partition columns in the query, or store the partitions in one format")


@pytest.mark.builtin
def test_partitions_of_several_formats_as_the_builtin_reads_each(
        spark: Any, db: str, client: MetastoreClient) -> None:
    """Each partition's rows through hms's scan of the whole table are the built-in's rows of
    that partition, read while the table is stored in the partition's format (the built-in
    reads every partition with the table's format, so it cannot read them together)."""
    ours = _plain_rows(spark, f"SELECT * FROM {_mixed_table(spark, client, 'hms', db, 'text')}")
    for k in _MIXED_ROWS:
        _set_format(client, db, "mixed", k)
        spark.sql(f"REFRESH TABLE spark_catalog.{db}.mixed")
        theirs = _plain_rows(spark, f"SELECT * FROM spark_catalog.{db}.mixed WHERE k = '{k}'")
        assert theirs == [row for row in ours if row[3] == k], k
