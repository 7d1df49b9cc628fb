"""``write_partitioned``: DataFrames into ``key=value`` directories without a table, on local
disk, HDFS (a mini cluster) and S3 (moto, through S3A). Directory names are compared with
Spark's own ``df.write.partitionBy`` on the same storage, the files are read back by
``read_partitioned``, Spark, pyarrow and DuckDB, and failed or killed writes leave nothing
visible."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from remote import Remote, unique_root

from hmscatalog.spark import read_partitioned, write_partitioned

pytestmark = [pytest.mark.integration, pytest.mark.spark]

CHILD = Path(__file__).with_name("path_write_child.py")
SCHEMA = ("id INT, s STRING, n INT, d DATE, ts TIMESTAMP, amount DECIMAL(10,2), flag BOOLEAN")
# Values a directory name must escape or spell exactly: '/', '=', '%', ':', space, unicode,
# '' and NULL (both go to __HIVE_DEFAULT_PARTITION__), negative numbers, a time of day.
ROWS = [
    (1, "plain", 1, dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 0), decimal.Decimal("1.50"),
     True),
    (2, "a/b=c%d:e f", -2, dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 13, 45, 30),
     decimal.Decimal("-3.25"), False),
    (3, "été 東京", 3, dt.date(1999, 12, 31), dt.datetime(2024, 3, 4, 5, 6, 7),
     decimal.Decimal("0.00"), True),
    (4, "", 4, dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 0), decimal.Decimal("1.50"),
     None),
    (5, None, None, None, None, None, True),
    (6, "plain", 1, dt.date(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 0), decimal.Decimal("1.50"),
     True),
]
PARTITION_BY = ["s", "n", "d", "ts", "amount", "flag"]


@pytest.fixture(params=["file", "s3a", "hdfs"])
def where(request: pytest.FixtureRequest, spark: Any, tmp_path: Path) -> Remote:
    """A directory of the test's own on local disk, S3 or HDFS."""
    if request.param == "file":
        return Remote("file", f"file:{tmp_path}", spark)
    if request.param == "s3a":
        request.getfixturevalue("s3a_jars")
        moto = request.getfixturevalue("moto_s3")
        bucket = request.getfixturevalue("s3a_bucket")
        return Remote("s3a", unique_root("p", f"s3a://{bucket}"), spark, moto)
    cluster = request.getfixturevalue("hdfs")
    return Remote("hdfs", unique_root("p", f"{cluster.uri}/paths"), spark)


def _visible(where: Remote, name: str) -> list[str]:
    """Files under ``name`` that readers see (no part of the path hidden by '.' or '_')."""
    return [f for f in where.files(name)
            if not any(part.startswith((".", "_")) for part in f.split("/"))]


def _directories(where: Remote, name: str) -> list[str]:
    return sorted({f.rpartition("/")[0] for f in _visible(where, name)})


def _rows(df: Any, columns: list[str]) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.select(*columns).collect()), key=repr)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


@pytest.mark.cases(1)
def test_directories_match_spark_and_the_files_read_back(spark: Any, where: Remote) -> None:
    """Every partition type, with values that need escaping: the directory names are byte for
    byte those Spark's own partitioned write makes; read_partitioned (with the returned types)
    and Spark's reader give back the rows written ('' reads back as NULL, as in Hive)."""
    df = spark.createDataFrame(ROWS, SCHEMA)
    result = write_partitioned(df, where.location("ours"), PARTITION_BY)
    df.write.partitionBy(*PARTITION_BY).parquet(where.location("spark"))
    assert _directories(where, "ours") == _directories(where, "spark")
    assert sorted(result.partitions) == _directories(where, "ours")
    assert (result.files, result.rows) == (len(_visible(where, "ours")), len(ROWS))
    assert result.hive_types == {"s": "string", "n": "int", "d": "date", "ts": "timestamp",
                                 "amount": "decimal(10,2)", "flag": "boolean"}
    columns = [c.split()[0] for c in SCHEMA.split(", ")]
    expected = sorted((tuple(None if v == "" else v for v in row) for row in ROWS), key=repr)
    back = read_partitioned(spark, where.location("ours"), hive_types=result.hive_types)
    assert _rows(back, columns) == expected
    assert _rows(spark.read.parquet(where.location("ours")), columns) == \
        _rows(spark.read.parquet(where.location("spark")), columns)


