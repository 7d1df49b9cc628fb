"""Changes to files through ``hmscatalog.storage`` on local disk: directories made and removed,
files moved, deleted and written durably (S3: tests/integration/test_s3_storage_changes.py)."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from hmscatalog.errors import InvalidSetting, StorageError
from hmscatalog.storage import LocalStorage, Storage, created_directories, local, open_storage
from hmscatalog.write.lock import TableLock


@pytest.fixture
def storage() -> Storage:
    storage, _ = open_storage("file:/")
    assert isinstance(storage, LocalStorage)
    return storage


def test_make_dirs_returns_what_it_made_outermost_first(storage: Storage, tmp_path: Path) -> None:
    target = tmp_path / "a" / "b=%2F" / "c"
    assert storage.missing_dirs(str(target)) == [str(tmp_path / "a"), str(tmp_path / "a" / "b=%2F"),
                                                 str(target)]

    assert storage.make_dirs(str(target)) == [str(tmp_path / "a"), str(tmp_path / "a" / "b=%2F"),
                                              str(target)]
    assert target.is_dir()
    assert storage.make_dirs(str(target)) == []
    assert storage.missing_dirs(str(target)) == []
    assert storage.make_dirs(str(tmp_path / "a" / "d")) == [str(tmp_path / "a" / "d")]


def test_make_dirs_that_fails_partway_removes_what_it_made(
        storage: Storage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_mkdir = os.mkdir
    calls = []

    def mkdir(path: str, mode: int = 0o777) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_mkdir(path, mode)

    monkeypatch.setattr(local.os, "mkdir", mkdir)
    with pytest.raises(OSError, match="No space left"):
        storage.make_dirs(str(tmp_path / "a" / "b" / "c"))
    assert list(tmp_path.iterdir()) == []


def test_created_dirs_are_removed_when_the_block_fails(storage: Storage, tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    paths = [str(tmp_path / "kept" / "k=1"), str(tmp_path / "new" / "k=2"),
             str(tmp_path / "new" / "k=3")]
    with pytest.raises(RuntimeError), storage.created_dirs(paths):
        assert all(Path(p).is_dir() for p in paths)
        (tmp_path / "new" / "k=3" / "written-meanwhile").write_text("x")
        raise RuntimeError("the metastore refused")
    # What existed before stays; a directory that is no longer empty stays, with its parents.
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["k=3", "kept", "new",
                                                            "written-meanwhile"]

    with storage.created_dirs(paths):
        pass
    assert all(Path(p).is_dir() for p in paths)


def test_created_directories_takes_locations(tmp_path: Path) -> None:
    locations = [f"file:{tmp_path}/t/k=1", f"file://{tmp_path}/t/k=2"]
    with pytest.raises(RuntimeError), created_directories(locations):
        assert (tmp_path / "t" / "k=1").is_dir() and (tmp_path / "t" / "k=2").is_dir()
        raise RuntimeError("failed")
    assert list(tmp_path.iterdir()) == []
    with created_directories(locations):
        pass
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["k=1", "k=2"]


def test_remove_dir_removes_only_an_empty_directory(storage: Storage, tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    (tmp_path / "empty").mkdir()
    storage.remove_dir(str(tmp_path / "empty"))
    assert not (tmp_path / "empty").exists()
    with pytest.raises(FileNotFoundError):
        storage.remove_dir(str(tmp_path / "empty"))
    with pytest.raises(OSError) as raised:
        storage.remove_dir(str(tmp_path / "full"))
    assert raised.value.errno == errno.ENOTEMPTY
    assert (tmp_path / "full" / "f").exists()


def test_rename_moves_a_file(storage: Storage, tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    (tmp_path / "staging" / "part-0").write_text("rows")
    (tmp_path / "k=1").mkdir()
    storage.rename(str(tmp_path / "staging" / "part-0"), str(tmp_path / "k=1" / "part-w-0"))
    assert (tmp_path / "k=1" / "part-w-0").read_text() == "rows"
    assert not (tmp_path / "staging" / "part-0").exists()
    with pytest.raises(FileNotFoundError):
        storage.rename(str(tmp_path / "staging" / "part-0"), str(tmp_path / "k=1" / "x"))


def test_exists_follows_links_unless_told_not_to(storage: Storage, tmp_path: Path) -> None:
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    assert not storage.exists(str(tmp_path / "broken"))
    assert storage.exists(str(tmp_path / "broken"), follow_links=False)
    assert storage.exists(str(tmp_path / "file"), follow_links=False)
    assert not storage.exists(str(tmp_path / "nowhere"), follow_links=False)


def test_delete_takes_files_trees_and_links_never_their_targets(storage: Storage,
                                                                tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("x")
    (tmp_path / "file").write_text("x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "kept").write_text("x")
    (tmp_path / "link").symlink_to(elsewhere)

    storage.delete(str(tree))
    storage.delete(str(tmp_path / "file"))
    storage.delete(str(tmp_path / "link"))
    storage.delete(str(tmp_path / "missing"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere"]
    assert (elsewhere / "kept").exists()


def test_write_atomically_replaces_the_file_durably(
        storage: Storage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal's durability steps: the parent of a new directory is fsynced; the text goes
    to a temporary file that is fsynced before it is renamed over the record; then the
    directory is fsynced."""
    steps: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(source: str, target: str) -> None:
        steps.append(("replace", f"{source} -> {target}"))
        real_replace(source, target)

    monkeypatch.setattr(local.os, "fsync", fsync)
    monkeypatch.setattr(local.os, "replace", replace)
    commits = tmp_path / ".hms-commits"
    record = commits / "w1.json"

    storage.write_atomically(str(record), '{"state":"writing"}')
    assert record.read_text() == '{"state":"writing"}'
    temporary = commits / ".w1.json.tmp"
    assert steps == [("fsync", str(tmp_path)), ("fsync", str(temporary)),
                     ("replace", f"{temporary} -> {record}"), ("fsync", str(commits))]

    steps.clear()
    storage.write_atomically(str(record), '{"state":"committed"}')
    assert record.read_text() == '{"state":"committed"}'
    assert steps == [("fsync", str(temporary)), ("replace", f"{temporary} -> {record}"),
                     ("fsync", str(commits))]
    assert sorted(p.name for p in commits.iterdir()) == ["w1.json"]


