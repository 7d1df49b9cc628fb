"""What a commit publishes is exactly what the write's tasks staged: every file a task writes
keeps a name of its own, and a commit that would move a file onto another fails, undone."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.metastore]

# Two tasks of 500 rows each; at most 100 rows per file.
SOURCE = "range(0, 1000, 1, 2)"


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _data_files(location: str | None) -> list[Path]:
    root = Path(urlparse(location or "").path)
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and not any(part.startswith((".", "_"))
                                             for part in p.relative_to(root).parts))


@pytest.mark.spark
@pytest.mark.builtin
@pytest.mark.parametrize(("partitioning", "select", "files"), [
    ("", f"SELECT id FROM {SOURCE}", 10),  # 2 tasks x 5 files
    # 2 tasks x 2 partitions x 250 rows (100 + 100 + 50)
    ("PARTITIONED BY (p INT)", f"SELECT id, CAST(id % 2 AS INT) FROM {SOURCE}", 12),
])
def test_a_task_writing_several_files_keeps_every_one(
        spark: Any, db: str, client: MetastoreClient, partitioning: str, select: str,
        files: int) -> None:
    """With ``spark.sql.files.maxRecordsPerFile`` a task writes several files, told apart by
    Spark only by their counter (``-c000``, ``-c001``...): each keeps a name of its own."""
    spark.sql(f"CREATE TABLE hms.{db}.t (id BIGINT) {partitioning} STORED AS PARQUET")
    spark.conf.set("spark.sql.files.maxRecordsPerFile", "100")
    try:
        spark.sql(f"INSERT INTO hms.{db}.t {select}")
    finally:
        spark.conf.unset("spark.sql.files.maxRecordsPerFile")
    expected = _rows(spark, select)
    assert len(expected) == 1000
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == expected
    spark.sql(f"REFRESH TABLE spark_catalog.{db}.t")
    assert _rows(spark, f"SELECT * FROM spark_catalog.{db}.t") == expected
    table = client.get_table(db, "t")
    assert len(_data_files(table.location)) == files
    if partitioning:
        parts = client.list_partitions(db, "t")
        assert sorted(int(p.parameters["numRows"]) for p in parts) == [500, 500]
        assert sum(int(p.parameters["numFiles"]) for p in parts) == files
    else:
        assert table.parameters["numRows"] == "1000"
        assert table.parameters["numFiles"] == str(files)
