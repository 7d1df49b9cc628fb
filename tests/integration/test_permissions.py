"""What a commit makes on local disk (partition and version directories, its records directory
and lock) gets the permissions Hadoop's umask gives (``fs.permissions.umask-mode``), as the
files Spark's tasks write do: never wider. Hadoop keeps a file system per scheme from its first
use, with the umask of that moment; the tests set ``fs.file.impl.disable.cache`` so that a
umask set in the running session reaches Spark's writers, as one set when it starts would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hmscatalog.metastore.client import MetastoreClient

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def _wider(root: Path, mask: int) -> dict[str, str]:
    """Everything below ``root`` whose mode has a bit ``mask`` takes away."""
    return {str(p.relative_to(root)): oct(p.stat().st_mode & 0o777) for p in root.rglob("*")
            if p.stat().st_mode & mask}


@pytest.fixture
def umask_of(spark: Any) -> Iterator[Any]:
    """Sets the session's umask (and a fresh local file system for each write)."""
    def set_to(setting: str) -> None:
        spark.conf.set("fs.file.impl.disable.cache", "true")
        spark.conf.set("fs.permissions.umask-mode", setting)

    try:
        yield set_to
    finally:
        spark.conf.unset("fs.permissions.umask-mode")
        spark.conf.unset("fs.file.impl.disable.cache")


@pytest.mark.parametrize(("setting", "mask"), [("077", 0o077), ("u=rwx,g=rx,o=", 0o027)])
def test_what_writes_make_keeps_to_the_sessions_umask(
        spark: Any, db: str, client: MetastoreClient, umask_of: Any, setting: str,
        mask: int) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET")
    spark.sql(f"CREATE TABLE hms.{db}.u (v BIGINT) STORED AS PARQUET")
    umask_of(setting)
    spark.sql(f"INSERT INTO hms.{db}.t PARTITION (k=1) VALUES (1)")
    spark.sql(f"INSERT INTO hms.{db}.t VALUES (2, 2), (3, 3)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.t PARTITION (k=2) VALUES (4)")
    spark.sql(f"INSERT OVERWRITE hms.{db}.u VALUES (5)")
    for table in ("t", "u"):
        root = Path(client.get_table(db, table).location.removeprefix("file:"))
        made = list(root.rglob("*"))
        assert any(p.suffix == ".parquet" for p in made) and any(p.is_dir() for p in made)
        assert _wider(root, mask) == {}, table
    assert sorted(spark.sql(f"SELECT v, k FROM hms.{db}.t").collect()) == [(1, 1), (3, 3), (4, 2)]
    assert spark.sql(f"SELECT v FROM hms.{db}.u").collect() == [(5,)]


def test_a_umask_hadoop_would_not_read_fails_the_write_naming_it(
        spark: Any, db: str, client: MetastoreClient, umask_of: Any) -> None:
    spark.sql(f"CREATE TABLE hms.{db}.t (v BIGINT) PARTITIONED BY (k INT) STORED AS PARQUET")
    umask_of("private")
    with pytest.raises(Exception) as raised:
        spark.sql(f"INSERT INTO hms.{db}.t VALUES (1, 1)")
    first = str(raised.value).strip().splitlines()[0]
    assert first.startswith("[HMS_INVALID_SETTING] fs.permissions.umask-mode 'private' is not"), \
        first
    root = Path(client.get_table(db, "t").location.removeprefix("file:"))
    assert not root.exists() or [p.name for p in root.iterdir()] == []
    assert spark.sql(f"SELECT * FROM hms.{db}.t").collect() == []
