"""Tables stored with Hive SerDes (text, OpenCSV, SequenceFile, RCFile, Avro) read through hms
against Spark's built-in Hive catalog on the same tables: same rows, each partition with its own
format, and a one-line refusal naming the table for what hms cannot read exactly."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Column

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.builtin]

COLUMNS = ("id INT, s STRING, d DECIMAL(10,2), ts TIMESTAMP, dd DATE, b BOOLEAN, "
           "arr ARRAY<INT>, m MAP<STRING,INT>, st STRUCT<x:INT,y:STRING>")
ROWS = ("(1, 'a,b', 1.50, TIMESTAMP'2024-01-01 10:00:00', DATE'2024-01-01', true, array(1, 2), "
        "map('k', 1), named_struct('x', 1, 'y', 'q')), "
        "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
        "(3, '', 0, TIMESTAMP'1970-01-01 00:00:00', DATE'1900-01-01', false, array(), map(), "
        "named_struct('x', NULL, 'y', ''))")


NULL_FORMAT = "serialization.null.format"
# Hive's JSON SerDe (hive-hcatalog-core, on the session's class path: session_conf(json=True)).
JSON = "ROW FORMAT SERDE 'org.apache.hive.hcatalog.data.JsonSerDe' STORED AS TEXTFILE"


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def refusal(spark: Any, statement: str) -> str:
    """The first line of the error ``statement`` fails with."""
    with pytest.raises(Exception) as raised:
        spark.sql(statement).collect()
    return first_line(raised.value)


def rows(spark: Any, query: str) -> list[Any]:
    return sorted(spark.sql(query).collect(), key=repr)


def same_rows(spark: Any, db: str, table: str, where: str = "") -> list[Any]:
    """The rows of ``table`` through hms, asserted equal to the built-in's."""
    ours = rows(spark, f"SELECT * FROM hms.{db}.{table} {where}")
    theirs = rows(spark, f"SELECT * FROM spark_catalog.{db}.{table} {where}")
    assert ours == theirs
    return ours


def location(client: MetastoreClient, db: str, table: str) -> Path:
    return Path((client.get_table(db, table).location or "").removeprefix("file:"))


@pytest.mark.parametrize("stored", [
    "STORED AS TEXTFILE",
    "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' "
    "COLLECTION ITEMS TERMINATED BY '|' MAP KEYS TERMINATED BY '=' NULL DEFINED AS 'NA' "
    "STORED AS TEXTFILE",
    "ROW FORMAT DELIMITED FIELDS TERMINATED BY '9' STORED AS TEXTFILE",  # a byte number: tab
    "STORED AS SEQUENCEFILE",
    "STORED AS RCFILE",
    "STORED AS AVRO",
    JSON,
])
@pytest.mark.cases(1)
def test_tables_the_builtin_wrote_read_the_same(spark: Any, db: str, stored: str) -> None:
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t ({COLUMNS}) PARTITIONED BY (p INT) {stored}")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p=1) VALUES {ROWS}")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p=2) VALUES {ROWS}")
    assert len(same_rows(spark, db, "t")) == 6
    assert [r.id for r in same_rows(spark, db, "t", "WHERE p = 2 AND id > 1")] == [2, 3]
    assert "partitions=1/2" in spark.sql(
        f"EXPLAIN SELECT * FROM hms.{db}.t WHERE p = 2").collect()[0][0]


def test_text_files_as_hive_parses_them(spark: Any, db: str, client: MetastoreClient) -> None:
    """Hand-written text: unparseable numbers, missing and extra fields, the null format, an
    escaped delimiter, an empty line: Hive's LazySimpleSerDe semantics on both sides."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.raw (i INT, s STRING, x DOUBLE) "
              "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' STORED AS TEXTFILE")
    (location(client, db, "raw") / "data.txt").write_text(
        "1,one,1.5\nnot-a-number,two,2\n3\n4,four,4,extra\n\\N,\\N,\\N\n5,a\\,b,Infinity\n\n"
        "6,,\n")
    got = same_rows(spark, db, "raw")
    assert [tuple(r) for r in got if r.i in (1, 4, 5, 6)] == [
        (1, "one", 1.5), (4, "four", 4.0), (5, "a,b", float("inf")),
        (6, "", None)]
    assert (None, "two", 2.0) in [tuple(r) for r in got]  # Hive reads a bad INT as NULL


def test_text_encoding_and_header(spark: Any, db: str, client: MetastoreClient) -> None:
    """``serialization.encoding`` is decoded by the SerDe, as in the built-in; the header line
    of ``skip.header.line.count`` is skipped, as Hive does (Spark's built-in reader up to 4.3
    returns it as a row)."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.latin (s STRING, n INT) "
              "ROW FORMAT DELIMITED FIELDS TERMINATED BY ';' STORED AS TEXTFILE "
              "TBLPROPERTIES ('skip.header.line.count'='1')")
    table = client.get_table(db, "latin")
    client.alter_table(replace(table, storage=replace(table.storage, serde_parameters={
        **table.storage.serde_parameters, "serialization.encoding": "ISO-8859-1"})))
    (location(client, db, "latin") / "f.txt").write_bytes("name;n\ncafé;1\nnaïve;2\n"
                                                         .encode("latin-1"))
    ours = rows(spark, f"SELECT * FROM hms.{db}.latin")
    assert [tuple(r) for r in ours] == [("café", 1), ("naïve", 2)]
    theirs = rows(spark, f"SELECT * FROM spark_catalog.{db}.latin")
    assert [tuple(r) for r in theirs if r.s != "name"] == [tuple(r) for r in ours]


def test_open_csv_serde(spark: Any, db: str, client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE spark_catalog.{db}.csv (a STRING, b STRING, n STRING) "
              "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' "
              "WITH SERDEPROPERTIES ('separatorChar'=';', 'quoteChar'='\"', 'escapeChar'='\\\\') "
              "STORED AS TEXTFILE")
    (location(client, db, "csv") / "f.csv").write_text(
        '"x;1";y;7\nz;"q""w";8\n"e\\"s";;\n')
    got = same_rows(spark, db, "csv")
    assert [tuple(r) for r in got] == [("e\"s", "", ""), ("x;1", "y", "7"), ("z", 'q"w', "8")]


