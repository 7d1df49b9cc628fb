"""Path reads where Spark cannot open the storage itself: a Python data source over pyarrow.

Spark reads ``s3://`` only with ``hadoop-aws`` on its class path. Without it, ``read_partitioned``
goes through this data source: the discovery walk runs in Python with the filters Spark pushes
(``spark.sql.python.filterPushdown.enabled``), each directory holding files of a selected
partition becomes one input partition, and a Python worker reads its files with pyarrow, adding
the partition values (read from the directory names as Spark reads them) as columns. Spark
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
from hmscatalog.partitions.spec import PartitionSpec
from hmscatalog.partitions.types import parse_value
from hmscatalog.projection import parse_projection
from hmscatalog.sources.discovery import DiscoveryLimits, discover, is_hidden
from hmscatalog.sources.paths import partition_values
from hmscatalog.storage.filesystems import Storage, open_storage
from hmscatalog.storage.globs import compile_below

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
        self.plan = plan
        self.schema = schema
        self.spec = PartitionSpec.of(*[tuple(c) for c in plan["partition_keys"]])
        self.predicates: list[Predicate] = []

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:
        names = set(self.spec.names)
        for item in filters:
            predicate = _predicate(item, names)
            if predicate is not None:
                self.predicates.append(predicate)
            yield item  # Spark filters the rows again

    def partitions(self) -> list[InputPartition]:
        plan = self.plan
        storage, root = open_storage(plan["root"], plan["options"])
        if plan["projection"]:
            return self._projected(storage)
        glob = compile_below(root, plan["glob"]) if plan["glob"] else None
        found = discover(storage, root, self.spec, and_all(self.predicates),
                         DiscoveryLimits.from_properties(plan["options"]),
                         where=plan["where"], glob=glob, with_files=True)
        # Values are read from the directory names as Spark reads them; one that is not of
        # its column's type fails here, naming the directory, rather than becoming NULL.
        columns = [(c.name, c.type) for c in self.spec.columns]
        return [_Files(partition.files or (),
                       partition_values(root, partition.path, columns, plan["where"]))
                for partition in found.partitions]

    def _projected(self, storage: Storage) -> list[InputPartition]:
        """Projected partitions, each listed for its files; missing locations are empty."""
        plan = self.plan
        projection = parse_projection(plan["projection"],
                                      [(c.name, c.type) for c in self.spec.columns],
                                      plan["root"], table=plan["where"])
        if projection is None:
            return []
        found = list(projection.scan(and_all(self.predicates)))
        paths = [open_storage(p.location, plan["options"])[1] for p in found]
        listings = storage.list_many(paths)
        parts: list[InputPartition] = []
        for partition, entries in zip(found, listings, strict=True):
            files = [e.path for e in entries or () if not e.is_dir and not is_hidden(e.name)]
            if files:
                parts.append(_Files(files, [
                    parse_value(text, column.type) if text is not None else None
                    for text, column in zip(partition.values, self.spec.columns, strict=True)]))
        return parts

    def read(self, partition: InputPartition) -> Iterator[Any]:
        if not isinstance(partition, _Files):
            return  # Spark's one default partition when partitions() found none
        import pyarrow as pa
        import pyarrow.orc as po
        import pyarrow.parquet as pq
        from pyspark.sql.pandas.types import to_arrow_schema

        plan = self.plan
        storage, _ = open_storage(plan["root"], plan["options"])
        target = to_arrow_schema(self.schema)
        data_names = [name for name, _ in plan["columns"]]
        for path in partition.files:
            with storage.filesystem.open_input_file(path) as handle:
                table = (pq.read_table(handle, columns=data_names) if plan["format"] == "parquet"
                         else po.ORCFile(handle).read(columns=data_names))
            for (name, _), value in zip(plan["partition_keys"], partition.values, strict=True):
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
        plan = json.loads(self.options["plan"])
        columns = plan["columns"] + plan["partition_keys"] + [[REPLAN_COLUMN, "boolean"]]
        return ", ".join(f"`{n}` {t}" for n, t in columns)

    def reader(self, schema: Any) -> PartitionedFilesReader:
        return PartitionedFilesReader(json.loads(self.options["plan"]), schema)


def source_options(root: str, glob: str, file_format: str, where: str,
                   columns: Sequence[tuple[str, str]],
                   partition_keys: Sequence[tuple[str, str]],
                   options: Mapping[str, str],
                   projection: Mapping[str, str] | None = None) -> dict[str, str]:
    """The data source's options for one path read (``projection``: its table properties)."""
    return {"plan": json.dumps({
        "root": root, "glob": glob, "format": file_format, "where": where,
        "projection": dict(projection or {}),
        "columns": [list(c) for c in columns], "partition_keys": [list(c) for c in partition_keys],
        "options": dict(options)})}
