"""Real Iceberg and Delta tables in the metastore, made by their own catalogs, read and written
through hms with redirection, in a SparkSession of its own (their runtimes and session catalog
must be there from the start).

    python lakehouse_child.py URI WAREHOUSE DATABASE OUT.json

Iceberg's ``SparkCatalog`` (``type=hive``) is catalog ``ice``; Delta's catalog is the session
catalog, as Delta's documentation sets it up; ``hms`` redirects to both, ``raw`` to neither. Each
table is changed (DELETE, UPDATE, compaction) so that its directory holds files its metadata has
removed. The child writes, for each check, what each side returned, and the test compares them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import SparkSession

from hmscatalog.javaparts.lakehouse_jars import spark_jars
from hmscatalog.spark import attach, session_conf


def rows(spark: SparkSession, sql: str) -> list[list[Any]]:
    return sorted([[str(v) for v in r] for r in spark.sql(sql).collect()])


def first_line(spark: SparkSession, sql: str) -> str:
    try:
        spark.sql(sql).collect()
    except Exception as exc:
        return str(exc).strip().splitlines()[0]
    return "no error"


def files(location: str, suffix: str) -> int:
    return sum(1 for p in Path(location.removeprefix("file:")).rglob(f"*{suffix}"))


def main() -> None:
    uri, warehouse, db, out = sys.argv[1:]
    minor = ".".join(pyspark.__version__.split(".")[:2])
    conf = session_conf(names=("hms", "raw"))
    conf["spark.jars"] += "," + ",".join(spark_jars(("iceberg", "delta"), minor))
    conf["spark.sql.extensions"] = ",".join([
        conf["spark.sql.extensions"],
        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "io.delta.sql.DeltaSparkSessionExtension"])
    spark = (SparkSession.builder.master("local[1]").appName("hmscatalog-lakehouse")
             .config(map=conf)
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.catalogImplementation", "hive")
             .config("spark.hadoop.hive.metastore.uris", uri)
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.sql.catalog.spark_catalog",
                     "org.apache.spark.sql.delta.catalog.DeltaCatalog")
             .config("spark.sql.catalog.ice", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.ice.type", "hive")
             .config("spark.sql.catalog.ice.uri", uri)
             .config("spark.sql.catalog.ice.warehouse", warehouse)
             # Commit without the metastore's locks, which the test metastore (no transaction
             # tables) cannot take; there is one writer here.
             .config("spark.hadoop.iceberg.engine.hive.lock-enabled", "false")
             .config("spark.hmscatalog.hms.redirect.iceberg", "ice")
             .config("spark.hmscatalog.hms.redirect.delta", "spark_catalog")
             .getOrCreate())
    attach(spark, "hms", uri=uri)
    attach(spark, "raw", uri=uri)
    result: dict[str, Any] = {}

    # Iceberg, made by Iceberg's catalog into the metastore.
    spark.sql(f"CREATE TABLE ice.{db}.events (id BIGINT, s STRING, dt DATE) USING iceberg "
              "PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO ice.{db}.events SELECT id, concat('s', id), "
              "date_add(DATE'2024-01-01', CAST(id % 3 AS INT)) FROM range(30)")
    first = spark.sql(f"SELECT snapshot_id FROM ice.{db}.events.snapshots").collect()[0][0]
    spark.sql(f"INSERT INTO ice.{db}.events SELECT id, 'more', DATE'2024-01-05' FROM range(30, 40)")
    spark.sql(f"DELETE FROM ice.{db}.events WHERE id % 4 = 0")
    spark.sql(f"UPDATE ice.{db}.events SET s = 'updated' WHERE id % 5 = 0")
    spark.sql(f"CALL ice.system.rewrite_data_files(table => '{db}.events', "
              "options => map('min-input-files', '1'))")
    location = spark.sql(f"DESCRIBE TABLE EXTENDED ice.{db}.events").where(
        "col_name = 'Location'").collect()[0][1]
    result["iceberg_file_counts"] = [
        files(location + "/data", ".parquet"),
        spark.sql(f"SELECT count(*) FROM ice.{db}.events.files").collect()[0][0]]
    for name, sql in {
        "select": "SELECT * FROM {c}.{db}.events",
        "filtered": "SELECT id, s FROM {c}.{db}.events WHERE dt = DATE'2024-01-02' AND id > 5",
        "count": "SELECT count(*), sum(id) FROM {c}.{db}.events",
        "time_travel": "SELECT * FROM {c}.{db}.events VERSION AS OF " + str(first),
        "snapshots": "SELECT count(*) FROM {c}.{db}.events.snapshots",
        "files": "SELECT count(*) FROM {c}.{db}.events.files",
    }.items():
        result[f"iceberg_{name}"] = [rows(spark, sql.format(c=c, db=db)) for c in ("hms", "ice")]
    spark.sql(f"INSERT INTO hms.{db}.events VALUES (100, 'through hms', DATE'2024-02-01')")
    spark.sql(f"DELETE FROM hms.{db}.events WHERE id = 1")
    result["iceberg_after_writes"] = [rows(spark, f"SELECT * FROM {c}.{db}.events")
                                      for c in ("hms", "ice")]
    plan = spark.sql(f"EXPLAIN SELECT * FROM hms.{db}.events").collect()[0][0]
    result["iceberg_explain"] = "BatchScan" in plan and "events" in plan
    described = {r[0]: r[1] for r in spark.sql(
        f"DESCRIBE TABLE EXTENDED hms.{db}.events").collect()}
    result["iceberg_provider"] = described.get("Provider")
    result["iceberg_raw"] = first_line(spark, f"SELECT * FROM raw.{db}.events")

    # Delta, made by Delta's catalog (the session catalog) into the metastore.
    spark.sql(f"CREATE TABLE spark_catalog.{db}.dl (id BIGINT, s STRING) USING delta")
    spark.sql(f"INSERT INTO spark_catalog.{db}.dl SELECT id, concat('s', id) FROM range(20)")
    spark.sql(f"INSERT INTO spark_catalog.{db}.dl SELECT id, 'more' FROM range(20, 30)")
    spark.sql(f"DELETE FROM spark_catalog.{db}.dl WHERE id % 4 = 0")
    spark.sql(f"UPDATE spark_catalog.{db}.dl SET s = 'updated' WHERE id % 5 = 0")
    spark.sql(f"OPTIMIZE spark_catalog.{db}.dl")
    location = spark.sql(f"DESCRIBE DETAIL spark_catalog.{db}.dl").collect()[0]["location"]
    result["delta_file_counts"] = [
        files(location, ".parquet"),
        spark.sql(f"DESCRIBE DETAIL spark_catalog.{db}.dl").collect()[0]["numFiles"]]
    for name, sql in {
        "select": "SELECT * FROM {c}.{db}.dl",
        "filtered": "SELECT s FROM {c}.{db}.dl WHERE id BETWEEN 3 AND 17",
        "time_travel": "SELECT * FROM {c}.{db}.dl VERSION AS OF 1",
    }.items():
        result[f"delta_{name}"] = [rows(spark, sql.format(c=c, db=db))
                                   for c in ("hms", "spark_catalog")]
    spark.sql(f"INSERT INTO hms.{db}.dl VALUES (100, 'through hms')")
    spark.sql(f"UPDATE hms.{db}.dl SET s = 'via hms' WHERE id = 1")
    result["delta_after_writes"] = [rows(spark, f"SELECT * FROM {c}.{db}.dl")
                                    for c in ("hms", "spark_catalog")]
    result["delta_raw"] = first_line(spark, f"SELECT * FROM raw.{db}.dl")
    result["tables"] = rows(spark, f"SHOW TABLES IN hms.{db}")
    Path(out).write_text(json.dumps(result))
    spark.stop()


if __name__ == "__main__":
    main()