def test_each_partition_with_its_own_format(spark: Any, db: str,
                                            client: MetastoreClient) -> None:
    """After the table's format changes (Hive's ALTER TABLE ... SET FILEFORMAT), old partitions
    keep theirs and are read with it, as Hive reads them. The built-in catalog reads every
    partition with the table's input format, so it cannot read the old one."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.mixed (id INT, s STRING) PARTITIONED BY (p INT) "
              "STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.mixed PARTITION (p=1) VALUES (1, 'text')")
    table = client.get_table(db, "mixed")
    client.alter_table(replace(table, storage=replace(
        table.storage, input_format="org.apache.hadoop.mapred.SequenceFileInputFormat",
        output_format="org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat")))
    spark.sql(f"INSERT INTO spark_catalog.{db}.mixed PARTITION (p=2) VALUES (2, 'sequence')")
    formats = {p.values[0]: p.storage.input_format for p in client.list_partitions(db, "mixed")}
    assert formats == {"1": "org.apache.hadoop.mapred.TextInputFormat",
                       "2": "org.apache.hadoop.mapred.SequenceFileInputFormat"}
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.mixed")] == [
        (1, "text", 1), (2, "sequence", 2)]


def test_partitions_keep_their_columns(spark: Any, db: str, client: MetastoreClient) -> None:
    """ADD COLUMNS (without CASCADE) leaves old partitions with their own columns; their rows
    are read with them and converted to the table's schema, so the new column is NULL there
    even where a file has a value for it, as in Hive. The built-in catalog reads every
    partition with the table's columns."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.grown (id INT, s STRING) PARTITIONED BY (p INT) "
              "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.grown PARTITION (p=1) VALUES (1, 'old')")
    spark.sql(f"ALTER TABLE spark_catalog.{db}.grown ADD COLUMNS (n BIGINT)")
    spark.sql(f"INSERT INTO spark_catalog.{db}.grown PARTITION (p=2) VALUES (2, 'new', 7)")
    old = next(p for p in client.list_partitions(db, "grown") if p.values == ("1",))
    assert [c.name for c in old.columns] == ["id", "s"]
    part_dir = Path((old.location or "").removeprefix("file:"))
    (part_dir / "extra.txt").write_text("3,more,99\n")  # the partition's SerDe stops at s
    ours = [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.grown")]
    assert ours == [(1, "old", None, 1), (2, "new", 7, 2), (3, "more", None, 1)]
    theirs = [tuple(r) for r in rows(spark, f"SELECT * FROM spark_catalog.{db}.grown")]
    assert theirs == [(1, "old", None, 1), (2, "new", 7, 2), (3, "more", 99, 1)]


def test_unreadable_tables_are_refused_by_name(spark: Any, db: str,
                                               client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE spark_catalog.{db}.footer (s STRING) STORED AS TEXTFILE "
              "TBLPROPERTIES ('skip.footer.line.count'='1')")
    assert refusal(spark, f"SELECT * FROM hms.{db}.footer").endswith(
        f"hms cannot read table {db}.footer: its property skip.footer.line.count=1 is not "
        "supported (its files' last lines are footers Spark's reader keeps)")

    client.create_table(replace(
        client.get_table(db, "footer"), name="json", parameters={},
        columns=(Column("a", "string"),),
        storage=replace(client.get_table(db, "footer").storage,
                        location=None, serde="org.openx.data.jsonserde.JsonSerDe")))
    assert refusal(spark, f"SELECT * FROM hms.{db}.json").endswith(
        f"hms cannot read table {db}.json: its SerDe org.openx.data.jsonserde.JsonSerDe "
        "is not on Spark's class path")


STORED = [
    "STORED AS TEXTFILE",
    "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' "
    "COLLECTION ITEMS TERMINATED BY '|' MAP KEYS TERMINATED BY '=' NULL DEFINED AS 'NA' "
    "STORED AS TEXTFILE",
    "STORED AS SEQUENCEFILE",
    "STORED AS RCFILE",
    "STORED AS AVRO",
    JSON,
    "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' "
    "WITH SERDEPROPERTIES ('field.delim'='|') "
    "STORED AS INPUTFORMAT 'org.apache.hadoop.mapred.TextInputFormat' "
    "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat'",
]


@pytest.mark.parametrize("stored", STORED)
@pytest.mark.cases(1)
def test_each_reads_what_the_other_wrote(spark: Any, db: str, client: MetastoreClient,
                                         stored: str) -> None:
    """CREATE TABLE stores what the built-in stores; rows hms writes (static and dynamic
    partitions) read the same through the built-in, and the other way round; text files
    are byte for byte the built-in's."""
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} ({COLUMNS}) PARTITIONED BY (p INT) "
                  f"{stored}")
    if "NULL DEFINED AS" in stored:  # stored as Hive stores it; the built-in's CREATE drops it
        assert client.get_table(db, "ours").storage.serde_parameters[NULL_FORMAT] == "NA"
        spark.sql(f"ALTER TABLE spark_catalog.{db}.theirs SET SERDEPROPERTIES "
                  f"('{NULL_FORMAT}'='NA')")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    assert replace(ours.storage, location=None) == replace(theirs.storage, location=None)
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"INSERT INTO {catalog}.{db}.{name} PARTITION (p=1) VALUES {ROWS}")
        spark.sql(f"INSERT INTO {catalog}.{db}.{name} PARTITION (p) "
                  f"SELECT *, 2 FROM VALUES {ROWS}")
    assert len(same_rows(spark, db, "ours")) == len(same_rows(spark, db, "theirs")) == 6
    assert rows(spark, f"SELECT * FROM hms.{db}.ours") == \
        rows(spark, f"SELECT * FROM hms.{db}.theirs")
    if "TEXT" in stored.upper():
        for p in ("p=1", "p=2"):
            written = [b"".join(f.read_bytes() for f in sorted((location(client, db, t) / p)
                                                              .glob("part-*")))
                       for t in ("ours", "theirs")]
            assert written[0] == written[1]
            assert written[0].count(b"\n") == 3


def test_text_values_with_delimiters_and_escapes(spark: Any, db: str) -> None:
    """Delimiters, escapes and the NULL format inside written values come back as they were
    written, escaped by the SerDe as the built-in writes them."""
    spark.sql(f"CREATE TABLE hms.{db}.esc (s STRING, arr ARRAY<STRING>) "
              "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' "
              "COLLECTION ITEMS TERMINATED BY ';' NULL DEFINED AS '<null>' STORED AS TEXTFILE")
    values = ["a,b", "c\\d", "semi;colon", "line\nbreak", "", "<null>", None]
    spark.createDataFrame([(v,) for v in values], "s STRING").createOrReplaceTempView("esc_in")
    spark.sql(f"INSERT INTO hms.{db}.esc SELECT s, array('x;y', 'z') FROM esc_in")
    ours = rows(spark, f"SELECT s, arr FROM hms.{db}.esc")
    assert ours == rows(spark, f"SELECT s, arr FROM spark_catalog.{db}.esc")
    # A newline in a value ends the line: Hive and the built-in read two rows from it (unless
    # the table sets serialization.escape.crlf=true), and so does hms. A value that is the
    # NULL format reads as NULL, as in Hive.
    expected = [None if v == "<null>" else v for v in values if v != "line\nbreak"] + [
        "line", "break"]
    assert sorted((r.s for r in ours), key=repr) == sorted(expected, key=repr)
    assert all(r.arr == ["x;y", "z"] for r in ours if r.s != "line")


