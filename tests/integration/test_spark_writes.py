"""Writes through hms, checked against Spark's built-in Hive catalog on the same metastore."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from pyspark.errors import SparkRuntimeException

from hmscatalog.errors import MetastoreUnavailable
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.storage.locations import local_path

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]

SCHEMA = "(a INT, b STRING) PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET"


def _rows(spark: Any, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _data_directories(root: Path) -> list[str]:
    return sorted({str(p.parent.relative_to(root)) for p in root.rglob("part-*")})


def _table_root(client: MetastoreClient, db: str, table: str) -> Path:
    return Path(urlparse(client.get_table(db, table).location or "").path)


def _both(spark: Any, db: str, statements: list[str]) -> None:
    """Run each statement on hms table ``ours`` and built-in table ``theirs``; after each one,
    both tables hold the same rows and partitions."""
    for statement in statements:
        spark.sql(statement.format(t=f"hms.{db}.ours"))
        spark.sql(statement.format(t=f"spark_catalog.{db}.theirs"))
        ours = _rows(spark, f"SELECT * FROM hms.{db}.ours")
        assert ours == _rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs"), statement
        assert _partitions(spark, f"hms.{db}.ours") == \
            _rows(spark, f"SHOW PARTITIONS spark_catalog.{db}.theirs"), statement


def _partitions(spark: Any, table: str) -> list[tuple[Any, ...]]:
    return _rows(spark, f"SHOW PARTITIONS {table}")


@pytest.mark.builtin
def test_inserts_and_overwrites_match_the_builtin_catalog(spark: Any, db: str,
                                                          client: MetastoreClient) -> None:
    # Replaced files are deleted at once, so that both layouts can be compared.
    spark.sql(f"CREATE TABLE hms.{db}.ours {SCHEMA} "
              "TBLPROPERTIES ('hmscatalog.write.keep-replaced-seconds'='0')")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {SCHEMA}")
    _both(spark, db, [
        "INSERT INTO {t} PARTITION (dt='2024-01-01', hr=1) VALUES (1, 'static')",
        "INSERT INTO {t} PARTITION (dt='2024-01-01', hr) VALUES (2, 'mixed', 1), (3, 'm', 2)",
        "INSERT INTO {t} SELECT id, 'dyn', concat('2024-01-0', id % 3 + 1), id % 2 FROM range(9)",
        # Hive's overwrite: only the partitions that receive rows are replaced...
        "INSERT OVERWRITE TABLE {t} PARTITION (dt='2024-01-01', hr) SELECT 10, 'o', 2",
        "INSERT OVERWRITE TABLE {t} SELECT 11, 'o', '2024-01-03', 0",
        # ... and a fully static clause replaces that partition even with no rows.
        "INSERT OVERWRITE TABLE {t} PARTITION (dt='2024-01-02', hr=1) SELECT 12, 'x' WHERE false",
        "INSERT INTO {t} VALUES (13, NULL, NULL, NULL), (14, '', '', 5)",
        "INSERT INTO {t} PARTITION (dt='2024-01-09', hr='07') SELECT 15, 'cast'",
    ])
    # The same values give byte-identical directory names. (For the partition overwritten by
    # no rows, hms keeps the partition's empty directory; the built-in catalog removes it.)
    # A replaced partition's files are in a directory of their own below the partition's.
    ours, theirs = _table_root(client, db, "ours"), _table_root(client, db, "theirs")
    versions = [d for d in _data_directories(ours) if "/hms-v" in d]
    assert [d.rsplit("/", 1)[0] for d in versions] == ["dt=2024-01-01/hr=2", "dt=2024-01-03/hr=0"]
    directories = sorted({d.split("/hms-v")[0] for d in _data_directories(ours)})
    assert directories == _data_directories(theirs)
    assert "dt=2024-01-09/hr=7" in directories
    assert "dt=__HIVE_DEFAULT_PARTITION__/hr=__HIVE_DEFAULT_PARTITION__" in directories
    # No hidden file is left but the table's commit lock.
    assert [f for f in _files(ours) if "/." in f"/{f}" and not f.endswith(".crc")] == [
        ".hms-commits/lock"]


def test_files_are_named_per_write_and_statistics_recorded(spark: Any, db: str,
                                                           client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    for _ in range(2):
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='d', hr=1) "
                  "SELECT id, 'v' FROM range(5)")
    part = client.get_partition(db, "t", ["d", "1"])
    directory = Path(urlparse(part.location or "").path)
    names = [f.name for f in directory.iterdir() if not f.name.startswith(".")]
    pattern = re.compile(r"part-(\d{14}-[0-9a-f]{12})-\d{5}-\d+\.snappy\.parquet")
    matches = [pattern.fullmatch(n) for n in names]
    assert all(matches), names
    assert len({m.group(1) for m in matches if m}) == 2  # one write id per INSERT
    assert part.parameters["numFiles"] == str(len(names))
    assert part.parameters["numRows"] == "10"
    assert int(part.parameters["totalSize"]) == sum(
        (directory / n).stat().st_size for n in names)
    # The data files hold the data columns only (Hive's convention).
    import pyarrow.parquet as pq

    assert pq.ParquetFile(directory / names[0]).schema_arrow.names == ["a", "b"]


def test_strict_mode_and_clause_order(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql("SET hive.exec.dynamic.partition.mode=strict")
    with pytest.raises(SparkRuntimeException,
                       match=r"^Dynamic partition strict mode requires at least one static"):
        spark.sql(f"INSERT INTO hms.{db}.t SELECT 1, 'x', 'd', 1")
    with pytest.raises(SparkRuntimeException, match=r"^Dynamic partition strict mode"):
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt, hr) SELECT 1, 'x', 'd', 1")
    with pytest.raises(SparkRuntimeException,
                       match=r"^Dynamic partition cannot be the parent of a static"):
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt, hr=1) SELECT 1, 'x', 'd'")
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='d', hr) SELECT 1, 'x', 1")
    spark.sql("SET spark.hadoop.hive.exec.dynamic.partition=false")
    try:
        with pytest.raises(SparkRuntimeException, match=r"^Dynamic partition is disabled"):
            spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='d', hr) SELECT 1, 'x', 1")
    finally:
        spark.sql("RESET spark.hadoop.hive.exec.dynamic.partition")
    assert _rows(spark, f"SELECT * FROM hms.{db}.t") == [(1, "x", "d", 1)]


@pytest.mark.builtin
@pytest.mark.thorough
def test_creates_are_not_refused_in_strict_mode(spark: Any, db: str) -> None:
    """Strict mode stops an INSERT without static partition values from writing into every
    partition of an existing table; a CREATE ... AS SELECT (and the DataFrame creates) fills
    a table that did not exist, and passes, as the built-in's USING parquet CTAS does. INSERTs
    into the created tables are refused as before."""
    spark.sql("SET hive.exec.dynamic.partition.mode=strict")
    query = "SELECT id AS a, CAST(id % 2 AS INT) AS p FROM range(4)"
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs USING parquet PARTITIONED BY (p) "
              f"AS {query}")
    spark.sql(f"CREATE TABLE hms.{db}.ctas PARTITIONED BY (p) AS {query}")
    spark.sql(f"CREATE TABLE hms.{db}.orc PARTITIONED BY (p) STORED AS ORC AS {query}")
    rows = spark.sql(query)
    rows.writeTo(f"hms.{db}.created").partitionedBy(rows.p).create()
    for _ in range(2):  # created, then replaced
        rows.writeTo(f"hms.{db}.replaced").partitionedBy(rows.p).createOrReplace()
        rows.write.partitionBy("p").mode("overwrite").saveAsTable(f"hms.{db}.saved")
    expected = _rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs")
    for name in ("ctas", "orc", "created", "replaced", "saved"):
        assert _rows(spark, f"SELECT * FROM hms.{db}.{name}") == expected, name
        assert _partitions(spark, f"hms.{db}.{name}") == [("p=0",), ("p=1",)], name
    with pytest.raises(SparkRuntimeException,
                       match=r"^Dynamic partition strict mode requires at least one static"):
        spark.sql(f"INSERT INTO hms.{db}.ctas {query}")
    with pytest.raises(Exception) as refused:
        rows.write.insertInto(f"hms.{db}.created")
    assert str(refused.value).startswith("Dynamic partition strict mode requires")
    assert _rows(spark, f"SELECT * FROM hms.{db}.created") == expected


@pytest.mark.builtin
@pytest.mark.parametrize("stored", ["PARQUET", "TEXTFILE"])
@pytest.mark.cases(1)
def test_a_ctas_partition_of_empty_strings_reads_as_null(spark: Any, db: str,
                                                        stored: str) -> None:
    """'' as a partition value is Hive's default partition, read as NULL. A query's column is
    NOT NULL when its values are literals; hms's table columns are nullable, as Hive's. The
    built-in keeps NOT NULL on its CTAS's partition column, then fails reading the NULL it
    stored (docs/spark-sql.md, differences)."""
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    query = f"STORED AS {stored} PARTITIONED BY (p) AS SELECT 1 AS v, '' AS p"
    spark.sql(f"CREATE TABLE hms.{db}.t {query}")
    assert _partitions(spark, f"hms.{db}.t") == [("p=__HIVE_DEFAULT_PARTITION__",)]
    for sql in (f"SELECT * FROM hms.{db}.t", f"SELECT * FROM hms.{db}.t WHERE p IS NULL"):
        assert _rows(spark, sql) == [(1, None)], sql
    assert _rows(spark, f"SELECT p, count(*) FROM hms.{db}.t GROUP BY p") == [(None, 1)]
    spark.sql(f"CREATE TABLE spark_catalog.{db}.theirs {query}")
    theirs = f"SELECT p, count(*) FROM spark_catalog.{db}.theirs GROUP BY p"
    if stored == "PARQUET":  # read as a data source table: NULL in a NOT NULL column
        with pytest.raises(Exception, match="NullPointerException"):
            spark.sql(theirs).collect()
    else:  # read by Hive's SerDe: the default partition's name as the value
        assert _rows(spark, theirs) == [("__HIVE_DEFAULT_PARTITION__", 1)]


PARQUET_CODEC = "spark.sql.parquet.compression.codec"
ORC_CODEC = "spark.sql.orc.compression.codec"


def _codecs(root: Path, stored: str) -> set[str]:
    """The compression of the data files under ``root``, as their footers name it."""
    import pyarrow.orc as orc
    import pyarrow.parquet as pq

    files = [f for f in root.rglob("part-*") if f.is_file()]
    assert files
    if stored == "ORC":
        return {orc.ORCFile(f).compression for f in files}
    return {pq.ParquetFile(f).metadata.row_group(0).column(0).compression for f in files}


@pytest.mark.builtin
@pytest.mark.thorough
def test_compression_is_chosen_as_the_builtin_chooses_it(spark: Any, db: str,
                                                        client: MetastoreClient) -> None:
    """parquet.compression and orc.compress as table properties win over the session's
    codec, which applies without them; the files of both catalogs have the same codec and
    read back the same rows."""
    cases = [  # STORED AS, TBLPROPERTIES, session setting, the files' codec
        ("PARQUET", "'parquet.compression'='GZIP'", None, "GZIP"),
        ("PARQUET", "'parquet.compression'='ZSTD'", (PARQUET_CODEC, "gzip"), "ZSTD"),
        ("PARQUET", "'parquet.compression'='UNCOMPRESSED'", None, "UNCOMPRESSED"),
        ("PARQUET", "'other'='x'", (PARQUET_CODEC, "zstd"), "ZSTD"),
        ("ORC", "'orc.compress'='ZLIB'", None, "ZLIB"),
        ("ORC", "'orc.compress'='NONE'", (ORC_CODEC, "zstd"), "UNCOMPRESSED"),
        ("ORC", "'other'='x'", (ORC_CODEC, "zstd"), "ZSTD"),
    ]
    for n, (stored, properties, setting, codec) in enumerate(cases):
        for catalog in ("hms", "spark_catalog"):
            spark.sql(f"CREATE TABLE {catalog}.{db}.{catalog}_{n} (a INT, b STRING) "
                      f"PARTITIONED BY (p INT) STORED AS {stored} TBLPROPERTIES ({properties})")
        if setting:
            spark.sql(f"SET {setting[0]}={setting[1]}")
        try:
            for catalog in ("hms", "spark_catalog"):
                spark.sql(f"INSERT INTO {catalog}.{db}.{catalog}_{n} PARTITION (p) "
                          "SELECT id, repeat('x', 50), id % 2 FROM range(20)")
        finally:
            if setting:
                spark.sql(f"RESET {setting[0]}")
        case = (stored, properties, setting)
        assert _codecs(_table_root(client, db, f"hms_{n}"), stored) == {codec}, case
        assert _codecs(_table_root(client, db, f"spark_catalog_{n}"), stored) == {codec}, case
        expected = _rows(spark, f"SELECT * FROM spark_catalog.{db}.spark_catalog_{n}")
        assert _rows(spark, f"SELECT * FROM hms.{db}.hms_{n}") == expected, case
        assert _rows(spark, f"SELECT * FROM spark_catalog.{db}.hms_{n}") == expected, case


@pytest.mark.thorough
def test_an_unknown_codec_is_refused_before_writing(spark: Any, db: str,
                                                   client: MetastoreClient) -> None:
    """A codec name Spark does not know is refused naming the table, the property and the
    value, with nothing written (the built-in fails inside the write with "Codec [foo] is
    not available"); a CREATE ... AS SELECT leaves no table."""
    for stored, key, kind in (("PARQUET", "parquet.compression", "Parquet"),
                              ("ORC", "orc.compress", "ORC")):
        name = stored.lower()
        spark.sql(f"CREATE TABLE hms.{db}.{name} (a INT) PARTITIONED BY (p INT) "
                  f"STORED AS {stored} TBLPROPERTIES ('{key}'='FOO')")
        with pytest.raises(Exception) as refused:
            spark.sql(f"INSERT INTO hms.{db}.{name} VALUES (1, 1)")
        assert str(refused.value).startswith(
            f"hms cannot write table {db}.{name}: its table property {key}='FOO' is not a "
            f"{kind} compression codec (one of "), str(refused.value)
        assert _files(_table_root(client, db, name)) == []
        assert client.list_partition_names(db, name) == []
        with pytest.raises(Exception) as refused:
            spark.sql(f"CREATE TABLE hms.{db}.{name}_ctas STORED AS {stored} "
                      f"TBLPROPERTIES ('{key}'='FOO') AS SELECT 1 AS a")
        assert str(refused.value).startswith(
            f"hms cannot write table {db}.{name}_ctas: its table property {key}='FOO'")
        assert not client.table_exists(db, f"{name}_ctas")
    # A write option names the codec over the table's property, as for Spark's own tables.
    spark.range(3).selectExpr("CAST(id AS INT) AS a", "1 AS p").writeTo(
        f"hms.{db}.parquet").option("compression", "gzip").append()
    assert _codecs(_table_root(client, db, "parquet"), "PARQUET") == {"GZIP"}


def test_too_many_partitions_writes_nothing(spark: Any, db: str,
                                            client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (0, 'before', 'd', 0)")
    root = _table_root(client, db, "t")
    before = _files(root)
    spark.sql("SET hive.exec.max.dynamic.partitions=2")
    with pytest.raises(Exception, match=re.escape(
            "Number of dynamic partitions created is 3, which is more than 2. To solve this "
            "try to set hive.exec.max.dynamic.partitions to at least 3.")):
        spark.sql(f"INSERT INTO hms.{db}.t SELECT id, 'x', 'd', id FROM range(3)")
    assert _files(root) == before
    assert client.list_partition_names(db, "t") == ["dt=d/hr=0"]
    assert _rows(spark, f"SELECT a, b FROM hms.{db}.t") == [(0, "before")]


def test_a_metastore_failure_at_commit_leaves_the_table_unchanged(
    spark: Any, db: str, hms: Any, client: MetastoreClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'old', 'd', 1), (2, 'old', 'd', 2)")
    root = _table_root(client, db, "t")
    before = _files(root)
    calls = []
    real_add = type(hms.client).add_partitions_if_absent

    def add_then_fail(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        real_add(self, *args, **kwargs)  # the new partition is registered...
        raise MetastoreUnavailable("metastore went away")  # ... then the connection drops

    monkeypatch.setattr(type(hms.client), "add_partitions_if_absent", add_then_fail)
    with pytest.raises(Exception, match="metastore went away"):
        spark.sql(f"INSERT OVERWRITE TABLE hms.{db}.t "
                  "SELECT 9, 'new', 'd', CAST(id + 1 AS INT) FROM range(3)")
    monkeypatch.undo()
    assert calls
    assert _files(root) == before
    assert client.list_partition_names(db, "t") == ["dt=d/hr=1", "dt=d/hr=2"]
    assert _rows(spark, f"SELECT a, b, hr FROM hms.{db}.t") == [(1, "old", 1), (2, "old", 2)]
    # The same write succeeds once the metastore answers.
    spark.sql(f"INSERT OVERWRITE TABLE hms.{db}.t "
              "SELECT 9, 'new', 'd', CAST(id + 1 AS INT) FROM range(3)")
    assert _rows(spark, f"SELECT a, b, hr FROM hms.{db}.t") == [(9, "new", 1), (9, "new", 2),
                                                                (9, "new", 3)]


def test_concurrent_appends_to_one_partition_both_land(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    errors: list[BaseException] = []

    def append(first: int) -> None:
        try:
            spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='d', hr=1) "
                      f"SELECT id, 'w' FROM range({first}, {first + 100})")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=append, args=(n * 100,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _rows(spark, f"SELECT count(*), count(DISTINCT a) FROM hms.{db}.t") == [(200, 200)]


@pytest.mark.builtin
def test_ctas_writeto_and_unpartitioned_tables(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.hive_ctas PARTITIONED BY (dt) STORED AS PARQUET AS "
              "SELECT id AS a, CAST(id % 3 AS STRING) AS dt FROM range(6)")
    spark.sql(f"CREATE TABLE hms.{db}.spark_ctas USING orc PARTITIONED BY (dt) AS "
              "SELECT id AS a, CAST(id % 3 AS STRING) AS dt FROM range(6)")
    for table in ("hive_ctas", "spark_ctas"):
        expected = [(str(d), 2) for d in range(3)]
        grouped = "SELECT dt, count(*) FROM {}.{}.{} GROUP BY dt"
        assert _rows(spark, grouped.format("hms", db, table)) == expected
        assert _rows(spark, grouped.format("spark_catalog", db, table)) == expected
    df = spark.range(4).selectExpr("id AS a", "CAST(id % 2 AS STRING) AS dt")
    df.writeTo(f"hms.{db}.d").partitionedBy("dt").using("parquet").create()
    df.writeTo(f"hms.{db}.d").append()
    df.where("dt = '1'").writeTo(f"hms.{db}.d").overwritePartitions()
    counts = f"SELECT dt, count(*) FROM hms.{db}.d GROUP BY dt"
    assert _rows(spark, counts) == [("0", 4), ("1", 2)]
    df.writeTo(f"hms.{db}.d").partitionedBy("dt").using("parquet").createOrReplace()
    assert _rows(spark, counts) == [("0", 2), ("1", 2)]
    spark.sql(f"CREATE TABLE hms.{db}.u (a INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.u VALUES (1), (2)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.u VALUES (3)")
    assert _rows(spark, f"SELECT * FROM spark_catalog.{db}.u") == [(3,)]
    spark.sql(f"INSERT OVERWRITE hms.{db}.u SELECT 4 WHERE false")
    assert _rows(spark, f"SELECT * FROM hms.{db}.u") == []


@pytest.mark.thorough
def test_no_value_places_a_file_outside_the_table(spark: Any, db: str,
                                                  client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p STRING) STORED AS PARQUET")
    values = ["../../escape", "/abs/path", "..", "a/../b"]
    for value in values:
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p='{value}') VALUES (1)")
    root = _table_root(client, db, "t")
    outside = [p for p in root.parent.parent.rglob("*escape*")]
    assert all(root in p.parents for p in outside)
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == [
        "p=%2Fabs%2Fpath", "p=..", "p=..%2F..%2Fescape", "p=a%2F..%2Fb"]
    assert _rows(spark, f"SELECT p FROM hms.{db}.t") == sorted(((v,) for v in values), key=repr)


@pytest.mark.builtin
def test_other_engines_read_what_hms_writes(spark: Any, db: str,
                                            client: MetastoreClient) -> None:
    import duckdb
    import pyarrow.dataset as ds

    spark.sql(f"CREATE TABLE hms.{db}.t (a BIGINT, b STRING) PARTITIONED BY (dt STRING, hr INT) "
              "STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t SELECT id, concat('v', id), "
              "concat('2024-01-0', CAST(id % 3 + 1 AS STRING)), CAST(id % 2 AS INT) FROM range(12)")
    expected = _rows(spark, f"SELECT a, b, dt, hr FROM spark_catalog.{db}.t")
    assert _rows(spark, f"SELECT a, b, dt, hr FROM hms.{db}.t") == expected
    root = _table_root(client, db, "t")
    table = ds.dataset(str(root), format="parquet", partitioning="hive").to_table()
    arrow_rows = sorted(zip(table["a"].to_pylist(), table["b"].to_pylist(),
                            [str(v) for v in table["dt"].to_pylist()],
                            table["hr"].to_pylist(), strict=True), key=repr)
    assert arrow_rows == expected
    duck = duckdb.sql(
        f"SELECT a, b, CAST(dt AS VARCHAR), CAST(hr AS INTEGER) FROM read_parquet("
        f"'{root}/*/*/*.parquet', hive_partitioning = true)").fetchall()
    assert sorted(duck, key=repr) == expected


@pytest.mark.thorough
def test_per_task_limit_and_partition_columns_in_data_files(spark: Any, db: str,
                                                            client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql("SET hive.exec.max.dynamic.partitions.pernode=2")
    try:
        with pytest.raises(Exception, match=re.escape(
                "Maximum was set to 2 partitions per node, number of dynamic partitions on this "
                "node: 3")):
            spark.sql(f"INSERT INTO hms.{db}.t SELECT /*+ COALESCE(1) */ id, 'x', 'd', id "
                      "FROM range(3)")
    finally:
        spark.sql("RESET hive.exec.max.dynamic.partitions.pernode")
    assert client.list_partition_names(db, "t") == []
    spark.sql(f"CREATE TABLE hms.{db}.inside {SCHEMA} "
              "TBLPROPERTIES ('partition_columns_in_data_file'='true')")
    spark.sql(f"INSERT INTO hms.{db}.inside PARTITION (dt='d', hr=1) VALUES (1, 'x')")
    import pyarrow.parquet as pq

    [written] = _table_root(client, db, "inside").glob("dt=d/hr=1/part-*")
    assert pq.ParquetFile(written).schema_arrow.names == ["a", "b", "dt", "hr"]
    assert _rows(spark, f"SELECT * FROM hms.{db}.inside") == [(1, "x", "d", 1)]


def test_a_failing_task_or_storage_leaves_the_table_unchanged(
    spark: Any, db: str, client: MetastoreClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'old', 'd', 1)")
    root = _table_root(client, db, "t")
    before = _files(root)
    # A task dies halfway through the rows.
    with pytest.raises(Exception, match="task failed on purpose"):
        spark.sql(f"INSERT OVERWRITE TABLE hms.{db}.t SELECT id, "
                  "CASE WHEN id < 50 THEN 'new' ELSE raise_error('task failed on purpose') END, "
                  "'d', CAST(id % 3 AS INT) FROM range(100)")
    assert _files(root) == before
    # Storage fails while the commit moves files (the third move).
    from hmscatalog.storage import local

    real_rename = local.os.rename
    moves = []

    def rename(source: Any, target: Any) -> None:
        moves.append(source)
        if len(moves) == 3:
            raise OSError(28, "No space left on device")
        real_rename(source, target)

    monkeypatch.setattr(local.os, "rename", rename)
    with pytest.raises(Exception, match="No space left on device"):
        spark.sql(f"INSERT OVERWRITE TABLE hms.{db}.t "
                  "SELECT id, 'new', 'd', CAST(id % 3 AS INT) FROM range(100)")
    monkeypatch.undo()
    assert len(moves) > 3  # the two moves made before the failure were undone
    assert _files(root) == before
    assert client.list_partition_names(db, "t") == ["dt=d/hr=1"]
    assert _rows(spark, f"SELECT a, b FROM hms.{db}.t") == [(1, "old")]


@pytest.mark.thorough
def test_appends_go_to_a_partitions_stored_location(spark: Any, db: str,
                                                    client: MetastoreClient,
                                                    tmp_path: Path) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) PARTITIONED BY (p INT) STORED AS PARQUET")
    table = client.get_table(db, "t")
    elsewhere = tmp_path / "elsewhere"
    client.add_partitions(table, [client.new_partition(table, [7], location=f"file:{elsewhere}")])
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p=7) VALUES (1), (2)")
    spark.sql(f"INSERT OVERWRITE TABLE hms.{db}.t PARTITION (p=7) VALUES (3)")
    # The replacing file went to a directory of its own below the partition's.
    location = local_path(client.get_partition(db, "t", ["7"]).location)
    assert location is not None and location.parent == elsewhere
    assert [f.name.endswith(".parquet") for f in location.iterdir()] == [True]
    assert not (_table_root(client, db, "t") / "p=7").exists()
    assert _rows(spark, f"SELECT a, p FROM hms.{db}.t") == [(3, 7)]
    assert client.get_partition(db, "t", ["7"]).parameters["numRows"] == "1"


@pytest.mark.thorough
def test_a_failed_statistics_update_is_undone(spark: Any, db: str, hms: Any,
                                              client: MetastoreClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t {SCHEMA}")
    spark.sql(f"CREATE TABLE hms.{db}.u (a INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'old', 'd', 1)")
    spark.sql(f"INSERT INTO hms.{db}.u VALUES (1)")
    roots = {name: _table_root(client, db, name) for name in ("t", "u")}
    files = {name: _files(root) for name, root in roots.items()}
    stats_before = (client.get_partition(db, "t", ["d", "1"]).parameters,
                    client.get_table(db, "u").parameters)
    assert stats_before[0]["numRows"] == "1" and stats_before[1]["numRows"] == "1"
    kind = type(hms.client)
    failures = []

    def applied_then_lost(method: str) -> Any:
        real = getattr(kind, method)

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            real(self, *args, **kwargs)  # the server applies the new statistics...
            if not failures:  # ... and the first such call loses its answer
                failures.append(method)
                raise MetastoreUnavailable("metastore went away")
        return call

    monkeypatch.setattr(kind, "alter_partitions", applied_then_lost("alter_partitions"))
    monkeypatch.setattr(kind, "alter_table_parameters",
                        applied_then_lost("alter_table_parameters"))
    with pytest.raises(Exception, match="metastore went away"):
        spark.sql(f"INSERT INTO hms.{db}.t PARTITION (dt='d', hr=1) VALUES (2, 'new')")
    failures.clear()
    with pytest.raises(Exception, match="metastore went away"):
        spark.sql(f"INSERT INTO hms.{db}.u VALUES (2)")
    monkeypatch.undo()
    assert {name: _files(root) for name, root in roots.items()} == files
    stats_after = (client.get_partition(db, "t", ["d", "1"]).parameters,
                   client.get_table(db, "u").parameters)
    for before, after in zip(stats_before, stats_after, strict=True):
        for key in ("numFiles", "numRows", "totalSize"):
            assert after[key] == before[key], key
    assert _rows(spark, f"SELECT a FROM hms.{db}.t") == [(1,)]
    assert _rows(spark, f"SELECT a FROM hms.{db}.u") == [(1,)]
