"""The options a Parquet or ORC write hands Spark's writer, merged as the built-in catalog
merges them: the table's properties of the format, its SerDe properties over them, the
write's options over both."""

from __future__ import annotations

from dataclasses import replace

from hmscatalog.metastore.model import Column, Storage, StorageFormat, Table
from hmscatalog.spark.write.compression import native_options


def _table(fmt: StorageFormat, parameters: dict[str, str],
           serde: dict[str, str] | None = None) -> Table:
    storage = Storage.of(fmt)
    if serde is not None:
        storage = replace(storage, serde_parameters=serde)
    return Table("db", "t", [Column("a", "int")], storage=storage, parameters=parameters)


def test_only_the_formats_table_properties_are_handed_on() -> None:
    table = _table(StorageFormat.PARQUET, {
        "parquet.compression": "GZIP", "write.parquet.page-size": "1", "orc.compress": "ZLIB",
        "compression": "zstd", "numRows": "3"}, {})
    assert native_options(table, {}) == {"parquet.compression": "GZIP",
                                        "write.parquet.page-size": "1"}
    orc = _table(StorageFormat.ORC, {"orc.compress": "ZLIB", "parquet.compression": "GZIP"}, {})
    assert native_options(orc, {}) == {"orc.compress": "ZLIB"}


def test_serde_properties_then_write_options_win() -> None:
    table = _table(StorageFormat.PARQUET, {"parquet.compression": "GZIP"},
                   {"PARQUET.COMPRESSION": "ZSTD", "serialization.format": "1"})
    assert native_options(table, {}) == {"PARQUET.COMPRESSION": "ZSTD",
                                        "serialization.format": "1"}
    assert native_options(table, {"Parquet.Compression": "snappy"}) == {
        "Parquet.Compression": "snappy", "serialization.format": "1"}


def test_other_formats_take_the_write_options_alone() -> None:
    table = _table(StorageFormat.TEXT, {"parquet.compression": "GZIP"})
    assert native_options(table, {"k": "v"}) == {"k": "v"}