@pytest.mark.thorough
def test_ctas_and_overwrite_of_a_text_table(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.c STORED AS TEXTFILE PARTITIONED BY (p) AS "
              "SELECT id, CAST(id AS STRING) AS s, CAST(id % 2 AS INT) AS p FROM range(6)")
    assert len(same_rows(spark, db, "c")) == 6
    spark.sql(f"INSERT OVERWRITE hms.{db}.c PARTITION (p=0) SELECT 100, 'new'")
    assert [tuple(r) for r in same_rows(spark, db, "c", "WHERE p = 0")] == [(100, "new", 0)]


def test_writes_that_would_lose_rows_are_refused(spark: Any, db: str,
                                                 client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.h (s STRING) STORED AS TEXTFILE "
              "TBLPROPERTIES ('skip.header.line.count'='1')")
    assert refusal(spark, f"INSERT INTO hms.{db}.h VALUES ('a')").endswith(
        f"hms cannot write table {db}.h: its property skip.header.line.count makes readers "
        "skip the first lines of each file, which would lose written rows")
    assert list(location(client, db, "h").rglob("*")) == []


def test_a_text_fact_table_is_pruned_at_run_time(spark: Any, db: str) -> None:
    """A join on the partition column of a text table reads only the partitions the other
    side's values select, as for Parquet tables."""
    base = f"spark_catalog.{db}"
    spark.sql(f"CREATE TABLE {base}.fact (v BIGINT) PARTITIONED BY (k INT) STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO {base}.fact PARTITION (k) SELECT id, CAST(id % 10 AS INT) "
              "FROM range(100)")
    # A Parquet dimension: its size is known, so Spark broadcasts it and prunes by its values.
    spark.sql(f"CREATE TABLE {base}.dim (d INT, tag STRING) STORED AS PARQUET")
    spark.sql(f"INSERT INTO {base}.dim SELECT id, IF(id IN (2, 7), 'keep', 'drop') "
              "FROM range(10)")
    query = ("SELECT k, sum(v) FROM {c}.fact JOIN {c}.dim ON k = d WHERE tag = 'keep' "
             "GROUP BY k")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        df = spark.sql(query.format(c=f"hms.{db}"))
        ours = sorted(tuple(r) for r in df.collect())
        assert ours == sorted(tuple(r) for r in spark.sql(query.format(c=base)).collect())
        assert ours == [(2, sum(range(2, 100, 10))), (7, sum(range(7, 100, 10)))]
        plan = df._jdf.queryExecution().executedPlan()
        leaves = plan.collectLeaves()
        (scan,) = [leaves.apply(i) for i in range(leaves.size())
                   if ".fact[" in leaves.apply(i).simpleString(1000)]
        description = str(scan.scan().description())
        assert "partitions=2/10" in description and "after runtime filtering" in description
        assert "HiveSerdeScan LazySimpleSerDe" in description
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")


def test_spark_data_source_tables_are_refused(spark: Any, db: str) -> None:
    """A table the built-in created with USING csv keeps a placeholder storage descriptor;
    reading it as a Hive table would find no rows."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.ds (a INT) USING csv")
    spark.sql(f"INSERT INTO spark_catalog.{db}.ds VALUES (1)")
    assert refusal(spark, f"SELECT * FROM hms.{db}.ds").endswith(
        f"hms cannot read table {db}.ds: it is a Spark data source table (USING csv), whose "
        "files and options are in Spark's own table properties, not in its Hive storage "
        "descriptor")


@pytest.mark.thorough
def test_writes_into_a_partition_of_another_format_are_refused(
        spark: Any, db: str, client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.m (id INT) PARTITIONED BY (p INT) STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO hms.{db}.m PARTITION (p=1) VALUES (1)")
    table = client.get_table(db, "m")
    client.alter_table(replace(table, storage=replace(
        table.storage, input_format="org.apache.hadoop.mapred.SequenceFileInputFormat",
        output_format="org.apache.hadoop.mapred.SequenceFileOutputFormat")))
    before = sorted(p.name for p in location(client, db, "m").rglob("*"))
    for write in (f"INSERT INTO hms.{db}.m PARTITION (p=1) VALUES (2)",
                  f"INSERT OVERWRITE hms.{db}.m PARTITION (p) VALUES (3, 1)"):
        assert refusal(spark, write).endswith(
            f"hms cannot write partition p=1 of table {db}.m: it is stored with "
            "org.apache.hadoop.mapred.TextInputFormat and "
            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe, the table with "
            "org.apache.hadoop.mapred.SequenceFileInputFormat and "
            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe; write a new partition, or "
            "drop this one first"), write
    assert sorted(p.name for p in location(client, db, "m").rglob("*")) == before
    spark.sql(f"INSERT INTO hms.{db}.m PARTITION (p=2) VALUES (4)")
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.m")] == [(1, 1), (4, 2)]


@pytest.mark.thorough
def test_open_csv_writes(spark: Any, db: str) -> None:
    ddl = ("(a STRING, b STRING) PARTITIONED BY (p INT) "
           "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' "
           "WITH SERDEPROPERTIES ('separatorChar'=',', 'quoteChar'='\"') STORED AS TEXTFILE")
    spark.sql(f"CREATE TABLE hms.{db}.csv {ddl}")
    spark.sql(f"INSERT INTO hms.{db}.csv PARTITION (p=1) VALUES ('x,y', 'say \"hi\"'), "
              "('', NULL)")
    got = same_rows(spark, db, "csv")
    # OpenCSVSerde writes NULL as an empty field, which reads back as '' (as in Hive).
    assert [tuple(r) for r in got] == [("", "", 1), ("x,y", 'say "hi"', 1)]


@pytest.mark.thorough
def test_bucketed_tables_read_as_plain_tables_and_refuse_writes(
        spark: Any, db: str, client: MetastoreClient) -> None:
    """A bucketed Hive table (written by the built-in, which writes Hive's buckets) reads as a
    plain table; hms refuses to write it, and changes hms makes to its partitions keep the
    bucketing the metastore holds."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.b (id INT, s STRING) PARTITIONED BY (p INT) "
              "CLUSTERED BY (id) SORTED BY (id) INTO 4 BUCKETS STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.b PARTITION (p=1) "
              "SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(20)")
    assert len(same_rows(spark, db, "b")) == 20
    before = location(client, db, "b")
    files = sorted(str(p) for p in before.rglob("*"))
    assert refusal(spark, f"INSERT INTO hms.{db}.b PARTITION (p=2) VALUES (1, 'x')").endswith(
        f"hms cannot write table {db}.b: it is bucketed (CLUSTERED BY (id) INTO 4 BUCKETS), "
        "and hms does not write bucketed output that is compatible with Hive")
    assert sorted(str(p) for p in before.rglob("*")) == files
    spark.sql(f"ANALYZE TABLE hms.{db}.b PARTITION (p=1) COMPUTE STATISTICS")
    (part,) = client.list_partitions(db, "b")
    assert (part.storage.num_buckets, part.storage.bucket_columns,
            part.storage.sort_columns) == (4, ("id",), (("id", 1),))
    assert part.parameters["spark.sql.statistics.numRows"] == "20"


