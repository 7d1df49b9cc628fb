"""Hive's rules for static and dynamic partitions in a write.

A PARTITION clause names every partition column; a column given a value is *static* (SP), one
without is *dynamic* (DP): its values come from the query's last columns, in clause order. Hive
requires static columns to come before dynamic ones, and by default (strict mode) at least one
static column, so that a mistaken query cannot create partitions without bound. The number of
partitions one write creates is limited in total and per task. Settings are Hive's own names,
read from the Spark session conf with or without the ``spark.hadoop.`` prefix.

The messages are Hive's, which users search for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hmscatalog import config
from hmscatalog.errors import (
    DynamicPartitionError,
    InvalidPartitionSpec,
    UnsupportedFormat,
)
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import check_static_value

ENABLED = config.HIVE_DYNAMIC_PARTITION
MODE = config.HIVE_DYNAMIC_PARTITION_MODE
MAX_PARTITIONS = config.HIVE_MAX_DYNAMIC_PARTITIONS
MAX_PER_NODE = config.HIVE_MAX_DYNAMIC_PARTITIONS_PER_NODE


@dataclass(frozen=True)
class DynamicPartitionSettings:
    """Hive's dynamic-partition settings, with Hive's defaults."""

    enabled: bool = config.default(ENABLED, bool)
    strict: bool = config.default(MODE, str) == "strict"
    max_partitions: int = config.default(MAX_PARTITIONS, int)
    max_partitions_per_node: int = config.default(MAX_PER_NODE, int)

    @classmethod
    def from_conf(cls, get: config.Getter) -> DynamicPartitionSettings:
        """Read the settings through ``get(key)`` (``None`` when unset); a key may also be set
        as ``spark.hadoop.<key>`` (the plain key wins).

        Raises:
            DynamicPartitionError: a value of the wrong kind, naming the key as set.
        """
        return cls(
            enabled=config.hive_setting(get, ENABLED, bool),
            strict=config.hive_setting(get, MODE, str) == "strict",
            max_partitions=config.hive_setting(get, MAX_PARTITIONS, int),
            max_partitions_per_node=config.hive_setting(get, MAX_PER_NODE, int),
        )


def check_partition_clause(
    table: str,
    partition_columns: Sequence[str],
    clause: Mapping[str, str | None],
    settings: DynamicPartitionSettings,
) -> None:
    """Check a write's PARTITION clause (column → static value, or ``None`` for dynamic).

    Columns missing from ``clause`` are dynamic (as when a query names no PARTITION clause).

    Raises:
        InvalidPartitionSpec: a column in the clause is not a partition column of ``table``.
        DynamicPartitionError: Hive's order, disabled and strict-mode rules.
    """
    names = [name.lower() for name in partition_columns]
    given = {name.lower(): value for name, value in clause.items()}
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise InvalidPartitionSpec(
            f"not partition columns of table {table}: {', '.join(unknown)} "
            f"(partition columns: {', '.join(names)})")
    for name, value in given.items():
        if value is not None:
            check_static_value(table, name, value)
    dynamic = [given.get(name) is None for name in names]
    if any(dynamic[i] and not dynamic[i + 1] for i in range(len(dynamic) - 1)):
        raise DynamicPartitionError(
            "Dynamic partition cannot be the parent of a static partition")
    if not any(dynamic):
        return
    if not settings.enabled:
        raise DynamicPartitionError(
            "Dynamic partition is disabled. Either enable it by setting "
            "hive.exec.dynamic.partition=true or specify partition column values")
    if settings.strict and all(dynamic):
        raise DynamicPartitionError(
            "Dynamic partition strict mode requires at least one static partition column. "
            "To turn this off set hive.exec.dynamic.partition.mode=nonstrict")


def check_partition_counts(
    created: int, per_task: Sequence[int], settings: DynamicPartitionSettings
) -> None:
    """Check how many partitions a write created, in all and per task, against the limits.

    Raises:
        DynamicPartitionError: a limit is exceeded (Hive's message).
    """
    busiest = max(per_task, default=0)
    if busiest > settings.max_partitions_per_node:
        raise DynamicPartitionError(
            "Fatal error occurred when node tried to create too many dynamic partitions. The "
            f"maximum number of dynamic partitions is controlled by {MAX_PARTITIONS} and "
            f"{MAX_PER_NODE}. Maximum was set to {settings.max_partitions_per_node} partitions "
            f"per node, number of dynamic partitions on this node: {busiest}")
    if created > settings.max_partitions:
        raise DynamicPartitionError(
            f"Number of dynamic partitions created is {created}, which is more than "
            f"{settings.max_partitions}. To solve this try to set {MAX_PARTITIONS} to at least "
            f"{created}.")


def check_partition_formats(table: Table, existing: Mapping[str, Partition]) -> None:
    """Refuse a write into existing partitions stored in another format than the table's
    (after ``ALTER TABLE ... SET FILEFORMAT``): new files would be written in the table's
    format into a partition read with its own."""
    ours = (table.storage.input_format, table.storage.serde)
    for name, part in existing.items():
        theirs = (part.storage.input_format, part.storage.serde)
        if theirs != ours:
            raise UnsupportedFormat(
                f"hms cannot write partition {name} of table {table.qualified_name}: it is "
                f"stored with {theirs[0]} and {theirs[1]}, the table with {ours[0]} and "
                f"{ours[1]}; write a new partition, or drop this one first")
