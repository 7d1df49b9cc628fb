"""Redirection of lakehouse tables to the catalogs that read them: real Iceberg and Delta
tables, made by their own catalogs and changed so that their directories hold removed files,
give through ``hms`` exactly the rows (and time travel, metadata tables, writes) they give
through their own catalogs (in a child process with the formats' runtimes:
``lakehouse_child.py``); a redirect to a catalog that is not there fails at attach."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kerberized
import pyspark
import pytest

from hmscatalog.errors import InvalidSetting, JarsUnavailable
from hmscatalog.javaparts.lakehouse_jars import spark_jars, supported_minors
from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]

CHILD = Path(__file__).with_name("lakehouse_child.py")
MINOR = ".".join(pyspark.__version__.split(".")[:2])


@pytest.fixture(scope="module")
def lakehouse(metastore_uri: str,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """What the child saw through hms and through each format's own catalog."""
    if MINOR not in supported_minors("iceberg") or MINOR not in supported_minors("delta"):
        pytest.skip(f"Iceberg's and Delta's Spark runtimes are known here for Spark "
                    f"{', '.join(supported_minors('iceberg'))}, not {MINOR} (CI runs this "
                    "test in its pyspark 4.0 pass)")
    try:
        spark_jars(("iceberg", "delta"), MINOR)  # fetched here, so that a failure says so
    except JarsUnavailable as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"Iceberg's and Delta's runtimes cannot be fetched from Maven Central here "
                    f"(CI fails instead): {exc}")
    db = "lakehouse_redirects"
    with MetastoreClient(metastore_uri, **kerberized.client_options()) as client:
        client.drop_database(db, cascade=True, if_exists=True)
        warehouse = tmp_path_factory.mktemp("lakehouse-warehouse")
        client.create_database(db, location=f"file:{warehouse}/{db}.db")
        out = warehouse / "result.json"
        done = subprocess.run(
            [sys.executable, str(CHILD), metastore_uri, f"file:{warehouse}", db, str(out)],
            capture_output=True, text=True, timeout=1200, check=False,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
        assert done.returncode == 0, "\n".join(
            line for line in done.stderr.splitlines() if not line.startswith("\tat "))[-8000:]
        yield json.loads(out.read_text())
        client.drop_database(db, cascade=True, if_exists=True)


def test_iceberg_through_hms_is_iceberg(lakehouse: dict[str, Any]) -> None:
    on_disk, live = lakehouse["iceberg_file_counts"]
    assert on_disk > live  # removed files are there: a raw read would return their rows
    for check in ("select", "filtered", "count", "time_travel", "snapshots", "files",
                  "after_writes"):
        ours, theirs = lakehouse[f"iceberg_{check}"]
        assert ours == theirs, check
        assert ours, check
    assert ["100", "through hms", "2024-02-01"] in lakehouse["iceberg_after_writes"][0]
    assert lakehouse["iceberg_explain"]
    assert lakehouse["iceberg_provider"] == "iceberg"


def test_delta_through_hms_is_delta(lakehouse: dict[str, Any]) -> None:
    on_disk, live = lakehouse["delta_file_counts"]
    assert on_disk > live
    for check in ("select", "filtered", "time_travel", "after_writes"):
        ours, theirs = lakehouse[f"delta_{check}"]
        assert ours == theirs, check
        assert ours, check
    assert ["1", "via hms"] in lakehouse["delta_after_writes"][0]


def test_without_a_redirect_the_real_tables_are_refused(lakehouse: dict[str, Any]) -> None:
    db = "lakehouse_redirects"
    assert lakehouse["iceberg_raw"] == (
        f"[HMS_LAKEHOUSE_TABLE] hms cannot read table {db}.events: it is an Iceberg table "
        "(table_type=ICEBERG), whose live files only its metadata files (metadata_location) "
        "lists, so its directory is not read as a Hive table; set "
        "spark.hmscatalog.raw.redirect.iceberg to a Spark catalog that reads Iceberg tables to "
        "use it through raw")
    assert lakehouse["delta_raw"].startswith(
        f"[HMS_LAKEHOUSE_TABLE] hms cannot read table {db}.dl: it is a Delta table "
        "(spark.sql.sources.provider=delta)")
    assert sorted(row[1] for row in lakehouse["tables"]) == ["dl", "events"]


@pytest.mark.parametrize(("target", "why"), [
    ("nowhere", "names catalog nowhere, which is not configured: set "
                "spark.sql.catalog.nowhere to a catalog that reads Iceberg tables"),
    ("lake", "names catalog lake itself; name a catalog that reads Iceberg tables"),
])
def test_a_redirect_to_a_missing_catalog_fails_at_attach(spark: Any, metastore_uri: str,
                                                         target: str, why: str) -> None:
    from hmscatalog.spark import attach

    key = "spark.hmscatalog.lake.redirect.iceberg"
    spark.conf.set(key, target)
    try:
        with pytest.raises(InvalidSetting) as raised:
            attach(spark, "lake", uri=metastore_uri)
    finally:
        spark.conf.unset(key)
    assert str(raised.value) == f"Spark conf: {key}={target} {why}"