@pytest.mark.parametrize("stored", ["TEXTFILE", "PARQUET"])
@pytest.mark.cases(1)
def test_files_in_subdirectories_of_a_partition(spark: Any, db: str, client: MetastoreClient,
                                                stored: str) -> None:
    """Hive on Tez writes UNION ALL output to HIVE_UNION_SUBDIR_<n>/ below the partition. By
    default hms reads them as the built-in does: a Parquet table's files directly in the
    partition directory only; a text table's input format refuses the directory (hms names
    it and the setting). With hmscatalog.read.recursive-directories, the files below are read
    too."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.u (id INT) PARTITIONED BY (p INT) "
              f"STORED AS {stored}")
    spark.sql(f"INSERT INTO spark_catalog.{db}.u PARTITION (p=1) VALUES (1)")
    part = location(client, db, "u") / "p=1"
    for n in (1, 2):
        nested = part / f"HIVE_UNION_SUBDIR_{n}" / ("deeper" if n == 2 else "")
        nested.mkdir(parents=True)
        for data in part.glob("part-*"):
            (nested / data.name).write_bytes(data.read_bytes())
    if stored == "PARQUET":
        assert [tuple(r) for r in same_rows(spark, db, "u")] == [(1, 1)]
    else:
        with pytest.raises(Exception) as raised:
            spark.sql(f"SELECT * FROM hms.{db}.u").collect()
        assert re.search(re.escape(
            f"hms cannot read table {db}.u: file:{part} holds the directory "
            f"file:{part}/HIVE_UNION_SUBDIR_") + "[12]" + re.escape(
            "; set TBLPROPERTIES ('hmscatalog.read.recursive-directories'='true') to read the "
            "files below it (Hive on Tez writes UNION ALL output there)") + "$",
            first_line(raised.value))
    spark.sql(f"ALTER TABLE hms.{db}.u SET TBLPROPERTIES "
              "('hmscatalog.read.recursive-directories'='true')")
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.u")] == [(1, 1)] * 3
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.u WHERE p = 2")] == []


@pytest.mark.parametrize("stored", ["TEXTFILE", "PARQUET"])
@pytest.mark.thorough
def test_truncate_table_and_partitions(spark: Any, db: str, client: MetastoreClient,
                                       stored: str) -> None:
    """TRUNCATE TABLE [PARTITION] through hms leaves what the built-in's leaves: the
    partitions, without rows; an external table is refused, nothing removed."""
    for name in ("ours", "theirs"):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name} (id INT) PARTITIONED BY (p INT) "
                  f"STORED AS {stored}")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name} PARTITION (p) "
                  "SELECT CAST(id AS INT), CAST(id % 3 AS INT) FROM range(9)")
    spark.sql(f"TRUNCATE TABLE hms.{db}.ours PARTITION (p=1)")
    spark.sql(f"TRUNCATE TABLE spark_catalog.{db}.theirs PARTITION (p=1)")
    for name in ("ours", "theirs"):
        assert [r.p for r in rows(spark, f"SELECT DISTINCT p FROM hms.{db}.{name}")] == [0, 2]
        assert len(client.list_partition_names(db, name)) == 3
    assert rows(spark, f"SELECT * FROM hms.{db}.ours") == \
        rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs")
    spark.sql(f"TRUNCATE TABLE hms.{db}.ours")
    spark.sql(f"TRUNCATE TABLE spark_catalog.{db}.theirs")
    for name in ("ours", "theirs"):
        assert rows(spark, f"SELECT * FROM spark_catalog.{db}.{name}") == []
        assert len(client.list_partition_names(db, name)) == 3
    assert refusal(spark, f"TRUNCATE TABLE hms.{db}.ours PARTITION (p=7)").startswith(
        "[PARTITIONS_NOT_FOUND] The partition(s) PARTITION (`p` = 7) cannot be found in table")

    spark.sql(f"CREATE EXTERNAL TABLE spark_catalog.{db}.ext (id INT) STORED AS {stored} "
              f"LOCATION 'file:{location(client, db, 'ours').parent}/ext'")
    spark.sql(f"INSERT INTO spark_catalog.{db}.ext VALUES (1)")
    assert refusal(spark, f"TRUNCATE TABLE hms.{db}.ext").endswith(
        f"hms cannot truncate table {db}.ext: it is an external table, whose files TRUNCATE "
        "TABLE does not remove (as in Hive and Spark)")
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.ext")] == [(1,)]


def test_views_in_the_metastore_are_not_tables(spark: Any, db: str) -> None:
    """A view (VIRTUAL_VIEW) is not taken for a table of no files by statements that need a
    table: they are refused, naming it (queries read it: test_views.py)."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.base (id INT) STORED AS TEXTFILE")
    spark.sql(f"CREATE VIEW spark_catalog.{db}.v AS SELECT id FROM spark_catalog.{db}.base")
    assert refusal(spark, f"SHOW TBLPROPERTIES hms.{db}.v").endswith(
        f"{db}.v in catalog hms is a view: hms reads views in queries, and this statement "
        "needs a table")


@pytest.mark.thorough
def test_hive_multi_insert_into_text_tables(spark: Any, db: str) -> None:
    """FROM src INSERT INTO t1 ... INSERT INTO t2 PARTITION (...) ...: one statement writing
    two text tables, through each catalog; the same rows land in both."""
    for c in ("hms", "spark_catalog"):
        name = "ours" if c == "hms" else "theirs"
        spark.sql(f"CREATE TABLE {c}.{db}.{name}_a (id BIGINT, s STRING) "
                  "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE")
        spark.sql(f"CREATE TABLE {c}.{db}.{name}_b (id BIGINT) PARTITIONED BY (p STRING) "
                  "STORED AS TEXTFILE")
        spark.sql(f"FROM (SELECT id, CAST(id AS STRING) AS s FROM range(10)) src "
                  f"INSERT INTO {c}.{db}.{name}_a SELECT id, s WHERE id < 5 "
                  f"INSERT INTO {c}.{db}.{name}_b PARTITION (p='even') SELECT id WHERE id % 2 = 0 "
                  f"INSERT INTO {c}.{db}.{name}_b PARTITION (p='odd') SELECT id WHERE id % 2 = 1")
    for suffix, expected in (("a", 5), ("b", 10)):
        ours = rows(spark, f"SELECT * FROM spark_catalog.{db}.ours_{suffix}")
        assert ours == rows(spark, f"SELECT * FROM hms.{db}.theirs_{suffix}")
        assert len(ours) == expected


