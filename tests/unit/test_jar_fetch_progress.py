"""What a first jar fetch shows while Maven downloads (from its batch-mode transfer lines)."""

from __future__ import annotations

import re

import pytest

from hmscatalog.jars import _Progress

CENTRAL = "https://repo.maven.apache.org/maven2"
LINES = [
    "[INFO] Scanning for projects...",
    f"Downloading from central: {CENTRAL}/a/b/1/b-1.pom",
    f"Downloaded from central: {CENTRAL}/a/b/1/b-1.pom (2.5 kB at 9 kB/s)",
    f"Downloaded from central: {CENTRAL}/a/c/2/c-2.jar (1.2 MB at 3 MB/s)",
    "Downloaded from mirror: https://mirror.example/a/d/3/d-3.jar (300 B at 1 kB/s)",
    "[INFO] BUILD SUCCESS",
]


def test_a_fetch_off_a_terminal_ends_with_one_line_of_files_and_bytes(
        capsys: pytest.CaptureFixture[str]) -> None:
    progress = _Progress("Hive 3.1.3's metastore")
    for line in LINES:
        progress.see(line)
    assert capsys.readouterr().err == ""
    progress.done()
    assert re.fullmatch(r"hmscatalog: fetched 3 files \(1\.2 MB\) of Hive 3\.1\.3's metastore "
                        r"from Maven Central in \d+s\n", capsys.readouterr().err)


def test_nothing_downloaded_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    progress = _Progress("S3A")
    progress.see(LINES[0])
    progress.done()
    assert capsys.readouterr().err == ""
