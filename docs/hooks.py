"""MkDocs hook: fills the reference pages' placeholders with text rendered from the code (the
settings registry, the command line's parsers), so that no copy of it is kept to drift."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hmscatalog.cli.main import build_parser
from hmscatalog.cli.reference import render_cli, render_settings

GENERATED: dict[str, Callable[[], str]] = {
    "<!-- generated: settings -->": render_settings,
    "<!-- generated: cli -->": lambda: render_cli(build_parser()),
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    for placeholder, render in GENERATED.items():
        if placeholder in markdown:
            markdown = markdown.replace(placeholder, render())
    return markdown