@pytest.mark.cases(1)
def test_append_adds_files_and_overwrite_replaces_only_written_partitions(
        spark: Any, where: Remote) -> None:
    path = where.location("t")
    first = spark.createDataFrame([(i, f"k{i % 3}") for i in range(6)], "v INT, k STRING")
    write_partitioned(first, path, ["k"])
    before = _visible(where, "t")
    write_partitioned(first, path, ["k"])  # the same rows again: more files, none replaced
    after = _visible(where, "t")
    assert set(before) < set(after) and len(after) == 2 * len(before)
    assert read_partitioned(spark, path).count() == 12

    replacement = spark.createDataFrame([(100, "k1"), (101, "k9")], "v INT, k STRING")
    result = write_partitioned(replacement, path, ["k"], mode="overwrite_partitions")
    assert result.partitions == ["k=k1", "k=k9"]
    rows = _rows(read_partitioned(spark, path), ["k", "v"])
    assert rows == sorted([(f"k{i % 3}", i) for i in range(6) if i % 3 != 1] * 2
                          + [("k1", 100), ("k9", 101)], key=repr)
    assert not [f for f in where.files("t") if f.startswith((".hms-staging", ".hms-trash"))]


@pytest.mark.cases(1)
def test_mode_error_refuses_a_path_with_files(spark: Any, where: Remote) -> None:
    path = where.location("t")
    df = spark.createDataFrame([(1, 1)], "v INT, k INT")
    write_partitioned(df, path, ["k"], mode="error")  # a new path: written
    files = where.files("t")
    with pytest.raises(Exception) as refused:
        write_partitioned(df, path, ["k"], mode="error")
    assert _first_line(refused.value).startswith(
        f"path {path} already exists and holds files (mode='error')")
    assert where.files("t") == files


@pytest.mark.cases(1)
def test_null_partition_error_names_the_column_and_writes_nothing(
        spark: Any, where: Remote) -> None:
    path = where.location("t")
    df = spark.createDataFrame([(i, None if i == 7 else i % 2, "x") for i in range(10)],
                               "v INT, k INT, s STRING")
    with pytest.raises(Exception) as refused:
        write_partitioned(df, path, ["s", "k"], null_partition="error")
    assert _first_line(refused.value) == (
        f"[HMS_NULL_PARTITION_VALUE] partition column k of write to {path} is NULL in a row, "
        "and null_partition='error' refuses NULL partition values")
    assert _visible(where, "t") == []
    if where.moto is not None:
        assert [k for k in _pending_uploads(where.moto, path) if path.split("/", 3)[3] in k] \
            == []


@pytest.mark.cases(1)
def test_a_failing_task_leaves_nothing_visible(spark: Any, where: Remote) -> None:
    """A task fails after others wrote their files: the path holds what it held before."""
    from pyspark.sql import functions as F

    path = where.location("t")
    write_partitioned(spark.createDataFrame([(0, 0)], "v INT, k INT"), path, ["k"])
    before = _visible(where, "t")
    failing = spark.range(2000).repartition(2).select(
        F.when(F.col("id") == 1999, F.raise_error(F.lit("boom"))).otherwise(F.col("id"))
        .cast("int").alias("v"), (F.col("id") % 5).cast("int").alias("k"))
    for mode in ("append", "overwrite_partitions"):
        with pytest.raises(Exception, match="boom"):
            write_partitioned(failing, path, ["k"], mode=mode)
        assert _visible(where, "t") == before
        if where.moto is not None:
            assert [k for k in _pending_uploads(where.moto, path)
                    if path.split("/", 3)[3] + "/" in k] == []
    assert not [f for f in where.files("t") if not f.startswith(".hms-commits/lock")
                and f not in before and not f.rpartition("/")[2].startswith(".")]


