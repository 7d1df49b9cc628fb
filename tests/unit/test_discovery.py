"""Discovery of partitions on local disk: pruning while listing, probing, layout rules, limits."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionSpec, InvalidSetting, TooManyPartitions
from hmscatalog.expressions import bind
from hmscatalog.expressions.predicates import (
    AlwaysTrue,
    And,
    Compare,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Not,
    Opaque,
    Or,
    Predicate,
    StartsWith,
    eq,
)
from hmscatalog.partitions import PartitionSpec
from hmscatalog.partitions.types import HiveType, parse_hive_type
from hmscatalog.sources.discovery import DiscoveryLimits, discover
from hmscatalog.storage import open_storage

SPEC = PartitionSpec.of(("region", "string"), ("dt", "date"), ("hr", "int"))
REGIONS = ["emea", "apac", None]
DATES = ["2024-01-01", "2024-01-02", None]
HOURS = ["0", "7", "007", "13", None]


def _tree(root: Path, spec: PartitionSpec, values: list[tuple[str | None, ...]]) -> None:
    for row in values:
        parts = [f"{c.name}={v if v is not None else '__HIVE_DEFAULT_PARTITION__'}"
                 for c, v in zip(spec.columns, row, strict=True)]
        directory = root.joinpath(*parts)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "part-0.parquet").write_bytes(b"x")


ALL = list(itertools.product(REGIONS, DATES, HOURS))


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    _tree(tmp_path, SPEC, ALL)
    (tmp_path / "_SUCCESS").write_bytes(b"")
    (tmp_path / ".hive-staging_1").mkdir()
    (tmp_path / "_temporary").mkdir()
    (tmp_path / "notes").mkdir()  # no '=': not a partition directory
    return tmp_path


def _found(root: Path, pred: Predicate, spec: PartitionSpec = SPEC,
           **limits: int) -> tuple[list[tuple[str | None, ...]], int, int]:
    storage, path = open_storage(str(root))
    result = discover(storage, path, spec, pred, DiscoveryLimits(**limits))
    assert all(Path(p.path).is_dir() for p in result.partitions)
    return [p.values for p in result.partitions], result.listed, result.list_calls


def _typed(row: tuple[str | None, ...]) -> tuple[Any, ...]:
    return SPEC.from_strings([v or "__HIVE_DEFAULT_PARTITION__" for v in row])


def test_no_filter_finds_every_partition_and_skips_hidden_and_other_directories(
        table: Path) -> None:
    values, listed, calls = _found(table, AlwaysTrue())
    assert sorted(values, key=repr) == sorted(ALL, key=repr)
    assert listed == len(ALL)
    assert calls == 1 + 3 + 9  # the root, each region, each (region, dt)


def test_a_pinned_string_column_is_probed_without_listing_its_parent(table: Path) -> None:
    values, listed, calls = _found(table, eq("region", "apac") & eq("hr", 7))
    assert sorted(values, key=repr) == sorted(
        [("apac", d, h) for d in DATES for h in ("7", "007")], key=repr)
    assert listed == 3 * len(HOURS)  # leaf directories seen
    assert calls == 1 + 3  # region=apac, then its three dt directories; the root never


def test_values_are_compared_as_their_declared_type(table: Path) -> None:
    values, _, _ = _found(table, eq("hr", 7) & eq("region", "emea")
                          & eq("dt", dt.date(2024, 1, 2)))
    assert sorted(values) == [("emea", "2024-01-02", "007"), ("emea", "2024-01-02", "7")]


def test_null_partitions(table: Path) -> None:
    values, _, _ = _found(table, IsNull("region") & IsNull("dt") & IsNull("hr"))
    assert values == [(None, None, None)]
    values, _, _ = _found(table, EqualNullSafe("region", None) & eq("hr", 13)
                          & Compare("dt", ">", dt.date(2024, 1, 1)))
    assert values == [(None, "2024-01-02", "13")]


def test_a_probed_partition_that_does_not_exist_is_not_found(table: Path) -> None:
    values, listed, calls = _found(
        table, In("region", ("emea", "nowhere")) & eq("dt", dt.date(2024, 1, 1)) & eq("hr", 0))
    assert values == [("emea", "2024-01-01", "0")]
    assert listed == len(HOURS)
    assert calls == 3  # region=emea, region=nowhere (missing), emea/dt=2024-01-01


def test_a_key_out_of_order_is_an_error_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "dt=2024-01-01" / "region=emea" / "hr=1").mkdir(parents=True)
    with pytest.raises(InvalidPartitionSpec, match=r"dt=2024-01-01.*'dt'.*'region'"):
        _found(tmp_path, AlwaysTrue())


def test_escaped_names_and_unparseable_values(tmp_path: Path) -> None:
    spec = PartitionSpec.of(("k", "string"), ("n", "int"))
    (tmp_path / "k=a%3Ab" / "n=1").mkdir(parents=True)
    (tmp_path / "k=a%3Ab" / "n=oops").mkdir(parents=True)
    values, _, _ = _found(tmp_path, eq("k", "a:b") & eq("n", 1), spec)
    assert values == [("a:b", "1"), ("a:b", "oops")]  # "oops" cannot be ruled out


def test_limits(table: Path, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(TooManyPartitions, match=r"found 45 matching partitions, more than 40"
                                                r".*hmscatalog.discovery.max-partitions"):
        _found(table, AlwaysTrue(), max_partitions=40)
    with pytest.raises(TooManyPartitions, match=r"more than 5 list calls"):
        _found(table, AlwaysTrue(), max_list_calls=5)
    _found(table, AlwaysTrue(), warn_partitions=10)
    (warned,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned.endswith(" selected 45 partitions (warning above 10, "
                           "hmscatalog.discovery.warn-partitions); conditions on the partition "
                           f"columns {list(SPEC.names)} would bound it"), warned
    assert DiscoveryLimits.from_properties(
        {"hmscatalog.discovery.max-partitions": "7"}).max_partitions == 7
    with pytest.raises(InvalidSetting, match=r"'hmscatalog\.discovery\.max-list-calls' must be "
                                             r"a whole number"):
        DiscoveryLimits.from_properties({"hmscatalog.discovery.max-list-calls": "many"})


def pinned_values(pred: Predicate, column: str, hive_type: HiveType) -> frozenset[Any] | None:
    return bind(pred, [(column, hive_type)]).pinned(column)


def test_pinned_values() -> None:
    text = parse_hive_type("string")
    number = parse_hive_type("int")
    assert pinned_values(eq("k", "a"), "K", text) == {"a"}
    assert pinned_values(In("k", ("a", "b", None)) & eq("x", 1), "k", text) == {"a", "b"}
    assert pinned_values(eq("k", "a") | eq("k", "b"), "k", text) == {"a", "b"}
    assert pinned_values(eq("k", "a") | eq("x", 1), "k", text) is None
    assert pinned_values(In("k", ("a", "b")) & eq("k", "b"), "k", text) == {"b"}
    assert pinned_values(Compare("k", ">", "a"), "k", text) is None
    assert pinned_values(EqualNullSafe("k", None), "k", text) is None
    assert pinned_values(Not(eq("k", "a")), "k", text) is None
    assert pinned_values(eq("n", "07"), "n", number) == {7}
    assert pinned_values(eq("n", 1.5), "n", number) is None  # 1.5 = n cannot be a set of ints


# -- every operator, over every column type: discovery equals filtering all partitions --------

_LITERALS = {
    "region": st.sampled_from(["emea", "apac", "zz", "", None]),
    "dt": st.sampled_from([dt.date(2024, 1, 1), dt.date(2024, 1, 2), "2024-01-02", None]),
    "hr": st.sampled_from([0, 7, 13, "07", 100, None]),
}


@st.composite
def _leaf(draw: st.DrawFn) -> Predicate:
    column = draw(st.sampled_from(SPEC.names))
    literal = _LITERALS[column]
    kind = draw(st.sampled_from(["cmp", "in", "null", "notnull", "nullsafe", "starts",
                                 "opaque"]))
    if kind == "cmp":
        return Compare(column, draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="])),
                       draw(literal))
    if kind == "in":
        return In(column, tuple(draw(st.lists(literal, min_size=1, max_size=3))))
    if kind == "null":
        return IsNull(column)
    if kind == "notnull":
        return IsNotNull(column)
    if kind == "nullsafe":
        return EqualNullSafe(column, draw(literal))
    if kind == "starts":
        return StartsWith(column, draw(st.sampled_from(["e", "ap", "2024-01-0"])))
    return Opaque("udf(x)")


_PREDICATES = st.recursive(
    _leaf(), lambda inner: st.one_of(st.builds(And, inner, inner), st.builds(Or, inner, inner),
                                     st.builds(Not, inner)), max_leaves=5)


@settings(max_examples=300, deadline=None)
@given(pred=_PREDICATES)
def test_discovery_keeps_exactly_what_full_evaluation_keeps(pred: Predicate,
                                                            tmp_path_factory: Any) -> None:
    root = _shared_tree(tmp_path_factory)
    bound = bind(pred, SPEC)
    expected = sorted((row for row in ALL if bound.may_match(_typed(row))), key=repr)
    values, _, _ = _found(root, pred)
    assert sorted(values, key=repr) == expected


_TREES: dict[str, Path] = {}


def _shared_tree(factory: Any) -> Path:
    if "tree" not in _TREES:
        _TREES["tree"] = factory.mktemp("tree")
        _tree(_TREES["tree"], SPEC, ALL)
    return _TREES["tree"]


def test_repair_mode_skips_a_key_out_of_order(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    spec = PartitionSpec.of(("dt", "string"), ("hr", "int"))
    (tmp_path / "hr=1" / "dt=x").mkdir(parents=True)
    (tmp_path / "dt=x" / "hr=1").mkdir(parents=True)
    storage, path = open_storage(str(tmp_path))
    found = discover(storage, path, spec, AlwaysTrue(), skip_bad_keys=True)
    assert [p.values for p in found.partitions] == [("x", "1")]
    assert "has key 'hr' where partition column 'dt' was expected" in caplog.text


# -- version directories hms writes -----------------------------------------------------------

def _record(root: Path, write_id: str, state: str, **fields: Any) -> None:
    from hmscatalog.write.journal import CommitRecord, Owner

    record = CommitRecord(write_id=write_id, table="path", mode="overwrite",
                          owner=Owner("elsewhere", 1, None), staging="", trash="",
                          state=state, **fields)  # type: ignore[arg-type]
    (root / ".hms-commits").mkdir(exist_ok=True)
    (root / ".hms-commits" / f"{write_id}.json").write_text(record.to_json())


def _files(root: Path, predicate: Predicate | None = None,
           with_files: bool = False) -> dict[str, list[str] | None]:
    storage, path = open_storage(str(root))
    found = discover(storage, path, PartitionSpec.of(("k", "int")), predicate or AlwaysTrue(),
                     with_files=with_files, versions=True).partitions
    return {p.path[len(str(root)) + 1:]: None if p.files is None else
            [f[len(p.path) + 1:] for f in p.files] for p in found}


@pytest.mark.parametrize("with_files", [False, True])
def test_a_tree_reader_follows_the_write_records(tmp_path: Path, with_files: bool) -> None:
    """An overwrite of k=1 wrote k=1/hms-v2/ and switched to it; the files it replaced stay
    while the record keeps them: a reader of the tree takes the new version only, never both
    (before, Spark read k=1 whole: the old files and the new)."""
    for name in ("k=0/part-a", "k=1/part-a", "k=1/part-b", "k=1/hms-v2/part-c"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    old = [str(tmp_path / "k=1/part-a"), str(tmp_path / "k=1/part-b")]
    _record(tmp_path, "2", "done", retire=old, retire_after=1.0)
    listed = None if not with_files else ["part-a"]
    assert _files(tmp_path, with_files=with_files) == {
        "k=0": listed, "k=1/hms-v2": ["part-c"]}
    assert _files(tmp_path, eq("k", 1), with_files) == {"k=1/hms-v2": ["part-c"]}
    # A second overwrite under way: its version is not there yet, k=1/hms-v2 stays current.
    (tmp_path / "k=1/hms-v3").mkdir()
    (tmp_path / "k=1/hms-v3/part-d").write_bytes(b"x")
    _record(tmp_path, "3", "committing", targets={"k=1": str(tmp_path / "k=1/hms-v3")})
    assert _files(tmp_path, eq("k", 1), with_files) == {"k=1/hms-v2": ["part-c"]}
    # Committed: hms-v2 is retired in its turn.
    _record(tmp_path, "3", "committed", retire=[str(tmp_path / "k=1/hms-v2")])
    assert _files(tmp_path, eq("k", 1), with_files) == {"k=1/hms-v3": ["part-d"]}
    # Without records, a directory holding two versions is refused, not read mixed.
    for name in ("2", "3"):
        (tmp_path / ".hms-commits" / f"{name}.json").unlink()
    with pytest.raises(InvalidPartitionSpec, match=r"k=1 holds the files of 3 versions "
                                                   r"\(hms-v2, hms-v3, its own files\)"):
        _files(tmp_path, eq("k", 1), with_files=True)


def test_a_version_directory_below_the_root_is_refused(tmp_path: Path) -> None:
    """Earlier S3 overwrites wrote <root>/hms-v<id>/k=v/: a tree reader would miss them."""
    for name in ("k=0/part-a", "hms-v5/k=0/part-b"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    with pytest.raises(InvalidPartitionSpec, match=r"hms-v5 is a version directory"):
        _files(tmp_path)
    _record(tmp_path, "5", "writing")  # not committed: not there yet
    assert _files(tmp_path) == {"k=0": None}
