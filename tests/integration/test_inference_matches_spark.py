"""Partition type inference against Spark's own ``PartitioningUtils``, in the JVM."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hmscatalog.errors import InvalidPartitionValue
from hmscatalog.partitions.inference import directory_value, infer_partition_types

pytestmark = [pytest.mark.integration, pytest.mark.spark]

_SETTINGS = settings(max_examples=400, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])

_NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.from_regex(r"[+-]?0*[0-9]{0,4}\.?[0-9]{0,3}([eE][+-]?[0-9]{1,3})?[fFdD]?", fullmatch=True),
    st.from_regex(r"[+-]?0[xX][0-9a-f]{0,3}\.?[0-9a-f]{0,2}[pP][+-]?[0-9]", fullmatch=True),
)
# Year 0 is left out: Spark has it, Python's dates do not, so hmscatalog says STRING.
_DATES = st.from_regex(r"[0-9]{4}-[01][0-9]-[0-3][0-9]", fullmatch=True).filter(
    lambda text: not text.startswith("0000"))
_TIMES = st.from_regex(r"[0-2][0-9](%3A|:)[0-6][0-9](%3A|:)[0-6][0-9](\.[0-9]{1,7})?",
                       fullmatch=True)
_TIMESTAMPS = st.tuples(_DATES, st.sampled_from([" ", "%20", "T"]), _TIMES).map("".join)
_PIECES = st.sampled_from(["0", "1", "9", "-", "+", ".", "e", "E", "x", "p", "d", "f", " ",
                           ":", "%3A", "%20", "%2E", "T", "N", "a", "\u0661", "\uff12",
                           "NaN", "Infinity", "__HIVE_DEFAULT_PARTITION__", "%5F"])
_RAW = st.one_of(_NUMBERS, _DATES, _TIMESTAMPS, _TIMES,
                 st.lists(_PIECES, min_size=1, max_size=6).map("".join)).filter(
                     lambda raw: "0000-" not in raw)


def _spark_type(spark: Any, raws: list[str]) -> str:
    """The partition column type Spark infers for directories ``k=<raw>``, as a Hive type."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path
    convert = jvm.scala.jdk.javaapi.CollectionConverters
    paths = convert.asScala(jvm.java.util.ArrayList([path(f"file:/base/k={raw}")
                                                     for raw in raws])).toSeq()
    base = convert.asScala(jvm.java.util.HashSet([path("file:/base")])).toSet()
    utils = getattr(jvm.org.apache.spark.sql.execution.datasources, "PartitioningUtils$")
    none = getattr(getattr(jvm.scala, "None$"), "MODULE$")
    spec = getattr(utils, "MODULE$").parsePartitions(paths, True, base, none, False, True,
                                                    "UTC", False)
    found = str(spec.partitionColumns().apply(0).dataType().catalogString())
    # No Hive column can be VOID or TIME: those are strings in hmscatalog.
    return "string" if found == "void" or found.startswith("time(") else found


@_SETTINGS
@given(st.lists(_RAW.filter(lambda raw: raw.strip() != "" and "/" not in raw),
                min_size=1, max_size=3))
@example(["0777"])
@example(["07", "11"])
@example(["1", "2147483648"])
@example(["99999999999999999999"])
@example(["1e5", "1.5"])
@example(["0e5"])
@example(["1.50e1"])
@example(["1", "1.5"])
@example(["2024-01-01", "2024-01-01 10%3A00%3A00"])
@example(["2024-01-01 10:00:00.1"])
@example(["2024-01-01 10:00:00.12"])
@example(["2000-02-29"])
@example(["1900-02-29"])
@example(["20", "hello%20world"])
@example(["%5F_HIVE_DEFAULT_PARTITION__"])
@example(["__HIVE_DEFAULT_PARTITION__", "1"])
@example(["12%3A30%3A00"])
@example([" 1"])
@example(["0x1p3"])
@example(["\uff11\uff12"])
@example(["0.0", "\u0661"])
@pytest.mark.thorough
def test_inference_equals_spark(spark: Any, raws: list[str]) -> None:
    ours = infer_partition_types({"k": raws})["k"]
    try:
        theirs = _spark_type(spark, raws)
    except Exception as error:  # Spark infers a type that one of the values cannot be read as
        assert "INVALID_PARTITION_VALUE" in str(error)
        with pytest.raises(InvalidPartitionValue):
            for raw in raws:
                directory_value(raw, ours)
        return
    assert str(ours) == theirs
    for raw in raws:
        directory_value(raw, ours)  # every value reads as the inferred type