@pytest.mark.thorough
def test_describe_partition(spark: Any, db: str) -> None:
    """DESCRIBE TABLE [EXTENDED] ... PARTITION through hms (on every supported Spark: 4.0 and 4.1
    refuse the clause for other catalogs, hms answers it) shows the built-in's column rows, with
    their comments, and partition values, then the partition's location and parameters, one row
    each (Spark's layout for catalogs other than its own; the built-in prints its storage rows
    and a "Partition Parameters" list instead). A missing partition and a partial spec are
    refused as the built-in refuses them."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t (id INT COMMENT 'the id', s STRING) "
              "PARTITIONED BY (p INT, d DATE) STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.t PARTITION (p=1, d='2024-01-02') VALUES (1, 'x')")
    clause = "PARTITION (p=1, d='2024-01-02')"

    def described(catalog: str, extended: str = "EXTENDED ") -> list[tuple[str, str, str]]:
        got = spark.sql(f"DESCRIBE TABLE {extended}{catalog}.{db}.t {clause}").collect()
        return [tuple(r) for r in got]

    plain = described("hms", "")
    assert plain == described("spark_catalog", "")
    assert plain[0] == ("id", "int", "the id")
    ours, theirs = described("hms"), described("spark_catalog")
    assert ours[:len(plain)] == plain
    assert ours[len(plain):len(plain) + 3] == [
        ("", "", ""), ("# Detailed Partition Information", "", ""),
        ("Partition Values", "[p=1, d=2024-01-02]", "")]
    assert ("Partition Values", "[p=1, d=2024-01-02]", "") in theirs
    details = {name: value for name, value, _ in ours[len(plain) + 3:]}
    assert details["location"].rstrip("/").endswith("/t/p=1/d=2024-01-02")
    parameters = next(value for name, value, _ in theirs if name == "Partition Parameters")
    for key in ("numFiles", "totalSize"):
        assert f"{key}={details[key]}" in parameters, key
    for catalog in ("hms", "spark_catalog"):
        missing = refusal(spark, f"DESCRIBE TABLE {catalog}.{db}.t PARTITION (p=2, d='2024-01-02')")
        assert missing.startswith("[PARTITIONS_NOT_FOUND]"), missing
    partial = refusal(spark, f"DESCRIBE TABLE hms.{db}.t PARTITION (p=1)")
    assert partial.startswith("Partition spec is invalid."), partial
    assert "hms" in partial and "p, d" in partial


@pytest.mark.thorough
def test_rename_partition(spark: Any, db: str, client: MetastoreClient, tmp_path: Path) -> None:
    """ALTER TABLE ... PARTITION ... RENAME TO PARTITION through hms leaves what the built-in
    leaves: the partition under its new values, its directory moved to the new name (for a
    managed table, by the metastore); renaming onto an existing or from a missing partition is
    refused as the built-in refuses it."""
    for c, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name} (id INT) PARTITIONED BY (p INT) "
                  "STORED AS TEXTFILE")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name} PARTITION (p) VALUES (1, 1), (2, 2)")
        spark.sql(f"ALTER TABLE spark_catalog.{db}.{name} ADD PARTITION (p=9) "
                  f"LOCATION 'file:{tmp_path / name}'")
        spark.sql(f"ALTER TABLE {c}.{db}.{name} PARTITION (p=1) RENAME TO PARTITION (p=5)")
        spark.sql(f"ALTER TABLE {c}.{db}.{name} PARTITION (p=9) RENAME TO PARTITION (p=8)")
    for name in ("ours", "theirs"):
        assert client.list_partition_names(db, name) == ["p=2", "p=5", "p=8"]
        assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.{name}")] == [
            (1, 5), (2, 2)]
        moved = client.get_partition(db, name, ["5"]).location or ""
        assert moved.rstrip("/").endswith(f"/{name}/p=5")
        # The metastore moves a managed table's partition to the new values' default place,
        # from a location of its own too.
        elsewhere = client.get_partition(db, name, ["8"]).location or ""
        assert elsewhere.rstrip("/").endswith(f"/{name}/p=8")
    assert refusal(spark, f"ALTER TABLE hms.{db}.ours PARTITION (p=2) RENAME TO PARTITION (p=5)"
                   ).startswith("[PARTITIONS_ALREADY_EXIST]")
    assert refusal(spark, f"ALTER TABLE hms.{db}.ours PARTITION (p=3) RENAME TO PARTITION (p=6)"
                   ).startswith("[PARTITIONS_NOT_FOUND]")


@pytest.mark.thorough
def test_partition_set_location(spark: Any, db: str, client: MetastoreClient,
                                tmp_path: Path) -> None:
    """ALTER TABLE ... PARTITION ... SET LOCATION through hms points the partition where the
    built-in's does, moving no file; the partition then reads from there. A missing partition is
    refused as the built-in refuses it."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.src (id INT) PARTITIONED BY (p INT) "
              "STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.src PARTITION (p=7) VALUES (70), (71)")
    elsewhere = client.get_partition(db, "src", ["7"]).location or ""
    for c, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name} (id INT) PARTITIONED BY (p INT) "
                  "STORED AS TEXTFILE")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name} PARTITION (p) VALUES (1, 1), (2, 2)")
        spark.sql(f"ALTER TABLE {c}.{db}.{name} PARTITION (p=1) SET LOCATION '{elsewhere}'")
    for name in ("ours", "theirs"):
        assert client.get_partition(db, name, ["1"]).location == elsewhere
        assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.{name}")] == [
            (2, 2), (70, 1), (71, 1)]
    assert refusal(spark, f"ALTER TABLE hms.{db}.ours PARTITION (p=3) SET LOCATION "
                   f"'file:{tmp_path}'").startswith("[PARTITIONS_NOT_FOUND]")


@pytest.mark.thorough
def test_set_serde_properties(spark: Any, db: str, client: MetastoreClient) -> None:
    """ALTER TABLE ... [PARTITION (...)] SET SERDEPROPERTIES / SET SERDE through hms stores what
    the built-in's stores, and both catalogs read the table the same way after it."""
    for c, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE spark_catalog.{db}.{name} (id INT, s STRING) "
                  "PARTITIONED BY (p INT) STORED AS TEXTFILE")
        spark.sql(f"INSERT INTO spark_catalog.{db}.{name} PARTITION (p) "
                  "VALUES (1, 'a,b', 1), (2, 'c', 2)")
        spark.sql(f"ALTER TABLE {c}.{db}.{name} SET SERDEPROPERTIES ('field.delim' = ',', "
                  "'x' = 'y')")
        spark.sql(f"ALTER TABLE {c}.{db}.{name} PARTITION (p=2) SET SERDEPROPERTIES "
                  "('serialization.null.format' = 'c')")
    ours, theirs = client.get_table(db, "ours"), client.get_table(db, "theirs")
    assert ours.storage.serde_parameters == theirs.storage.serde_parameters
    assert ours.storage.serde_parameters["field.delim"] == ","
    assert (client.get_partition(db, "ours", ["2"]).storage.serde_parameters
            == client.get_partition(db, "theirs", ["2"]).storage.serde_parameters)
    for name in ("ours", "theirs"):
        # The files keep Hive's default delimiter (\x01); the table now splits on commas.
        assert rows(spark, f"SELECT * FROM hms.{db}.{name}") == rows(
            spark, f"SELECT * FROM spark_catalog.{db}.{name}")
    spark.sql(f"ALTER TABLE hms.{db}.ours SET SERDE "
              "'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe' WITH SERDEPROPERTIES "
              "('field.delim' = '\\t')")
    changed = client.get_table(db, "ours").storage
    assert changed.serde == "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
    assert changed.serde_parameters["field.delim"] == "\t"
    assert changed.serde_parameters["x"] == "y"