def test_file_names_from_a_pattern(spark: Any, tmp_path: Path) -> None:
    """``{i}`` counts on past the names a directory has, so appends never replace a file."""
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, "a"), (2, "a"), (3, "b")], "v INT, k STRING").coalesce(1)
    write_partitioned(df, path, ["k"], filename_pattern="data_{i}")
    write_partitioned(df, path, ["k"], filename_pattern="data_{i}")
    names = sorted(str(p.relative_to(path)) for p in Path(path).rglob("*.parquet"))
    assert names == ["k=a/data_0.snappy.parquet", "k=a/data_1.snappy.parquet",
                     "k=b/data_0.snappy.parquet", "k=b/data_1.snappy.parquet"]
    write_partitioned(df, path, ["k"], filename_pattern="part-{uuid}", format="orc",
                      mode="overwrite_partitions")
    names = sorted(p.name for p in Path(path).rglob("*") if p.is_file()
                   and not p.name.startswith(".") and "hms-commits" not in str(p))
    assert len(names) == 2 and all(n.startswith("part-") and n.endswith(".orc")
                                   for n in names), names
    # Hadoop's local checksum files moved with the files they belong to.
    checksums = sorted(p.name for p in Path(path).glob("k=*/.*"))
    assert checksums == sorted(f".{n}.crc" for n in names)
    with pytest.raises(ValueError, match=re.escape("has neither {i} nor {uuid}")):
        write_partitioned(df, path, ["k"], filename_pattern="data")


@pytest.mark.parametrize(("column", "kind"), [
    ("f", "float"), ("x", "double"), ("arr", "array<int>"), ("m", "map<string,int>"),
    ("st", "struct<a:int>"), ("b", "binary"), ("ntz", "timestamp_ntz")])
def test_partition_columns_of_inexact_types_are_refused_by_name(
        spark: Any, tmp_path: Path, column: str, kind: str) -> None:
    df = spark.sql("SELECT 1 AS v, CAST(1.5 AS FLOAT) AS f, 2.5D AS x, array(1) AS arr, "
                   "map('a', 1) AS m, named_struct('a', 1) AS st, X'01' AS b, "
                   "TIMESTAMP_NTZ'2024-01-01 00:00:00' AS ntz")
    path = tmp_path / "t"
    with pytest.raises(ValueError) as refused:
        write_partitioned(df, str(path), [column.upper()])
    assert str(refused.value) == (
        f"write_partitioned({str(path)!r}): partition column {column} is {kind}, which a "
        "partition directory cannot hold exactly; partition by a string, integer, decimal, "
        "boolean, date or timestamp column (cast it)")
    assert not path.exists()


def test_arguments_are_checked_by_name(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, 2)], "v INT, k INT")
    path = str(tmp_path / "t")
    with pytest.raises(ValueError, match=r"partition column 'z' is not a column of the "
                       r"DataFrame \(v, k\)"):
        write_partitioned(df, path, ["z"])
    with pytest.raises(ValueError, match="every column is a partition column"):
        write_partitioned(df, path, ["v", "k"])
    with pytest.raises(ValueError, match="mode 'overwrite'; it is one of"):
        write_partitioned(df, path, ["k"], mode="overwrite")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="format 'csv'; it writes parquet or orc"):
        write_partitioned(df, path, ["k"], format="csv")
    with pytest.raises(ValueError) as refused:
        write_partitioned(df, path, ["k"], options={"s3.regin": "eu-west-1"})
    assert str(refused.value) == (f"write_partitioned({path!r}): unknown option 's3.regin'; "
                                  "did you mean 's3.region'?")
    assert not Path(path).exists()
    # Partition columns kept in the files too: every column may then be one.
    write_partitioned(df, path, ["v", "k"], partition_columns_in_data_file=True)
    import pyarrow.parquet as pq

    (written,) = Path(path).rglob("*.parquet")
    assert written.parent.relative_to(path).as_posix() == "v=1/k=2"
    assert pq.read_table(written).column_names == ["v", "k"]


def test_pyarrow_and_duckdb_read_what_was_written(spark: Any, tmp_path: Path) -> None:
    import duckdb
    import pyarrow.dataset as ds

    path = tmp_path / "t"
    df = spark.createDataFrame([(i, f"k{i % 3}", i % 2) for i in range(30)],
                               "v BIGINT, k STRING, n INT")
    write_partitioned(df, str(path), ["k", "n"])
    expected = sorted((i, f"k{i % 3}", i % 2) for i in range(30))
    table = ds.dataset(path, format="parquet", partitioning="hive").to_table()
    assert sorted(zip(*(table.column(c).to_pylist() for c in ("v", "k", "n")),
                      strict=True)) == expected
    found = duckdb.sql(f"SELECT v, k, n FROM read_parquet('{path}/**/*.parquet', "
                       "hive_partitioning = true)").fetchall()
    assert sorted(found) == expected


