"""Path globs for reading partitioned data, in the grammar of ClickHouse's ``s3()``/``file()``.

A pattern is a storage path (``/abs/dir/...`` or ``bucket/key/...``) matched one segment at a
time; nothing but ``**`` crosses a ``/``:

* ``*`` -- any run of characters, possibly empty; ``?`` -- exactly one character;
* ``**`` as a whole segment -- zero or more directory levels (``x**y`` is just ``x*y``); as the
  last segment, one or more levels: ``x/**`` is everything below ``x``, and ``*/**`` never
  matches a file directly in the prefix (as in DuckDB, whose ``**`` stands for directories and
  whose trailing ``**`` for the entries below them);
* ``{a,b*,c}`` -- one of the alternatives, each literal text with optional ``*``/``?``;
* ``{N..M}`` -- the whole numbers from N to M, in either order; if a bound is written with a
  leading zero (``{01..10}``) every number is zero-padded to the width of the wider bound.

Everything else is literal: ``.``, ``(`` or ``[`` match themselves. Names starting with ``_`` or
``.`` (``_SUCCESS``, ``_temporary``, ``.crc`` files) are hidden: a wildcard at the start of a
name never matches their first character and ``**`` never enters them, but a pattern that spells
the character out (``_SUCCESS``, ``_tmp*``, ``{_a,b}``) does match them.

A compiled :class:`Glob` is a small NFA over segments (:meth:`Glob.start`, :meth:`State.step`),
so that :func:`expand` and :func:`select_files` can walk a tree level by level and list only
directories from which a match is still reachable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hmscatalog.errors import InvalidGlob
from hmscatalog.storage.filesystems import Entry, Storage

MAX_RANGE = 100_000  # values one {N..M} may stand for; more is almost surely a typo
_GLOB_CHARS = frozenset("*?{}")
_HIDDEN = ("_", ".")
# A wildcard standing at a name's first character never takes a hidden name's ``_`` or ``.``.
_STAR = r"(?!^[._])[^/]*"
_ONE = r"(?!^[._])[^/]"


def has_glob(text: str) -> bool:
    """Whether ``text`` needs :func:`compile_glob`. A lone ``}`` counts too, so that it is
    reported as malformed rather than looked up as a literal path."""
    return any(ch in _GLOB_CHARS for ch in text)


@dataclass(frozen=True)
class Segment:
    """The matcher of one path segment; ``regex`` is ``None`` for ``**``."""

    text: str
    regex: re.Pattern[str] | None

    @property
    def is_globstar(self) -> bool:
        return self.regex is None

    def matches(self, name: str) -> bool:
        """Whether one path level named ``name`` matches; ``**`` takes any name not hidden."""
        if self.regex is None:
            return not name.startswith(_HIDDEN)
        return self.regex.fullmatch(name) is not None


@dataclass(frozen=True)
class State:
    """Where a walk stands in a pattern: the indexes of the segments the next name may match,
    ``len(segments)`` meaning "all matched". It is a set because ``**`` may stand for any number
    of levels, so one path can be at several places of the pattern at once."""

    segments: tuple[Segment, ...]
    positions: frozenset[int]

    @property
    def accepts(self) -> bool:
        """Whether a path ending here matches the whole pattern."""
        return len(self.segments) in self.positions

    @property
    def descends(self) -> bool:
        """Whether names below a directory in this state can still match, i.e. whether listing
        that directory can pay off."""
        return any(i < len(self.segments) for i in self.positions)

    def step(self, name: str) -> State | None:
        """The state one level down, at a child called ``name``; ``None`` when neither that
        child nor anything below it can match."""
        after = set()
        last = len(self.segments) - 1
        for i in self.positions:
            if i < len(self.segments) and self.segments[i].matches(name):
                if not self.segments[i].is_globstar:
                    after.add(i + 1)
                    continue
                after.add(i)  # ** may take more levels
                if i == last:
                    after.add(i + 1)  # a last ** has now taken at least one
        return _closed(self.segments, after) if after else None


def _closed(segments: tuple[Segment, ...], positions: set[int]) -> State:
    """The state at ``positions`` plus every position reached by letting ``**`` stand for zero
    levels (in order, so that ``**/**`` chains through). A last ``**`` never stands for zero
    levels: otherwise ``*/**`` would be ``*`` and match a file directly in the prefix."""
    closed = set(positions)
    for i in range(min(closed), len(segments) - 1):
        if i in closed and segments[i].is_globstar:
            closed.add(i + 1)
    return State(segments, frozenset(closed))


@dataclass(frozen=True)
class Glob:
    """A compiled pattern: ``prefix`` is the literal directory to start listing in, and
    ``segments`` match the levels below it."""

    pattern: str
    prefix: str
    segments: tuple[Segment, ...]

    def start(self) -> State:
        """The state at ``prefix``, before any level below it."""
        return _closed(self.segments, {0})

    def matches(self, relative_path: str) -> bool:
        """Whether ``relative_path`` (``a/b/c.csv``, relative to ``prefix``) matches; the prefix
        itself (an empty path) never does."""
        names = [name for name in relative_path.split("/") if name]
        state = self.start()
        for name in names:
            after = state.step(name)
            if after is None:
                return False
            state = after
        return bool(names) and state.accepts


def compile_glob(pattern: str) -> Glob:
    """Parse ``pattern``, raising :class:`InvalidGlob` if it is malformed.

    The prefix ends before the first segment holding a glob character (before the last segment
    for a pattern without any), so that a literal path works as a one-entry pattern.
    """
    _check_braces(pattern)
    names = [name for name in pattern.split("/") if name]
    if not names:
        raise _invalid(pattern, "it names no path segment")
    first = next((i for i, name in enumerate(names) if has_glob(name)), len(names) - 1)
    root = "/" if pattern.startswith("/") else ""
    if first == 0 and not root:
        raise _invalid(pattern, "its first segment (the bucket) must be literal")
    segments = tuple(_segment(pattern, name) for name in names[first:])
    return Glob(pattern, root + "/".join(names[:first]), segments)


def compile_below(root: str, relative: str) -> Glob:
    """A pattern over the levels below the literal directory ``root``: every segment of
    ``relative`` (literal or not) matches one level, so a walk from ``root`` can follow it."""
    pattern = f"{root.rstrip('/')}/{relative}"
    _check_braces(pattern)
    names = [name for name in relative.split("/") if name]
    if not names:
        raise _invalid(pattern, "it names no path segment below its root")
    return Glob(pattern, root.rstrip("/") or "/", tuple(_segment(pattern, n) for n in names))


def expand(storage: Storage, pattern: str) -> list[Entry]:
    """The entries (files and directories) under ``storage`` that ``pattern`` matches, sorted by
    path; :class:`InvalidGlob` if there is none.

    Walks down from the prefix one level at a time and lists a directory only while the pattern
    can still match below it, so list calls grow with the matches rather than with the tree.
    """
    glob = compile_glob(pattern)
    found: list[Entry] = []
    level = [(glob.prefix, glob.start())]
    while level:
        below: list[tuple[str, State]] = []
        listings = storage.list_many([path for path, _ in level])
        for (_, state), entries in zip(level, listings, strict=True):
            for entry in entries or ():
                after = state.step(entry.name)
                if after is None:
                    continue
                if after.accepts:
                    found.append(entry)
                if entry.is_dir and after.descends:
                    below.append((entry.path, after))
        level = below
    if not found:
        raise InvalidGlob(f"glob {pattern!r} matches no file or directory")
    return sorted(found, key=lambda entry: entry.path)


Lister = Callable[[list[str]], list[list[Entry] | None]]
FileGroups = list[tuple[str, list[str]]]  # (directory, the selected files directly in it)


def select_files(list_many: Lister, starts: Sequence[tuple[str, State | None]],
                 ) -> list[FileGroups]:
    """For each ``(directory, state)`` of ``starts``, the data files below it, grouped by the
    directory that holds them (in walk order, files sorted by name).

    ``state`` is where a pattern stands at that directory, ``None`` when nothing of it is left.
    A file is selected when the pattern accepts it, or, with nothing left, when it is visible;
    empty files never are (Spark skips them too). A subdirectory is entered while the pattern
    can still match below it; one the pattern matches whole, and, with nothing left, every
    visible one, is read whole, at any depth: Spark reads a matched directory, and the plain
    directories below a partition directory, the same way.

    ``list_many`` lists directories (:meth:`Storage.list_many`, or a wrapper that counts the
    calls); each level of the walk is one call to it.
    """
    found: list[FileGroups] = [[] for _ in starts]
    level = [(index, path, state) for index, (path, state) in enumerate(starts)]
    while level:
        below: list[tuple[int, str, State | None]] = []
        listings = list_many([path for _, path, _ in level])
        for (index, path, state), entries in zip(level, listings, strict=True):
            files = []
            for entry in sorted(entries or (), key=lambda e: e.name):
                if entry.is_dir:
                    enters, inside = step_into(state, entry.name)
                    if enters:
                        below.append((index, entry.path, inside))
                elif entry.size > 0 and selects_file(state, entry.name):
                    files.append(entry.path)
            if files:
                found[index].append((path, files))
        level = below
    return found


def selects_file(state: State | None, name: str) -> bool:
    """Whether a file called ``name`` is selected where the walk stands at ``state`` (``None``:
    nothing of the pattern left, every visible file is)."""
    if state is None:
        return not name.startswith(_HIDDEN)
    after = state.step(name)
    return after is not None and after.accepts


def step_into(state: State | None, name: str) -> tuple[bool, State | None]:
    """Whether to walk into a subdirectory called ``name`` where the walk stands at ``state``,
    and the state inside it: ``None`` once the pattern matches it whole (everything below is
    taken), or when nothing was left of the pattern and the name is visible."""
    if state is None:
        return not name.startswith(_HIDDEN), None
    after = state.step(name)
    if after is None:
        return False, None
    if after.accepts:
        return True, None
    return after.descends, after


def _invalid(pattern: str, what: str) -> InvalidGlob:
    return InvalidGlob(f"invalid glob {pattern!r}: {what}")


def _check_braces(pattern: str) -> None:
    """Reject misused braces over the whole pattern, while positions can still be reported;
    afterwards every ``{...}`` is known to be closed, flat and within one segment."""
    opened: int | None = None
    for at, ch in enumerate(pattern):
        if ch == "{":
            if opened is not None:
                raise _invalid(pattern, f"'{{' at position {at} is nested in the '{{' at "
                                        f"position {opened}; braces do not nest")
            opened = at
        elif ch == "}":
            if opened is None:
                raise _invalid(pattern, f"stray '}}' at position {at} closes no '{{'")
            if at == opened + 1:
                raise _invalid(pattern, f"empty alternative list '{{}}' at position {opened}")
            opened = None
        elif ch == "/" and opened is not None:
            raise _invalid(pattern, f"'/' at position {at} is inside the '{{' at position "
                                    f"{opened}; alternatives cannot span directories")
    if opened is not None:
        raise _invalid(pattern, f"unclosed '{{' at position {opened}")


def _segment(pattern: str, text: str) -> Segment:
    """Compile one segment; the text between ``{...}`` groups goes through :func:`_wild`."""
    if text == "**":
        return Segment(text, None)
    parts = re.split(r"(\{[^}]*\})", text)  # odd indexes hold the {...} groups
    regex = "".join(_braces(pattern, part[1:-1]) if i % 2 else _wild(part)
                    for i, part in enumerate(parts))
    return Segment(text, re.compile(regex))


def _wild(text: str) -> str:
    """Regex for text with ``*`` and ``?``; a run of ``*`` is one ``*``, which also keeps
    backtracking in check."""
    return "".join(_STAR if ch == "*" else _ONE if ch == "?" else re.escape(ch)
                   for ch in re.sub(r"\*+", "*", text))


def _braces(pattern: str, body: str) -> str:
    """Regex for the inside of one ``{...}``: a range if it has ``..`` and no comma."""
    if "," not in body and ".." in body:
        return _range(pattern, body)
    return "(?:" + "|".join(_wild(alternative) for alternative in body.split(",")) + ")"


def _range(pattern: str, body: str) -> str:
    """Regex for ``{N..M}``, built from digit classes so that even the largest range allowed
    stays a short pattern."""
    written = body.partition("..")[::2]
    for bound in written:
        if re.fullmatch("-[0-9]+", bound):
            raise _invalid(pattern, f"range {{{body}}} has a negative bound; "
                                    "only non-negative numbers are supported")
        if not re.fullmatch("[0-9]+", bound):
            raise _invalid(pattern, f"range {{{body}}} has bound {bound!r}, "
                                    "which is not a whole number")
    low, high = sorted(int(bound) for bound in written)
    if high - low + 1 > MAX_RANGE:
        raise _invalid(pattern, f"range {{{body}}} stands for {high - low + 1} values, "
                                f"more than {MAX_RANGE}")
    if any(len(bound) > 1 and bound.startswith("0") for bound in written):
        width = max(len(bound) for bound in written)
        return _digits(str(low).zfill(width), str(high).zfill(width))
    blocks = []  # unpadded: one block per count of digits, each of a single width
    for width in range(len(str(low)), len(str(high)) + 1):
        first = low if width == len(str(low)) else 10 ** (width - 1)
        blocks.append(_digits(str(first), str(min(high, 10 ** width - 1))))
    return "(?:" + "|".join(blocks) + ")"


def _digits(low: str, high: str) -> str:
    """Regex for the digit strings of one width from ``low`` to ``high``, inclusive: a common
    leading digit, then the rest of ``low``'s first digit, the whole middle digits, and the
    start of ``high``'s first digit."""
    if low == high:
        return low
    if low[0] == high[0]:
        return low[0] + _digits(low[1:], high[1:])
    rest = len(low) - 1
    first, last = int(low[0]), int(high[0])
    parts = []
    if low[1:] != "0" * rest:
        parts.append(low[0] + _digits(low[1:], "9" * rest))
        first += 1
    if high[1:] != "9" * rest:
        parts.append(high[0] + _digits("0" * rest, high[1:]))
        last -= 1
    if first <= last:
        parts.append(f"[{first}-{last}]" + "[0-9]" * rest)
    return "(?:" + "|".join(parts) + ")"
