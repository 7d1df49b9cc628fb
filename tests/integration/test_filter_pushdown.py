"""Filter strings against the real metastore: values can never change a filter's meaning."""

from __future__ import annotations

import datetime as dt

import pytest

from hmscatalog.expressions import (
    Compare,
    In,
    IsNull,
    Not,
    Opaque,
    Predicate,
    StartsWith,
    eq,
    quote_string,
    to_metastore_filter,
)
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Table
from hmscatalog.sources.metastore import select_partitions

pytestmark = [pytest.mark.integration, pytest.mark.metastore]

NASTY = [
    'x" or "1"="1',
    "x' or '1'='1",
    "both \" and ' quotes",
    "back\\slash",
    "ends with backslash\\",
    '\\"',
    "a and b",
    "a or b",
    ") or (k <> \"",
    "like",
    "%",
    "",
    "ü / = : # ?",
    "__HIVE_DEFAULT_PARTITION__x",
]


@pytest.fixture
def nasty_table(client: MetastoreClient, unique_db: str) -> Table:
    table = client.new_table(unique_db, "nasty", [("a", "int")],
                             partition_keys=[("k", "string"), ("n", "int")])
    parts = [client.new_partition(table, [v, i]) for i, v in enumerate(NASTY)]
    parts.append(client.new_partition(table, ["1", 100]))
    parts.append(client.new_partition(table, [None, 101]))
    client.add_partitions(table, parts)
    return table


@pytest.mark.parametrize("value", NASTY)
@pytest.mark.cases(4)
def test_each_value_selects_exactly_itself(
    client: MetastoreClient, nasty_table: Table, value: str
) -> None:
    chosen = select_partitions(client, nasty_table, eq("k", value))
    got = [p.values for p in chosen.partitions]
    if value == "":
        # '' is stored as the default partition, which reads as NULL: NULL = '' is never true.
        assert got == []
        return
    assert got == [(value, str(NASTY.index(value)))]
    quoted = quote_string(value)
    if quoted is not None:
        # Sent to the metastore, which alone returned exactly the one partition.
        assert chosen.metastore_filter == f"k = {quoted}"
        assert chosen.fetched == 1
    else:
        assert chosen.metastore_filter is None


def test_raw_filter_with_quoted_injection_matches_only_itself(
    client: MetastoreClient, nasty_table: Table
) -> None:
    text = to_metastore_filter(eq("k", 'x" or "1"="1'), nasty_table.partition_spec).text
    assert text is not None
    parts = client.get_partitions_by_filter(nasty_table.database, nasty_table.name, text)
    assert [p.values[0] for p in parts] == ['x" or "1"="1']


@pytest.mark.parametrize(
    ("pred", "expected_n"),
    [
        (In("k", ("a and b", "a or b", "nothing")), {6, 7}),
        (Compare("n", ">=", 12) & Compare("n", "<", 100), {12, 13}),
        (Not(Compare("n", "<", 100)), {100, 101}),
        (IsNull("k"), {11, 101}),  # the empty string is stored as NULL
        (eq("k", "1") | eq("n", 0), {0, 100}),
        (StartsWith("k", "a "), {6, 7}),
        (eq("k", "a and b") & Opaque("a > 1"), {6}),
        (eq("n", "013"), {13}),
    ],
)
@pytest.mark.cases(3)
def test_selection_equals_client_side_truth(
    client: MetastoreClient, nasty_table: Table, pred: Predicate, expected_n: set[int]
) -> None:
    chosen = select_partitions(client, nasty_table, pred, count_total=True)
    assert {int(p.values[1]) for p in chosen.partitions} == expected_n
    assert chosen.total == len(NASTY) + 2


def test_date_and_int_filters_are_evaluated_by_the_metastore(
    client: MetastoreClient, unique_db: str
) -> None:
    table = client.new_table(unique_db, "d", [("a", "int")],
                             partition_keys=[("dt", "date"), ("hr", "int")])
    client.add_partitions(table, [client.new_partition(table, [dt.date(2024, 1, d), h])
                                  for d in range(1, 11) for h in range(24)])
    pred = Compare("dt", ">", dt.date(2024, 1, 8)) & In("hr", (0, 23))
    chosen = select_partitions(client, table, pred)
    assert chosen.metastore_filter == '(dt > "2024-01-08" and (hr = 0 or hr = 23))'
    assert chosen.fetched == 4
    assert sorted(p.values for p in chosen.partitions) == [
        ("2024-01-09", "0"), ("2024-01-09", "23"), ("2024-01-10", "0"), ("2024-01-10", "23")
    ]


def test_a_string_range_fetches_only_the_partitions_its_names_select(
    client: MetastoreClient, unique_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string range is not sent (its order is the database's collation's): the partitions'
    names are listed and checked on the client, and only the chosen partitions are fetched,
    never every partition object."""
    table = client.new_table(unique_db, "s", [("a", "int")],
                             partition_keys=[("dt", "string"), ("hr", "int")])
    client.add_partitions(table, [client.new_partition(table, [f"2024-01-{d:02d}", h])
                                  for d in range(1, 11) for h in range(3)])

    def refused(*args: object) -> None:
        raise AssertionError("every partition object was fetched")

    monkeypatch.setattr(client, "list_partitions", refused)
    pred = Compare("dt", ">=", "2024-01-09") & Compare("dt", "<", "2024-01-10")
    chosen = select_partitions(client, table, pred)
    assert chosen.metastore_filter is None
    assert sorted(p.values for p in chosen.partitions) == [
        ("2024-01-09", "0"), ("2024-01-09", "1"), ("2024-01-09", "2")]
    assert all(p.location and p.location.endswith(f"dt=2024-01-09/hr={p.values[1]}")
               for p in chosen.partitions)
