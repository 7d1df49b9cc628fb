"""Tables and scans as Spark holds them (``io.hmscatalog.spark.Remembering``): what Spark asks
again and again is asked of Python once, and the objects keep their interfaces and identity.
That a scan's description is asked again once the scan narrows is test_runtime_filtering.py's
(EXPLAIN after the query says ``after runtime filtering``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.catalog import HmsCatalog
from hmscatalog.spark.read.scan import HmsScan, HmsScanBuilder
from hmscatalog.spark.table import ReadOnlyTable

pytestmark = [pytest.mark.integration, pytest.mark.spark]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often Spark's calls reach these Python methods."""
    counts: Counter[str] = Counter()

    def counting(cls: type, name: str) -> None:
        method: Callable[..., Any] = getattr(cls, name)

        def counted(self: Any, *args: Any) -> Any:
            counts[f"{cls.__name__}.{name}"] += 1
            return method(self, *args)

        monkeypatch.setattr(cls, name, counted)

    counting(HmsCatalog, "loadTable")
    counting(HmsScanBuilder, "build")
    for name in ("name", "schema"):
        counting(ReadOnlyTable, name)
    for name in ("description", "columnarSupportMode"):
        counting(HmsScan, name)
    return counts


def _load(spark: Any, db: str, name: str) -> Any:
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog("hms")
    return catalog.loadTable(Jvm(spark).identifier([db], name))


def test_a_table_answers_repeated_calls_in_the_jvm(spark: Any, db: str,
                                                   asked: Counter[str]) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (v INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    table = _load(spark, db, "t")
    assert [str(table.name()) for _ in range(5)] == [f"{db}.t"] * 5
    assert [str(f.name()) for f in table.schema().fields()] == ["v", "p"]
    table.schema()
    assert asked["ReadOnlyTable.name"] == 1 and asked["ReadOnlyTable.schema"] == 1
    # The interfaces of the Python table, and identity as equality.
    catalog = "org.apache.spark.sql.connector.catalog"
    for interface in ("SupportsRead", "SupportsWrite", "SupportsAtomicPartitionManagement",
                      "TruncatableTable"):
        assert spark._jvm.java.lang.Class.forName(f"{catalog}.{interface}").isInstance(table)
    again = _load(spark, db, "t")
    assert table.equals(table) and not table.equals(again)
    assert table.hashCode() == table.hashCode()


def test_a_query_asks_python_once_for_what_spark_asks_many_times(
        spark: Any, db: str, asked: Counter[str]) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (v INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'a'), (2, 'b')")
    asked.clear()
    assert spark.sql(f"SELECT sum(v) FROM hms.{db}.t WHERE p = 'b'").collect()[0][0] == 2
    # Spark asks a table for its name about twenty times while it plans a query, a scan for
    # its description and columnar mode several times: Python answers each once per object.
    tables, scans = asked["HmsCatalog.loadTable"], asked["HmsScanBuilder.build"]
    assert tables >= 1 and scans >= 1
    assert asked["ReadOnlyTable.name"] <= tables
    assert asked["HmsScan.description"] <= scans
    assert asked["HmsScan.columnarSupportMode"] <= scans


def test_statements_never_iterate_java_collections_from_python(
        spark: Any, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """py4j's iterator over a Java collection ends on Java's NoSuchElementException, which
    PySpark's error handler takes tens of milliseconds to convert: an INSERT's analysis that
    iterated six small collections took a second under load. hms reads them by index
    (``Jvm.elements``); here no statement of a mixed round lets an iterator run out."""
    from py4j import java_collections

    exhausted: list[str] = []
    original = java_collections.JavaIterator.next

    def noting(self: Any) -> Any:
        try:
            return original(self)
        except StopIteration:
            exhausted.append(statement)
            raise

    monkeypatch.setattr(java_collections.JavaIterator, "next", noting)
    monkeypatch.setattr(java_collections.JavaIterator, "__next__", noting)
    t = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {t} (v BIGINT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    for statement in [
            f"INSERT INTO {t} PARTITION (p='x') VALUES (1)",
            f"INSERT INTO {t} PARTITION (p) VALUES (1, 'y')",
            f"INSERT OVERWRITE TABLE {t} PARTITION (p='w') VALUES (1)",
            f"SELECT count(*) FROM {t} WHERE p IN ('x', 'y')",
            f"ALTER TABLE {t} ADD PARTITION (p='a')",
            f"SHOW PARTITIONS {t} PARTITION (p='a')",
            f"ALTER TABLE {t} DROP PARTITION (p='a')",
            f"ALTER TABLE {t} SET TBLPROPERTIES ('k'='v')",
            f"SHOW TBLPROPERTIES {t} ('k')",
            f"DESCRIBE TABLE EXTENDED {t} PARTITION (p='x')",
            f"ANALYZE TABLE {t} COMPUTE STATISTICS FOR COLUMNS v",
            f"CREATE VIEW hms.{db}.view (w) AS SELECT v FROM {t}",
            f"SHOW VIEWS IN hms.{db}"]:
        spark.sql(statement).collect()
    assert not exhausted, exhausted
