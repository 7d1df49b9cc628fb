"""Partition repair (``MSCK REPAIR TABLE`` on hms tables, the ``repair`` command), checked
against Spark's built-in MSCK run on a copy of the same directories in the same metastore."""

from __future__ import annotations

import hashlib
import io
import re
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import kerberized
import pytest
from s3 import MotoServer
from spark_versions import running

from hmscatalog.cli.main import main
from hmscatalog.errors import NoSuchTable
from hmscatalog.maintenance.repair import repair_table
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Column, Partition, Storage, StorageFormat, Table
from hmscatalog.partitions.codec import make_part_name

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.metastore]

COLUMNS = "(a BIGINT) PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET"
# Directories added to what Spark writes, each with a copy of a data file. Spark's repair (and
# ours) registers the first five and skips the rest.
ODD_DIRECTORIES = [
    "dt=a%3Ab/hr=1",  # escaped value: a:b
    "dt=__HIVE_DEFAULT_PARTITION__/hr=2",  # NULL
    "dt=d0/hr=007",  # spelt as found, read as 7
    "DT=up/hr=3",  # keys match case-insensitively
    "dt=d1/HR=4",
    "hr=1/dt=z",  # key out of order: skipped with a warning
    ".hive-staging_hive_1/dt=q/hr=1",
    "_temporary/0/dt=q/hr=1",
    "dt=d0/_temporary/hr=9",
    "dt=d1/.hive-staging/hr=8",
    "notes/dt=q/hr=1",  # no '=' in "notes"
]


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _write_layout(spark: Any, root: Path) -> None:
    (spark.range(24)
     .selectExpr("id AS a", "concat('d', id % 2) AS dt", "CAST(id % 3 AS INT) AS hr")
     .write.partitionBy("dt", "hr").parquet(str(root)))  # also writes _SUCCESS
    source = next((root / "dt=d0" / "hr=0").glob("*.parquet"))
    for directory in ODD_DIRECTORIES:
        (root / directory).mkdir(parents=True)
        shutil.copy(source, root / directory / "part-00000-copy.parquet")


def _create(spark: Any, catalog: str, db: str, name: str, root: Path) -> None:
    spark.sql(f"CREATE TABLE {catalog}.{db}.{name} {COLUMNS} LOCATION 'file:{root}'")


def _registered(client: MetastoreClient, db: str, name: str, root: Path) -> list[tuple[Any, ...]]:
    """Each partition's values and location, the table's own directory spelt ``<root>``."""
    return sorted((tuple(p.values), (p.location or "").replace(f"file:{root}", "<root>"))
                  for p in client.list_partitions(db, name))


def _add_at(client: MetastoreClient, db: str, name: str, values: Sequence[Any],
            location: Path) -> None:
    table = client.get_table(db, name)
    client.add_partitions(table, [client.new_partition(table, values, f"file:{location}")])


@pytest.mark.builtin
def test_msck_recover_and_cli_add_what_spark_msck_adds(
        spark: Any, client: MetastoreClient, db: str, tmp_path: Path, metastore_uri: str) -> None:
    layout = tmp_path / "layout"
    _write_layout(spark, layout)
    roots = {name: tmp_path / name for name in ("theirs", "ours", "recovered", "cli")}
    for name, root in roots.items():
        shutil.copytree(layout, root)
        _create(spark, "spark_catalog" if name == "theirs" else "hms", db, name, root)

    assert spark.sql(f"MSCK REPAIR TABLE spark_catalog.{db}.theirs").collect() == []
    ours = spark.sql(f"MSCK REPAIR TABLE hms.{db}.ours")
    assert (ours.columns, ours.collect()) == ([], [])  # as Spark's own MSCK returns
    assert spark.sql(f"ALTER TABLE hms.{db}.recovered RECOVER PARTITIONS").collect() == []
    assert main(["repair", metastore_uri, f"{db}.cli", *kerberized.cli_options()]) == 0

    expected = _registered(client, db, "theirs", roots["theirs"])
    assert len(expected) == 6 + 5
    assert (("a:b", "1"), "<root>/dt=a%3Ab/hr=1") in expected
    assert (("__HIVE_DEFAULT_PARTITION__", "2"),
            "<root>/dt=__HIVE_DEFAULT_PARTITION__/hr=2") in expected
    assert (("up", "3"), "<root>/DT=up/hr=3") in expected
    theirs = _rows(spark.sql(f"SELECT a, dt, hr FROM spark_catalog.{db}.theirs"))
    assert len(theirs) > 24
    for name in ("ours", "recovered", "cli"):
        assert _registered(client, db, name, roots[name]) == expected, name
        assert _rows(spark.sql(f"SELECT a, dt, hr FROM hms.{db}.{name}")) == theirs, name
    # A second run finds nothing to add.
    assert repair_table(client, f"{db}.ours").added == []