@pytest.mark.thorough
def test_parquet_table_with_partitions_of_another_format(spark: Any, db: str,
                                                         client: MetastoreClient) -> None:
    """A Parquet table whose old partition is still text (Hive's ALTER TABLE ... SET FILEFORMAT
    PARQUET) is read partition by partition with each one's format, as Hive reads it; a scan
    of Parquet partitions alone keeps Spark's Parquet reader. The built-in reads every
    partition as Parquet, so it cannot read the text one."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.moved (id INT, s STRING) PARTITIONED BY (p INT) "
              "STORED AS TEXTFILE")
    spark.sql(f"INSERT INTO spark_catalog.{db}.moved PARTITION (p=1) VALUES (1, 'text')")
    table = client.get_table(db, "moved")
    client.alter_table(replace(table, storage=replace(
        table.storage,
        input_format="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        output_format="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        serde="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
        serde_parameters={})))
    spark.sql(f"INSERT INTO spark_catalog.{db}.moved PARTITION (p=2) VALUES (2, 'parquet')")
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.moved")] == [
        (1, "text", 1), (2, "parquet", 2)]
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.moved WHERE p = 2")] == [
        (2, "parquet", 2)]
    plan = spark.sql(f"SELECT * FROM hms.{db}.moved WHERE p = 2")._jdf.queryExecution()
    assert "ParquetScan" in plan.executedPlan().toString()


@pytest.mark.thorough
def test_show_create_table_as_serde_round_trips(spark: Any, db: str, client: MetastoreClient,
                                                tmp_path: Path) -> None:
    """SHOW CREATE TABLE ... AS SERDE through hms prints the built-in's DDL of the same table
    (but for the table's name), and that DDL, run through the built-in, stores the table's
    definition again: columns, partition columns, buckets, SerDe, formats, location,
    properties."""
    spark.sql(f"CREATE TABLE spark_catalog.{db}.t (id INT COMMENT 'it\\'s', s STRING) "
              "COMMENT 'a table' PARTITIONED BY (p INT, q STRING) ROW FORMAT DELIMITED FIELDS "
              "TERMINATED BY ',' NULL DEFINED AS 'nil' STORED AS TEXTFILE TBLPROPERTIES ('k'='v')")
    spark.sql(f"CREATE EXTERNAL TABLE spark_catalog.{db}.e (id INT, m MAP<STRING, INT>) "
              f"STORED AS PARQUET LOCATION 'file:{tmp_path}/e'")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.b (id INT, s STRING) CLUSTERED BY (id) "
              "SORTED BY (s) INTO 4 BUCKETS STORED AS ORC")
    for name in ("t", "e", "b"):
        ours = spark.sql(f"SHOW CREATE TABLE hms.{db}.{name} AS SERDE").collect()[0][0]
        theirs = spark.sql(f"SHOW CREATE TABLE spark_catalog.{db}.{name} AS SERDE"
                           ).collect()[0][0]
        head, _, body = ours.partition("\n")
        assert head.startswith("CREATE ") and f"`hms`.`{db}`.`{name}` (" in head
        assert body == theirs.partition("\n")[2], name
        spark.sql(ours.replace(f"`hms`.`{db}`.`{name}`", f"spark_catalog.{db}.{name}_again"))
        before, after = client.get_table(db, name), client.get_table(db, f"{name}_again")
        assert (after.columns, after.partition_keys, after.table_type) == (
            before.columns, before.partition_keys, before.table_type), name
        assert replace(after.storage, location=None) == replace(before.storage, location=None)
        if before.is_external:
            assert after.location == before.location
        assert {k: after.parameters.get(k) for k in ("k", "comment")} == {
            k: before.parameters.get(k) for k in ("k", "comment")}


NESTED = ("id INT, st STRUCT<x:STRING,y:STRING>, a ARRAY<STRUCT<x:INT,y:STRING>>, "
          "m MAP<STRING,STRUCT<x:INT,y:STRING>>, n STRUCT<x:INT,inner:STRUCT<x:STRING,y:STRING>>")
NESTED_ROWS = ("(1, named_struct('x', 'first', 'y', 'second'), "
               "array(named_struct('x', 1, 'y', 'one'), named_struct('x', 2, 'y', 'two')), "
               "map('k', named_struct('x', 3, 'y', 'three')), "
               "named_struct('x', 4, 'inner', named_struct('x', 'left', 'y', 'right'))), "
               "(2, named_struct('x', 'other', 'y', 'more'), array(), map(), "
               "named_struct('x', 5, 'inner', named_struct('x', 'up', 'y', 'down')))")


@pytest.mark.parametrize("stored", [
    "STORED AS TEXTFILE", "STORED AS SEQUENCEFILE", "STORED AS RCFILE", "STORED AS AVRO", JSON,
])
@pytest.mark.cases(1)
def test_fields_of_structs_are_taken_by_name(spark: Any, db: str, stored: str) -> None:
    """A query naming fields of structs (in arrays, maps and structs too) gets those fields,
    in the select list and in filters, as the built-in reads them: Spark's nested schema
    pruning asks the scan for some fields, and a SerDe returns whole structs. (OpenCSVSerde
    has no structs: its columns are strings.)"""
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} ({NESTED}) PARTITIONED BY (p INT) "
                  f"{stored}")
        spark.sql(f"INSERT INTO {catalog}.{db}.{name} PARTITION (p=1) VALUES {NESTED_ROWS}")
    queries = {
        "SELECT id, st.y, p FROM {t}": [(1, "second", 1), (2, "more", 1)],
        "SELECT id FROM {t} WHERE st.y = 'second'": [(1,)],
        "SELECT a.y, a.x FROM {t} WHERE id = 1": [(["one", "two"], [1, 2])],
        "SELECT m['k'].y FROM {t} WHERE id = 1": [("three",)],
        "SELECT n.inner.y, n.x FROM {t} WHERE n.inner.x = 'up'": [("down", 5)],
        "SELECT id, st.y FROM {t} WHERE exists(a, e -> e.y = 'two')": [(1, "second")],
    }
    for name in ("ours", "theirs"):
        for query, expected in queries.items():
            ours = [tuple(r) for r in rows(spark, query.format(t=f"hms.{db}.{name}"))]
            assert ours == expected, (name, query)
            assert ours == [tuple(r) for r in rows(
                spark, query.format(t=f"spark_catalog.{db}.{name}"))], (name, query)


OPEN_CSV = "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'"


@pytest.mark.thorough
def test_open_csv_columns_are_strings(spark: Any, db: str) -> None:
    """OpenCSVSerde reads every column as a string, whatever type the table declares: Hive and
    the built-in catalog show the columns as strings "from deserializer" and read and write
    them as such (DESCRIBE, with a PARTITION too, and SHOW CREATE TABLE), and so does hms, on
    tables either catalog created and wrote."""
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} (a INT, b STRING COMMENT 'bee') "
                  f"PARTITIONED BY (p INT) {OPEN_CSV}")
    for name in ("ours", "theirs"):
        described = [tuple(r) for r in spark.sql(f"DESCRIBE hms.{db}.{name}").collect()]
        assert described[:2] == [("a", "string", "from deserializer"),
                                 ("b", "string", "from deserializer")]
        assert described == [tuple(r) for r in
                             spark.sql(f"DESCRIBE spark_catalog.{db}.{name}").collect()]
        for catalog, p in (("hms", 1), ("spark_catalog", 2)):
            for values in ("1, 'x'", "'q', 'y'", "NULL, 2.5"):  # cast to strings on the way
                spark.sql(f"INSERT INTO {catalog}.{db}.{name} PARTITION (p={p}) "
                          f"VALUES ({values})")
        got = same_rows(spark, db, name)
        assert [tuple(r) for r in got] == [
            ("", "2.5", 1), ("", "2.5", 2), ("1", "x", 1), ("1", "x", 2), ("q", "y", 1),
            ("q", "y", 2)]
        query = "SELECT a + 1, p FROM {} WHERE a = '1'"
        assert rows(spark, query.format(f"hms.{db}.{name}")) == rows(
            spark, query.format(f"spark_catalog.{db}.{name}"))
        partition = [tuple(r) for r in spark.sql(
            f"DESCRIBE TABLE hms.{db}.{name} PARTITION (p=1)").collect()]
        assert partition[:len(described)] == described
        ours, theirs = (spark.sql(f"SHOW CREATE TABLE {c}.{db}.{name} AS SERDE").collect()[0][0]
                        for c in ("hms", "spark_catalog"))
        assert ours.partition("\n")[2] == theirs.partition("\n")[2]


AVRO_ID_S = ('{"type": "record", "name": "r", "fields": [{"name": "id", "type": "int", '
             '"doc": "the id"}, {"name": "s", "type": "string"}]}')
AVRO_ID_S_N = AVRO_ID_S.replace(
    ']}', ', {"name": "n", "type": "long", "default": 7}]}')


def described_types(spark: Any, table: str) -> list[tuple[str, str]]:
    return [(r.col_name, r.data_type) for r in spark.sql(f"DESCRIBE {table}").collect()]


def test_avro_columns_from_the_schema_literal(spark: Any, db: str) -> None:
    """An Avro table with only avro.schema.literal: CREATE TABLE without a column list takes the
    columns from the schema, and after the literal changes (a field added with a default) the
    table reads with the new schema, the default for old files, as Hive and the built-in read
    it."""
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} STORED AS AVRO "
                  f"TBLPROPERTIES ('avro.schema.literal'='{AVRO_ID_S}')")
        spark.sql(f"INSERT INTO {catalog}.{db}.{name} VALUES (1, 'a')")
    for name in ("ours", "theirs"):
        assert described_types(spark, f"hms.{db}.{name}") == described_types(
            spark, f"spark_catalog.{db}.{name}") == [("id", "int"), ("s", "string")]
    # Comments as Hive's AvroSerDe gives them: a field's doc, '' for a field without one.
    assert [tuple(r) for r in spark.sql(f"DESCRIBE hms.{db}.ours").collect()] == [
        tuple(r) for r in spark.sql(f"DESCRIBE spark_catalog.{db}.ours").collect()] == [
        ("id", "int", "the id"), ("s", "string", "")]
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"ALTER TABLE {catalog}.{db}.{name} SET TBLPROPERTIES "
                  f"('avro.schema.literal'='{AVRO_ID_S_N}')")
    for name in ("ours", "theirs"):
        assert described_types(spark, f"hms.{db}.{name}") == described_types(
            spark, f"spark_catalog.{db}.{name}") == [("id", "int"), ("s", "string"),
                                                      ("n", "bigint")]
        assert [tuple(r) for r in same_rows(spark, db, name)] == [(1, "a", 7)]
        spark.sql(f"INSERT INTO hms.{db}.{name} VALUES (2, 'b', 8)")
        assert [tuple(r) for r in same_rows(spark, db, name)] == [(1, "a", 7), (2, "b", 8)]


@pytest.mark.thorough
def test_avro_columns_from_the_schema_url(spark: Any, db: str, tmp_path: Path) -> None:
    """avro.schema.url on a local path: the columns are the schema file's, then the changed
    file's, as in the built-in catalog."""
    schema = tmp_path / "r.avsc"
    schema.write_text(AVRO_ID_S)
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} STORED AS AVRO "
                  f"TBLPROPERTIES ('avro.schema.url'='file:{schema}')")
        spark.sql(f"INSERT INTO {catalog}.{db}.{name} VALUES (1, 'a')")
    schema.write_text(AVRO_ID_S_N)
    for name in ("ours", "theirs"):
        assert described_types(spark, f"hms.{db}.{name}") == [
            ("id", "int"), ("s", "string"), ("n", "bigint")]
        assert [tuple(r) for r in same_rows(spark, db, name)] == [(1, "a", 7)]


