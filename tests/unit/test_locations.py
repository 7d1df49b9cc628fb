"""Local paths of metastore locations, taken literally as Hadoop paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from hmscatalog.storage.locations import local_path, resolve_location


@pytest.mark.parametrize(("location", "expected"), [
    ("file:/w/t/dt=a%2Fb", Path("/w/t/dt=a%2Fb")),  # never URL-decoded
    ("file:///w/t", Path("/w/t")),
    ("file://localhost/w/t", Path("/w/t")),
    ("file:/w/t/p=#1?x", Path("/w/t/p=#1?x")),
    ("file://otherhost/w/t", None),
    ("s3a://bucket/w/t", None),
    ("/w/t", None),
    ("", None),
    (None, None),
])
def test_local_path(location: str | None, expected: Path | None) -> None:
    assert local_path(location) == expected


def test_s3a_settings_give_the_storage_options_that_pyarrow_lists_with() -> None:
    from hmscatalog.storage.filesystems import s3a_storage_options

    hadoop = {"fs.s3a.endpoint": "127.0.0.1:9000", "fs.s3a.connection.ssl.enabled": "false",
              "fs.s3a.region": "eu-west-1", "fs.s3a.endpoint.region": "us-east-2",
              "fs.s3a.access.key": "AK", "fs.s3a.secret.key": "SK"}
    assert s3a_storage_options(hadoop.get) == {
        "s3.endpoint": "http://127.0.0.1:9000", "s3.region": "us-east-2",
        "s3.access-key-id": "AK", "s3.secret-access-key": "SK"}
    assert s3a_storage_options({"fs.s3a.endpoint": "s3.eu-west-1.amazonaws.com"}.get) == {
        "s3.endpoint": "https://s3.eu-west-1.amazonaws.com"}
    assert s3a_storage_options({}.get) == {}


@pytest.mark.parametrize(("path", "base", "expected"), [
    ("/data/${d}", "file:/w/t", "file:/data/${d}"),
    ("/data/${d}", "file:///w/t", "file:///data/${d}"),
    ("/data/${d}", "hdfs://nn:8020/w/t", "hdfs://nn:8020/data/${d}"),
    ("/data/${d}", "s3://bucket/t/", "s3://bucket/data/${d}"),
    ("//other/data/${d}", "s3a://bucket/t", "s3a://other/data/${d}"),
    ("${d}/x", "s3://bucket/t/", "s3://bucket/t/${d}/x"),
    ("s3://b/${d}", "file:/w/t", "s3://b/${d}"),
    ("file:/data/${d}", "hdfs://nn/w", "file:/data/${d}"),
    ("/data/${d}", "/w/t", "/data/${d}"),  # a base without a scheme adds none
])
def test_a_path_without_a_scheme_is_on_its_base_file_system(path: str, base: str,
                                                           expected: str) -> None:
    """Projection templates such as ``/data/${d}`` were used as they were: Spark's file index
    lists ``file:/data/...`` and found none of its files under ``/data/...``."""
    assert resolve_location(path, base) == expected
