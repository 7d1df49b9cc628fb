"""Partition model: spec, typed values and Hive's path codec."""

from hmscatalog.partitions.codec import (
    DEFAULT_PARTITION_NAME,
    escape_path_name,
    make_part_name,
    parse_part_name,
    unescape_path_name,
)
from hmscatalog.partitions.spec import PartitionColumn, PartitionSpec
from hmscatalog.partitions.types import HiveType, format_value, parse_hive_type, parse_value

__all__ = [
    "DEFAULT_PARTITION_NAME",
    "HiveType",
    "PartitionColumn",
    "PartitionSpec",
    "escape_path_name",
    "format_value",
    "make_part_name",
    "parse_hive_type",
    "parse_part_name",
    "parse_value",
    "unescape_path_name",
]
