"""A commit's plan, checked on real local files: final file names keep everything that tells a
task's files apart, and a plan never moves a file onto a name already taken."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from hmscatalog.errors import HmsCatalogError
from hmscatalog.storage import open_storage
from hmscatalog.storage.filesystems import Storage
from hmscatalog.write import steps
from hmscatalog.write.commit import target_name
from hmscatalog.write.journal import CommitRecord, Owner

JOB = "1f2e3d4c-c123-4abc-9def-c12345678901"


def _names(*staged: str) -> list[str]:
    counter = itertools.count()
    return [target_name("W", name, counter) for name in staged]


def test_every_file_of_a_task_keeps_its_counter() -> None:
    # Without partition columns Spark ends the job id with -c<n>; with them, .c<n>.
    assert _names(f"part-00000-{JOB}-c000.snappy.parquet",
                  f"part-00000-{JOB}-c001.snappy.parquet",
                  f"part-00001-{JOB}-c001.snappy.parquet") == [
        "part-W-00000-0.snappy.parquet", "part-W-00000-1.snappy.parquet",
        "part-W-00001-1.snappy.parquet"]
    assert _names(f"part-00002-{JOB}.c003.snappy.parquet",
                  f"part-00002-{JOB}_00001.c003.zstd.orc", f"part-00002-{JOB}-c004") == [
        "part-W-00002-3.snappy.parquet", "part-W-00002-3_00001.zstd.orc", "part-W-00002-4"]
    # A name of another shape is kept whole behind a number of its own.
    assert _names("data.parquet", "data.parquet") == [
        "part-W-00000-data.parquet", "part-W-00001-data.parquet"]


def _record(tmp_path: Path, moves: list[tuple[Path, Path]],
            created: list[Path] = ()) -> CommitRecord:  # type: ignore[assignment]
    return CommitRecord(write_id="W", table="db.t", mode="append", owner=Owner.this_process(),
                        staging=str(tmp_path / ".hms-staging-W"),
                        trash=str(tmp_path / ".hms-trash-W"),
                        moves=[(str(a), str(b)) for a, b in moves],
                        created_dirs=[str(d) for d in created])


@pytest.fixture
def table(tmp_path: Path) -> tuple[Storage, Path, Path]:
    """A local storage, a staging directory of two files and a partition of one."""
    storage, _ = open_storage(str(tmp_path))
    staging, part = tmp_path / ".hms-staging-W", tmp_path / "k=1"
    staging.mkdir()
    part.mkdir()
    for path in (staging / "a", staging / "b", part / "old"):
        path.write_bytes(b"x")
    return storage, staging, part


def _refusal(storage: Storage, staging: Path, moves: list[tuple[Path, Path]]) -> str:
    """Why check_moves refuses the plan of ``moves``."""
    with pytest.raises(HmsCatalogError) as raised:
        steps.check_moves(storage, _record(staging.parent, moves))
    return str(raised.value)


def test_two_files_moved_to_one_name_are_refused(table: tuple[Storage, Path, Path]) -> None:
    storage, staging, part = table
    assert _refusal(storage, staging, [(staging / "a", part / "new"),
                                       (staging / "b", part / "new")]).startswith(
        f"two files would be moved to file:{part}/new: file:{staging}/a and file:{staging}/b;")


def test_a_file_moved_onto_one_that_exists_is_refused(
        table: tuple[Storage, Path, Path]) -> None:
    storage, staging, part = table
    assert _refusal(storage, staging, [(staging / "a", part / "new"),
                                       (staging / "b", part / "old")]).startswith(
        f"file:{staging}/b would be moved to file:{part}/old, which exists;")
    # A directory the plan creates is there when the moves are made.
    trash = staging.parent / ".hms-trash-W"
    record = _record(staging.parent, [(part, trash / "k=1")], created=[trash, trash / "k=1"])
    with pytest.raises(HmsCatalogError, match="which exists"):
        steps.check_moves(storage, record)
    assert sorted(p.name for p in part.iterdir()) == ["old"]  # a check changes nothing


def test_a_name_an_earlier_move_frees_may_be_taken(table: tuple[Storage, Path, Path]) -> None:
    storage, staging, part = table
    trash = staging.parent / ".hms-trash-W"
    # An overwrite: the old file goes to the trash (a directory the plan creates), then a new
    # file takes its name; and a whole directory is swapped for the staged one.
    steps.check_moves(storage, _record(staging.parent, [
        (part / "old", trash / "k=1" / "old"), (staging / "a", part / "old"),
        (staging / "b", part / "b")], created=[trash, trash / "k=1"]))
    steps.check_moves(storage, _record(staging.parent, [
        (part, trash / "k=1"), (staging, part)], created=[trash]))


def test_fewer_files_in_place_than_staged_fail(table: tuple[Storage, Path, Path]) -> None:
    storage, _, part = table
    steps.check_published(storage, [str(part / "old")], 1)
    with pytest.raises(HmsCatalogError, match="2 files were staged but the commit would "
                                              "publish 1"):
        steps.check_published(storage, [str(part / "old"), str(part / "old")], 2)
    with pytest.raises(HmsCatalogError) as raised:
        steps.check_published(storage, [str(part / "old"), str(part / "a")], 2)
    assert str(raised.value).startswith(f"file:{part}/a is not in place after the commit's "
                                        "moves (2 files were staged)")
