"""The properties a Hive SerDe is initialized with, built from metastore records."""

from __future__ import annotations

from dataclasses import replace

from hmscatalog.metastore.model import Column, Storage, StorageFormat, Table
from hmscatalog.metastore.serde import partition_properties, table_properties

TABLE = Table(
    "db", "t", (Column("id", "int", "the key"), Column("tags", "array<string>")),
    (Column("dt", "string"), Column("hr", "int")),
    replace(Storage.of(StorageFormat.TEXT, "file:/w/t"),
            serde_parameters={"field.delim": ",", "serialization.format": ","}),
    parameters={"skip.header.line.count": "1", "comment": "sales"})


def test_table_properties_are_hives() -> None:
    props = table_properties(TABLE)
    assert props == {
        "file.inputformat": "org.apache.hadoop.mapred.TextInputFormat",
        "file.outputformat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "name": "db.t",
        "bucket_count": "-1",
        "columns": "id,tags",
        "columns.types": "int:array<string>",
        "columns.comments": "the key\0",
        "location": "file:/w/t",
        "serialization.lib": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        "partition_columns": "dt/hr",
        "partition_columns.types": "string:int",
        "field.delim": ",",
        "serialization.format": ",",
        "skip.header.line.count": "1",
        "comment": "sales",
    }


def test_a_partition_has_its_own_storage_columns_and_parameters() -> None:
    part = replace(TABLE.partition_at(("2024-01-01", "3"), "file:/w/t/dt=2024-01-01/hr=3",
                                      {"numRows": "7"}),
                   storage=Storage("file:/w/t/dt=2024-01-01/hr=3",
                                   "org.apache.hadoop.mapred.SequenceFileInputFormat",
                                   "org.apache.hadoop.mapred.SequenceFileOutputFormat",
                                   "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", {}),
                   columns=(Column("id", "int"),))
    props = partition_properties(TABLE, part)
    assert props["columns"] == "id" and props["columns.types"] == "int"
    assert props["file.inputformat"] == "org.apache.hadoop.mapred.SequenceFileInputFormat"
    assert props["location"] == "file:/w/t/dt=2024-01-01/hr=3"
    assert props["numRows"] == "7"
    assert "field.delim" not in props and "skip.header.line.count" not in props
    # Without columns of its own, a partition has the table's.
    assert partition_properties(TABLE, replace(part, columns=()))["columns"] == "id,tags"
