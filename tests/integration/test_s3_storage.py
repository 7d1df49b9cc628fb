"""``hmscatalog.storage`` against a real S3 endpoint (moto's server) and local disk.

Request counts come from the server's log, not from ``Storage.list_calls``: partition
discovery promises one List request per listed directory, and only the server can prove it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from s3 import MotoServer, parse_log_line

from hmscatalog.errors import StorageError
from hmscatalog.storage import Entry, Storage, open_storage

pytestmark = [pytest.mark.integration]

# A Hive-style table: two partitions, a marker file, and an empty directory as S3A leaves it
# (a zero-byte `dir/` object with nothing under it).
TABLE_OBJECTS = {
    "wh/t/d=1/part-0.parquet": b"12345",
    "wh/t/d=2/part-0.parquet": b"1",
    "wh/t/d=2/part-1.parquet": b"22",
    "wh/t/_SUCCESS": b"",
    "wh/t/d=3/": b"",
}
PAGED_CHILDREN = 1500


def _bucket_name(request: pytest.FixtureRequest) -> str:
    """A valid bucket name of the test's own, so tests sharing the server never collide: a
    readable slug of the test's name plus a hash of its full id (parameters included)."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.originalname.lower()).strip("-")[:50]
    return f"{slug}-{hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]}"


@pytest.fixture
def table(moto_s3: MotoServer, request: pytest.FixtureRequest) -> tuple[Storage, str]:
    """The storage and bucket of a fresh bucket holding TABLE_OBJECTS."""
    bucket = _bucket_name(request)
    moto_s3.create_bucket(bucket)
    moto_s3.put_many(bucket, TABLE_OBJECTS)
    storage, path = open_storage(f"s3://{bucket}/", moto_s3.options)
    assert path == bucket
    return storage, bucket


@pytest.fixture(scope="module")
def paged_bucket(moto_s3: MotoServer) -> str:
    """A bucket whose ``big/`` has PAGED_CHILDREN partition directories: more than one
    ListObjectsV2 page of 1,000. Built once; it takes a few seconds to upload."""
    moto_s3.create_bucket("paged")
    moto_s3.put_many("paged", {f"big/d={i:04d}/part-0.parquet": b"x"
                               for i in range(PAGED_CHILDREN)})
    return "paged"


def _by_name(entries: list[Entry] | None) -> dict[str, Entry]:
    assert entries is not None
    return {entry.name: entry for entry in entries}


# --- the request log itself -------------------------------------------------------------------


def test_parse_log_line_reads_werkzeug_lines_coloured_or_not() -> None:
    listed = parse_log_line('127.0.0.1 - - [22/Nov/2026 13:05:21] "GET /bkt?list-type=2&'
                            'prefix=t/d%3D1/&delimiter=%2F HTTP/1.1" 200 -')
    assert listed is not None
    assert (listed.method, listed.bucket, listed.key, listed.status) == ("GET", "bkt", "", 200)
    assert listed.params == {"list-type": ["2"], "prefix": ["t/d=1/"], "delimiter": ["/"]}
    assert listed.is_list and not listed.is_get

    missing = parse_log_line('127.0.0.1 - - [22/Nov/2026 13:05:22] '
                             '"\x1b[33mHEAD /bkt/a%20b/c%3D1 HTTP/1.1\x1b[0m" 404 -')
    assert missing is not None
    assert (missing.method, missing.key, missing.status) == ("HEAD", "a b/c=1", 404)
    assert not missing.is_list and not missing.is_get

    assert parse_log_line(" * Running on http://127.0.0.1:4566") is None


def test_log_counts_each_kind_of_request_after_a_mark(moto_s3: MotoServer,
                                                      request: pytest.FixtureRequest) -> None:
    bucket = _bucket_name(request)
    moto_s3.create_bucket(bucket)
    moto_s3.put(bucket, "k/v.txt", b"value")
    client = moto_s3.client

    before = moto_s3.mark()
    client.head_object(Bucket=bucket, Key="k/v.txt")
    client.get_object(Bucket=bucket, Key="k/v.txt")["Body"].read()
    client.list_objects_v2(Bucket=bucket, Prefix="k/", Delimiter="/")
    client.list_objects(Bucket=bucket)
    client.get_bucket_location(Bucket=bucket)

    assert [(r.method, r.key) for r in moto_s3.head_requests(before)] == [("HEAD", "k/v.txt")]
    assert [r.key for r in moto_s3.get_requests(before)] == ["k/v.txt"]
    lists = moto_s3.list_requests(before)
    assert [r.params.get("list-type") for r in lists] == [["2"], None]
    assert len(moto_s3.requests(before)) == 5  # the location GET is neither List nor Get
    assert moto_s3.requests(moto_s3.mark()) == []


