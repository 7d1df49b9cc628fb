"""Partition projection: partitions computed from table properties, read by Spark, never listed;
and the same settings for path reads (local and moto S3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spark_versions import needs_spark

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.spark import read_partitioned
from hmscatalog.spark.internals.versions import PYTHON_SOURCE_FILTERS

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _scan_text(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


def _write(spark: Any, root: Path, sql_values: str) -> None:
    spark.sql(f"SELECT * FROM VALUES {sql_values} AS t(a, dt, region, hr)") \
        .write.partitionBy("dt", "region", "hr").mode("append").parquet(str(root))


PROPERTIES = """'projection.enabled'='true',
  'projection.dt.type'='date', 'projection.dt.format'='yyyy-MM-dd',
  'projection.dt.range'='2024-01-01,2024-01-31',
  'projection.region.type'='enum', 'projection.region.values'='emea,apac',
  'projection.hr.type'='integer', 'projection.hr.range'='0,23', 'projection.hr.digits'='2'"""


def test_projected_table_reads_only_computed_partitions(spark: Any, db: str, tmp_path: Path,
                                                        client: MetastoreClient) -> None:
    root = tmp_path / "events"
    _write(spark, root, "(1, '2024-01-05', 'emea', '07'), (2, '2024-01-05', 'apac', '07'), "
                        "(3, '2024-01-06', 'emea', '23'), (4, '2023-12-31', 'emea', '01')")
    spark.sql(f"CREATE TABLE hms.{db}.events (a INT) "
              "PARTITIONED BY (dt STRING, region STRING, hr STRING) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES ({PROPERTIES})")
    # A registered partition is ignored while projection is enabled (as in Athena).
    table = client.get_table(db, "events")
    client.add_partitions(table, [client.new_partition(table, ["2023-12-31", "emea", "01"])])
    total = 31 * 2 * 24
    cases = [
        ("dt = '2024-01-05' AND region = 'emea' AND hr = '07'", [(1,)], f"1/{total}"),
        ("dt = '2024-01-05'", [(1,), (2,)], f"48/{total}"),
        ("dt BETWEEN '2024-01-05' AND '2024-01-06' AND hr IN ('07', '23')",
         [(1,), (2,), (3,)], f"8/{total}"),
        ("dt = '2023-12-31'", [], f"0/{total}"),  # outside the range: nothing
        ("dt = '2024-01-20'", [], f"48/{total}"),  # projected, no directory: no rows
        ("region = 'amer'", [], f"0/{total}"),
    ]
    for where, rows, figures in cases:
        df = spark.sql(f"SELECT a FROM hms.{db}.events WHERE {where}")
        assert _rows(df) == rows, where
        assert f"partitions={figures} (partition projection; no listing" in _scan_text(df), \
            where
    assert spark.sql(f"SELECT count(*) FROM hms.{db}.events").collect()[0][0] == 3


def test_templates_injected_and_caps(spark: Any, db: str, tmp_path: Path) -> None:
    root = tmp_path / "logs"
    for year, month, device in (("2024", "1", "x"), ("2024", "2", "y")):
        target = root / "fixed" / year / month / device
        spark.range(3).selectExpr("CAST(id AS INT) AS a").write.parquet(str(target))
    # Spark SQL would replace ${year} by a variable's value: the user turns that off, as in Hive.
    spark.conf.set("spark.sql.variable.substitute", "false")
    spark.sql(f"CREATE TABLE hms.{db}.logs (a INT) "
              "PARTITIONED BY (year BIGINT, month BIGINT, device STRING) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES ('projection.enabled'='true', "
              "'projection.year.type'='integer', 'projection.year.range'='2020,2030', "
              "'projection.month.type'='integer', 'projection.month.range'='1,12', "
              "'projection.device.type'='injected', "
              f"'storage.location.template'='file:{root}/fixed/${{year}}/${{month}}/${{device}}')")
    spark.conf.unset("spark.sql.variable.substitute")
    df = spark.sql(f"SELECT a, year, month, device FROM hms.{db}.logs "
                   "WHERE device IN ('x', 'y') AND year = 2024 AND month <= 2")
    assert _rows(df) == sorted([(i, 2024, 1, "x") for i in range(3)] +
                               [(i, 2024, 2, "y") for i in range(3)], key=repr)
    with pytest.raises(Exception, match="For the injected projected partition column device"):
        spark.sql(f"SELECT * FROM hms.{db}.logs WHERE year = 2024").collect()
    spark.sql(f"ALTER TABLE hms.{db}.logs SET TBLPROPERTIES "
              "('hmscatalog.projection.max-partitions'='10')")
    with pytest.raises(Exception, match=r"can potentially read 12 projected partitions, more "
                                        r"than the limit of 10"):
        spark.sql(f"SELECT * FROM hms.{db}.logs WHERE device = 'x' AND year = 2024").collect()


def test_a_template_without_a_scheme_reads_the_table_file_system(spark: Any, db: str,
                                                                 tmp_path: Path) -> None:
    """``/data/logs/${hour}/${device}`` (no ``file:``) used to read no rows while EXPLAIN named
    an existing directory: the partition's path was not qualified like the files Spark's index
    listed there. It is on the table location's file system, as Hadoop resolves it."""
    root = tmp_path / "logs"
    for hour, device in (("1", "x"), ("2", "y")):
        spark.range(3).selectExpr(f"CAST(id + {hour} * 10 AS INT) AS a") \
            .write.parquet(str(root / hour / device))
    spark.conf.set("spark.sql.variable.substitute", "false")
    try:
        for name, template in (("plain", f"{root}/${{hour}}/${{device}}"),
                               ("qualified", f"file:{root}/${{hour}}/${{device}}")):
            spark.sql(f"CREATE TABLE hms.{db}.{name} (a INT) "
                      "PARTITIONED BY (hour BIGINT, device STRING) STORED AS PARQUET "
                      f"LOCATION 'file:{root}' TBLPROPERTIES ('projection.enabled'='true', "
                      "'projection.hour.type'='integer', 'projection.hour.range'='0,23', "
                      "'projection.device.type'='enum', 'projection.device.values'='x,y', "
                      f"'storage.location.template'='{template}')")
    finally:
        spark.conf.unset("spark.sql.variable.substitute")
    expected = [(10, 1, "x"), (11, 1, "x"), (12, 1, "x")]
    for name in ("plain", "qualified"):
        point = spark.sql(f"SELECT a, hour, device FROM hms.{db}.{name} "
                          "WHERE hour = 1 AND device = 'x'")
        assert _rows(point) == expected, name
        assert _rows(spark.sql(f"SELECT a, hour, device FROM hms.{db}.{name}")) == sorted(
            [*expected, (20, 2, "y"), (21, 2, "y"), (22, 2, "y")], key=repr), name


