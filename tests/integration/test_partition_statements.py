"""Statements that name partitions (INSERT OVERWRITE ... PARTITION, TRUNCATE TABLE ... PARTITION,
ALTER TABLE ... DROP PARTITION, SHOW PARTITIONS ... PARTITION) through hms, with what Spark's
built-in Hive catalog does on the same metastore as the reference: DECIMAL partition columns,
and clauses that name only some of the partition columns."""

from __future__ import annotations

from typing import Any

import pytest

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