@pytest.mark.parametrize(("faults", "finished", "ender"), [
    ("kill@commit-record", False, "write"), ("kill@move:3", False, "cli"),
    ("kill@committed", True, "write")])
@pytest.mark.thorough
def test_a_killed_write_is_ended_by_the_next_one(spark: Any, tmp_path: Path, faults: str,
                                                 finished: bool, ender: str) -> None:
    """A write killed while its files move in is undone by the next write into the path, or
    by ``hmscatalog recover-path``; one killed after every move is finished."""
    path = str(tmp_path / "t")
    write_partitioned(spark.createDataFrame([(0, 0)], "v BIGINT, k INT"), path, ["k"])
    child = subprocess.run([sys.executable, str(CHILD), path, "overwrite_partitions"],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    assert list(Path(path, ".hms-commits").glob("*.json"))
    if ender == "cli":
        done = subprocess.run([sys.executable, "-m", "hmscatalog.cli.main", "recover-path",
                               path], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == \
            f"path file:{path}: 1 interrupted write(s) finished or undone"
    write_partitioned(spark.createDataFrame([(7, 9)], "v BIGINT, k INT"), path, ["k"])
    killed = [(i, i % 4) for i in range(12)] if finished else []
    assert _rows(read_partitioned(spark, path), ["v", "k"]) == sorted(
        [*([] if finished else [(0, 0)]), (7, 9), *killed], key=repr)
    assert not list(Path(path, ".hms-commits").glob("*.json"))
    assert not [p for p in Path(path).iterdir() if p.name.startswith((".hms-s", ".hms-t"))]


def _pending_uploads(moto: Any, path: str) -> list[str]:
    bucket = path.removeprefix("s3a://").partition("/")[0]
    return [u["Key"] for u in moto.client.list_multipart_uploads(Bucket=bucket)
            .get("Uploads", [])]


@pytest.mark.parametrize(("faults", "finished"), [("kill@commit-record", False),
                                                  ("kill@committed", False),
                                                  ("kill@retire", True)])
@pytest.mark.thorough
def test_a_killed_write_on_s3_is_ended_by_the_next_one(
        spark: Any, moto_s3: Any, s3a_jars: list[str], s3a_bucket: str, faults: str,
        finished: bool) -> None:
    """Killed before its uploads complete, a write leaves only pending uploads: the next write
    aborts them. Killed after, before its record says so, its files are deleted. Killed once
    its record says committed, while the partitions it replaced still hold their old files,
    the next write deletes those."""
    path = unique_root("p", f"s3a://{s3a_bucket}") + "/t"
    where = Remote("s3a", path.rpartition("/")[0], spark, moto_s3)
    write_partitioned(spark.createDataFrame([(0, 0)], "v BIGINT, k INT"), path, ["k"])
    conf = {"spark.jars": ",".join(s3a_jars),
            **{f"spark.hadoop.{k}": v for k, v in moto_s3.hadoop_settings.items()}}
    child = subprocess.run([sys.executable, str(CHILD), path, "overwrite_partitions"],
                           env={**os.environ, "HMSCATALOG_FAULTS": faults,
                                "HMSCATALOG_CHILD_CONF": json.dumps(conf)},
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    pending = [k for k in _pending_uploads(moto_s3, path) if "/t/" in k]
    assert bool(pending) == (faults == "kill@commit-record")
    write_partitioned(spark.createDataFrame([(7, 9)], "v BIGINT, k INT"), path, ["k"])
    killed = [(i, i % 4) for i in range(12)] if finished else []
    assert _rows(read_partitioned(spark, path), ["v", "k"]) == sorted(
        [*([] if finished else [(0, 0)]), (7, 9), *killed], key=repr)
    assert [k for k in _pending_uploads(moto_s3, path) if "/t/" in k] == []
    assert not [f for f in where.files("t") if f.startswith((".hms-commits/", "__magic"))
                or "/__magic" in f], where.files("t")
