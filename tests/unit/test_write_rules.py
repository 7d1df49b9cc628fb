"""Hive's static/dynamic partition rules and settings."""

from __future__ import annotations

import pytest

from hmscatalog.errors import DynamicPartitionError, InvalidPartitionSpec
from hmscatalog.write.rules import (
    DynamicPartitionSettings,
    check_partition_clause,
    check_partition_counts,
)

COLUMNS = ["dt", "country", "hr"]
STRICT = DynamicPartitionSettings()
NONSTRICT = DynamicPartitionSettings(strict=False)


def _check(clause: dict[str, str | None], settings: DynamicPartitionSettings = STRICT) -> None:
    check_partition_clause("db.t", COLUMNS, clause, settings)


def test_static_then_dynamic_is_accepted() -> None:
    _check({"dt": "2024-01-05", "country": "US", "hr": "7"})
    _check({"dt": "2024-01-05", "country": None, "hr": None})
    _check({"DT": "2024-01-05"})  # columns left out are dynamic; names are case-insensitive
    _check({"dt": None, "country": None, "hr": None}, NONSTRICT)


def test_dynamic_above_static_is_rejected() -> None:
    with pytest.raises(DynamicPartitionError,
                       match=r"^Dynamic partition cannot be the parent of a static partition$"):
        _check({"dt": "2024-01-05", "country": None, "hr": "7"}, NONSTRICT)


def test_strict_mode_needs_one_static_column() -> None:
    with pytest.raises(DynamicPartitionError, match=(
            r"^Dynamic partition strict mode requires at least one static partition column\. "
            r"To turn this off set hive\.exec\.dynamic\.partition\.mode=nonstrict$")):
        _check({})


def test_disabled_dynamic_partitions() -> None:
    disabled = DynamicPartitionSettings(enabled=False)
    _check({"dt": "a", "country": "b", "hr": "1"}, disabled)
    with pytest.raises(DynamicPartitionError, match=r"^Dynamic partition is disabled\. Either"):
        _check({"dt": "a", "country": None}, disabled)


def test_unknown_column_is_named() -> None:
    with pytest.raises(InvalidPartitionSpec, match=r"db\.t: region .*dt, country, hr"):
        _check({"region": "EU"})


def test_limits_use_hive_messages() -> None:
    check_partition_counts(1000, [100, 100], STRICT)
    with pytest.raises(DynamicPartitionError, match=(
            r"^Number of dynamic partitions created is 1001, which is more than 1000\. To solve "
            r"this try to set hive\.exec\.max\.dynamic\.partitions to at least 1001\.$")):
        check_partition_counts(1001, [90] * 12, STRICT)
    with pytest.raises(DynamicPartitionError, match=(
            r"Maximum was set to 100 partitions per node, number of dynamic partitions on this "
            r"node: 101$")):
        check_partition_counts(150, [101, 49], STRICT)


def test_settings_from_conf_with_or_without_spark_hadoop_prefix() -> None:
    conf = {"hive.exec.dynamic.partition.mode": "nonstrict",
            "spark.hadoop.hive.exec.max.dynamic.partitions": "5000",
            "spark.hadoop.hive.exec.max.dynamic.partitions.pernode": "7",
            "hive.exec.max.dynamic.partitions.pernode": "500"}
    settings = DynamicPartitionSettings.from_conf(conf.get)
    assert settings == DynamicPartitionSettings(enabled=True, strict=False,
                                                max_partitions=5000, max_partitions_per_node=500)
    assert DynamicPartitionSettings.from_conf({}.get) == STRICT


@pytest.mark.parametrize(("key", "value"), [
    ("hive.exec.dynamic.partition.mode", "lenient"),
    ("hive.exec.dynamic.partition", "yes"),
    ("hive.exec.max.dynamic.partitions", "-1"),
    ("hive.exec.max.dynamic.partitions.pernode", "many"),
])
def test_bad_settings_name_the_key(key: str, value: str) -> None:
    with pytest.raises(DynamicPartitionError, match=key.replace(".", r"\.")):
        DynamicPartitionSettings.from_conf({key: value}.get)
