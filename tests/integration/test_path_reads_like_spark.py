"""read_partitioned against Spark's own ``spark.read.parquet`` (and DuckDB for ``**``) on the
same trees: which files a path or glob selects, which directories become columns, their types
and their values."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from spark_versions import needs_spark

from hmscatalog.spark import read_partitioned
from hmscatalog.spark.internals.versions import PYTHON_SOURCE_FILTERS

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _same(ours: Any, theirs: Any) -> None:
    """Same rows, and the same schema (names, types, order)."""
    assert _rows(ours) == _rows(theirs)
    assert ours.schema.simpleString() == theirs.schema.simpleString()


def _write(root: Path, *relative: str, table: pa.Table | None = None) -> None:
    """One small Parquet file at each relative path; column ``a`` says which file it is."""
    for number, path in enumerate(relative):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = table if table is not None else pa.table(
            {"a": pa.array([number * 10, number * 10 + 1], pa.int64())})
        pq.write_table(data, target)


def test_a_glob_selects_directories_before_their_keys_are_checked(
        spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "part=1/f.parquet", "part=2/f.parquet", "other=1/f.parquet")
    pattern = f"{tmp_path}/part=*/*.parquet"
    ours = read_partitioned(spark, pattern)
    _same(ours, spark.read.option("basePath", str(tmp_path)).parquet(pattern))
    assert ours.count() == 4


def test_plain_directories_below_and_instead_of_key_value_ones(
        spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "env=prod/events/f.parquet", "env=prod/events/g.parquet",
           "env=dev/events/f.parquet", "env=dev/other/f.parquet")
    leaf = f"{tmp_path}/env=prod/events"
    _same(read_partitioned(spark, leaf), spark.read.parquet(leaf))
    _same(read_partitioned(spark, leaf, hive_partitioning=False), spark.read.parquet(leaf))
    _same(read_partitioned(spark, leaf, base_path=str(tmp_path)),
          spark.read.option("basePath", str(tmp_path)).parquet(leaf))
    # Files below a plain directory under a partition directory belong to that partition.
    _same(read_partitioned(spark, str(tmp_path)), spark.read.parquet(str(tmp_path)))
    everything = read_partitioned(spark, str(tmp_path), hive_partitioning=False)
    _same(everything, spark.read.option("recursiveFileLookup", "true").parquet(str(tmp_path)))
    assert everything.count() == 8


def test_false_reads_every_file_under_plain_directories(spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "glob1/t1.parquet", "glob1/t22.parquet", "glob2/t3.parquet",
           "other/t4.parquet", "glob3/deeper/t5.parquet")
    pattern = f"{tmp_path}/glob*/t?.parquet"
    ours = read_partitioned(spark, pattern, hive_partitioning=False)
    _same(ours, spark.read.parquet(pattern))
    assert ours.count() == 4
    _same(read_partitioned(spark, pattern), spark.read.parquet(pattern))
    # Spark finds no schema under a root holding only plain directories unless it is told to
    # look below them.
    _same(read_partitioned(spark, str(tmp_path), hive_partitioning=False),
          spark.read.option("recursiveFileLookup", "true").parquet(str(tmp_path)))
    assert read_partitioned(spark, str(tmp_path)).count() == 10


def test_a_last_double_star_matches_at_least_one_level(spark: Any, tmp_path: Path) -> None:
    import duckdb

    _write(tmp_path, "top.parquet", "a/f.parquet", "a/b/f.parquet", "a/b/c/f.parquet",
           "d/f.parquet", "d/e/f.parquet", "g/h/i/f.parquet")
    pattern = f"{tmp_path}/*/**"
    ours = read_partitioned(spark, pattern)
    theirs = duckdb.sql(f"SELECT a FROM read_parquet('{pattern}')").fetchall()
    assert len(theirs) == 12  # 6 of the 7 files
    assert sorted(r.a for r in ours.collect()) == sorted(a for (a,) in theirs)


def test_an_escaped_default_partition_name_is_a_string(spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "p=%5F_HIVE_DEFAULT_PARTITION__/f.parquet",
           "p=__HIVE_DEFAULT_PARTITION__/f.parquet", "p=x/f.parquet")
    ours = read_partitioned(spark, str(tmp_path))
    _same(ours, spark.read.parquet(str(tmp_path)))
    assert ours.where("p = '__HIVE_DEFAULT_PARTITION__'").count() == 2
    assert ours.where("p IS NULL").count() == 2


def test_two_reads_with_different_partition_types_in_one_session(
        spark: Any, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _write(first, "s=x%20y/n=1/f.parquet", "s=z/n=2/f.parquet")
    _write(second, "d=2024-01-01/t=hello%20world/f.parquet", "d=2024-01-02/t=b/f.parquet")
    for root in (first, second, first):
        _same(read_partitioned(spark, str(root)), spark.read.parquet(str(root)))


def test_unsigned_columns_and_a_file_column_named_like_a_key(
        spark: Any, tmp_path: Path) -> None:
    unsigned = pa.table({
        "u8": pa.array([0, 255], pa.uint8()), "u16": pa.array([0, 65535], pa.uint16()),
        "u32": pa.array([0, 2**32 - 1], pa.uint32()), "u64": pa.array([0, 2**64 - 1], pa.uint64()),
    })
    _write(tmp_path / "unsigned", "p=1/f.parquet", "p=2/f.parquet", table=unsigned)
    ours = read_partitioned(spark, str(tmp_path / "unsigned"))
    _same(ours, spark.read.parquet(str(tmp_path / "unsigned")))
    assert ours.where("u64 > 18446744073709551614").count() == 2
    # The file's "p" has a type hmscatalog has no Hive type for; the path's value replaces it.
    shadowed = pa.table({"a": pa.array([1, 2], pa.int64()),
                         "p": pa.array([b"abcd", b"efgh"], pa.binary(4))})
    _write(tmp_path / "shadowed", "p=1/f.parquet", "p=2/f.parquet", table=shadowed)
    ours = read_partitioned(spark, str(tmp_path / "shadowed"))
    theirs = spark.read.parquet(str(tmp_path / "shadowed"))
    assert ours.dtypes == [("a", "bigint"), ("p", "int")]  # Spark puts p first (the file's order)
    _same(ours, theirs.select("a", "p"))


def test_types_are_inferred_as_spark_infers_them(spark: Any, tmp_path: Path) -> None:
    months = tmp_path / "months"
    _write(months, "month=07/mode=0777/f.parquet", "month=11/mode=0644/f.parquet",
           "month=12/mode=0600/f.parquet")
    ours = read_partitioned(spark, str(months))
    _same(ours, spark.read.parquet(str(months)))
    assert ours.dtypes[-2:] == [("month", "int"), ("mode", "int")]
    others = tmp_path / "others"
    _write(others, "big=7/at=2024-01-01 10%3A00%3A00/x=1.5/f.parquet",
           "big=99999999999999999999/at=2024-01-02/x=2/f.parquet")
    _same(read_partitioned(spark, str(others)), spark.read.parquet(str(others)))
    kept = read_partitioned(spark, str(months), type_inference="keep_spelling")
    assert kept.dtypes[-2:] == [("month", "string"), ("mode", "string")]
    assert sorted(r.month for r in kept.collect()) == ["07", "07", "11", "11", "12", "12"]


def test_types_are_inferred_from_every_directory_as_spark_infers_them(
        spark: Any, tmp_path: Path) -> None:
    """Only the values under the first directory of a level were sampled: ``b`` looked like an
    INT and the read failed on ``b=hello``, which Spark reads as a STRING column."""
    _write(tmp_path, "x=10/y=20/f.parquet", "x=10.5/y=hello/f.parquet")
    ours = read_partitioned(spark, str(tmp_path))
    _same(ours, spark.read.parquet(str(tmp_path)))
    assert ours.dtypes[-2:] == [("x", "double"), ("y", "string")]
    glob = f"{tmp_path}/x=10/*"  # a glob's listing is the whole read: y is all integers
    _same(read_partitioned(spark, glob, base_path=str(tmp_path)),
          spark.read.option("basePath", str(tmp_path)).parquet(glob))


def test_a_value_unlike_the_inferred_type_fails_naming_its_directory(
        spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "a=1/b=20/f.parquet", "a=2/b=hello%20world/f.parquet", "a=3/b=30/f.parquet")
    # A tree too large to list whole at planning (1 + 3 list calls): types come from a sample,
    # where b is an int.
    cut = read_partitioned(spark, str(tmp_path),
                           options={"hmscatalog.discovery.max-list-calls": "3"})
    assert dict(cut.dtypes)["b"] == "int"
    assert cut.where("a = 1").count() == 2  # the odd directory is not read
    message = re.escape(f"{tmp_path}/a=2/b=hello%20world") + r".*'b'.*'hello world'.*int"
    for query in (cut.where("a = 2"), cut.where("a = 2 AND b = 20")):
        with pytest.raises(Exception, match=message):  # never left out, even by a filter on b
            query.collect()
    # A directory made after planning fails the query that reads it in the same way.
    whole = read_partitioned(spark, str(tmp_path / "a=1"), base_path=str(tmp_path))
    assert dict(whole.dtypes)["b"] == "int"
    _write(tmp_path, "a=1/b=late/f.parquet")
    with pytest.raises(Exception, match=re.escape(f"{tmp_path}/a=1/b=late") + ".*int"):
        whole.collect()
    _same(read_partitioned(spark, str(tmp_path), hive_types={"b": "string"}),
          spark.read.parquet(str(tmp_path)))


def test_base_path(spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "pi=1/ps=foo/f.parquet", "pi=2/ps=bar/f.parquet")
    leaf = f"{tmp_path}/pi=1/ps=foo"
    ours = read_partitioned(spark, leaf, base_path=str(tmp_path))
    _same(ours, spark.read.option("basePath", str(tmp_path)).parquet(leaf))
    assert ours.columns == ["a", "pi", "ps"]
    _same(read_partitioned(spark, leaf), spark.read.parquet(leaf))
    assert read_partitioned(spark, leaf).columns == ["a"]
    middle = f"{tmp_path}/pi=1"
    _same(read_partitioned(spark, middle), spark.read.parquet(middle))
    _same(read_partitioned(spark, f"file:{tmp_path}/pi=*", base_path=f"file:{tmp_path}"),
          spark.read.option("basePath", str(tmp_path)).parquet(f"{tmp_path}/pi=*"))
    with pytest.raises(Exception, match=re.escape(f"{tmp_path}/pi=2") + ".*is not below "
                                        + re.escape(f"base_path file:{leaf}")):
        read_partitioned(spark, f"{tmp_path}/pi=2", base_path=leaf)


@needs_spark(PYTHON_SOURCE_FILTERS, "pyarrow reads of paths Spark cannot open")
def test_the_pyarrow_source_on_s3_reads_what_spark_reads_locally(
        spark: Any, moto_s3: Any, tmp_path: Path) -> None:
    """Without hadoop-aws, S3 reads go through the Python data source: the same rules hold."""
    unsigned = pa.table({"a": pa.array([1, 2], pa.int64()),
                         "u64": pa.array([0, 2**64 - 1], pa.uint64())})
    local = tmp_path / "t"
    _write(local, "p=%5F_HIVE_DEFAULT_PARTITION__/q=1/f.parquet",
           "p=__HIVE_DEFAULT_PARTITION__/q=2/f.parquet", "p=x/q=3/events/f.parquet",
           "p=x/q=4/f.parquet", "other=1/f.parquet", table=unsigned)
    _write(tmp_path / "bad", "a=1/b=20/f.parquet", "a=2/b=hello%20world/f.parquet",
           "a=3/b=30/f.parquet")
    moto_s3.create_bucket("like-spark")
    moto_s3.upload_tree("like-spark", tmp_path)

    def read(pattern: str, **kwargs: Any) -> Any:
        kwargs.setdefault("options", moto_s3.options)
        return read_partitioned(spark, f"s3://like-spark/{pattern}", **kwargs)

    ours = read("t/p=*/q=*")
    theirs = spark.read.option("basePath", str(local)).parquet(f"{local}/p=*/q=*")
    _same(ours, theirs)
    assert ours.where("p = '__HIVE_DEFAULT_PARTITION__'").count() == 2
    assert ours.where("u64 > 18446744073709551614").count() == 4
    _same(ours, theirs)  # the filters of earlier queries on the DataFrame do not stick
    _same(read("t/p=x/q=3/events", base_path="s3://like-spark/t"),
          spark.read.option("basePath", str(local)).parquet(f"{local}/p=x/q=3/events"))
    assert read("bad").dtypes[-2:] == [("a", "int"), ("b", "string")]
    odd = read("bad", options={**moto_s3.options, "hmscatalog.discovery.max-list-calls": "3"})
    assert odd.where("a = 1").count() == 2
    with pytest.raises(Exception, match=r"like-spark/bad/a=2/b=hello%20world.*'b'.*"
                                        r"'hello world'.*int"):
        odd.where("a = 2").collect()


def test_selected_partitions_without_data_files_read_as_empty(
        spark: Any, tmp_path: Path) -> None:
    _write(tmp_path, "p=1/f.parquet")
    (tmp_path / "p=2" / "empty").mkdir(parents=True)
    (tmp_path / "p=2" / "_SUCCESS").write_bytes(b"")
    ours = read_partitioned(spark, str(tmp_path))
    assert ours.where("p = 2").collect() == []
    _same(ours, spark.read.parquet(str(tmp_path)))
