"""``ANALYZE TABLE hms.db.t [PARTITION (...)] COMPUTE STATISTICS [NOSCAN]``: the statistics
Spark's built-in Hive catalog computes and stores, computed and stored the same way, so either
catalog reads what the other wrote.

As ``AnalyzeTableCommand`` and ``AnalyzePartitionCommand`` do:

* the size is the bytes of the data files under each location, measured by Spark's own
  ``CommandUtils.calculateMultipleLocationSizes`` (names starting with ``_`` or ``.`` and
  Hive's staging directories do not count); the row count is a ``count(*)`` (not with
  ``NOSCAN``);
* they are stored as ``spark.sql.statistics.totalSize`` and ``spark.sql.statistics.numRows`` in
  the table's parameters, or in each analyzed partition's, replacing the statistics Spark stored
  before, and only where they changed (compared with the statistics the built-in catalog reads:
  Spark's own, else Hive's ``totalSize``/``rawDataSize``/``numRows``);
* with ``NOSCAN`` a changed size drops the stored row count, which no longer holds.

A PARTITION clause may leave values out (``PARTITION (dt)``, or the last columns): every
partition that matches the given values is analyzed; the columns with values must lead the
partition columns, as the built-in catalog requires.

``FOR COLUMNS`` (:func:`analyze_columns`) computes Spark's column statistics with Spark's own
code, stored as ``spark.sql.statistics.colStats.<column>.<statistic>`` with the table's size and
row count, as ``AnalyzeColumnCommand`` stores them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hmscatalog.errors import HmsCatalogError, InvalidPartitionValue, NoSuchPartition
from hmscatalog.metastore.kinds import refuse_lakehouse
from hmscatalog.metastore.model import (
    SPARK_COLUMN_STATS,
    SPARK_NUM_ROWS,
    SPARK_TOTAL_SIZE,
    Partition,
    Table,
    without_spark_statistics,
)
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.types import parse_value
from hmscatalog.spark.bridge.jvm import Jvm, quoted, sql_string
from hmscatalog.spark.internals.stats import (
    UnanalyzableColumn,
    column_statistics,
    location_sizes,
)
from hmscatalog.spark.read.serde_io import partition_names
from hmscatalog.spark.read.statistics import TableStatistics, table_statistics

if TYPE_CHECKING:
    from hmscatalog.metastore.client import MetastoreClient


def new_statistics(old: TableStatistics, size: int,
                   rows: int | None) -> dict[str, str] | None:
    """The statistics to store (``CommandUtils.compareAndGetNewStats``), ``None`` when nothing
    changed: a new size replaces the old (dropping its row count); a new row count is stored
    with the new size, or with the old size when only the count changed."""
    old_size = -1 if old.size is None else old.size
    old_rows = -1 if old.rows is None else old.rows
    new: dict[str, str] | None = None
    if size >= 0 and size != old_size:
        new = {SPARK_TOTAL_SIZE: str(size)}
    if rows is not None and rows >= 0 and rows != old_rows:
        new = {SPARK_TOTAL_SIZE: new[SPARK_TOTAL_SIZE] if new else str(old_size),
               SPARK_NUM_ROWS: str(rows)}
    return new


def _with_statistics(parameters: Mapping[str, str], new: dict[str, str]) -> dict[str, str]:
    return {**without_spark_statistics(parameters), **new}


def analyze(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
            spec: Mapping[str, str | None] | None, noscan: bool) -> None:
    """Compute and store the statistics of ``table`` (``spec``: the PARTITION clause's
    column → value, ``None`` for a column without one; ``None``: the whole table)."""
    refuse_lakehouse(table, "analyze", catalog)
    if spec is None:
        _analyze_table(jvm, client, catalog, table, noscan)
    else:
        _analyze_partitions(jvm, client, catalog, table, spec, noscan)


def _total_size(jvm: Jvm, client: MetastoreClient, table: Table) -> int:
    if table.partition_keys:
        locations = [p.location for p in client.list_partitions(table.database, table.name)]
    else:
        locations = [table.location]
    return sum(location_sizes(jvm, table.qualified_name, locations))


def analyze_columns(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                    columns: Sequence[str] | None) -> None:
    """``ANALYZE TABLE ... COMPUTE STATISTICS FOR COLUMNS c1, c2`` (``columns``; ``None``: FOR
    ALL COLUMNS), as ``AnalyzeColumnCommand``: Spark's own column statistics, stored with the
    table's size and row count; the statistics of other columns stay."""
    refuse_lakehouse(table, "analyze", catalog)
    qualified = quoted(catalog, table.database, table.name)
    try:
        rows, computed = column_statistics(jvm, qualified, columns)
    except KeyError as exc:
        raise HmsCatalogError(f"ANALYZE TABLE ... FOR COLUMNS of table {table.qualified_name}: "
                              f"it has no column {exc.args[0]}") from None
    except UnanalyzableColumn as exc:
        name, type_text = exc.args
        raise HmsCatalogError(  # the built-in catalog's words
            f"Column {name} in table {table.qualified_name} is of type {type_text}, and Spark "
            "does not support statistics collection on this column type.") from None
    analyzed = {key.split(".", 1)[0].lower() for key in computed}
    kept = {k: v for k, v in table.parameters.items()
            if k.startswith(SPARK_COLUMN_STATS)
            and k[len(SPARK_COLUMN_STATS):].split(".", 1)[0].lower() not in analyzed}
    new = {SPARK_TOTAL_SIZE: str(_total_size(jvm, client, table)), SPARK_NUM_ROWS: str(rows),
           **kept, **{SPARK_COLUMN_STATS + k: v for k, v in computed.items()}}
    client.alter_table(table.with_parameters(_with_statistics(table.parameters, new)))


