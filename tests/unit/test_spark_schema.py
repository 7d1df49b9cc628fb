"""The Spark schema kept in table properties: when it names a table's columns, and how."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hmscatalog.metastore.model import Column, Storage, StorageFormat, Table
from hmscatalog.metastore.spark_schema import (
    directory_names,
    is_schema_property,
    schema_properties,
    spark_names,
    with_spark_case,
)
from hmscatalog.partitions.codec import make_part_name, partition_path, with_keys


def _field(name: str, data_type: Any, metadata: dict[str, str] | None = None) -> dict[str, Any]:
    return {"name": name, "type": data_type, "nullable": True, "metadata": metadata or {}}


FIELDS = [_field("Id", "integer"), _field("Amount", "decimal(10,2)"),
          _field("V", "string", {"__CHAR_VARCHAR_TYPE_STRING": "varchar(5)"}),
          _field("S", {"type": "struct", "fields": [_field("Aa", "long")]}),
          _field("Tags", {"type": "map", "keyType": "string", "valueType": {
              "type": "array", "elementType": "short", "containsNull": True},
              "valueContainsNull": True}),
          _field("Dt", "string"), _field("HR", "integer")]


def _table(fields: list[dict[str, Any]] = FIELDS, partitions: tuple[str, ...] = ("Dt", "HR"),
           fmt: StorageFormat = StorageFormat.PARQUET, **changes: Any) -> Table:
    schema = json.dumps({"type": "struct", "fields": fields}, separators=(",", ":"))
    props = schema_properties(schema, list(partitions), "4.0.0")
    columns = (Column("id", "int"), Column("amount", "decimal(10,2)"),
               Column("v", "varchar(5)"), Column("s", "struct<Aa:bigint>"),
               Column("tags", "map<string,array<smallint>>"))
    return Table("db", "t", changes.get("columns", columns),
                 (Column("dt", "string"), Column("hr", "int")), Storage.of(fmt, "file:/t"),
                 parameters=changes.get("parameters", props))


def test_names_in_sparks_case_where_the_schema_agrees() -> None:
    table = _table()
    assert spark_names(table) == ["Id", "Amount", "V", "S", "Tags", "Dt", "HR"]
    cased = with_spark_case(table)
    assert [c.name for c in cased.columns] == ["Id", "Amount", "V", "S", "Tags"]
    assert [c.type for c in cased.columns] == [c.type for c in table.columns]
    assert cased.partition_spec == table.partition_spec  # still the metastore's names
    assert directory_names(table) == ["Dt", "HR"]
    assert directory_names(_table(fmt=StorageFormat.TEXT)) == ["dt", "hr"]


def test_partition_columns_listed_first_are_put_last() -> None:
    fields = [FIELDS[5], *FIELDS[:5], FIELDS[6]]
    assert spark_names(_table(fields)) == ["Id", "Amount", "V", "S", "Tags", "Dt", "HR"]


@pytest.mark.parametrize("change", [
    lambda t: _table(columns=(Column("id", "bigint"), *t.columns[1:])),  # a type Hive changed
    lambda t: _table(columns=(*t.columns, Column("extra", "int"))),  # a column Hive added
    lambda t: _table(columns=(Column("ident", "int"), *t.columns[1:])),  # a column renamed
    lambda t: _table(partitions=("HR", "Dt")),  # partition columns in another order
    lambda t: _table(partitions=("Dt",)),
    lambda t: _table(partitions=("Dt", "Missing")),
    lambda t: _table(parameters={**t.parameters, "spark.sql.sources.schema": "{not json"}),
    lambda t: _table(parameters={}),
])
def test_the_metastores_names_stand_where_the_schema_disagrees(change: Any) -> None:
    table = change(_table())
    assert spark_names(table) is None
    assert with_spark_case(table) is table
    assert directory_names(table) == ["dt", "hr"]


def test_a_long_schema_is_stored_and_read_in_parts() -> None:
    fields = [*(_field(f"Col{i}", "integer") for i in range(200)), *FIELDS[5:]]
    columns = tuple(Column(f"col{i}", "int") for i in range(200))
    table = _table(fields, columns=columns)
    assert "spark.sql.sources.schema" not in table.parameters
    assert int(table.parameters["spark.sql.sources.schema.numParts"]) > 1
    assert spark_names(table) == [f"Col{i}" for i in range(200)] + ["Dt", "HR"]
    assert all(is_schema_property(k) for k in table.parameters)
    missing = {k: v for k, v in table.parameters.items()
               if k != "spark.sql.sources.schema.part.1"}
    assert spark_names(_table(fields, columns=columns, parameters=missing)) is None


def test_partition_paths_keep_the_case_they_are_given() -> None:
    assert partition_path(["Dt", "HR"], ["a/b", ""]) == "Dt=a%2Fb/HR=__HIVE_DEFAULT_PARTITION__"
    assert make_part_name(["Dt", "HR"], ["a/b", "5"]) == "dt=a%2Fb/hr=5"
    assert with_keys("Dt=a%2Fb/HR=5", ["dt", "hr"]) == "dt=a%2Fb/hr=5"
    assert with_keys("", []) == ""
