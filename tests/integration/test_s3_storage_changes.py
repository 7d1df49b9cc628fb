"""Changes to files through ``hmscatalog.storage`` on S3 (moto's server): the same operations
as on local disk (tests/unit/test_storage_changes.py), with S3's directories being prefixes."""

from __future__ import annotations

import errno
import hashlib
import re

import pytest
from s3 import MotoServer

from hmscatalog.storage import Storage, created_directories, open_storage

pytestmark = [pytest.mark.integration]


@pytest.fixture
def bucket(moto_s3: MotoServer, request: pytest.FixtureRequest) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.originalname.lower()).strip("-")[:50]
    name = f"{slug}-{hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]}"
    moto_s3.create_bucket(name)
    return name


@pytest.fixture
def storage(moto_s3: MotoServer, bucket: str) -> Storage:
    storage, path = open_storage(f"s3://{bucket}/", moto_s3.options)
    assert path == bucket
    return storage


def _names(storage: Storage, path: str) -> list[str] | None:
    entries = storage.list(path)
    return None if entries is None else sorted(e.name for e in entries)


def test_make_dirs_marks_new_directories(storage: Storage, bucket: str) -> None:
    target = f"{bucket}/wh/t/k=1"
    assert storage.missing_dirs(target) == [f"{bucket}/wh", f"{bucket}/wh/t", target]
    assert storage.make_dirs(target) == [f"{bucket}/wh", f"{bucket}/wh/t", target]
    assert _names(storage, f"{bucket}/wh/t") == ["k=1"]
    assert _names(storage, target) == []
    assert storage.make_dirs(target) == []


def test_created_directories_are_removed_when_the_block_fails(
        moto_s3: MotoServer, storage: Storage, bucket: str) -> None:
    locations = [f"s3://{bucket}/t/k=1", f"s3://{bucket}/t/k=2"]
    with pytest.raises(RuntimeError), created_directories(locations, moto_s3.options):
        assert _names(storage, f"{bucket}/t") == ["k=1", "k=2"]
        raise RuntimeError("the metastore refused")
    assert _names(storage, f"{bucket}/t") is None
    with created_directories(locations, moto_s3.options):
        pass
    assert _names(storage, f"{bucket}/t") == ["k=1", "k=2"]


def test_write_atomically_read_text_and_modified(storage: Storage, bucket: str) -> None:
    record = f"{bucket}/t/.hms-commits/w1.json"
    storage.write_atomically(record, '{"state":"writing"}')
    storage.write_atomically(record, '{"state":"committed"}')
    assert storage.read_text(record) == '{"state":"committed"}'
    assert storage.modified(record) > 0
    assert _names(storage, f"{bucket}/t/.hms-commits") == ["w1.json"]  # no temporary object
    with pytest.raises(FileNotFoundError):
        storage.read_text(f"{bucket}/t/missing")
    with pytest.raises(FileNotFoundError):
        storage.modified(f"{bucket}/t/missing")


def test_rename_remove_dir_and_delete(moto_s3: MotoServer, storage: Storage, bucket: str) -> None:
    moto_s3.put_many(bucket, {"t/.staging/part-0": b"rows", "t/k=1/old": b"x",
                              "t/k=2/a/f": b"y", "t/k=2/g": b"z"})
    storage.make_dirs(f"{bucket}/t/empty")

    storage.rename(f"{bucket}/t/.staging/part-0", f"{bucket}/t/k=1/part-w-0")
    assert storage.read_text(f"{bucket}/t/k=1/part-w-0") == "rows"
    assert not storage.exists(f"{bucket}/t/.staging/part-0")

    with pytest.raises(OSError) as raised:
        storage.remove_dir(f"{bucket}/t/k=1")
    assert raised.value.errno == errno.ENOTEMPTY
    storage.remove_dir(f"{bucket}/t/empty")
    with pytest.raises(FileNotFoundError):
        storage.remove_dir(f"{bucket}/t/empty")

    storage.delete(f"{bucket}/t/k=1/old")
    storage.delete(f"{bucket}/t/k=2")
    storage.delete(f"{bucket}/t/missing")
    assert _names(storage, f"{bucket}/t/k=1") == ["part-w-0"]
    assert not storage.exists(f"{bucket}/t/k=2")
