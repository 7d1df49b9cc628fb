"""Every client operation and error mapping against the real embedded metastore."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlparse

import kerberized
import pytest
from ports import closed_port

from hmscatalog.errors import (
    AlreadyExists,
    InvalidFilter,
    InvalidOperation,
    InvalidUri,
    MetastoreUnavailable,
    NoSuchNamespace,
    NoSuchPartition,
    NoSuchTable,
    UnsupportedFormat,
)
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import VIRTUAL_VIEW, Column, Storage, StorageFormat, Table

pytestmark = [pytest.mark.integration, pytest.mark.metastore]


def _path(location: str | None) -> Path:
    assert location is not None
    return Path(urlparse(location).path)


def test_databases(client: MetastoreClient, tmp_path: Path) -> None:
    location = f"file:{tmp_path / 'dbloc'}"
    client.drop_database("it_db", cascade=True, if_exists=True)
    client.create_database("it_db", location=location, description="d",
                           parameters={"owner_team": "x"})
    db = client.get_database("it_db")
    assert db.name == "it_db"
    assert db.description == "d"
    assert db.parameters["owner_team"] == "x"
    assert _path(db.location) == tmp_path / "dbloc"
    assert "it_db" in client.list_databases()
    assert client.list_databases("it_*") == ["it_db"]
    with pytest.raises(AlreadyExists, match="database 'it_db' already exists"):
        client.create_database("it_db")
    client.create_database("it_db", if_not_exists=True)
    client.drop_database("it_db")
    assert not client.database_exists("it_db")
    with pytest.raises(NoSuchNamespace, match="'it_db' does not exist"):
        client.get_database("it_db")
    with pytest.raises(NoSuchNamespace, match="'it_db' does not exist"):
        client.drop_database("it_db")
    client.drop_database("it_db", if_exists=True)


def test_alter_database_parameters(client: MetastoreClient, unique_db: str) -> None:
    db = client.get_database(unique_db)
    client.alter_database(replace(db, parameters={**db.parameters, "team": "data"}))
    assert client.get_database(unique_db).parameters["team"] == "data"
    with pytest.raises(NoSuchNamespace, match="'no_such_db'"):
        client.alter_database(replace(db, name="no_such_db"))


def test_drop_non_empty_database_needs_cascade(client: MetastoreClient, unique_db: str) -> None:
    client.new_table(unique_db, "t", [("a", "int")])
    with pytest.raises(InvalidOperation, match="not empty"):
        client.drop_database(unique_db)
    assert client.table_exists(unique_db, "t")


@pytest.mark.parametrize("fmt", list(StorageFormat))
def test_create_get_list_tables_in_each_format(
    client: MetastoreClient, unique_db: str, fmt: StorageFormat
) -> None:
    table = client.new_table(
        unique_db, "t_" + fmt.name.lower(), [("a", "int"), ("b", "string")],
        partition_keys=[("dt", "date"), ("hr", "int")], format=fmt,
        parameters={"k": "v"},
    )
    assert table.format is fmt
    assert [c.name for c in table.partition_keys] == ["dt", "hr"]
    assert table.parameters["k"] == "v"
    assert not table.is_external
    assert table.location and table.location.endswith(f"{unique_db}.db/t_{fmt.name.lower()}")
    assert client.list_tables(unique_db) == ["t_" + fmt.name.lower()]
    assert client.list_tables(unique_db, "t_*") == ["t_" + fmt.name.lower()]


def test_unknown_format_is_rejected_by_name(client: MetastoreClient, unique_db: str) -> None:
    with pytest.raises(UnsupportedFormat, match="'avro'"):
        client.new_table(unique_db, "t", [("a", "int")], format="avro")
    assert not client.table_exists(unique_db, "t")


def test_table_errors_name_the_object(client: MetastoreClient, unique_db: str) -> None:
    with pytest.raises(NoSuchTable, match=f"table {unique_db}.nope does not exist"):
        client.get_table(unique_db, "nope")
    with pytest.raises(NoSuchNamespace, match="database 'no_such_db' does not exist"):
        client.get_table("no_such_db", "t")
    with pytest.raises(NoSuchNamespace, match="'no_such_db'"):
        client.list_tables("no_such_db")
    with pytest.raises(NoSuchNamespace, match="'no_such_db'"):
        client.new_table("no_such_db", "t", [("a", "int")])
    client.new_table(unique_db, "t", [("a", "int")])
    with pytest.raises(AlreadyExists, match=f"table {unique_db}.t already exists"):
        client.new_table(unique_db, "t", [("a", "int")])
    client.new_table(unique_db, "t", [("a", "int")], if_not_exists=True)
    with pytest.raises(NoSuchTable, match=f"{unique_db}.nope"):
        client.drop_table(unique_db, "nope")
    client.drop_table(unique_db, "nope", if_exists=True)


def test_alter_table_parameters_and_rename(client: MetastoreClient, unique_db: str) -> None:
    client.new_table(unique_db, "t", [("a", "int")], parameters={"keep": "1", "drop": "2"})
    table = client.alter_table_parameters(unique_db, "t", set={"new": "3"}, unset=["drop"])
    assert table.parameters["keep"] == "1" and table.parameters["new"] == "3"
    assert "drop" not in table.parameters
    client.rename_table(unique_db, "t", unique_db, "t2")
    assert client.list_tables(unique_db) == ["t2"]
    with pytest.raises(NoSuchTable):
        client.alter_table_parameters(unique_db, "t", set={"a": "b"})


def test_drop_managed_deletes_data_external_keeps_it(
    client: MetastoreClient, unique_db: str, tmp_path: Path
) -> None:
    managed = client.new_table(unique_db, "m", [("a", "int")])
    managed_dir = _path(managed.location)
    (managed_dir / "f.txt").write_text("x")
    ext_dir = tmp_path / "ext"
    ext_dir.mkdir()
    (ext_dir / "f.txt").write_text("x")
    external = client.new_table(unique_db, "e", [("a", "int")], external=True,
                                location=f"file:{ext_dir}")
    assert external.is_external
    kept = client.new_table(unique_db, "k", [("a", "int")])
    kept_dir = _path(kept.location)
    (kept_dir / "f.txt").write_text("x")

    client.drop_table(unique_db, "m")
    client.drop_table(unique_db, "e")
    client.drop_table(unique_db, "k", delete_data=False)
    assert not managed_dir.exists()
    assert (ext_dir / "f.txt").exists()
    assert (kept_dir / "f.txt").exists()


def test_partitions_lifecycle(client: MetastoreClient, unique_db: str, tmp_path: Path) -> None:
    table = client.new_table(unique_db, "p", [("a", "int")],
                             partition_keys=[("dt", "date"), ("region", "string")])
    days = [dt.date(2024, 1, d) for d in range(1, 6)]
    parts = [client.new_partition(table, [d, r]) for d in days for r in ("emea", "a/b", "")]
    assert client.add_partitions(table, parts, batch_size=4) == 15
    assert client.count_partitions(unique_db, "p") == 15
    names = client.list_partition_names(unique_db, "p")
    assert "dt=2024-01-01/region=a%2Fb" in names
    assert "dt=2024-01-01/region=__HIVE_DEFAULT_PARTITION__" in names
    # The metastore creates each partition's directory at the path the codec computed.
    assert (_path(table.location) / "dt=2024-01-01" / "region=a%2Fb").is_dir()
    assert not (_path(table.location) / "dt=2024-01-01" / "region=a").exists()

    # if-not-exists: only new ones are added; without it the batch fails as a whole
    again = [*parts[:2], client.new_partition(table, [dt.date(2024, 2, 1), "x"])]
    assert client.add_partitions(table, again, if_not_exists=True) == 1
    with pytest.raises(AlreadyExists, match=f"{unique_db}.p"):
        client.add_partitions(table, [client.new_partition(table, [dt.date(2024, 3, 1), "y"]),
                                      parts[0]])
    assert client.count_partitions(unique_db, "p") == 16
    # The failed batch left no directory behind for the partition it did not add.
    assert not (_path(table.location) / "dt=2024-03-01").exists()

    got = client.get_partitions_by_names(unique_db, "p", [*names[:7], "dt=1999-01-01/region=x"],
                                         batch_size=3)
    assert sorted(p.name(table.partition_spec) for p in got) == sorted(names[:7])
    assert len(client.list_partitions(unique_db, "p")) == 16
    assert len(client.list_partition_names(unique_db, "p", limit=3)) == 3

    one = client.get_partition(unique_db, "p", ["2024-01-02", "a/b"])
    assert one.typed_values(table.partition_spec) == (dt.date(2024, 1, 2), "a/b")
    with pytest.raises(NoSuchPartition, match=r"\['1999-01-01', 'x'\]"):
        client.get_partition(unique_db, "p", ["1999-01-01", "x"])

    by_filter = client.get_partitions_by_filter(unique_db, "p", 'region = "emea"')
    assert len(by_filter) == 5
    assert client.count_partitions(unique_db, "p", 'dt >= "2024-01-04"') == 7

    custom = tmp_path / "elsewhere"
    moved = [p.__class__(p.database, p.table, p.values,
                         p.storage.__class__(f"file:{custom}", p.storage.input_format,
                                             p.storage.output_format, p.storage.serde,
                                             p.storage.serde_parameters),
                         {**p.parameters, "numRows": "10"})
             for p in by_filter[:1]]
    client.alter_partitions(unique_db, "p", moved)
    after = client.get_partition(unique_db, "p", list(moved[0].values))
    assert _path(after.location) == custom
    assert after.parameters["numRows"] == "10"

    dropped = client.drop_partitions(unique_db, "p", names[:2])
    assert dropped == 2
    assert client.count_partitions(unique_db, "p") == 14
    with pytest.raises(NoSuchPartition, match=f"{unique_db}.p"):
        client.drop_partitions(unique_db, "p", [names[0]])
    assert client.drop_partitions(unique_db, "p", [names[0]], if_exists=True) == 0


def test_partition_custom_location(client: MetastoreClient, unique_db: str,
                                   tmp_path: Path) -> None:
    table = client.new_table(unique_db, "p", [("a", "int")], partition_keys=[("k", "int")])
    where = tmp_path / "anywhere"
    client.add_partitions(table, [client.new_partition(table, {"K": 7}, location=f"file:{where}")])
    (part,) = client.list_partitions(unique_db, "p")
    assert part.values == ("7",)
    assert _path(part.location) == where


def test_malformed_filter_is_invalid_filter_naming_it(client: MetastoreClient,
                                                      unique_db: str) -> None:
    client.new_table(unique_db, "p", [("a", "int")], partition_keys=[("k", "string")])
    with pytest.raises(InvalidFilter, match=r"'k = = 3' on .*\.p was rejected"):
        client.get_partitions_by_filter(unique_db, "p", "k = = 3")
    with pytest.raises(InvalidFilter, match="nocol"):
        client.count_partitions(unique_db, "p", 'nocol = "x"')
    with pytest.raises(NoSuchTable):
        client.get_partitions_by_filter(unique_db, "nope", 'k = "x"')


def test_config_value(client: MetastoreClient) -> None:
    assert client.get_config_value("hive.metastore.try.direct.sql") == "true"


def test_bad_uris_are_rejected_up_front() -> None:
    for bad in ["localhost:9083", "http://h:1", "thrift://h", "thrift://h:notaport", ""]:
        with pytest.raises(InvalidUri, match="thrift://host:port"):
            MetastoreClient(bad)


def test_unreachable_metastore_is_unavailable_after_retries() -> None:
    with closed_port() as port:
        c = MetastoreClient(f"thrift://127.0.0.1:{port}", retries=2, backoff_s=0.01,
                            connect_timeout_s=1)
        with pytest.raises(MetastoreUnavailable, match="after 3 attempts"):
            c.list_databases()


def test_failover_to_the_next_uri(metastore_uri: str) -> None:
    with closed_port() as port, MetastoreClient(f"thrift://127.0.0.1:{port},{metastore_uri}",
                                                connect_timeout_s=1,
                                                **kerberized.client_options()) as c:
        assert "default" in c.list_databases()
        assert c.connected_to == metastore_uri


def test_views_are_kept_with_their_texts_and_listed(client: MetastoreClient,
                                                    unique_db: str) -> None:
    """A view (as Hive stores one: no location, its original and expanded texts) reads back
    with both texts, and ``list_views`` names the views of a database and nothing else."""
    client.new_table(unique_db, "t", [("a", "int")])
    client.create_table(Table(
        database=unique_db, name="v", table_type=VIRTUAL_VIEW, columns=(Column("a", "int"),),
        storage=Storage(location=None, input_format=None, output_format=None, serde=None),
        view_original_text="select a from t",
        view_expanded_text=f"select `t`.`a` from `{unique_db}`.`t`"))
    view = client.get_table(unique_db, "v")
    assert view.table_type == VIRTUAL_VIEW
    assert (view.view_original_text, view.view_expanded_text) == (
        "select a from t", f"select `t`.`a` from `{unique_db}`.`t`")
    assert client.list_views(unique_db) == ["v"]
    assert sorted(client.list_tables(unique_db)) == ["t", "v"]
    with pytest.raises(NoSuchNamespace, match="'no_such_db'"):
        client.list_views("no_such_db")


def test_a_large_table_is_listed_by_name_in_batches_and_a_refused_batch_is_halved(
        client: MetastoreClient, unique_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LIST_BATCH partitions, list_partitions fetches them by name, a batch per call (on
    the pool's connections at once); a batch the metastore refuses for its size is fetched as
    two halves. The refusal is the metastore's MetaException, raised here in the call path
    for batches over 2 names: the real metastore enforces no such limit on by-name calls."""
    from hmscatalog.metastore import partition_calls
    from hmscatalog.metastore._thrift.hive_metastore import ttypes

    table = client.new_table(unique_db, "t", [Column("v", "int")],
                             partition_keys=[Column("p", "int")])
    client.add_partitions(table, [client.new_partition(table, [n]) for n in range(11)])
    whole = client.list_partitions(unique_db, "t")
    monkeypatch.setattr(partition_calls, "LIST_BATCH", 4)
    sent: list[tuple[str, int]] = []
    call = client._call

    def limited(method: str, *args: object) -> object:
        names = args[2] if method == "get_partitions_by_names" else getattr(
            args[0], "names", None) if method == "get_partitions_by_names_req" else None
        if names is not None:
            sent.append((method, len(names)))
            if len(names) > 2:
                raise ttypes.MetaException("Number of partitions scanned (=4) on table 't' "
                                           "exceeds limit (=2)")
        return call(method, *args)

    monkeypatch.setattr(client, "_call", limited)
    batched = client.list_partitions(unique_db, "t")
    assert sorted(p.values for p in batched) == sorted(p.values for p in whole)
    assert len(batched) == 11
    # Three batches of 4, 4 and 3 names, each refused, then fetched as halves of 2 (and 1).
    assert sorted(n for _, n in sent) == [1, 2, 2, 2, 2, 2, 3, 4, 4]