def test_read_text_modified_and_touch(storage: Storage, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("{}", encoding="utf-8")
    os.utime(path, (1_000_000, 1_000_000))
    assert storage.read_text(str(path)) == "{}"
    assert storage.modified(str(path)) == 1_000_000
    storage.touch(str(path))
    assert storage.modified(str(path)) > 1_000_000
    for operation in (storage.read_text, storage.modified, storage.touch):
        with pytest.raises(FileNotFoundError):
            operation(str(tmp_path / "missing"))


def test_object_stores_cannot_touch() -> None:
    storage, path = open_storage("s3://bucket/t/r.json", {"s3.region": "us-east-1"})
    with pytest.raises(StorageError, match=re.escape("s3://bucket/t/r.json")):
        storage.touch(path)


@pytest.mark.parametrize(("text", "mask"), [
    (None, 0o022), ("", 0o022), ("022", 0o022), ("077", 0o077), ("0027", 0o027),
    ("u=rwx,g=rx,o=", 0o027), ("u=rwx,g=rwx,o=", 0o007), ("a=rx", 0o222),
    (" u=rw, g=r, o=r ", 0o133)])
def test_umask_reads_hadoops_octal_and_symbolic_forms(text: str | None, mask: int) -> None:
    assert local.umask(text) == mask


@pytest.mark.parametrize("text", ["u=rwx", "u+rwx,g=rx,o=", "88", "02222", "private"])
def test_a_umask_hadoop_would_not_read_is_refused_naming_the_setting(text: str) -> None:
    with pytest.raises(InvalidSetting) as raised:
        local.umask(text)
    assert str(raised.value).startswith(
        f"fs.permissions.umask-mode {text.strip()!r} is not a umask")


@pytest.mark.parametrize("mask", ["077", "027"])
def test_directories_files_and_the_lock_keep_to_the_umask(mask: str, tmp_path: Path) -> None:
    """Never wider than the umask allows (the process's umask may narrow them further)."""
    storage, _ = open_storage("file:/", {"fs.permissions.umask-mode": mask})
    assert isinstance(storage, LocalStorage)
    storage.make_dirs(str(tmp_path / "a" / "b"))
    storage.write_atomically(str(tmp_path / "c" / "record.json"), "{}")
    with TableLock(storage, tmp_path, "db.t", "w1"):
        pass
    made = [tmp_path / "a", tmp_path / "a" / "b", tmp_path / "c", tmp_path / "c" / "record.json",
            tmp_path / ".hms-commits", tmp_path / ".hms-commits" / "lock"]
    wider = {str(p.relative_to(tmp_path)): oct(p.stat().st_mode & 0o777) for p in made
             if p.stat().st_mode & int(mask, 8)}
    assert wider == {}
    assert (tmp_path / "c" / "record.json").read_text() == "{}"
