"""What a write's record (``.hms-commits/<id>.json``) leaves behind: nothing once the write is
over, whether it was refused before its tasks ran, or its process was killed while saving the
record; and ``hmscatalog recover-path`` refuses a path that is not there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from commit_child import write
from crash_helpers import (
    applied,
    leftovers,
    make_table,
    resume,
    run_child,
    stopped_child,
    table_state,
)

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.write.recovery import needs_recovery, recover

pytestmark = pytest.mark.integration

ROWS = {"k=4": [100, 101, 102], "k=5": [103]}


def _commits(root: Path) -> list[str]:
    """Everything in a table's (or path's) records directory but its commit lock."""
    directory = root / ".hms-commits"
    return sorted(p.name for p in directory.iterdir() if p.name != "lock") \
        if directory.exists() else []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hmscatalog.cli.main", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.spark
def test_a_write_refused_before_its_tasks_run_leaves_no_record(
        spark: Any, db: str, client: MetastoreClient) -> None:
    """A table setting the write reads when it sets up its file writers, after it saved its
    record, is wrong: the write fails naming it, and its record goes with it."""
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 1)")
    client.alter_table_parameters(db, "t", {"partition_columns_in_data_file": "maybe"})
    with pytest.raises(Exception) as raised:
        spark.sql(f"INSERT INTO hms.{db}.t VALUES (2, 2)")
    first = str(raised.value).strip().splitlines()[0]
    assert "partition_columns_in_data_file" in first and f"{db}.t" in first, first
    root = Path(client.get_table(db, "t").location.removeprefix("file:"))
    assert _commits(root) == []
    assert not [p.name for p in root.iterdir() if p.name.startswith(".hms-staging-")]
    client.alter_table_parameters(db, "t", {}, unset=["partition_columns_in_data_file"])
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM hms.{db}.t").collect()) == \
        [(1, 1)]


@pytest.mark.spark
@pytest.mark.thorough
def test_an_s3_write_refused_for_want_of_the_magic_committer_leaves_no_record(
        spark: Any, db: str, s3a_jars: list[str], moto_s3: Any, s3a_bucket: str) -> None:
    """S3A's magic committer turned off for one write (its options reach a file system of its
    own): the write fails naming that, and leaves no record, file or pending upload."""
    from remote import Remote, unique_root

    on_s3 = Remote("s3a", unique_root("w", f"s3a://{s3a_bucket}"), spark, moto_s3)
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) STORED AS PARQUET "
              f"LOCATION '{on_s3.location('t')}'")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (1)")
    files = on_s3.files("t")
    with pytest.raises(Exception) as raised:
        (spark.range(2).selectExpr("id AS v").writeTo(f"hms.{db}.t")
         .option("fs.s3a.impl.disable.cache", "true")
         .option("fs.s3a.committer.magic.enabled", "false").append())
    first = str(raised.value).strip().splitlines()[0]
    assert "through S3A's magic committer, which this session's S3A has turned off" in first, \
        first
    assert on_s3.files("t") == files  # no record (.hms-commits/<id>.json) among them
    uploads = moto_s3.client.list_multipart_uploads(Bucket=s3a_bucket).get("Uploads", [])
    assert [u["Key"] for u in uploads if "/t/" in u["Key"]] == []
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM hms.{db}.t").collect()) == [(1,)]


@pytest.mark.parametrize(("save", "ender"), [(3, "write"), (1, "cli")])
def test_a_writer_killed_while_saving_its_record_leaves_nothing(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path,
        save: int, ender: str) -> None:
    """Killed (SIGKILL) between writing its record beside the old one and renaming it over:
    while saving ``committed`` (every file moved, the old record says ``committing``), or
    while saving its first record (no record at all, only the half-saved one). The next
    write, or ``hmscatalog recover``, ends the write and deletes the half-saved record."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned=True)
    root = tmp_path / "t"
    before = table_state(client, table)
    child = run_child(metastore_uri, unique_db, "append", None, ROWS,
                      f"kill@record-replace:{save}")
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stderr[-2000:])
    left = _commits(root)
    unsaved = [name for name in left if name.endswith(".json.tmp")]
    assert len(unsaved) == 1 and len(left) == (2 if save == 3 else 1), left
    assert needs_recovery(table)  # a read recovers too
    finished = save == 3
    after = applied(before, "append", ROWS) if finished else before
    if ender == "cli":
        done = _cli("recover", metastore_uri, f"{unique_db}.t")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == (
            f"{unique_db}.t: 0 interrupted write(s) finished, 0 undone, 0 leftover "
            "directories removed, 1 half-saved record(s) removed")
    else:
        # The half-saved record goes with the record it was to replace.
        write(metastore_uri, unique_db, "t", "append", None, {"k=5": [7]})
        after = applied(after, "append", {"k=5": [7]})
    assert _commits(root) == []
    assert table_state(client, table) == after
    assert leftovers(client, table) == []


def test_a_record_being_saved_by_a_live_writer_is_left_alone(
        client: MetastoreClient, metastore_uri: str, unique_db: str, tmp_path: Path) -> None:
    """A writer stopped (SIGSTOP) in the middle of saving its first record: recovery leaves
    the half-saved record alone, and the write then completes."""
    table = make_table(client, metastore_uri, unique_db, tmp_path, partitioned=True)
    before = table_state(client, table)
    child = stopped_child(metastore_uri, unique_db, "record-replace", ROWS)
    try:
        left = _commits(tmp_path / "t")
        assert len(left) == 1 and left[0].endswith(".json.tmp"), left
        result = recover(client, table)
        assert result.unsaved == [] and _commits(tmp_path / "t") == left
        err = resume(child)
        assert child.returncode == 0, err[-2000:]
    finally:
        if child.poll() is None:
            child.kill()
    assert table_state(client, table) == applied(before, "append", ROWS)
    assert _commits(tmp_path / "t") == []


_PATH_WRITER = """
import sys
from pathlib import Path
from hmscatalog.storage import open_storage
from hmscatalog.write.paths import PathCommit
storage, root = open_storage(sys.argv[1])
PathCommit(storage, Path(root), "20240101000000-aaaaaaaaaaaa", "append", 1).begin()
"""


def test_recover_path_refuses_a_path_that_is_not_there_and_ends_killed_saves(
        tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    done = _cli("recover-path", str(missing))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"hmscatalog: error: path file:{missing} does not exist or is not a directory"]
    assert not missing.exists()
    # A path writer killed while it saved its first record.
    path = tmp_path / "p"
    (path / "k=1").mkdir(parents=True)
    killed = subprocess.run([sys.executable, "-c", _PATH_WRITER, str(path)],
                            env={**os.environ, "HMSCATALOG_FAULTS": "kill@record-replace"},
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert _commits(path) == [".20240101000000-aaaaaaaaaaaa.json.tmp"]
    done = _cli("recover-path", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == \
        f"path file:{path}: 0 interrupted write(s) finished or undone"
    assert _commits(path) == []
    assert sorted(p.name for p in path.iterdir()) == [".hms-commits", "k=1"]