def test_invalid_settings_are_refused_and_change_nothing(spark: Any, db: str,
                                                         client: MetastoreClient) -> None:
    base = "CREATE TABLE hms.{db}.{t} (a INT) PARTITIONED BY (dt STRING) STORED AS PARQUET " \
           "TBLPROPERTIES ('projection.enabled'='true', {props})"
    bad = {
        "'projection.dt.type'='date', 'projection.dt.range'='2024-01-01,2024-01-31'":
            r"column 'dt'.*Missing required property: 'projection.dt.format'",
        "'projection.dt.type'='date', 'projection.dt.format'='yyyy-MM-dd', "
        "'projection.dt.range'='2024-02-01,2024-01-01'": r"'projection.dt.range'.*sequential",
        "'projection.dt.type'='calendar'": r"'projection.dt.type' value 'calendar' is invalid",
        "'projection.dt.type'='enum', 'projection.dt.values'='a', 'projection.x.type'='enum', "
        "'projection.x.values'='b'": r"non-partition column: 'x'",
        "'projection.dt.type'='enum', 'projection.dt.values'='a', "
        "'storage.location.template'='file:/tmp/nothing'": r"missing partition column: 'dt'",
    }
    for i, (props, message) in enumerate(bad.items()):
        with pytest.raises(Exception, match=message):
            spark.sql(base.format(db=db, t=f"t{i}", props=props))
        assert f"t{i}" not in client.list_tables(db)
    spark.sql(base.format(db=db, t="ok", props="'projection.dt.type'='enum', "
                                                "'projection.dt.values'='a,b'"))
    with pytest.raises(Exception, match=r"'projection.dt.type' value 'nope' is invalid"):
        spark.sql(f"ALTER TABLE hms.{db}.ok SET TBLPROPERTIES ('projection.dt.type'='nope')")
    assert client.get_table(db, "ok").parameters["projection.dt.type"] == "enum"


