"""The documentation site builds with ``mkdocs build --strict`` (no broken link or anchor, no
page outside the nav, every API reference resolves); every page's code blocks can be read by
the docs tests; README's links lead to files that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_blocks import ROOT, blocks, pages


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the docs and dev extras")
    site = tmp_path / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stderr[-4000:]
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    assert "hmscatalog.discovery.max-list-calls" in settings
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--hive-version" in cli


def test_every_code_block_names_a_language_the_docs_tests_know() -> None:
    for page in pages():
        blocks(page)  # raises naming the page and line


def test_readme_links_lead_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [m[1] for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
               if "://" not in m[1]]
    assert targets, "README links to no page"
    assert [t for t in targets if not (ROOT / t).exists()] == []
