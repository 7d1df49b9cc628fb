"""The partition source protocol: which source a target gets, what each selects, and what
EXPLAIN says about a selection. No metastore: its client is a fake."""

from __future__ import annotations

import json
import re
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from hmscatalog.errors import (
    HmsCatalogError,
    InvalidPartitionValue,
    InvalidSetting,
    MetastoreError,
)
from hmscatalog.expressions.predicates import AlwaysTrue, Compare, eq
from hmscatalog.metastore.cache import MetadataCache
from hmscatalog.metastore.model import Column, Partition, Storage, StorageFormat, Table
from hmscatalog.sources.choose import source_for
from hmscatalog.sources.discovery import DiscoverySource
from hmscatalog.sources.metastore import MetastoreSource
from hmscatalog.sources.projection import ProjectionSource
from hmscatalog.sources.source import (
    ReadTarget,
    SelectedPartition,
    Selection,
    Unpartitioned,
    describe,
)
from hmscatalog.spark.read.arrow_source import PartitionedFilesReader, _Files, source_options

COLUMNS = (Column("a", "bigint"),)
KEYS = (Column("dt", "string"), Column("hr", "int"))
PROJECTION = {"projection.enabled": "true", "projection.dt.type": "enum",
              "projection.dt.values": "2024-01-01,2024-01-02",
              "projection.hr.type": "integer", "projection.hr.range": "0,2"}


def _table(location: str = "file:/t", keys: tuple[Column, ...] = KEYS,
           **parameters: str) -> Table:
    return Table("db", "t", COLUMNS, keys, Storage.of(StorageFormat.PARQUET, location),
                 parameters=parameters)


def _path_target(root: Path, values_from_paths: bool = True, **properties: str) -> ReadTarget:
    return ReadTarget("read of x", "read of x", COLUMNS, KEYS, f"file:{root}",
                      StorageFormat.PARQUET, properties, values_from_paths=values_from_paths)


def _done(value: int | Exception) -> Future[int]:
    future: Future[int] = Future()
    if isinstance(value, Exception):
        future.set_exception(value)
    else:
        future.set_result(value)
    return future


def _parts(count: int) -> list[SelectedPartition]:
    return [SelectedPartition(("2024-01-05", str(i)), f"file:/t/dt=2024-01-05/hr={i}")
            for i in range(count)]


# -- describe ---------------------------------------------------------------------------------

def test_describe_says_where_the_partitions_came_from() -> None:
    assert describe("db.t", Selection(_parts(3), "metastore", _done(42),
                                      metastore_filter='dt = "2024-01-05"')) == (
        'hms db.t partitions=3/42 (metastore filter: dt = "2024-01-05"; client-side filter: no)')
    assert describe("db.t", Selection(_parts(1), "metastore", _done(5),
                                      client_filtered=True)) == (
        "hms db.t partitions=1/5 (metastore filter: none; client-side filter: yes)")
    assert describe("path./x", Selection(_parts(2), "storage", 8, list_calls=3)) == (
        "hms path./x partitions=2/8 (discovered on storage; list calls: 3)")
    assert describe("db.t", Selection(_parts(1), "projection", 87672)) == (
        "hms db.t partitions=1/87672 (partition projection; no listing)")
    assert describe("db.t", Selection(_parts(2), "projection", None)) == (
        "hms db.t partitions=2/unbounded (partition projection; no listing)")
    assert describe("db.t", Unpartitioned().select(AlwaysTrue())) == "hms db.t unpartitioned"


def test_a_failed_count_shows_as_unknown(caplog: pytest.LogCaptureFixture) -> None:
    selection = Selection(_parts(1), "metastore", _done(MetastoreError("gone")))
    assert describe("db.t", selection) == (
        "hms db.t partitions=1/unknown (metastore filter: none; client-side filter: no)")
    assert "cannot count the partitions of db.t: gone" in caplog.text


