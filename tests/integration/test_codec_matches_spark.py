"""The path codec against Spark's ExternalCatalogUtils and Hive's FileUtils, in the JVM."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmscatalog.partitions.codec import escape_path_name, make_part_name, unescape_path_name

pytestmark = [pytest.mark.integration, pytest.mark.spark]

# Characters near every escaping rule, plus all of Unicode but lone surrogates (py4j cannot
# send them, and no path holds them).
_TRICKY = st.sampled_from(
    [*"\x00\x01\x1f\x7f \"#%'*/:=?\\{}[]^|<>~+-0123456789aAfFgG", "\uff10", "ü", "東", "😀"]
)
_ANY_CHAR = st.characters(exclude_categories=("Cs",))
TEXT = st.lists(st.one_of(_TRICKY, _ANY_CHAR), max_size=20).map("".join)
_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


def _spark_utils(spark: Any) -> Any:
    return spark._jvm.org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils


@_SETTINGS
@given(TEXT)
def test_escape_equals_spark(spark: Any, text: str) -> None:
    assert escape_path_name(text) == _spark_utils(spark).escapePathName(text)


def _spark_can_unescape(text: str) -> bool:
    # Spark 4's table lookup throws ArrayIndexOutOfBounds for U+0080..U+00FF right after '%'.
    return not re.search(r"%[\x80-\xff]|%.[\x80-\xff]", text)


@_SETTINGS
@given(st.lists(st.one_of(st.sampled_from(["%", "%2", "%+", "%-", "%0", "%4"]), _TRICKY,
                          _ANY_CHAR), max_size=12)
       .map("".join).filter(_spark_can_unescape))
def test_unescape_equals_spark(spark: Any, text: str) -> None:
    assert unescape_path_name(text) == _spark_utils(spark).unescapePathName(text)


@_SETTINGS
# Hive maps "" itself to the default partition name, and escapes U+0000 where Spark does not
# (hmscatalog writes the directories Spark writes).
@given(TEXT.filter(lambda s: bool(s) and "\x00" not in s))
def test_escape_equals_hive(spark: Any, text: str) -> None:
    file_utils = spark._jvm.org.apache.hadoop.hive.common.FileUtils
    assert escape_path_name(text) == file_utils.escapePathName(text)
    # Escaped names read back the same in Hive.
    assert file_utils.unescapePathName(escape_path_name(text)) == text


def test_partition_path_equals_spark(spark: Any) -> None:
    utils = _spark_utils(spark)
    scala_map = spark._jvm.PythonUtils.toScalaMap
    spec = {"dt": "2024-01-05", "region": "a/b=c", "hr": ""}
    java_spec = scala_map(spec)
    ordered = spark._jvm.PythonUtils.toSeq(["dt", "region", "hr"])
    table_path = spark._jvm.org.apache.hadoop.fs.Path("/t")
    expected = utils.generatePartitionPath(java_spec, ordered, table_path).toString()
    assert "/t/" + make_part_name(list(spec), list(spec.values())) == expected