@pytest.mark.builtin
def test_drop_and_sync_match_spark(spark: Any, client: MetastoreClient, db: str,
                                   tmp_path: Path) -> None:
    layout = tmp_path / "layout"
    (spark.range(12)
     .selectExpr("id AS a", "IF(id % 2 = 0, 'a', 'b') AS dt", "CAST(id % 3 AS INT) AS hr")
     .write.partitionBy("dt", "hr").parquet(str(layout)))
    source = next((layout / "dt=a" / "hr=0").glob("*.parquet"))

    def put(directory: Path) -> None:
        directory.mkdir(parents=True)
        shutil.copy(source, directory / "part-00000-copy.parquet")

    tables = {"theirs": "spark_catalog", "ours": "hms"}
    roots = {name: tmp_path / name for name in tables}
    for name, catalog in tables.items():
        shutil.copytree(layout, roots[name])
        _create(spark, catalog, db, name, roots[name])
        spark.sql(f"MSCK REPAIR TABLE {catalog}.{db}.{name}")
        root = roots[name]
        # Registered outside the table's directory: one that exists, one that is gone.
        _add_at(client, db, name, ["kept", 1], Path(f"{root}-kept"))
        _add_at(client, db, name, ["gone", 1], Path(f"{root}-gone"))
        shutil.rmtree(f"{root}-gone")
        put(root / "dt=gone" / "hr=1")  # DROP drops it all the same; SYNC would re-point it
        shutil.rmtree(root / "dt=a" / "hr=0")
        put(root / "dt=c" / "hr=5")

    def both(statement: str) -> list[tuple[Any, ...]]:
        for name, catalog in tables.items():
            assert spark.sql(statement.format(f"{catalog}.{db}.{name}")).collect() == []
        expected = _registered(client, db, "theirs", roots["theirs"])
        assert _registered(client, db, "ours", roots["ours"]) == expected, statement
        return expected

    dropped = both("MSCK REPAIR TABLE {} DROP PARTITIONS")
    assert [values for values, _ in dropped] == [
        ("a", "1"), ("a", "2"), ("b", "0"), ("b", "1"), ("b", "2"), ("kept", "1")]

    for name, root in roots.items():
        _add_at(client, db, name, ["moved", 1], Path(f"{root}-moved"))
        shutil.rmtree(f"{root}-moved")
        put(root / "dt=moved" / "hr=1")
    synced = both("MSCK REPAIR TABLE {} SYNC PARTITIONS")
    assert (("moved", "1"), "<root>/dt=moved/hr=1") in synced  # dropped, then added here
    assert (("gone", "1"), "<root>/dt=gone/hr=1") in synced
    assert (("c", "5"), "<root>/dt=c/hr=5") in synced
    assert (_rows(spark.sql(f"SELECT a, dt, hr FROM hms.{db}.ours"))
            == _rows(spark.sql(f"SELECT a, dt, hr FROM spark_catalog.{db}.theirs")))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_dry_run_changes_nothing_and_the_cli_reports(
        spark: Any, client: MetastoreClient, db: str, tmp_path: Path, metastore_uri: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "t"
    for directory in ("dt=a/hr=1", "dt=b/hr=1", "dt=b/hr=2"):
        (root / directory).mkdir(parents=True)
    _create(spark, "hms", db, "t", root)
    _add_at(client, db, "t", ["z", 1], tmp_path / "z")
    shutil.rmtree(tmp_path / "z")
    before = client.list_partition_names(db, "t")

    calls: list[tuple[int, int]] = []
    result = repair_table(client, f"{db}.t", drop=True, dry_run=True, batch_size=2,
                          progress=lambda done, total: calls.append((done, total)))
    assert (result.added, result.dropped) == (["dt=a/hr=1", "dt=b/hr=1", "dt=b/hr=2"],
                                              ["dt=z/hr=1"])
    assert (result.found, result.list_calls, result.dry_run) == (3, 3, True)
    assert result.location_checks == 1  # dt=z lies outside the table's directory
    assert calls == [(0, 4), (1, 4), (3, 4), (4, 4)]  # one drop batch, two add batches
    assert client.list_partition_names(db, "t") == before

    assert main(["repair", metastore_uri, f"{db}.t", "--sync", "--dry-run",
                 *kerberized.cli_options()]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["would drop dt=z/hr=1", "would add dt=a/hr=1", "would add dt=b/hr=1",
                       "would add dt=b/hr=2"]
    assert re.fullmatch(rf"{db}\.t: 3 partitions would be added, 1 would be dropped \(dry run; "
                        r"list calls: 3, location checks: 1, \d+\.\d s\)", out[4]), out[4]
    assert client.list_partition_names(db, "t") == before

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["repair", metastore_uri, f"{db}.t", "--sync", "--batch-size", "3",
                 *kerberized.cli_options()]) == 0
    summary = capsys.readouterr().out
    assert re.fullmatch(rf"{db}\.t: 3 partitions added, 1 dropped \(list calls: 3, "
                        r"location checks: 1, \d+\.\d s\)\n", summary), summary
    bar = terminal.getvalue()
    assert bar.startswith(f"\r{db}.t: [")
    assert bar.endswith("] 4/4 partitions\n") and bar.count("\r") == 3  # 0/4, 1/4, 4/4
    assert sorted(client.list_partition_names(db, "t")) == ["dt=a/hr=1", "dt=b/hr=1",
                                                            "dt=b/hr=2"]


@pytest.mark.builtin
def test_unpartitioned_and_missing_tables_fail_as_spark_does(
        spark: Any, client: MetastoreClient, db: str, metastore_uri: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pyspark.errors import AnalysisException

    spark.sql(f"CREATE TABLE spark_catalog.{db}.plain_theirs (a INT) STORED AS PARQUET")
    spark.sql(f"CREATE TABLE hms.{db}.plain (a INT) STORED AS PARQUET")
    for statement in ("MSCK REPAIR TABLE {} SYNC PARTITIONS", "ALTER TABLE {} RECOVER PARTITIONS"):
        for table in (f"spark_catalog.{db}.plain_theirs", f"hms.{db}.plain"):
            with pytest.raises(AnalysisException) as caught:
                spark.sql(statement.format(table))
            assert caught.value.getCondition() == "NOT_A_PARTITIONED_TABLE"
            quoted = ".".join(f"`{part}`" for part in table.split("."))
            assert f"is not allowed for {quoted} because it is not a partitioned" in str(
                caught.value)
    with pytest.raises(AnalysisException) as caught:
        spark.sql(f"MSCK REPAIR TABLE hms.{db}.nope")
    assert caught.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    assert f"`hms`.`{db}`.`nope`" in str(caught.value)

    with pytest.raises(NoSuchTable, match=rf"table {db}\.nope does not exist"):
        repair_table(client, f"{db}.nope")
    capsys.readouterr()
    assert main(["repair", metastore_uri, f"{db}.nope", *kerberized.cli_options()]) == 1
    assert f"hmscatalog: error: table {db}.nope does not exist" in capsys.readouterr().err
    assert main(["repair", metastore_uri, f"{db}.plain", *kerberized.cli_options()]) == 1
    assert (f"hmscatalog: error: cannot repair table {db}.plain: it is not partitioned"
            in capsys.readouterr().err)


@pytest.mark.builtin
def test_empty_value_or_missing_location_fail_before_any_change(
        spark: Any, client: MetastoreClient, db: str, tmp_path: Path) -> None:
    from pyspark.errors import AnalysisException, SparkRuntimeException

    for name, catalog in (("theirs", "spark_catalog"), ("ours", "hms")):
        for directory in ("dt=a/hr=1", "dt=/hr=1"):
            (tmp_path / name / directory).mkdir(parents=True)
        _create(spark, catalog, db, name, tmp_path / name)
    # Spark 4.3 named this error's condition (before, _LEGACY_ERROR_TEMP_1076 left it out).
    condition = "INVALID_PARTITION_SPEC" if running() >= (4, 3) else "Partition spec is invalid"
    with pytest.raises(AnalysisException, match=rf"{condition}.*empty partition"):
        spark.sql(f"MSCK REPAIR TABLE spark_catalog.{db}.theirs")
    # Through Spark, as every hms error: one first line, [HMS_<KIND>] and the message.
    with pytest.raises(SparkRuntimeException) as empty:
        spark.sql(f"MSCK REPAIR TABLE hms.{db}.ours")
    assert str(empty.value).splitlines()[0] == (
        f"[HMS_INVALID_PARTITION_SPEC] cannot repair table {db}.ours: directory "
        f"file:{tmp_path}/ours/dt=/hr=1 has an empty value for partition column 'dt'")
    assert client.list_partition_names(db, "ours") == []

    # Without the table's directory, adding fails (Spark's with Hadoop's FileNotFoundException)
    # and dropping works. A SYNC fails before it drops anything.
    _add_at(client, db, "ours", ["a", 1], tmp_path / "ours" / "dt=a" / "hr=1")
    shutil.rmtree(tmp_path / "theirs")
    shutil.rmtree(tmp_path / "ours")
    with pytest.raises(Exception, match=f"File file:{tmp_path}/theirs does not exist"):
        spark.sql(f"MSCK REPAIR TABLE spark_catalog.{db}.theirs")
    assert spark.sql(f"MSCK REPAIR TABLE spark_catalog.{db}.theirs DROP PARTITIONS").collect() \
        == []
    with pytest.raises(SparkRuntimeException) as missing:
        spark.sql(f"MSCK REPAIR TABLE hms.{db}.ours SYNC PARTITIONS")
    assert str(missing.value).splitlines()[0].startswith(
        f"[HMS_STORAGE_ERROR] cannot repair table {db}.ours: its location "
        f"file:{tmp_path}/ours does not exist")
    assert client.list_partition_names(db, "ours") == ["dt=a/hr=1"]
    spark.sql(f"MSCK REPAIR TABLE hms.{db}.ours DROP PARTITIONS")
    assert client.list_partition_names(db, "ours") == []


class _Metastore:
    """The partition calls of :class:`MetastoreClient`, kept in memory.

    The test metastore cannot hold ``s3://`` locations (it has no S3 file system: creating such
    a table fails with ``No FileSystem for scheme "s3"``), so the S3 test stands this in for it.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.partitions: dict[tuple[str, ...], Partition] = {}

    def _name(self, partition: Partition) -> str:
        return make_part_name(self.table.partition_spec.names, list(partition.values))

    def list_partition_names(self, database: str, table: str) -> list[str]:
        return [self._name(p) for p in self.partitions.values()]

    def get_partitions_by_names(self, database: str, table: str,
                                names: Sequence[str]) -> list[Partition]:
        return [p for p in self.partitions.values() if self._name(p) in names]

    def add_partitions_if_absent(self, table: Table,
                                 partitions: Sequence[Partition]) -> list[Partition]:
        new = [p for p in partitions if tuple(p.values) not in self.partitions]
        self.partitions.update((tuple(p.values), p) for p in new)
        return new

    def drop_partitions(self, database: str, table: str, names: Sequence[str],
                        delete_data: bool, if_exists: bool) -> int:
        gone = [v for v, p in self.partitions.items() if self._name(p) in names]
        for values in gone:
            del self.partitions[values]
        return len(gone)


def test_repair_on_s3_lists_each_directory_once(moto_s3: MotoServer,
                                                request: pytest.FixtureRequest) -> None:
    bucket = "repair-" + hashlib.sha1(request.node.nodeid.encode()).hexdigest()[:8]
    moto_s3.create_bucket(bucket)
    moto_s3.put_many(bucket, {
        **{f"t/dt=d{d}/hr={h}/part-0.parquet": b"x" for d in range(3) for h in range(2)},
        "t/_SUCCESS": b"",
        "t/dt=d0/_temporary/0/part-9.parquet": b"x",
        "t/hr=1/dt=z/part-0.parquet": b"x",
        "elsewhere/kept/part-0.parquet": b"x",
    })
    table = Table("db", "t", [Column("a", "bigint")],
                  [Column("dt", "string"), Column("hr", "int")],
                  Storage.of(StorageFormat.PARQUET, f"s3://{bucket}/t"))
    metastore = _Metastore(table)

    def registered(values: tuple[str, str], location: str) -> None:
        metastore.partitions[values] = Partition(
            "db", "t", values, replace(table.storage, location=location))

    registered(("d0", "0"), f"s3://{bucket}/t/dt=d0/hr=0")
    registered(("gone", "1"), f"s3://{bucket}/t/dt=gone/hr=1")  # under the root: no check
    registered(("kept", "1"), f"s3a://{bucket}/elsewhere/kept")
    registered(("lost", "1"), f"s3://{bucket}/elsewhere/lost")

    before = moto_s3.mark()
    result = repair_table(metastore, table, drop=True, storage_options=moto_s3.options)
    assert result.dropped == ["dt=gone/hr=1", "dt=lost/hr=1"]
    assert result.added == [f"dt=d{d}/hr={h}" for d in range(3) for h in range(2)][1:]
    assert sorted(metastore.partitions) == sorted(
        [(f"d{d}", str(h)) for d in range(3) for h in range(2)] + [("kept", "1")])
    assert metastore.partitions[("d1", "0")].location == f"s3://{bucket}/t/dt=d1/hr=0"
    # The root, then each dt= directory (hr=1 is skipped); a HEAD and a List for each of the
    # two locations outside the root; nothing for dt=gone, which the walk has not seen.
    assert (result.list_calls, result.location_checks) == (4, 2)
    assert sorted((r.method, r.key or r.params["prefix"][0])
                  for r in moto_s3.requests(before)) == [
        ("GET", "elsewhere/kept/"), ("GET", "elsewhere/lost/"), ("GET", "t/"),
        ("GET", "t/dt=d0/"), ("GET", "t/dt=d1/"), ("GET", "t/dt=d2/"),
        ("HEAD", "elsewhere/kept"), ("HEAD", "elsewhere/lost")]
