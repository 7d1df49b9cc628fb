"""The quick tier (the README's test command) and the thorough tier (which .ci/run adds) split
the suite: together every test and case once, and every test file in the quick tier unless it
is named here with the reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# Files whose every test is thorough, and why the quick tier can leave out their kind of check.
ONLY_THOROUGH = {
    "tests/integration/test_demo.py": "the README's first command runs the demo",
    "tests/integration/test_inference_matches_spark.py":
        "test_path_reads_like_spark.py compares inference with Spark's on a few trees",
    "tests/integration/test_postgres_metastore.py":
        "a PostgreSQL server and a metastore per release; Derby covers the quick tier",
    "tests/integration/test_wheel.py":
        "builds the wheel (four pyspark releases' jars) and installs it in a clean venv",
}


def _collect(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *args], cwd=TESTS.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ids(proc: subprocess.Popen[str]) -> list[str]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err or out
    return [line for line in out.splitlines() if "::" in line]


def test_the_tiers_split_the_suite_and_quick_keeps_every_file() -> None:
    runs = {tier: _collect("--tier", tier) for tier in ("quick", "thorough", "all")}
    quick, thorough, every = (_ids(runs[tier]) for tier in ("quick", "thorough", "all"))
    assert not set(quick) & set(thorough)
    assert sorted(quick + thorough) == sorted(every)
    assert thorough, "nothing is thorough: the quick tier is the whole suite"
    files = {test.split("::")[0] for test in every}
    in_quick = {test.split("::")[0] for test in quick}
    assert sorted(files - in_quick) == sorted(ONLY_THOROUGH)


def test_a_test_named_by_its_node_id_runs_whatever_its_tier() -> None:
    name = "tests/integration/test_demo.py::test_demo_runs_twice_and_reuses_its_metastore"
    assert _ids(_collect(name)) == [name]
