"""The hms catalog in every session of the driver, Hive's PARTITION-clause rules for every INSERT
form, and the partition procedures (``CALL hms.system....``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]
STRICT = "Dynamic partition strict mode requires at least one static partition column"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0]


def _location(client: MetastoreClient, db: str, table: str) -> Path:
    return Path((client.get_table(db, table).location or "").removeprefix("file:"))


def test_new_sessions_find_the_catalog_and_get_their_own_settings(
        spark: Any, db: str, client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT, p STRING) USING parquet PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 'a')")  # nonstrict in this session (fixture)
    other = spark.newSession()
    assert [tuple(r) for r in other.sql(f"SELECT a, p FROM hms.{db}.t").collect()] == [(1, "a")]
    with pytest.raises(Exception) as strict:  # the new session starts strict, as Hive does
        other.sql(f"INSERT INTO hms.{db}.t VALUES (2, 'b')")
    assert _first_line(strict.value).startswith(STRICT)
    other.sql(f"INSERT INTO hms.{db}.t PARTITION (p='b') VALUES (2)")
    assert client.list_partition_names(db, "t") == ["p=a", "p=b"]
    shown = [r[0] for r in other.sql(f"SHOW PARTITIONS hms.{db}.t").collect()]
    assert shown == ["p=a", "p=b"]


def test_insert_into_from_a_dataframe_follows_hives_rules(spark: Any, db: str,
                                                          client: MetastoreClient) -> None:
    """``insertInto`` has no PARTITION clause: every partition column is dynamic, so strict
    mode refuses it and ``hive.exec.dynamic.partition=false`` too, as in the built-in
    catalog; nothing is written."""
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT, p STRING) USING parquet PARTITIONED BY (p)")
    rows = spark.createDataFrame([(1, "x")], "a INT, p STRING")
    spark.sql("SET hive.exec.dynamic.partition.mode=strict")
    with pytest.raises(Exception) as strict:
        rows.write.insertInto(f"hms.{db}.t")
    assert _first_line(strict.value).startswith(STRICT)
    with pytest.raises(Exception) as overwrite:
        rows.write.insertInto(f"hms.{db}.t", overwrite=True)
    assert _first_line(overwrite.value).startswith(STRICT)
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    spark.sql("SET hive.exec.dynamic.partition=false")
    try:
        with pytest.raises(Exception) as disabled:
            rows.write.insertInto(f"hms.{db}.t")
        assert _first_line(disabled.value).startswith("Dynamic partition is disabled")
    finally:
        spark.sql("RESET hive.exec.dynamic.partition")
    assert client.list_partition_names(db, "t") == []
    assert [p for p in _location(client, db, "t").rglob("*.parquet")] == []
    rows.write.insertInto(f"hms.{db}.t")  # nonstrict
    rows.writeTo(f"hms.{db}.t").append()  # the V2 writer: no PARTITION clause to check
    assert spark.table(f"hms.{db}.t").count() == 2


def test_partition_procedures(spark: Any, db: str, client: MetastoreClient) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (a INT, dt STRING, hr INT) USING parquet "
              "PARTITIONED BY (dt, hr)")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, '2024-01-05', 1)")
    root = _location(client, db, "t")
    (root / "dt=2024-01-06" / "hr=2").mkdir(parents=True)

    spark.sql(f"CALL hms.system.sync_partition_metadata('{db}', 't', 'ADD')")
    assert client.list_partition_names(db, "t") == ["dt=2024-01-05/hr=1", "dt=2024-01-06/hr=2"]
    spark.sql(f"CALL hms.system.unregister_partition(schema_name => '{db}', table_name => 't', "
              "partition_columns => array('hr', 'dt'), partition_values => array('2', "
              "'2024-01-06'))")
    assert client.list_partition_names(db, "t") == ["dt=2024-01-05/hr=1"]
    assert (root / "dt=2024-01-06" / "hr=2").is_dir()  # files stay
    spark.sql(f"CALL hms.system.register_partition('{db}', 't', array('dt', 'hr'), "
              "array('2024-01-06', '2'))")
    assert client.list_partition_names(db, "t") == ["dt=2024-01-05/hr=1", "dt=2024-01-06/hr=2"]
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    spark.sql(f"CALL hms.system.register_partition('{db}', 't', array('dt', 'hr'), "
              f"array('2024-01-07', '3'), 'file:{elsewhere}')")
    assert client.get_partition(db, "t", ["2024-01-07", "3"]).location == f"file:{elsewhere}"

    for call, first_line in (
            (f"register_partition('{db}', 't', array('dt', 'hr'), array('2024-01-08', '4'))",
             f"[HMS_STORAGE_ERROR] partition location file:{root}/dt=2024-01-08/hr=4 of "
             f"partition dt=2024-01-08/hr=4 of table {db}.t does not exist"),
            (f"register_partition('{db}', 't', array('dt'), array('2024-01-08'))",
             f"[HMS_INVALID_PARTITION_SPEC] partition columns ['dt'] do not match the "
             f"partition columns ['dt', 'hr'] of table {db}.t"),
            (f"unregister_partition('{db}', 't', array('dt', 'hr'), array('2030-01-01', '0'))",
             f"[HMS_NO_SUCH_PARTITION] partition dt=2030-01-01/hr=0 of table {db}.t does not "
             "exist"),
            (f"sync_partition_metadata('{db}', 't', 'EVERYTHING')",
             f"[HMS_INVALID_SETTING] sync_partition_metadata mode 'EVERYTHING' for table {db}.t "
             "is not one of ADD, DROP, FULL"),
            (f"drop_partitions('{db}', 't', array('dt=2024-01-05/hr=1', 'dt=2030-01-01/hr=0'))",
             f"[HMS_NO_SUCH_PARTITION] partition dt=2030-01-01/hr=0 of table {db}.t does not "
             "exist (none was dropped)"),
            (f"drop_partitions('{db}', 't', array())",
             f"[HMS_INVALID_SETTING] drop_partitions of table {db}.t: partition_names must name "
             "at least one partition")):
        with pytest.raises(Exception) as refused:
            spark.sql(f"CALL hms.system.{call}")
        assert _first_line(refused.value) == first_line, call
    assert client.list_partition_names(db, "t") == [
        "dt=2024-01-05/hr=1", "dt=2024-01-06/hr=2", "dt=2024-01-07/hr=3"]
    # drop_partitions: by names, in one request; a name that is not there drops none, unless
    # if_exists.
    spark.sql(f"CALL hms.system.drop_partitions('{db}', 't', array('dt=2024-01-06/hr=2', "
              "'dt=2030-01-01/hr=0'), true)")
    assert client.list_partition_names(db, "t") == ["dt=2024-01-05/hr=1", "dt=2024-01-07/hr=3"]
    assert not (root / "dt=2024-01-06" / "hr=2").exists()  # a managed table's files go too

    # flush_metadata_cache forgets the listings kept between queries.
    assert spark.table(f"hms.{db}.t").count() == 1
    spark.sql(f"CALL hms.system.flush_metadata_cache('{db}', 't')")
    spark.sql("CALL hms.system.flush_metadata_cache()")
    with pytest.raises(Exception) as unknown:
        spark.sql("CALL hms.system.no_such_procedure()")
    assert "no_such_procedure" in _first_line(unknown.value)


@pytest.mark.thorough
def test_attach_after_statements_warns_and_new_sessions_get_the_rules(
        metastore_uri: str, tmp_path: Path) -> None:
    """A session that analyzed statements before ``attach`` keeps its analyzer: ``attach``
    says so, and the sessions made after have Hive's rules."""
    script = tmp_path / "late.py"
    script.write_text(textwrap.dedent(f"""
        import warnings
        from pyspark.sql import SparkSession
        from hmscatalog.spark import attach
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .getOrCreate())
        spark.sql("SELECT 1").collect()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            attach(spark, uri={metastore_uri!r})
        print("WARNED", any("analyzed statements before" in str(w.message) for w in caught))
        other = spark.newSession()
        other.sql("CREATE NAMESPACE IF NOT EXISTS hms.late_attach")
        other.sql("DROP TABLE IF EXISTS hms.late_attach.t")
        other.sql("CREATE TABLE hms.late_attach.t (a INT, p STRING) USING parquet "
                  "PARTITIONED BY (p)")
        try:
            other.sql("INSERT INTO hms.late_attach.t VALUES (1, 'a')")
            print("REFUSED False")
        except Exception as exc:
            print("REFUSED", str(exc).startswith("Dynamic partition strict mode"))
        other.sql("DROP NAMESPACE hms.late_attach CASCADE")
        spark.stop()
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNED True" in done.stdout
    assert "REFUSED True" in done.stdout
