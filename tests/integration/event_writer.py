"""Change a test table through the metastore's Thrift client, from a process of its own, so
that only the metastore's notification log can tell the test's catalogs about it.

    python event_writer.py URI DATABASE WRITE

WRITE is one of :data:`WRITES`' names; the table is ``DATABASE.t (v INT) PARTITIONED BY
(p STRING)``, made by :func:`add` and the test's fixture.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Column, Table


def _directory(table: Table) -> Path:
    return Path((table.location or "").removeprefix("file:"))


def write_file(directory: Path, values: list[int]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"v": pa.array(values, pa.int32())}), directory / "part-0.parquet")


def add(client: MetastoreClient, db: str, value: str, rows: list[int],
        table: Table | None = None) -> None:
    """Partition ``p=value`` of ``db.t`` holding ``rows``."""
    table = table or client.get_table(db, "t")
    write_file(_directory(table) / f"p={value}", rows)
    client.add_partitions(table, [client.new_partition(table, [value])])


def make_table(client: MetastoreClient, db: str, value: str, rows: list[int]) -> None:
    """``db.t`` with one partition ``p=value`` holding ``rows``."""
    made = client.new_table(db, "t", [Column("v", "int")], partition_keys=[Column("p", "string")])
    add(client, db, value, rows, made)


def _move(client: MetastoreClient, db: str) -> None:
    """Point partition p=a at a new directory holding 7 (an ALTER_PARTITION event)."""
    table = client.get_table(db, "t")
    part = client.get_partition(db, "t", ["a"])
    elsewhere = _directory(table) / "moved"
    write_file(elsewhere, [7])
    client.alter_partitions(db, "t", [client.new_partition(table, ["a"], f"file:{elsewhere}",
                                                           part.parameters)])


def _recreate(client: MetastoreClient, db: str) -> None:
    client.drop_table(db, "t", delete_data=True)
    make_table(client, db, "z", [3])


WRITES: dict[str, Callable[[MetastoreClient, str], object]] = {
    "add partition": lambda c, db: add(c, db, "b", [2]),
    "drop partition": lambda c, db: c.drop_partitions(db, "t", ["p=a"]),
    "alter partition location": _move,
    "drop and create table": _recreate,
    "set property": lambda c, db: c.alter_table_parameters(db, "t", set={"k": "v"}),
}

if __name__ == "__main__":
    uri, database, write = sys.argv[1:]
    with MetastoreClient(uri) as client:
        WRITES[write](client, database)
