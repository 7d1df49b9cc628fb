"""What a newcomer meets first: the command line's version and help, an import without
pyspark."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata

import pytest

from hmscatalog.cli.main import build_parser, main


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


def _options(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield f"{path} {'/'.join(action.option_strings) or action.dest}", action


def test_every_command_line_option_says_what_it_is_for() -> None:
    undocumented = [name for name, action in _options(build_parser(), "hmscatalog")
                    if not action.help]
    assert undocumented == []
