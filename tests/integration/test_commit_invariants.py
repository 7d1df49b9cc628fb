"""What a commit publishes is exactly what the write's tasks staged: every file a task writes
keeps a name of its own, and a commit that would move a file onto another fails, undone."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from crash_helpers import leftovers, make_table, resume, stopped_child, table_state

from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.write.commit import TableCommit

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


@pytest.mark.spark
@pytest.mark.parametrize(("partition_by", "pattern", "files"), [
    ([], None, 10), (["p"], "data_{i}", 12)])
def test_a_path_write_keeps_every_file_of_a_task(
        spark: Any, tmp_path: Path, partition_by: list[str], pattern: str | None,
        files: int) -> None:
    """The same for ``write_partitioned``, which keeps Spark's names (or numbers the files of
    each directory): every file stays, read back by Spark's own Parquet source."""
    from hmscatalog.spark import write_partitioned

    df = spark.sql(f"SELECT id, CAST(id % 2 AS INT) AS p FROM {SOURCE}")
    path = tmp_path / "out"
    spark.conf.set("spark.sql.files.maxRecordsPerFile", "100")
    try:
        result = write_partitioned(df, str(path), partition_by, filename_pattern=pattern)
    finally:
        spark.conf.unset("spark.sql.files.maxRecordsPerFile")
    assert (result.files, result.rows) == (files, 1000)
    assert len(_data_files(f"file:{path}")) == files
    back = spark.read.parquet(str(path)).select("id", "p")
    assert sorted(tuple(r) for r in back.collect()) == sorted(tuple(r) for r in df.collect())


def _stage(commit: TableCommit, files: dict[str, list[int]], partition: str = "k=4") -> None:
    """Stage files (name → values of column ``v``) as the write's tasks would."""
    directory = commit.staging / partition
    directory.mkdir(parents=True, exist_ok=True)
    for name, values in files.items():
        pq.write_table(pa.table({"v": pa.array(values, pa.int64())}), directory / name)


@pytest.mark.parametrize("collision", ["two-jobs", "reused-write-id"])
def test_a_commit_that_would_replace_a_file_fails_and_changes_nothing(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path,
        collision: str) -> None:
    """Files that would get one final name (staged by two jobs with the same task and counter),
    or a final name a file already has (a write id used twice): the write fails naming both
    files, its staged files and record go, and the table is as before."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned=True)
    spark_name = "part-00000-{}-c000.snappy.parquet"
    if collision == "reused-write-id":
        first = TableCommit(client, table, "20240101000000-aaaaaaaaaaaa")
        first.begin()
        _stage(first, {spark_name.format(uuid.uuid4()): [100, 101]})
        first.commit("append")
    before = table_state(client, table)
    commit = TableCommit(client, table, "20240101000000-aaaaaaaaaaaa")
    commit.begin()
    staged = [spark_name.format(uuid.uuid4()) for _ in range(2 if collision == "two-jobs" else 1)]
    _stage(commit, dict(zip(staged, [[200, 201], [202]], strict=False)))
    with pytest.raises(HmsCatalogError) as raised:
        commit.commit("append")
    target = f"file:{tmp_path}/t/k=4/part-20240101000000-aaaaaaaaaaaa-00000-0.snappy.parquet"
    if collision == "two-jobs":
        first_staged, second_staged = sorted(staged)
        assert str(raised.value).startswith(
            f"two files would be moved to {target}: file:{commit.staging}/k=4/{first_staged} "
            f"and file:{commit.staging}/k=4/{second_staged};")
    else:
        assert str(raised.value).startswith(
            f"file:{commit.staging}/k=4/{staged[0]} would be moved to {target}, which exists;")
    assert table_state(client, table) == before
    assert leftovers(client, table) == []
    assert list((tmp_path / "t" / ".hms-commits").glob("*.json")) == []


def test_a_file_missing_after_the_moves_fails_the_write_undone(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A write stopped before the last of its three moves; meanwhile one of its moved files
    goes. The commit finds fewer files in place than it staged and undoes the write instead
    of publishing the two."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned=True)
    before = table_state(client, table)
    child = stopped_child(metastore_uri, unique_db, "move:3", {"k=3": [100, 101, 102]})
    try:
        moved = min(p for p in (tmp_path / "t" / "k=3").iterdir()
                    if not p.name.startswith(".")
                    and pq.read_table(p).column("v").to_pylist() == [100])
        moved.unlink()
        err = resume(child)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode != 0
    assert f"{moved.name} is not in place after the commit's moves (3 files were staged)" \
        in err, err[-2000:]
    assert table_state(client, table) == before
    assert leftovers(client, table) == []
    assert list((tmp_path / "t" / ".hms-commits").glob("*.json")) == []
