"""The fenced code blocks of the documentation (``docs/**/*.md`` and ``README.md``), as the docs
tests read them.

Every block names its language: ``python`` and ``sh``/``console`` blocks are run by
``tests/integration/test_docs_examples.py``, ``text`` blocks (output, grammar, trees) are not.
An HTML comment on the line before a block marks it: ``<!-- docs-test: skip (reason) -->`` (not
run), ``<!-- docs-test: output -->`` (a ``text`` block the output of the block before must
match, ``...`` matching anything).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("python", "sh", "console", "text")
RUN = ("python", "sh", "console")

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)\s*$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_SKIP = re.compile(r"skip \((?P<reason>[^)]+)\)")
# A line that runs the hmscatalog command (not `pip install 'hmscatalog[spark]'`).
_COMMAND = re.compile(r"(?:^|[\s;&|(/])hmscatalog\s")


class DocsError(ValueError):
    """A page's blocks cannot be read: an unclosed fence, no language, an unknown marker."""


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its language and text (dedented to the fence), and
    its marker (``skip``, ``output`` or ``""``)."""

    page: str  # relative to the repository root
    line: int  # of the opening fence, from 1
    language: str
    text: str
    marker: str = ""
    reason: str = ""  # a skip's

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def commands(self) -> list[str]:
        """The ``hmscatalog`` command lines of a ``sh``/``console`` block, continuation lines
        joined; in a ``console`` block only lines after a ``$`` prompt count."""
        found, pending = [], ""
        for raw in self.text.splitlines():
            line = raw.rstrip()
            if not pending:
                if self.language == "console":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                if line.lstrip().startswith("#"):
                    continue
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            line, pending = pending + line, ""
            if _COMMAND.search(line):
                found.append(line.strip())
        return found


def pages() -> list[Path]:
    """Every documentation page, README.md last."""
    return [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, in order.

    Raises:
        DocsError: naming the page and line.
    """
    name = page.relative_to(ROOT).as_posix()
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence, language = (len(opening["indent"]), opening["fence"], opening["info"])
        if language not in LANGUAGES:
            raise DocsError(f"{name}:{i + 1}: a code block must be one of {', '.join(LANGUAGES)}"
                            f", not {language or 'unnamed'!r}")
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].strip().startswith(fence[0] * len(fence))
                    and not lines[j].strip().strip(fence[0])), None)
        if end is None:
            raise DocsError(f"{name}:{i + 1}: the code block is never closed")
        body = [line[indent:] if line[:indent].strip() == "" else line.lstrip()
                for line in lines[i + 1:end]]
        marker, reason = _marker(name, lines, i)
        found.append(Block(name, i + 1, language, "\n".join(body) + "\n", marker, reason))
        i = end + 1
    return found


def _marker(page: str, lines: list[str], fence: int) -> tuple[str, str]:
    """The marker on the nearest non-blank line above line ``fence`` (0-based)."""
    above = next((lines[j] for j in range(fence - 1, -1, -1) if lines[j].strip()), "")
    match = _MARKER.match(above)
    if match is None:
        return "", ""
    body = match["body"]
    if body == "output":
        return "output", ""
    skip = _SKIP.fullmatch(body)
    if skip is None:
        raise DocsError(f"{page}:{fence + 1}: unknown marker {above.strip()!r}; expected "
                        "<!-- docs-test: skip (reason) --> or <!-- docs-test: output -->")
    return "skip", skip["reason"]