def test_bad_avro_schemas_are_refused_by_name(spark: Any, db: str, client: MetastoreClient,
                                              tmp_path: Path) -> None:
    """A literal that is no Avro schema, or a URL that gives none: CREATE TABLE is refused
    (as the built-in refuses it) and nothing is created; a table whose literal became bad
    refuses reads and writes, naming the table and the property, until it is fixed."""
    bad = "{nope"
    for columns in ("", "(a INT) "):
        assert refusal(spark, f"CREATE TABLE hms.{db}.t {columns}STORED AS AVRO "
                              f"TBLPROPERTIES ('avro.schema.literal'='{bad}')").startswith(
            f"hms cannot create table {db}.t: its property avro.schema.literal does not give "
            "an Avro schema (")
    missing = tmp_path / "missing.avsc"
    assert refusal(spark, f"CREATE TABLE hms.{db}.t STORED AS AVRO "
                          f"TBLPROPERTIES ('avro.schema.url'='file:{missing}')") == (
        f"hms cannot create table {db}.t: its property avro.schema.url does not give an Avro "
        f"schema (Unable to read schema from given path: file:{missing})")
    assert not client.table_exists(db, "t")

    spark.sql(f"CREATE TABLE hms.{db}.t STORED AS AVRO "
              f"TBLPROPERTIES ('avro.schema.literal'='{AVRO_ID_S}')")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'a')")
    table = client.get_table(db, "t")
    client.alter_table(replace(table, parameters={**table.parameters,
                                                  "avro.schema.literal": bad}))
    assert refusal(spark, f"SELECT * FROM hms.{db}.t").startswith(
        f"hms cannot read table {db}.t: its property avro.schema.literal does not give an "
        "Avro schema (")
    assert refusal(spark, f"INSERT INTO hms.{db}.t VALUES (2, 'b')").startswith(
        f"hms cannot write table {db}.t: its property avro.schema.literal does not give an "
        "Avro schema (")
    spark.sql(f"ALTER TABLE hms.{db}.t SET TBLPROPERTIES ('avro.schema.literal'='{AVRO_ID_S}')")
    assert [tuple(r) for r in rows(spark, f"SELECT * FROM hms.{db}.t")] == [(1, "a")]


