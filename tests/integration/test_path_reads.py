"""read_partitioned: path reads that prune while listing, on local disk and on moto S3."""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from spark_versions import before_spark, needs_spark

from hmscatalog.errors import UnsupportedSparkVersion
from hmscatalog.spark import read_partitioned
from hmscatalog.spark.internals.versions import PYTHON_SOURCE_FILTERS

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _scan_text(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


@pytest.fixture(scope="module")
def layout(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dt (dates) / hr (ints) directories as Spark writes them, plus a month=01 level table."""
    root = tmp_path_factory.mktemp("paths") / "events"
    (spark.range(120)
     .selectExpr("id AS a", "concat('v', id) AS b", "concat('2024-01-0', id % 3 + 1) AS dt",
                 "CAST(id % 4 AS INT) AS hr")
     .write.partitionBy("dt", "hr").parquet(str(root)))
    return root


def test_reads_prune_while_listing_and_match_spark(spark: Any, layout: Path) -> None:
    df = read_partitioned(spark, str(layout))
    theirs = spark.read.parquet(str(layout))  # Spark infers dt DATE and hr INT, and so do we
    assert df.schema.simpleString() == "struct<a:bigint,b:string,dt:date,hr:int>"
    assert df.schema.simpleString() == theirs.schema.simpleString()
    for where, figures in [("dt = DATE'2024-01-02' AND hr = 1", "1/4"),
                           ("hr >= 2", "6/12"), ("dt > DATE'2024-01-01' AND b LIKE 'v1%'", "8/8"),
                           ("hr = 9", "0/12")]:
        ours = df.where(where)
        assert _rows(ours) == _rows(theirs.where(where)), where
        assert f"partitions={figures} (discovered on storage" in _scan_text(ours), where
    pinned = read_partitioned(spark, f"file:{layout}", hive_types={"dt": "string"})
    point = pinned.where("dt = '2024-01-03' AND hr = 0")
    # dt is probed, not listed; the one more list call looks for write records (.hms-commits).
    assert "partitions=1/4 (discovered on storage; list calls: 2)" in _scan_text(point)
    assert sorted(r.a for r in point.collect()) == sorted(
        i for i in range(120) if i % 3 == 2 and i % 4 == 0)


def test_globs(spark: Any, layout: Path) -> None:
    everything = ["a", "b", "dt", "hr"]
    cases = {
        "dt=2024-01-0{1,3}/hr=*": (80, everything),
        "dt=2024-01-0{2..3}/hr={0..1}/*.parquet": (40, everything),
        "*/hr=?/part-*": (120, everything),
        "**/*.parquet": (120, everything),
        # Without a glob the path is its own base, as with Spark: dt is no column.
        "dt=2024-01-01": (40, ["a", "b", "hr"]),
        "dt=2024-01-01/hr={1,2}": (20, ["a", "b", "hr"]),
    }
    for pattern, (rows, columns) in cases.items():
        df = read_partitioned(spark, f"{layout}/{pattern}")
        assert df.count() == rows, pattern
        assert df.columns == columns, pattern
    based = read_partitioned(spark, f"{layout}/dt=2024-01-01", base_path=str(layout))
    assert based.columns == everything
    assert {r.dt for r in based.collect()} == {dt.date(2024, 1, 1)}
    narrowed = read_partitioned(spark, f"{layout}/dt=2024-01-0{{1,3}}/hr=*").where("hr = 3")
    assert "partitions=2/8" in _scan_text(narrowed)
    with pytest.raises(Exception, match=r"invalid glob .*unclosed '\{'"):
        read_partitioned(spark, f"{layout}/dt={{1,2")
    with pytest.raises(Exception, match=r"glob .*dt=2030-\*.* matches no"):
        read_partitioned(spark, f"{layout}/dt=2030-*")
    with pytest.raises(Exception, match=r"invalid glob .*\{a\.\.3\}"):
        read_partitioned(spark, f"{layout}/hr={{a..3}}")


def test_a_partition_column_whose_name_needs_back_quotes(spark: Any, tmp_path: Path) -> None:
    """Directories ``column%2F%23%25%27%3F=<n>`` as Spark writes a column named
    ``column/#%'?``: read, pruned and narrowed by a join at run time, as Spark reads them."""
    name = "column/#%'?"
    column = f"`{name}`"
    root = tmp_path / "odd"
    (spark.range(30).selectExpr("id AS a", f"CAST(id % 3 AS INT) AS {column}")
     .write.partitionBy(name).parquet(str(root)))
    assert (root / "column%2F%23%25%27%3F=1").is_dir()
    df = read_partitioned(spark, str(root))
    theirs = spark.read.parquet(str(root))
    assert df.schema == theirs.schema
    assert _rows(df) == _rows(theirs)
    pruned = df.where(f"{column} = 1")
    assert _rows(pruned) == _rows(theirs.where(f"{column} = 1"))
    assert "partitions=1/3" in _scan_text(pruned)
    spark.createDataFrame([(2, "x"), (0, "y")], "k INT, tag STRING").write.parquet(
        str(tmp_path / "keys"))
    keys = spark.read.parquet(str(tmp_path / "keys"))
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        joined = df.join(keys.where("tag = 'x'"), df[column] == keys.k)
        assert sorted(r.a for r in joined.collect()) == list(range(2, 30, 3))
        scan = _scan_text(joined)
        assert "partitions=1/3" in scan and "after runtime filtering" in scan, scan
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")


def test_types_and_partitioning_switch(spark: Any, tmp_path: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "t"
    staging = tmp_path / "staging"
    # The files hold a column "month" too: the path's value wins, as in Hive and Spark.
    spark.range(24).selectExpr("id AS a", "'from-file' AS month").write.parquet(str(staging))
    for month in ("01", "02", "11"):
        target = root / f"month={month}" / "flag=1.5"
        target.mkdir(parents=True)
        for source in staging.glob("*.parquet"):
            shutil.copy(source, target / source.name)
    with caplog.at_level(logging.WARNING):
        df = read_partitioned(spark, str(root))
    # As in Spark, month=01 is the INT 1 and flag=1.5 a DOUBLE.
    assert df.schema.simpleString() == "struct<a:bigint,month:int,flag:double>"
    assert df.schema.simpleString() == spark.read.parquet(str(root)).schema.simpleString()
    assert "column 'month' named like a partition key" in caplog.text
    assert sorted({r.month for r in df.collect()}) == [1, 2, 11]
    spelt = read_partitioned(spark, str(root), type_inference="keep_spelling")
    assert spelt.schema.simpleString() == "struct<a:bigint,month:string,flag:double>"
    assert sorted({r.month for r in spelt.collect()}) == ["01", "02", "11"]
    typed = read_partitioned(spark, str(root), hive_types={"month": "bigint"})
    assert typed.where("month = 2").count() == 24
    plain = read_partitioned(spark, str(root), hive_types_autocast=False)
    assert dict(plain.dtypes)["flag"] == "string"
    without = read_partitioned(spark, str(root), hive_partitioning=False)
    assert without.columns == ["a", "month"]
    assert {r.month for r in without.collect()} == {"from-file"}
    assert without.count() == 3 * 24
    with pytest.raises(Exception, match="hive_partitioning=True but no key=value"):
        read_partitioned(spark, str(staging), hive_partitioning=True)


@needs_spark(PYTHON_SOURCE_FILTERS, "pyarrow reads of paths Spark cannot open")
@pytest.mark.thorough
def test_s3_point_query_lists_once_and_reads_only_matching_files(
        spark: Any, moto_s3: Any) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    days = 1800
    first = dt.date(2020, 1, 1)
    objects = {}
    for day in range(days):  # one Parquet file per daily partition, rows a = day, day + 1800
        buffer = io.BytesIO()
        pq.write_table(pa.table({"a": pa.array([day, day + days], pa.int64())}), buffer)
        dt_value = (first + dt.timedelta(days=day)).isoformat()
        objects[f"warehouse/daily/dt={dt_value}/part-00000.parquet"] = buffer.getvalue()
    moto_s3.create_bucket("daily-bucket")
    moto_s3.put_many("daily-bucket", objects)
    df = read_partitioned(spark, "s3://daily-bucket/warehouse/daily", options=moto_s3.options,
                          hive_types={"dt": "string"})
    mark = moto_s3.mark()
    rows = df.where("dt = '2021-06-01'").collect()
    day = (dt.date(2021, 6, 1) - first).days
    assert sorted(r.a for r in rows) == [day, day + days]
    lists = moto_s3.list_requests(mark)
    read = {r.path for r in moto_s3.get_requests(mark)}
    assert len(lists) <= 2, [r.path for r in lists]
    assert read == {"/daily-bucket/warehouse/daily/dt=2021-06-01/part-00000.parquet"}
    last = first + dt.timedelta(days=days - 1)
    assert df.where("dt >= '2024-12-01'").count() == 2 * ((last - dt.date(2024, 12, 1)).days + 1)


@before_spark(PYTHON_SOURCE_FILTERS, "pyarrow reads of paths Spark cannot open")
def test_an_older_spark_refuses_reads_it_cannot_open_naming_the_version(
        spark: Any, moto_s3: Any) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({"a": pa.array([1], pa.int64())}), buffer)
    moto_s3.create_bucket("old-spark-bucket")
    moto_s3.put_many("old-spark-bucket", {"t/dt=2024-01-01/part-0.parquet": buffer.getvalue()})
    with pytest.raises(UnsupportedSparkVersion) as refused:
        read_partitioned(spark, "s3://old-spark-bucket/t", options=moto_s3.options,
                         hive_types={"dt": "string"})
    assert str(refused.value) == (
        "read of s3://old-spark-bucket/t: Spark cannot open s3:// itself (add hadoop-aws), and "
        "reading it through pyarrow (filters pushed into a Python data source) needs Spark 4.1 "
        f"or later; this session runs Spark {spark.version}")
