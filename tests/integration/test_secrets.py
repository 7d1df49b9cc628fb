"""S3 keys given to the metastore (``--conf``) and to Spark (``spark.hadoop.fs.s3a.*``,
``spark.hmscatalog.s3.*``) appear nowhere hmscatalog writes: not in the metastore's logs or
``server.json``, not in EXPLAIN or error messages, not in what Spark's driver logs, not in a
table's files or commit records. The one file that must hold them, the metastore's own
configuration, only its owner may read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from s3 import SECRET_KEY

from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.spark import read_partitioned

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _holding(root: Path, secret: str, skip: Path | None = None) -> list[str]:
    """The files below ``root`` (but those below ``skip``) that hold ``secret``."""
    return [str(p) for p in root.rglob("*")
            if p.is_file() and (skip is None or skip not in p.parents)
            and secret.encode() in p.read_bytes()]


def test_s3_keys_appear_nowhere_hmscatalog_writes(
        spark: Any, db: str, client: MetastoreClient, metastore: server.ServerInfo,
        moto_s3: Any, s3a_bucket: str, capfd: pytest.CaptureFixture[str]) -> None:
    prefix = f"secrets-{db}"
    spark.sql(f"CREATE TABLE hms.{db}.on_s3 (v BIGINT) PARTITIONED BY (dt STRING) "
              f"STORED AS PARQUET LOCATION 's3a://{s3a_bucket}/{prefix}/on_s3'")
    spark.sql(f"CREATE TABLE hms.{db}.local (v BIGINT) PARTITIONED BY (dt STRING) "
              "STORED AS PARQUET")
    said: list[str] = []
    for table in ("on_s3", "local"):
        spark.sql(f"INSERT INTO hms.{db}.{table} VALUES (1, 'a'), (2, 'b')")
        spark.sql(f"INSERT OVERWRITE hms.{db}.{table} PARTITION (dt='b') VALUES (3)")
        assert sorted(spark.sql(f"SELECT v, dt FROM hms.{db}.{table}").collect()) == [
            (1, "a"), (3, "b")]
        said.append("\n".join(r[0] for r in spark.sql(
            f"EXPLAIN EXTENDED SELECT * FROM hms.{db}.{table} WHERE dt = 'a'").collect()))
    # Refusals from S3: a table in a bucket that does not exist, read through hms and as a path.
    spark.sql(f"CREATE TABLE hms.{db}.elsewhere (v BIGINT) PARTITIONED BY (dt STRING) "
              f"STORED AS PARQUET LOCATION 's3a://{s3a_bucket}/{prefix}/elsewhere' "
              "TBLPROPERTIES ('hmscatalog.discovery.enabled'='true')")
    moto_s3.client.delete_object(Bucket=s3a_bucket, Key=f"{prefix}/elsewhere/")
    for read in (lambda: spark.sql(f"SELECT * FROM hms.{db}.elsewhere").collect(),
                 lambda: read_partitioned(spark, f"s3a://no-such-bucket-{db[-8:]}/t").collect()):
        try:
            read()
        except Exception as exc:
            said.append(str(exc))
    captured = capfd.readouterr()
    said += [captured.out, captured.err]
    assert [text[:200] for text in said if SECRET_KEY in text] == []

    data_dir = Path(metastore.data_dir)
    assert _holding(data_dir, SECRET_KEY, skip=data_dir / "conf") == []
    assert SECRET_KEY not in (data_dir / "server.json").read_text()
    local = Path(client.get_table(db, "local").location.removeprefix("file:"))
    assert _holding(local, SECRET_KEY) == []
    objects = moto_s3.client.list_objects_v2(Bucket=s3a_bucket, Prefix=prefix)["Contents"]
    assert [o["Key"] for o in objects if SECRET_KEY.encode() in moto_s3.client.get_object(
        Bucket=s3a_bucket, Key=o["Key"])["Body"].read()] == []

    # The data dir is private as a whole: its Derby database, warehouse and log too.
    assert oct(data_dir.stat().st_mode & 0o777) == "0o700"
    conf = data_dir / "conf"
    holding = [Path(p) for p in _holding(conf, SECRET_KEY)]
    assert holding  # the server reads its keys there, so:
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in [conf, *holding]
            if p.stat().st_mode & 0o077} == {}