# --- S3 ---------------------------------------------------------------------------------------


def test_open_storage_on_s3_sends_no_request(moto_s3: MotoServer) -> None:
    before = moto_s3.mark()
    storage, path = open_storage("s3://some-bucket/wh/t/", moto_s3.options)
    assert (storage.scheme, storage.parallel, path) == ("s3", True, "some-bucket/wh/t")
    assert storage.uri(path) == "s3://some-bucket/wh/t"
    s3a, s3a_path = open_storage("s3a://some-bucket/wh", moto_s3.options)
    assert (s3a.scheme, s3a.uri(s3a_path)) == ("s3a", "s3a://some-bucket/wh")
    assert moto_s3.requests(before) == []


def test_listing_a_directory_is_one_list_request(moto_s3: MotoServer,
                                                 table: tuple[Storage, str]) -> None:
    storage, bucket = table
    before = moto_s3.mark()
    entries = _by_name(storage.list(f"{bucket}/wh/t"))

    assert entries == {
        "d=1": Entry("d=1", f"{bucket}/wh/t/d=1", is_dir=True),
        "d=2": Entry("d=2", f"{bucket}/wh/t/d=2", is_dir=True),
        "d=3": Entry("d=3", f"{bucket}/wh/t/d=3", is_dir=True),
        "_SUCCESS": Entry("_SUCCESS", f"{bucket}/wh/t/_SUCCESS", is_dir=False, size=0),
    }
    assert storage.uri(entries["d=1"].path) == f"s3://{bucket}/wh/t/d=1"
    served = moto_s3.requests(before)
    assert [r.is_list for r in served] == [True], served
    assert served[0].params["delimiter"] == ["/"]
    assert served[0].params["prefix"] == ["wh/t/"]
    assert storage.list_calls == 1


def test_listing_files_gives_sizes_in_one_request(moto_s3: MotoServer,
                                                  table: tuple[Storage, str]) -> None:
    storage, bucket = table
    before = moto_s3.mark()
    # A trailing slash names the same directory.
    entries = _by_name(storage.list(f"{bucket}/wh/t/d=2/"))
    assert entries == {
        "part-0.parquet": Entry("part-0.parquet", f"{bucket}/wh/t/d=2/part-0.parquet",
                                is_dir=False, size=1),
        "part-1.parquet": Entry("part-1.parquet", f"{bucket}/wh/t/d=2/part-1.parquet",
                                is_dir=False, size=2),
    }
    assert len(moto_s3.requests(before)) == 1


def test_listing_the_bucket_root(moto_s3: MotoServer, table: tuple[Storage, str]) -> None:
    storage, bucket = table
    before = moto_s3.mark()
    assert storage.list(bucket) == [Entry("wh", f"{bucket}/wh", is_dir=True)]
    served = moto_s3.requests(before)
    assert len(served) == 1 and served[0].is_list and "prefix" not in served[0].params


@pytest.mark.parametrize(("relative", "expected"), [
    ("wh/missing", None),           # nothing under the prefix
    ("wh/t/d=1/part-0.parquet", None),  # an object is not a directory
    ("wh/t/d=3", []),               # only a `d=3/` marker: empty, but there
])
def test_missing_or_empty_directory_costs_one_request(
        moto_s3: MotoServer, table: tuple[Storage, str], relative: str,
        expected: list[Entry] | None) -> None:
    storage, bucket = table
    before = moto_s3.mark()
    assert storage.list(f"{bucket}/{relative}") == expected
    served = moto_s3.requests(before)
    assert len(served) == 1 and served[0].is_list, served
    assert moto_s3.head_requests(before) == []


def test_listing_in_a_missing_bucket_is_a_storage_error(moto_s3: MotoServer) -> None:
    storage, path = open_storage("s3://no-such-bucket/wh/t", moto_s3.options)
    with pytest.raises(StorageError, match=r"s3://no-such-bucket/wh/t"):
        storage.list(path)