# -- source_for -------------------------------------------------------------------------------

class _Access:
    """A catalog context: a fake client, and counts that record when they were started."""

    def __init__(self, partitions: list[Partition]) -> None:
        self.calls: list[str] = []
        self.partitions = partitions

    @property
    def metastore(self) -> Any:
        return self

    @property
    def cache(self) -> MetadataCache:
        return MetadataCache(0)

    def count_later(self, table: Table) -> Future[int]:
        self.calls.append("count")
        return _done(len(self.partitions))

    def get_partitions_by_filter(self, database: str, name: str, text: str) -> list[Partition]:
        self.calls.append(f"filter {text}")
        return self.partitions

    def list_partitions(self, database: str, name: str) -> list[Partition]:
        self.calls.append("list")
        return self.partitions


def test_source_for_chooses_one_source_per_target(tmp_path: Path) -> None:
    access = _Access([])
    assert isinstance(source_for(ReadTarget.of(_table(keys=())), metastore=access),
                      Unpartitioned)
    assert isinstance(source_for(ReadTarget.of(_table()), metastore=access), MetastoreSource)
    discovered = _table(**{"hmscatalog.discovery.enabled": "true"})
    assert isinstance(source_for(ReadTarget.of(discovered), metastore=access), DiscoverySource)
    projected = _table(**PROJECTION, **{"hmscatalog.discovery.enabled": "true"})
    assert isinstance(source_for(ReadTarget.of(projected), metastore=access), ProjectionSource)
    # A path read has no metastore table: discovered, unless projected.
    assert isinstance(source_for(_path_target(tmp_path)), DiscoverySource)
    assert isinstance(source_for(_path_target(tmp_path, **PROJECTION)), ProjectionSource)
    assert access.calls == []  # choosing asks nothing


def test_source_for_refuses_what_it_cannot_read() -> None:
    with pytest.raises(HmsCatalogError, match=r"db\.t: no metastore"):
        source_for(ReadTarget.of(_table()))
    with pytest.raises(InvalidSetting, match=re.escape(
            "Table db.t: unknown property 'hmscatalog.discovery.enable'")):
        source_for(ReadTarget.of(_table(**{"hmscatalog.discovery.enable": "true"})))


# -- the sources ------------------------------------------------------------------------------

def test_the_metastore_source_counts_in_parallel_and_filters_on_the_client() -> None:
    table = _table()
    access = _Access([table.partition_at(["2024-01-05", str(hr)], f"file:/t/hr={hr}")
                      for hr in range(4)])
    selection = source_for(ReadTarget.of(table), metastore=access).select(
        eq("dt", "2024-01-05") & Compare("hr", ">", 1))
    assert access.calls == ["count", 'filter (dt = "2024-01-05" and hr > 1)']
    assert selection.partitions == [SelectedPartition(("2024-01-05", "2"), "file:/t/hr=2"),
                                    SelectedPartition(("2024-01-05", "3"), "file:/t/hr=3")]
    assert describe("db.t", selection) == ('hms db.t partitions=2/4 (metastore filter: '
                                           '(dt = "2024-01-05" and hr > 1); '
                                           'client-side filter: no)')


