"""Overwrites and readers: a replaced partition (or unpartitioned table) switches to a directory
of its own, queries never see half of it, the old files go after a while, and other engines
read the layout."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from commit_child import write
from crash_helpers import (
    CHILD,
    KEEP,
    leftovers,
    make_table,
    table_state,
)
from remote import Remote

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.storage.locations import local_path
from hmscatalog.write.journal import table_home
from hmscatalog.write.recovery import recover

pytestmark = pytest.mark.integration


WRITER = """
import sys, time
from commit_child import write
uri, db, partition, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for generation in range(1, count + 1):
    rows = {partition: [generation * 1_000_000 + i for i in range(800)]}
    write(uri, db, "t", "overwrite", None, rows, files=64)
    time.sleep(0.2)
"""

@pytest.mark.spark
@pytest.mark.parametrize("partitioned", [True, False], ids=["partition", "unpartitioned"])
@pytest.mark.thorough
def test_readers_never_see_a_partition_half_replaced(
        spark: Any, hms: Any, client: MetastoreClient, metastore_uri: str, unique_db: str,
        tmp_path: Path, partitioned: bool) -> None:
    """Queries through hms while another process overwrites the partition (or unpartitioned
    table) they read, again and again (800 rows in 64 files each time): every answer is one
    whole generation, and no query fails on a file that went away."""
    client.new_table(unique_db, "t", columns=[("v", "bigint")],
                     partition_keys=[("k", "int")] if partitioned else [],
                     location=f"file:{tmp_path / 't'}")
    partition = "k=5" if partitioned else ""
    write(metastore_uri, unique_db, "t", "append", None,
          {partition: list(range(800)), **({"k=6": [1]} if partitioned else {})}, files=64)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, metastore_uri, unique_db, partition, "30"],
        cwd=CHILD.parent, stderr=subprocess.PIPE, text=True)
    where = "WHERE k = 5" if partitioned else ""
    answers, errors = [], []
    try:
        while writer.poll() is None or len(answers) < 100:
            try:
                answers.append(tuple(spark.sql(
                    f"SELECT count(*), min(v) DIV 1000000, max(v) DIV 1000000 "
                    f"FROM hms.{unique_db}.t {where}").first()))
            except Exception as exc:  # every failure is counted
                errors.append(str(exc).splitlines()[0])
    finally:
        writer.wait(timeout=300)
    assert writer.returncode == 0, writer.stderr.read()[-2000:] if writer.stderr else ""
    assert errors == []
    assert [a for a in answers if a[0] != 800 or a[1] != a[2]] == []
    generations = {a[1] for a in answers}
    assert len(generations) >= 3, generations  # the reads did overlap the overwrites

def test_replaced_files_are_kept_for_running_queries_then_deleted(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """An overwrite switches the partition to a new directory in one metastore call and keeps
    the old files ``hmscatalog.write.keep-replaced-seconds``; the first recovery after that
    deletes them (a second overwrite's old version is a whole directory)."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, True, keep_replaced_s=1)
    root = tmp_path / "t"
    old_files = sorted((root / "k=4").iterdir())
    write(metastore_uri, unique_db, "t", "overwrite", None, {"k=4": [100, 101, 102]})
    first = local_path(client.get_partition(unique_db, "t", ["4"]).location)
    assert first is not None and first.parent == root / "k=4" and first.name.startswith("hms-v")
    assert all(f.exists() for f in old_files)
    assert len(list((root / ".hms-commits").glob("*.json"))) == 1
    assert recover(client, table).retired == []  # not yet due
    write(metastore_uri, unique_db, "t", "overwrite", None, {"k=4": [200, 201, 202]})
    second = local_path(client.get_partition(unique_db, "t", ["4"]).location)
    assert second is not None and second.parent == root / "k=4" and second != first
    assert table_state(client, table)["k=4"] == [200, 201, 202]
    time.sleep(1.1)
    assert len(recover(client, table).retired) == 2
    assert not any(f.exists() for f in old_files) and not first.exists()
    assert list((root / ".hms-commits").glob("*.json")) == []
    assert leftovers(client, table) == []

@pytest.mark.spark
def test_other_engines_read_a_replaced_partition(spark: Any, db: str,
                                                 client: MetastoreClient) -> None:
    """A replaced partition's files are below its own directory (``k=4/hms-v<write id>/``):
    readers through the metastore follow its location; readers of the table's directory tree
    (Spark's path reads, pyarrow, DuckDB, hms's own path reads) take ``k`` from the directory
    above and skip the plain one, as they do for any plain directory."""
    import duckdb
    import pyarrow.dataset as ds

    from hmscatalog.spark import read_partitioned

    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"TBLPROPERTIES ('{KEEP}'='0')")
    spark.sql(f"INSERT INTO hms.{db}.t SELECT id, CAST(id % 3 AS INT) FROM range(9)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (k=1) VALUES (100), (101)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (k=1) VALUES (200)")
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (k=1) VALUES (201)")
    want = sorted([(0, 0), (3, 0), (6, 0), (200, 1), (201, 1), (2, 2), (5, 2), (8, 2)])
    root = local_path(client.get_table(db, "t").location)
    assert root is not None
    (version,) = (root / "k=1").iterdir()  # the first overwrite's directory is gone
    assert version.name.startswith("hms-v")

    def rows(frame: Any) -> list[tuple[int, int]]:
        return sorted((int(r["v"]), int(r["k"])) for r in frame.collect())

    assert rows(spark.sql(f"SELECT v, k FROM hms.{db}.t")) == want
    assert rows(spark.sql(f"SELECT v, k FROM spark_catalog.{db}.t")) == want
    assert rows(spark.read.parquet(str(root))) == want
    assert rows(read_partitioned(spark, str(root))) == want
    arrow = ds.dataset(str(root), format="parquet", partitioning="hive").to_table()
    assert sorted(zip(arrow["v"].to_pylist(), arrow["k"].to_pylist(), strict=True)) == want
    duck = duckdb.sql(f"SELECT v, k FROM read_parquet('{root}/**/*.parquet', "
                      "hive_partitioning = true)").fetchall()
    assert sorted(duck) == want