def data_files(root: Path) -> list[Path]:
    """The data files under a table's directory (not the commit's hidden files)."""
    return sorted(f for f in root.rglob("part-*") if f.is_file())


def test_null_defined_as_is_stored_written_and_read_as_hive_does(
        spark: Any, db: str, client: MetastoreClient) -> None:
    """ROW FORMAT DELIMITED ... NULL DEFINED AS is stored as Hive stores it (SerDe property
    serialization.null.format; the built-in's CREATE drops it), hms writes NULL as that text
    and reads it as NULL, and the built-in reads the table the same."""
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT, s STRING) PARTITIONED BY (p INT) "
              "ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' NULL DEFINED AS 'NA' "
              "STORED AS TEXTFILE")
    assert client.get_table(db, "t").storage.serde_parameters[NULL_FORMAT] == "NA"
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (p=1) VALUES (1, NULL), (NULL, 'x'), (3, '')")
    written = b"".join(f.read_bytes() for f in data_files(location(client, db, "t") / "p=1"))
    assert sorted(written.splitlines()) == [b"1,NA", b"3,", b"NA,x"]
    assert [tuple(r) for r in same_rows(spark, db, "t")] == [
        (1, None, 1), (3, "", 1), (None, "x", 1)]
    # The text as the statement gives it (unescaped), also in CREATE ... AS SELECT.
    spark.sql(f"CREATE TABLE hms.{db}.c ROW FORMAT DELIMITED NULL DEFINED AS '\\\\N' "
              "STORED AS TEXTFILE AS SELECT 1 AS a, CAST(NULL AS STRING) AS s")
    assert client.get_table(db, "c").storage.serde_parameters[NULL_FORMAT] == "\\N"
    assert [f.read_bytes() for f in data_files(location(client, db, "c"))] == [b"1\x01\\N\n"]
    assert [tuple(r) for r in same_rows(spark, db, "c")] == [(1, None)]


# Hadoop's codecs: the file name extension Hive's text writer gives, the files' first bytes.
GZIP = ("org.apache.hadoop.io.compress.GzipCodec", ".gz", b"\x1f\x8b")
DEFLATE = ("org.apache.hadoop.io.compress.DefaultCodec", ".deflate", b"\x78")


@pytest.mark.parametrize(("stored", "codec", "compression_type"), [
    ("STORED AS TEXTFILE", GZIP, None),
    ("STORED AS TEXTFILE", DEFLATE, None),
    ("STORED AS SEQUENCEFILE", GZIP, "BLOCK"),
    ("STORED AS SEQUENCEFILE", DEFLATE, "RECORD"),
])
@pytest.mark.thorough
def test_compressed_output_as_the_builtin_writes_it(
        spark: Any, db: str, client: MetastoreClient, stored: str,
        codec: tuple[str, str, bytes], compression_type: str | None) -> None:
    """With hive.exec.compress.output=true, text and SequenceFile tables are written with the
    codec of mapreduce.output.fileoutputformat.compress.codec (and SequenceFile's
    compression type), as the built-in writes them; each reads what the other wrote."""
    codec_class, extension, magic = codec
    settings = {"hive.exec.compress.output": "true",
                "mapreduce.output.fileoutputformat.compress.codec": codec_class}
    if compression_type:
        settings["mapreduce.output.fileoutputformat.compress.type"] = compression_type
    for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
        spark.sql(f"CREATE TABLE {catalog}.{db}.{name} (a INT, s STRING) PARTITIONED BY (p INT) "
                  f"{stored}")
    try:
        for key, value in settings.items():
            spark.sql(f"SET {key}={value}")
        for catalog, name in (("hms", "ours"), ("spark_catalog", "theirs")):
            spark.sql(f"INSERT INTO {catalog}.{db}.{name} PARTITION (p) "
                      "SELECT id, repeat('v', 100), id % 2 FROM range(50)")
    finally:
        for key in settings:
            spark.sql(f"RESET {key}")
    for name in ("ours", "theirs"):
        files = data_files(location(client, db, name))
        assert files, name
        for f in files:
            head = f.read_bytes()[:200]
            if "TEXTFILE" in stored:
                assert f.name.endswith(extension) and head.startswith(magic), (name, f.name)
            else:  # SequenceFile's header: compressed, block-compressed, the codec's class
                flags = head.split(b"org.apache.hadoop.io.Text", 1)[1][:2]
                assert flags == (b"\x01\x01" if compression_type == "BLOCK" else b"\x01\x00")
                assert codec_class.encode() in head, (name, head)
    expected = rows(spark, f"SELECT * FROM spark_catalog.{db}.theirs")
    assert len(expected) == 50
    for table in (f"hms.{db}.ours", f"spark_catalog.{db}.ours", f"hms.{db}.theirs"):
        assert rows(spark, f"SELECT * FROM {table}") == expected, table


def test_an_unknown_codec_class_is_refused_before_writing(spark: Any, db: str,
                                                          client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT) STORED AS TEXTFILE")
    settings = {"hive.exec.compress.output": "true",
                "mapreduce.output.fileoutputformat.compress.codec": "org.example.NoSuchCodec"}
    try:
        for key, value in settings.items():
            spark.sql(f"SET {key}={value}")
        assert refusal(spark, f"INSERT INTO hms.{db}.t VALUES (1)") == (
            f"hms cannot write table {db}.t: setting "
            "mapreduce.output.fileoutputformat.compress.codec='org.example.NoSuchCodec' (with "
            "hive.exec.compress.output=true) is not a compression codec class on Spark's "
            "class path")
        spark.sql("SET mapreduce.output.fileoutputformat.compress.codec="
                  "org.apache.hadoop.io.compress.GzipCodec")
        spark.sql("SET mapreduce.output.fileoutputformat.compress.type=block")
        assert refusal(spark, f"INSERT INTO hms.{db}.t VALUES (1)").startswith(
            f"hms cannot write table {db}.t: setting "
            "mapreduce.output.fileoutputformat.compress.type='block'")
    finally:
        for key in (*settings, "mapreduce.output.fileoutputformat.compress.type"):
            spark.sql(f"RESET {key}")
    assert list(location(client, db, "t").rglob("part-*")) == []
    assert rows(spark, f"SELECT * FROM hms.{db}.t") == []