def _write(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")


def test_the_discovery_source_walks_the_location(tmp_path: Path) -> None:
    _write(tmp_path, "dt=2024-01-01/hr=0/f.parquet", "dt=2024-01-01/hr=1/f.parquet",
           "dt=2024-01-02/hr=0/f.parquet", "dt=2024-01-02/hr=0/_SUCCESS")
    target = ReadTarget.of(_table(f"file:{tmp_path}", **{"hmscatalog.discovery.enabled": "true"}))
    selection = source_for(target).select(eq("hr", 0))
    assert selection.partitions == [
        SelectedPartition(("2024-01-01", "0"), f"file:{tmp_path}/dt=2024-01-01/hr=0"),
        SelectedPartition(("2024-01-02", "0"), f"file:{tmp_path}/dt=2024-01-02/hr=0")]
    assert selection.files == {}
    assert describe("db.t", selection) == (
        "hms db.t partitions=2/3 (discovered on storage; list calls: 3)")
    # A glob, or a reader asking for files, names the files of each partition.
    globbed = _path_target(tmp_path, **{"hmscatalog.discovery.glob": "dt=*/hr=1/*.parquet"})
    selection = source_for(globbed).select(AlwaysTrue())
    location = f"file:{tmp_path}/dt=2024-01-01/hr=1"
    assert [p.location for p in selection.partitions] == [location]
    assert selection.files == {location: [f"{location}/f.parquet"]}
    selection = source_for(_path_target(tmp_path), with_files=True).select(eq("dt", "2024-01-02"))
    location = f"file:{tmp_path}/dt=2024-01-02/hr=0"
    assert selection.files == {location: [f"{location}/f.parquet"]}


def test_the_projection_source_computes_partitions_and_lists_only_for_files(
        tmp_path: Path) -> None:
    _write(tmp_path, "dt=2024-01-01/hr=1/f.parquet", "dt=2024-01-02/hr=1/_SUCCESS")
    target = _path_target(tmp_path, values_from_paths=False, **PROJECTION)
    selection = source_for(target).select(eq("hr", 1))
    assert [p.values for p in selection.partitions] == [("2024-01-01", "1"), ("2024-01-02", "1")]
    assert describe("x", selection) == "hms x partitions=2/6 (partition projection; no listing)"
    listed = source_for(target, with_files=True).select(eq("hr", 1))
    location = f"file:{tmp_path}/dt=2024-01-01/hr=1"
    assert [p.location for p in listed.partitions] == [location]
    assert listed.files == {location: [f"{location}/f.parquet"]}
    injected = {k: v for k, v in PROJECTION.items() if not k.startswith("projection.dt.")}
    injected["projection.dt.type"] = "injected"
    unbounded = source_for(_path_target(tmp_path, **injected)).select(eq("dt", "d"))
    assert describe("x", unbounded) == (
        "hms x partitions=3/unbounded (partition projection; no listing)")


# -- the pyarrow reader's partitions ----------------------------------------------------------

def _reader(target: ReadTarget, predicate: Any = None) -> PartitionedFilesReader:
    plan = json.loads(source_options(target, {})["plan"])
    reader = PartitionedFilesReader(plan, None)
    if predicate is not None:
        reader.predicates.append(predicate)
    return reader


def test_the_pyarrow_reader_types_values_from_directories_or_by_type(tmp_path: Path) -> None:
    _write(tmp_path, "dt=2024-01-01/hr=07/f.parquet", "dt=2024-01-01/hr=07/sub/g.parquet",
           "dt=2024-01-02/hr=x/f.parquet")
    parts = _reader(_path_target(tmp_path), eq("dt", "2024-01-01")).partitions()
    assert [(p.values, p.files) for p in parts if isinstance(p, _Files)] == [
        (["2024-01-01", 7], [f"{tmp_path}/dt=2024-01-01/hr=07/f.parquet"]),
        (["2024-01-01", 7], [f"{tmp_path}/dt=2024-01-01/hr=07/sub/g.parquet"])]
    with pytest.raises(InvalidPartitionValue, match=re.escape(
            f"read of x: directory {tmp_path}/dt=2024-01-02/hr=x: partition key 'hr'")):
        _reader(_path_target(tmp_path)).partitions()
    _write(tmp_path, "dt=2024-01-02/hr=2/f.parquet")
    projected = _reader(_path_target(tmp_path, values_from_paths=False, **PROJECTION))
    assert [(p.values, p.files) for p in projected.partitions() if isinstance(p, _Files)] == [
        (["2024-01-02", 2], [f"{tmp_path}/dt=2024-01-02/hr=2/f.parquet"])]