def _tree_reads_see_whole_overwrites(spark: Any, db: str, location: str) -> None:
    """Overwrite a partition twice through hms, and read the table's tree with read_partitioned
    while the replaced files are kept, after the keep time, and once they are deleted: exactly
    the current rows each time; after that, Spark's own path read too."""
    from hmscatalog.spark import read_partitioned

    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (dt STRING, k INT) "
              f"STORED AS PARQUET LOCATION '{location}' TBLPROPERTIES ('{KEEP}'='3')")
    spark.sql(f"INSERT INTO hms.{db}.t SELECT id, '2024-01-01', CAST(id % 2 AS INT) "
              "FROM range(6)")
    kept = [(0, "2024-01-01", 0), (2, "2024-01-01", 0), (4, "2024-01-01", 0)]

    def tree(reader: Any) -> list[tuple[Any, ...]]:
        # A path read takes dt for a DATE, as Spark's does.
        return sorted(tuple(r) for r in reader.selectExpr("v", "CAST(dt AS STRING)", "k")
                      .collect())

    for values in ([100, 101], [200]):
        spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (dt='2024-01-01', k=1) "
                  f"VALUES {', '.join(f'({v})' for v in values)}")
        want = sorted(kept + [(v, "2024-01-01", 1) for v in values])
        assert tree(read_partitioned(spark, location)) == want  # within the keep time
        assert tree(read_partitioned(spark, location).where("k = 1")) == want[len(kept):]
    time.sleep(3.2)
    assert tree(read_partitioned(spark, location)) == want  # due, not yet deleted
    # The next write deletes what the overwrites replaced.
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='2024-01-02', k=0) VALUES (7)")
    want = sorted([*want, (7, "2024-01-02", 0)])
    assert tree(read_partitioned(spark, location)) == want
    assert tree(spark.sql(f"SELECT * FROM hms.{db}.t")) == want
    assert tree(spark.read.parquet(location)) == want


@pytest.mark.spark
def test_tree_reads_of_a_table_see_whole_overwrites_on_local_disk(
        spark: Any, db: str, tmp_path: Path) -> None:
    """read_partitioned of the table's directory read the replaced files and the new ones
    together while the replaced ones were kept."""
    _tree_reads_see_whole_overwrites(spark, db, f"file:{tmp_path / 't'}")