def test_names_are_kept_as_stored(moto_s3: MotoServer, request: pytest.FixtureRequest) -> None:
    """Hive escapes partition values in directory names (``a%2Fb``); a listing must hand the
    name back undecoded, and listing that name must find its files."""
    bucket = _bucket_name(request)
    moto_s3.create_bucket(bucket)
    names = ["d=a%2Fb", "d=x y", "d=a:b", "d=a+b", "d=é"]
    moto_s3.put_many(bucket, {f"t/{name}/f": b"x" for name in names})
    storage, path = open_storage(f"s3://{bucket}/t", moto_s3.options)

    entries = storage.list(path)
    assert entries is not None
    assert sorted(entry.name for entry in entries) == sorted(names)
    for entry in entries:
        assert entry.path == f"{bucket}/t/{entry.name}"
        assert [child.name for child in storage.list(entry.path) or []] == ["f"]


@pytest.mark.thorough
def test_more_than_a_page_of_children_takes_one_request_per_page(
        moto_s3: MotoServer, paged_bucket: str) -> None:
    storage, path = open_storage(f"s3://{paged_bucket}/big", moto_s3.options)
    before = moto_s3.mark()
    entries = storage.list(path)

    assert entries is not None
    assert sorted(entry.name for entry in entries) == [f"d={i:04d}"
                                                       for i in range(PAGED_CHILDREN)]
    assert all(entry.is_dir and entry.path == f"paged/big/{entry.name}" for entry in entries)
    served = moto_s3.requests(before)
    assert [r.is_list for r in served] == [True, True], served
    assert "continuation-token" in served[1].params
    assert storage.list_calls == 1


def test_upload_tree_keeps_relative_paths(moto_s3: MotoServer, tmp_path: Path,
                                          request: pytest.FixtureRequest) -> None:
    (tmp_path / "d=1").mkdir()
    (tmp_path / "d=1" / "part-0.parquet").write_bytes(b"abc")
    (tmp_path / "_SUCCESS").write_bytes(b"")
    bucket = _bucket_name(request)
    moto_s3.create_bucket(bucket)

    keys = moto_s3.upload_tree(bucket, tmp_path, prefix="/wh/t/")

    assert keys == ["wh/t/_SUCCESS", "wh/t/d=1/part-0.parquet"]
    storage, path = open_storage(f"s3://{bucket}/wh/t/d=1", moto_s3.options)
    assert storage.list(path) == [Entry("part-0.parquet", f"{path}/part-0.parquet",
                                        is_dir=False, size=3)]


# --- open_storage errors and local disk ---------------------------------------------------------


@pytest.mark.parametrize("uri", ["s3:///wh/t", "s3a://"])
def test_s3_uri_without_bucket_is_rejected(uri: str) -> None:
    with pytest.raises(StorageError, match="no bucket"):
        open_storage(uri)


@pytest.mark.parametrize("uri", ["hdfs://namenode:8020/warehouse/t", "gs://bucket/t"])
def test_unsupported_scheme_names_the_uri(uri: str) -> None:
    with pytest.raises(StorageError, match=re.escape(uri)):
        open_storage(uri)


def test_local_disk_has_the_same_interface(tmp_path: Path) -> None:
    (tmp_path / "t" / "d=1").mkdir(parents=True)
    (tmp_path / "t" / "d=1" / "part-0.parquet").write_bytes(b"abcd")
    (tmp_path / "t" / "d=2").mkdir()
    (tmp_path / "t" / "_SUCCESS").write_bytes(b"")
    root = str(tmp_path / "t")

    for uri in (root + "/", f"file:{root}", f"file://{root}"):
        storage, path = open_storage(uri)
        assert (storage.scheme, storage.parallel, path) == ("file", False, root)

    storage, path = open_storage(f"file://{root}")
    assert _by_name(storage.list(path)) == {
        "d=1": Entry("d=1", f"{root}/d=1", is_dir=True),
        "d=2": Entry("d=2", f"{root}/d=2", is_dir=True),
        "_SUCCESS": Entry("_SUCCESS", f"{root}/_SUCCESS", is_dir=False, size=0),
    }
    assert storage.list(f"{root}/d=1") == [
        Entry("part-0.parquet", f"{root}/d=1/part-0.parquet", is_dir=False, size=4)]
    assert storage.list(f"{root}/d=2") == []
    assert storage.list(f"{root}/missing") is None
    assert storage.list(f"{root}/_SUCCESS") is None
    assert storage.uri(f"{root}/d=1") == f"file:{root}/d=1"
    assert storage.list_calls == 5