def _analyze_table(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                   noscan: bool) -> None:
    size = _total_size(jvm, client, table)
    rows = None
    if not noscan:
        counted = jvm.jsession.sql(
            f"SELECT count(*) FROM {quoted(catalog, table.database, table.name)}").collect()
        rows = int(counted[0].getLong(0))
    new = new_statistics(table_statistics(table.parameters), size, rows)
    if new is not None:
        client.alter_table(table.with_parameters(_with_statistics(table.parameters, new)))


def _analyze_partitions(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                        spec: Mapping[str, str | None], noscan: bool) -> None:
    names = table.partition_spec.names
    given = {key.lower(): value for key, value in spec.items()}
    unknown = sorted(set(given) - set(names))
    if not table.partition_keys or unknown:
        raise HmsCatalogError(
            f"ANALYZE TABLE of table {table.qualified_name}: "
            + (f"{', '.join(unknown)} is not a partition column" if table.partition_keys
               else "the table is not partitioned"))
    fixed = {k: v for k, v in given.items() if v is not None}
    valued = [name for name in names if name in fixed]
    if valued != list(names[:len(valued)]):
        # The built-in catalog's own words (AnalyzePartitionCommand).
        raise HmsCatalogError(
            "The list of partition columns with values in partition specification for table "
            f"'{table.name}' in database '{table.database}' is not a prefix of the list of "
            f"partition columns defined in the table schema. Expected a prefix of "
            f"[{','.join(names)}], but got [{','.join(valued)}].")
    wanted = _typed_spec(table, fixed)
    partitions = [p for p in client.list_partitions(table.database, table.name)
                  if _matches(table, p, wanted)]
    if not partitions:
        if fixed:
            raise NoSuchPartition(
                f"partition ({', '.join(f'{k}={v}' for k, v in fixed.items())}) of table "
                f"{table.qualified_name} does not exist")
        return
    sizes = location_sizes(jvm, table.qualified_name, [p.location for p in partitions])
    counts = None if noscan else _row_counts(jvm, catalog, table, fixed)
    changed = []
    for part, size in zip(partitions, sizes, strict=True):
        key = _key(table, part.values)  # None: a value that does not parse, nothing matched
        rows = None if counts is None or key is None else counts.get(key)
        new = new_statistics(table_statistics(part.parameters), size, rows)
        if new is not None:
            changed.append(replace(part, parameters=_with_statistics(part.parameters, new)))
    if changed:
        client.alter_partitions(table.database, table.name, changed)


def _typed_spec(table: Table, fixed: Mapping[str, str]) -> dict[str, Any]:
    typed = {}
    for name, text in fixed.items():
        hive_type = table.partition_spec.column(name).type
        try:
            typed[name] = None if text == DEFAULT_PARTITION_NAME else parse_value(text, hive_type)
        except InvalidPartitionValue as exc:
            raise HmsCatalogError(f"ANALYZE TABLE of table {table.qualified_name}: {exc}") \
                from None
    return typed


def _key(table: Table, values: Sequence[str]) -> tuple[Any, ...] | None:
    try:
        return table.partition_spec.from_strings(values)
    except InvalidPartitionValue:
        return None


def _matches(table: Table, part: Partition, wanted: Mapping[str, Any]) -> bool:
    typed = _key(table, part.values)
    if typed is None:
        return False
    by_name = dict(zip(table.partition_spec.names, typed, strict=True))
    return all(by_name[name] == value for name, value in wanted.items())


def _row_counts(jvm: Jvm, catalog: str, table: Table,
                fixed: Mapping[str, str]) -> dict[tuple[Any, ...], int]:
    """Rows per partition (by typed values) of the partitions ``fixed`` selects."""
    # The query names the columns as Spark sees them (Dt), under spark.sql.caseSensitive too.
    spark_names = dict(zip(table.partition_spec.names, partition_names(jvm, table),
                           strict=True))
    columns = ", ".join(quoted(name) for name in spark_names.values())
    strings = ", ".join(f"CAST({quoted(name)} AS STRING)" for name in spark_names.values())
    conditions = [
        f"{quoted(spark_names[name])} IS NULL" if value == DEFAULT_PARTITION_NAME
        else f"{quoted(spark_names[name])} <=> CAST({sql_string(value)} AS "
             f"{table.partition_spec.column(name).type})"
        for name, value in fixed.items()]
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = jvm.jsession.sql(
        f"SELECT {strings}, count(*) FROM {quoted(catalog, table.database, table.name)}"
        f"{where} GROUP BY {columns}").collect()
    width = len(table.partition_keys)
    counts: dict[tuple[Any, ...], int] = {}
    for row in rows:
        values = [DEFAULT_PARTITION_NAME if row.isNullAt(i) else str(row.getString(i))
                  for i in range(width)]
        key = _key(table, values)
        if key is not None:
            counts[key] = int(row.getLong(width))
    return counts