@needs_spark(PYTHON_SOURCE_FILTERS, "pyarrow reads of paths Spark cannot open")
@pytest.mark.thorough
def test_projected_path_reads_local_and_s3(spark: Any, tmp_path: Path, moto_s3: Any) -> None:
    root = tmp_path / "hourly"
    spark.range(48).selectExpr(
        "id AS a", "date_format(timestamp_seconds(1704067200 + id * 3600), 'yyyy-MM-dd-HH') "
                   "AS hour").write.partitionBy("hour").parquet(str(root))
    settings = {"projection.hour.type": "date", "projection.hour.format": "yyyy-MM-dd-HH",
                "projection.hour.range": "2020-01-01-00,2029-12-31-23",
                "projection.hour.interval.unit": "HOURS"}
    local = read_partitioned(spark, str(root), projection=settings)
    point = local.where("hour = '2024-01-01-05'")
    assert [r.a for r in point.collect()] == [5]
    # 2020-01-01 to 2029-12-31: 3,653 days of 24 hours.
    assert "partitions=1/87672 (partition projection; no listing" in _scan_text(point)
    moto_s3.create_bucket("projected-bucket")
    moto_s3.upload_tree("projected-bucket", root, "hourly")
    remote = read_partitioned(spark, "s3://projected-bucket/hourly", projection=settings,
                              options=moto_s3.options)
    mark = moto_s3.mark()
    assert [r.a for r in remote.where("hour = '2024-01-02-03'").collect()] == [27]
    lists = moto_s3.list_requests(mark)
    # Partitions are computed, not listed: the one List request reads the selected
    # partition's directory for its files.
    assert [r.path for r in lists] == ["/projected-bucket"] and len(lists) == 1
    assert "hour%3D2024-01-02-03" in lists[0].query or "hour=2024-01-02-03" in lists[0].query


@pytest.mark.builtin
@pytest.mark.thorough
def test_a_table_made_by_the_builtin_catalog_with_a_misspelt_projection_switch_fails_its_query(
        spark: Any, db: str, tmp_path: Path) -> None:
    """``projection.enable`` never went through hms's CREATE checks when another catalog made
    the table; read through hms it used to leave projection off (no partitions registered, so
    no rows). The query now fails naming the key, and the exact switch reads the files."""
    root = tmp_path / "events"
    _write(spark, root, "(1, '2024-01-05', 'emea', '07'), (2, '2024-01-06', 'apac', '23')")
    spark.sql(f"CREATE TABLE spark_catalog.{db}.events (a INT) "
              "PARTITIONED BY (dt STRING, region STRING, hr STRING) STORED AS PARQUET "
              f"LOCATION 'file:{root}' TBLPROPERTIES "
              f"({PROPERTIES.replace('projection.enabled', 'projection.enable')})")
    with pytest.raises(Exception) as refused:
        spark.sql(f"SELECT * FROM hms.{db}.events").collect()
    assert str(refused.value).strip().splitlines()[0] == (
        f"[HMS_INVALID_PROJECTION] Table {db}.events: Unknown partition projection property "
        "'projection.enable'; did you mean 'projection.enabled'?")
    spark.sql(f"ALTER TABLE spark_catalog.{db}.events UNSET TBLPROPERTIES ('projection.enable')")
    spark.sql(f"ALTER TABLE spark_catalog.{db}.events SET TBLPROPERTIES "
              "('projection.enabled'='true')")
    assert _rows(spark.sql(f"SELECT a, dt, region, hr FROM hms.{db}.events")) == [
        (1, "2024-01-05", "emea", "07"), (2, "2024-01-06", "apac", "23")]
