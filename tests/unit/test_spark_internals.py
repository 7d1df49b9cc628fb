"""The supported Spark versions, and Spark internals used only in hmscatalog.spark.internals."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from hmscatalog.errors import HmsCatalogError, UnsupportedSparkVersion
from hmscatalog.spark.internals import SUPPORTED, check_spark_version

ROOT = Path(__file__).resolve().parents[2]
SPARK = ROOT / "hmscatalog" / "spark"


@pytest.mark.parametrize(("version", "expected"), [
    ("4.0.5", (4, 0)), ("4.1.4", (4, 1)), ("4.2.1", (4, 2)), ("4.3.0", (4, 3)),
    ("4.3.0-SNAPSHOT", (4, 3)), (" 4.0.0 ", (4, 0)), ("4.2", (4, 2)),
])
def test_supported_versions_pass(version: str, expected: tuple[int, int]) -> None:
    assert check_spark_version(version) == expected


@pytest.mark.parametrize("version", ["3.5.1", "4.4.0", "5.0.0", "4.30.0", "40.0.1"])
def test_unsupported_versions_are_refused_naming_both_sides(version: str) -> None:
    with pytest.raises(UnsupportedSparkVersion) as caught:
        check_spark_version(version)
    message = str(caught.value)
    assert f"Spark {version}" in message
    assert all(minor in message for minor in SUPPORTED)
    assert isinstance(caught.value, HmsCatalogError)
    assert "\n" not in message


@pytest.mark.parametrize("version", ["", "four", "v4.0", "4"])
def test_unreadable_versions_are_refused(version: str) -> None:
    with pytest.raises(UnsupportedSparkVersion, match="cannot read the Spark version"):
        check_spark_version(version)


def test_pyproject_accepts_exactly_the_supported_minors() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = f"pyspark>={SUPPORTED[0]},<4.{int(SUPPORTED[-1].split('.')[1]) + 1}"
    assert SUPPORTED[-1].startswith("4.")
    assert wanted in project["optional-dependencies"]["spark"]
    assert wanted.replace("pyspark", "pyspark[connect]") in project["optional-dependencies"]["dev"]
    minors = [int(v.split(".")[1]) for v in SUPPORTED]
    assert minors == list(range(minors[0], minors[-1] + 1))  # no gap in the range


# Public Spark API that code outside hmscatalog/spark/internals may name.
PUBLIC = ("org.apache.spark.sql.connector.", "org.apache.spark.sql.sources.",
          "org.apache.spark.sql.types.", "org.apache.spark.sql.util.",
          "org.apache.spark.sql.catalyst.InternalRow", "org.apache.spark.SparkRuntimeException")
# spark/bridge/jvm.py: generic py4j plumbing; javaparts/spark_plugin.py writes the Java source
# of the catalog plugin.
EXEMPT = {SPARK / "bridge" / "jvm.py", ROOT / "hmscatalog" / "javaparts" / "spark_plugin.py"}


def _outside_internals() -> list[Path]:
    return [path for path in sorted((ROOT / "hmscatalog").rglob("*.py"))
            if SPARK / "internals" not in path.parents and path not in EXEMPT
            and "_thrift" not in path.parts]


def test_spark_internals_are_named_only_in_the_internals_package() -> None:
    found = []
    for path in _outside_internals():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for name in re.findall(r"org\.apache\.spark[\w.$]*", node.value):
                    if not name.startswith(PUBLIC):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
            if isinstance(node, ast.Attribute) and node.attr == "scala_object":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert found == []


def test_error_kinds_name_the_error_once() -> None:
    from hmscatalog.errors import InvalidSetting, MetastoreUnavailable
    from hmscatalog.spark.bridge.jvm import error_kind

    assert [error_kind(e) for e in (HmsCatalogError("x"), InvalidSetting("x"),
                                    MetastoreUnavailable("x"), KeyError("x"))] == [
        "HMS_CATALOG_ERROR", "HMS_INVALID_SETTING", "HMS_METASTORE_UNAVAILABLE",
        "HMS_INTERNAL_ERROR"]
