"""The documentation's settings and command line references are rendered from the code
(hmscatalog/cli/reference.py, put into their pages by docs/hooks.py): every setting and every
command and option has a text, and the rendered pages name every one."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from types import ModuleType

from hmscatalog.cli.main import build_parser
from hmscatalog.cli.reference import (
    commands,
    option_name,
    options,
    render_cli,
    render_settings,
    undocumented,
)
from hmscatalog.config import SETTINGS

ROOT = Path(__file__).resolve().parents[2]


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sections(markdown: str) -> dict[str, str]:
    """The text under each heading of ``markdown``, by the heading's code span."""
    parts = re.split(r"^#+ `([^`]+)`\n", markdown, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_setting_says_what_it_does() -> None:
    assert [key for key, setting in SETTINGS.items() if not setting.doc.strip()] == []


def test_every_command_and_option_says_what_it_is_for() -> None:
    assert undocumented(build_parser()) == []


def test_a_command_or_option_without_help_is_found() -> None:
    parser = argparse.ArgumentParser(prog="tool")
    subcommands = parser.add_subparsers()
    quiet = subcommands.add_parser("quiet")
    quiet.add_argument("--level")
    quiet.add_argument("path", help="the path")
    assert undocumented(parser) == ["tool quiet", "tool quiet --level"]


def test_the_settings_page_lists_every_setting_with_its_text() -> None:
    page = render_settings()
    rows = {match[1]: match[0] for match in re.finditer(r"^\| `([^`]+)` \|.*$", page,
                                                        flags=re.MULTILINE)}
    assert sorted(rows) == sorted(SETTINGS)
    for key, setting in SETTINGS.items():
        assert " ".join(setting.doc.split()) in rows[key]


def test_the_command_line_page_lists_every_command_and_option() -> None:
    parser = build_parser()
    sections = _sections(render_cli(parser))
    for command in commands(parser):
        assert command.path in sections
        for action in options(command.parser):
            for name in action.option_strings or [option_name(action)]:
                assert f"`{name}" in sections[command.path], (command.path, name)


def test_each_reference_page_holds_its_placeholder_and_the_hook_fills_it() -> None:
    hooks = _hooks()
    for placeholder in hooks.GENERATED:
        pages = [page for page in (ROOT / "docs").rglob("*.md")
                 if placeholder in page.read_text(encoding="utf-8")]
        assert len(pages) == 1, (placeholder, pages)
        filled = hooks.on_page_markdown(pages[0].read_text(encoding="utf-8"), None, None, None)
        assert placeholder not in filled
        assert "| --- |" in filled
