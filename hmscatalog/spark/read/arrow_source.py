"""Path reads where Spark cannot open the storage itself: a Python data source over pyarrow.

Spark reads ``s3://`` only with ``hadoop-aws`` on its class path. Without it, ``read_partitioned``
goes through this data source: the read's partition source (the discovery walk, or projection)
selects in Python with the filters Spark pushes (``spark.sql.python.filterPushdown.enabled``),
naming the files of each partition; each directory holding files of a selected partition
becomes one input partition, and a Python worker reads its files with pyarrow, adding the
partition values (read from the directory names as Spark reads them; projected values by their
type) as columns. Spark
evaluates every filter again above the scan, so pruning never changes a result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

from hmscatalog.expressions import predicates as p
from hmscatalog.expressions.predicates import Predicate, and_all
from hmscatalog.metastore.model import Column, StorageFormat
from hmscatalog.partitions.types import parse_value
from hmscatalog.sources.choose import source_for
from hmscatalog.sources.paths import partition_values
from hmscatalog.sources.source import ReadTarget
from hmscatalog.storage.filesystems import Storage
from hmscatalog.storage.opening import open_storage

NAME = "hmscatalog_partitioned_files"

# Spark 4.3 keeps the partitions a Python data source planned while filters were pushed on the
# source's relation, and reuses them for a later query on the same DataFrame that pushes no
# filter: after df.where("dt = 'x'").count(), df.count() would read dt=x only. A column that is
# always NULL, filtered with IS NULL in the DataFrame handed out, gives every query a filter to
# push, so each one plans its own partitions; the column is dropped from what users see.
REPLAN_COLUMN = "_hmscatalog_replan"

_COMPARISONS: dict[type, p.CompareOp] = {
    EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<",
    LessThanOrEqual: "<=",
}


def _predicate(item: Filter, partition_names: set[str]) -> Predicate | None:
    """A pushed Python filter on partition columns as a predicate; ``None`` otherwise."""
    column = getattr(item, "attribute", None)
    if column is not None and (len(column) != 1 or column[0].lower() not in partition_names):
        return None
    name = column[0] if column else ""
    match item:
        case EqualTo() | GreaterThan() | GreaterThanOrEqual() | LessThan() | LessThanOrEqual():
            return p.Compare(name, _COMPARISONS[type(item)], item.value)
        case EqualNullSafe():
            return p.EqualNullSafe(name, item.value)
        case In():
            return p.In(name, tuple(item.value))
        case IsNull():
            return p.IsNull(name)
        case IsNotNull():
            return p.IsNotNull(name)
        case StringStartsWith():
            return p.StartsWith(name, item.value)
        case Not():
            inner = _predicate(item.child, partition_names)
            return None if inner is None else p.Not(inner)
    return None


class _Files(InputPartition):
    """One directory of a partition: its files and the partition's typed values."""

    def __init__(self, files: Sequence[str], values: Sequence[Any]) -> None:
        super().__init__(None)
        self.files = list(files)
        self.values = list(values)


class PartitionedFilesReader(DataSourceReader):
    def __init__(self, plan: Mapping[str, Any], schema: Any) -> None:
        self.target = _target(plan["target"])
        self.options: dict[str, str] = plan["options"]
        self.schema = schema
        self.spec = self.target.partition_spec
        self.predicates: list[Predicate] = []

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:
        names = set(self.spec.names)
        for item in filters:
            predicate = _predicate(item, names)
            if predicate is not None:
                self.predicates.append(predicate)
            yield item  # Spark filters the rows again

    def partitions(self) -> list[InputPartition]:
        """One input partition per selected directory holding files (missing and empty ones
        have none)."""
        target = self.target
        selection = source_for(target, self.options, with_files=True).select(
            and_all(self.predicates))
        storage, root = open_storage(target.location or "", self.options)
        columns = [(c.name, c.type) for c in self.spec.columns]
        parts: list[InputPartition] = []
        for partition in selection.partitions:
            location = partition.location or ""
            files = [_path_in(storage, uri) for uri in selection.files.get(location, ())]
            if target.values_from_paths:
                # Values are read from the directory names as Spark reads them; one that is not
                # of its column's type fails here, naming the directory, rather than becoming
                # NULL.
                values = partition_values(root, _path_in(storage, location), columns,
                                          target.where)
            else:
                values = [parse_value(text, column.type)
                          for text, column in zip(partition.values, self.spec.columns,
                                                  strict=True)]
            parts.append(_Files(files, values))
        return parts

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if not isinstance(partition, _Files):
            return  # Spark's one default partition when partitions() found none
        import pyarrow as pa
        import pyarrow.orc as po
        import pyarrow.parquet as pq
        from pyspark.sql.pandas.types import to_arrow_schema

        storage, _ = open_storage(self.target.location or "", self.options)
        target = to_arrow_schema(self.schema)
        data_names = [column.name for column in self.target.columns]
        parquet = self.target.format is StorageFormat.PARQUET
        for path in partition.files:
            with storage.filesystem.open_input_file(path) as handle:
                table = (pq.read_table(handle, columns=data_names) if parquet
                         else po.ORCFile(handle).read(columns=data_names))
            for name, value in zip(self.spec.names, partition.values, strict=True):
                field = target.field(name)
                table = table.append_column(field, pa.array([value] * table.num_rows,
                                                            field.type))
            table = table.append_column(target.field(REPLAN_COLUMN),
                                        pa.nulls(table.num_rows, pa.bool_()))
            yield from table.cast(target).to_batches()


class PartitionedFilesSource(DataSource):
    """Options: ``plan``, the JSON made by :func:`source_options`."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        target = json.loads(self.options["plan"])["target"]
        columns = target["columns"] + target["partition_keys"] + [[REPLAN_COLUMN, "boolean"]]
        return ", ".join(f"`{n}` {t}" for n, t in columns)

    def reader(self, schema: Any) -> PartitionedFilesReader:
        return PartitionedFilesReader(json.loads(self.options["plan"]), schema)


def source_options(target: ReadTarget, options: Mapping[str, str]) -> dict[str, str]:
    """The data source's options for one path read (``options``: its storage settings)."""
    return {"plan": json.dumps({"target": {
        "qualified_name": target.qualified_name, "where": target.where,
        "columns": [[c.name, c.type] for c in target.columns],
        "partition_keys": [[c.name, c.type] for c in target.partition_keys],
        "location": target.location, "format": target.format.name if target.format else None,
        "properties": dict(target.properties), "values_from_paths": target.values_from_paths,
    }, "options": dict(options)})}


def _target(plan: Mapping[str, Any]) -> ReadTarget:
    """The read target :func:`source_options` wrote (a path read: no metastore table)."""
    return ReadTarget(
        plan["qualified_name"], plan["where"], tuple(Column(*c) for c in plan["columns"]),
        tuple(Column(*c) for c in plan["partition_keys"]), plan["location"],
        StorageFormat[plan["format"]] if plan["format"] else None, plan["properties"],
        values_from_paths=plan["values_from_paths"])


def _path_in(storage: Storage, uri: str) -> str:
    """The storage path of a location the sources made with :meth:`Storage.uri` (the exact
    inverse; parsing the URI would cut a name at ``#`` or ``?``)."""
    return uri.removeprefix(storage.uri(""))