@pytest.mark.spark
@pytest.mark.thorough
def test_tree_reads_of_a_table_see_whole_overwrites_on_remote_storage(
        spark: Any, db: str, remote: Remote) -> None:
    """On S3 an overwrite put its partitions below ``<table>/hms-v<id>/k=v/``: read_partitioned
    of the table's directory read the replaced files while they were kept and missed the new
    ones after, and Spark's path read failed on the two trees. An overwrite now writes
    ``k=v/hms-v<id>/`` there as on local disk and HDFS."""
    _tree_reads_see_whole_overwrites(spark, db, remote.location("t"))


@pytest.mark.spark
def test_other_engines_read_a_replaced_unpartitioned_table(spark: Any, db: str,
                                                           client: MetastoreClient) -> None:
    """An unpartitioned table replaced by overwrites keeps its files in ``<table>/hms-v<write
    id>/``, its location in the metastore; readers of the table's directory read through it
    (Spark with ``recursiveFileLookup``). DROP TABLE removes the table's directory too."""
    import duckdb
    import pyarrow.dataset as ds

    spark.sql(f"CREATE TABLE hms.{db}.u (v BIGINT) STORED AS PARQUET "
              f"TBLPROPERTIES ('{KEEP}'='0')")
    for statement in ("INSERT INTO {t} SELECT id FROM range(5)",
                      "INSERT OVERWRITE {t} VALUES (100), (101)",
                      "INSERT OVERWRITE {t} VALUES (200)", "INSERT INTO {t} VALUES (201)"):
        spark.sql(statement.format(t=f"hms.{db}.u"))
    location = local_path(client.get_table(db, "u").location)
    found = table_home(client.get_table(db, "u").location)
    assert found is not None
    home = found[1]
    assert location is not None and location.parent == home
    assert location.name.startswith("hms-v")
    assert [p.name for p in home.iterdir()] in ([location.name, ".hms-commits"],
                                                [".hms-commits", location.name])

    def values(frame: Any) -> list[int]:
        return sorted(int(r["v"]) for r in frame.collect())

    assert values(spark.sql(f"SELECT v FROM hms.{db}.u")) == [200, 201]
    assert values(spark.sql(f"SELECT v FROM spark_catalog.{db}.u")) == [200, 201]
    # Spark looks below a path only for key=value directories, unless asked to.
    assert values(spark.read.option("recursiveFileLookup", "true").parquet(str(home))) == \
        [200, 201]
    assert sorted(ds.dataset(str(home), format="parquet").to_table()["v"].to_pylist()) == \
        [200, 201]
    assert sorted(v for (v,) in duckdb.sql(
        f"SELECT v FROM read_parquet('{home}/**/*.parquet')").fetchall()) == [200, 201]
    spark.sql(f"DROP TABLE hms.{db}.u")
    assert not home.exists()


@pytest.mark.spark
def test_a_failed_overwrite_on_s3_leaves_nothing(
        spark: Any, db: str, s3a_jars: list[str], moto_s3: Any, s3a_bucket: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An overwrite whose metastore update fails after its uploads completed (below
    ``k=v/hms-v<id>/``) is undone: the table reads and holds what it did."""
    from remote import unique_root

    remote = Remote("s3a", unique_root("w", f"s3a://{s3a_bucket}"), spark, moto_s3)
    table = f"hms.{db}.t"
    spark.sql(f"CREATE TABLE {table} (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET "
              f"LOCATION '{remote.location('t')}'")
    spark.sql(f"INSERT INTO {table} SELECT id, CAST(id % 2 AS INT) FROM range(4)")
    before = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect())
    files = remote.files("t")
    monkeypatch.setenv("HMSCATALOG_FAULTS", "fail@register")
    with pytest.raises(Exception, match="injected"):
        spark.sql(f"INSERT OVERWRITE {table} PARTITION (k) "
                  "SELECT 100 + id, CAST(id % 3 AS INT) FROM range(6)")
    monkeypatch.delenv("HMSCATALOG_FAULTS")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()) == before
    assert remote.files("t") == files
