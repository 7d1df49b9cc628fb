"""Building a jar from Java sources: whole or not at all, and said while it happens."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from hmscatalog.errors import HmsCatalogError
from hmscatalog.javaparts.javac import build_jar


def test_a_build_says_what_it_builds_and_makes_the_jar(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "cache" / "hello.jar"
    build_jar({"Hello.java": "package x;\npublic final class Hello {}\n"}, target, "a test jar")
    assert capsys.readouterr().err == (
        f"hmscatalog: building a test jar with javac into {target} (once)\n")
    with zipfile.ZipFile(target) as jar:
        assert jar.namelist() == ["x/Hello.class"]


def test_a_source_that_does_not_compile_leaves_no_jar(tmp_path: Path) -> None:
    target = tmp_path / "broken.jar"
    with pytest.raises(HmsCatalogError, match=r"javac could not build a broken jar: .*Broken"):
        build_jar({"Broken.java": "public class Broken { int }\n"}, target, "a broken jar")
    assert list(tmp_path.iterdir()) == []
