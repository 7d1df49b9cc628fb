"""What a newcomer meets first: the command line's version, an import without pyspark. (That
every option has a help text is checked with the documentation's references, in
test_docs_reference.py.)"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

from hmscatalog.cli.main import main


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"hmscatalog {metadata.version('hmscatalog')}\n"


def test_hmscatalog_spark_without_pyspark_says_what_to_install() -> None:
    blocked = ("import sys; sys.modules['pyspark'] = None; sys.modules['py4j'] = None; "
               "import hmscatalog.spark")
    run = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "ImportError: hmscatalog.spark needs pyspark 4.0 to 4.3 (import of py4j halted; None "
        "in sys.modules): pip install 'hmscatalog[spark]'")
