"""Path globs: the grammar, the hidden-name rule, malformed patterns and pruned walking."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmscatalog.errors import InvalidGlob
from hmscatalog.storage import Entry, open_storage
from hmscatalog.storage.globs import compile_below, compile_glob, expand, has_glob, select_files


def make_tree(root: Path, *files: str) -> None:
    """Create each file (and its directories) under ``root``; a path ending in ``/`` is a
    directory."""
    for relative in files:
        path = root / relative
        if relative.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")


def relative(root: Path, entries: list[Entry]) -> list[str]:
    return [os.path.relpath(entry.path, root) for entry in entries]


@pytest.mark.parametrize(("text", "expected"), [
    ("/data/t/dt=2024-01-01/part-0.parquet", False),
    ("/data/t/(x).[1]", False),
    ("/data/*", True),
    ("/data/?", True),
    ("/data/{a,b}", True),
    ("/data/a}", True),  # goes to compile_glob, which reports it
])
def test_has_glob(text: str, expected: bool) -> None:
    assert has_glob(text) is expected


@pytest.mark.parametrize(("pattern", "prefix", "segments"), [
    ("/data/t/dt=*/x.csv", "/data/t", ("dt=*", "x.csv")),
    ("/data/t/a/b/**/*.csv", "/data/t/a/b", ("**", "*.csv")),
    ("/data/t/f.csv", "/data/t", ("f.csv",)),  # a literal path is a one-entry pattern
    ("/*/x", "/", ("*", "x")),
    ("bucket/w/{a,b}/c", "bucket/w", ("{a,b}", "c")),
    ("//data//t/*/", "/data/t", ("*",)),
])
def test_prefix_and_segments(pattern: str, prefix: str, segments: tuple[str, ...]) -> None:
    glob = compile_glob(pattern)
    assert glob.prefix == prefix
    assert tuple(segment.text for segment in glob.segments) == segments


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    # *: any run within one segment, including none
    ("*.csv", "a.csv", True),
    ("*.csv", ".csv", False),  # hidden
    ("a*", "a", True),
    ("*.csv", "a/b.csv", False),
    ("*.csv", "a.csvx", False),
    # ?: exactly one character
    ("part-?.csv", "part-1.csv", True),
    ("part-?.csv", "part-12.csv", False),
    ("part-?.csv", "part-.csv", False),
    # ** inside a segment is a plain *
    ("a**z", "abcz", True),
    ("a**z", "a/b/z", False),
    # ** as a segment: zero or more levels, at the start, middle or end
    ("**/f.csv", "f.csv", True),
    ("**/f.csv", "a/b/c/f.csv", True),
    ("**/f.csv", "a/b/c/g.csv", False),
    ("a/**/f", "a/f", True),
    ("a/**/f", "a/x/y/f", True),
    ("a/**/f", "b/x/f", False),
    ("a/**", "a/x", True),
    ("a/**", "a/x/y/z", True),
    ("a/**", "a", False),
    # a last ** stands for one level or more, even after another wildcard (DuckDB's rule)
    ("*/**", "f", False),
    ("*/**", "a/f", True),
    ("*/**", "a/b/c/f", True),
    ("x*/**", "xa", False),
    ("**/**", "f", True),
    ("*/**/**", "a", False),
    ("*/**/**", "a/b", True),
    ("**/*/**", "a", False),
    ("**/*/**", "a/b", True),
    ("**/**/f", "f", True),
    ("**/**/f", "a/b/f", True),
    ("**/f", "_temporary/f", False),  # ** never enters hidden directories
    ("**/_temporary/f", "a/_temporary/f", True),
    # alternatives, literal or with wildcards
    ("{a,b}.csv", "a.csv", True),
    ("{a,b}.csv", "b.csv", True),
    ("{a,b}.csv", "c.csv", False),
    ("{x*,y?z}", "xanything", True),
    ("{x*,y?z}", "yQz", True),
    ("{x*,y?z}", "yz", False),
    ("{a,}b", "b", True),
    ("{**,q}", "abc", True),
    ("{1..3,x}", "1..3", True),  # with a comma it is a list, and "1..3" is literal text
    ("dt={2023,2024}-*/h={00..02}", "dt=2024-05/h=01", True),
    ("dt={2023,2024}-*/h={00..02}", "dt=2022-05/h=01", False),
    # literal characters that mean something to regexes or other glob dialects
    ("a.b", "a.b", True),
    ("a.b", "aXb", False),
    ("p[1]", "p[1]", True),
    ("p[1]", "p1", False),
    ("(x)+", "(x)+", True),
    ("(x)+", "xx", False),
    ("a$^|\\b", "a$^|\\b", True),
    # hidden names: wildcards at the start never take the leading _ or .
    ("*", "_SUCCESS", False),
    ("*", ".part-0.crc", False),
    ("?x", ".x", False),
    ("{*,b}", "_a", False),
    ("_SUCCESS", "_SUCCESS", True),
    ("_*", "_tmp", True),
    (".*.crc", ".part-0.crc", True),
    ("{_a,b}", "_a", True),
    ("a_*", "a_b", True),
])
def test_matches(pattern: str, path: str, expected: bool) -> None:
    """``path`` is relative to ``/r``; a literal start of the pattern goes into the prefix."""
    glob = compile_glob(f"/r/{pattern}")
    head = glob.prefix.rstrip("/") + "/"
    full = f"/r/{path}"
    assert (full.startswith(head) and glob.matches(full[len(head):])) is expected


@pytest.mark.parametrize(("brace", "matching", "not_matching"), [
    ("{1..3}", ["1", "2", "3"], ["0", "4", "01", ""]),
    ("{3..1}", ["1", "2", "3"], ["0", "4"]),  # either order, same set
    ("{01..03}", ["01", "02", "03"], ["1", "3", "00", "04", "001"]),
    ("{8..10}", ["8", "9", "10"], ["08", "09", "7", "11"]),
    ("{08..10}", ["08", "09", "10"], ["8", "9", "010", "11"]),
    ("{1..010}", ["001", "002", "009", "010"], ["1", "10", "01", "011", "000"]),
    ("{0..12}", ["0", "9", "10", "12"], ["00", "01", "13"]),
    ("{00..5}", ["00", "03", "05"], ["0", "5", "06"]),
    ("{001..120}", ["001", "099", "100", "120"], ["1", "99", "121", "000"]),
    ("{7..7}", ["7"], ["07", "6", "8"]),
    ("{0..99999}", ["0", "5", "12345", "99999"], ["00", "100000", "012"]),
])
def test_ranges(brace: str, matching: list[str], not_matching: list[str]) -> None:
    glob = compile_glob(f"/r/p{brace}.csv")
    for number in matching:
        assert glob.matches(f"p{number}.csv"), number
    for number in not_matching:
        assert not glob.matches(f"p{number}.csv"), number


@given(st.integers(0, 1200), st.integers(0, 1200), st.integers(0, 2), st.integers(0, 2),
       st.integers(0, 1300), st.integers(0, 5))
def test_range_padding_rule(start: int, end: int, start_zeros: int, end_zeros: int,
                            candidate: int, width: int) -> None:
    """A range matches exactly its numbers, padded to the wider written bound when a bound is
    written with a leading zero, and unpadded otherwise."""
    written = ("0" * start_zeros + str(start), "0" * end_zeros + str(end))
    glob = compile_glob(f"/r/{{{written[0]}..{written[1]}}}")
    padded = any(len(bound) > 1 and bound.startswith("0") for bound in written)
    pad = max(map(len, written)) if padded else 1
    expected = {str(n).zfill(pad) for n in range(min(start, end), max(start, end) + 1)}
    text = str(candidate).zfill(width)
    assert glob.matches(text) is (text in expected)


@pytest.mark.parametrize(("pattern", "message"), [
    ("/r/{a,b", r"unclosed '\{' at position 3"),
    ("/r/x/{1..3", r"unclosed '\{' at position 5"),
    ("/r/a}", r"stray '\}' at position 4"),
    ("/r/{a}b}", r"stray '\}' at position 7"),
    ("/r/{}/x", r"empty alternative list '\{\}' at position 3"),
    ("/r/{a,{b,c}}", r"'\{' at position 6 is nested in the '\{' at position 3"),
    ("/r/{a/b,c}", r"'/' at position 5 is inside the '\{' at position 3"),
    ("/r/{a..5}", r"range \{a\.\.5\} has bound 'a', which is not a whole number"),
    ("/r/{1..}", r"range \{1\.\.\} has bound '', which is not a whole number"),
    ("/r/{..}", r"range \{\.\.\} has bound ''"),
    ("/r/{1.5..3}", r"has bound '1\.5', which is not a whole number"),
    ("/r/{1...3}", r"has bound '\.3', which is not a whole number"),
    ("/r/{-1..3}", r"range \{-1\.\.3\} has a negative bound"),
    ("/r/{3..-1}", r"has a negative bound"),
    ("/r/{0..100000}", r"range \{0\.\.100000\} stands for 100001 values, more than 100000"),
    ("/r/{200000..1}", r"stands for 200000 values"),
    ("", r"names no path segment"),
    ("/", r"names no path segment"),
    ("*/x", r"first segment \(the bucket\) must be literal"),
])
def test_malformed(pattern: str, message: str) -> None:
    with pytest.raises(InvalidGlob, match=message) as raised:
        compile_glob(pattern)
    assert str(raised.value).startswith(f"invalid glob {pattern!r}: ")


def test_walk_state() -> None:
    glob = compile_glob("/r/{a,c}/**/x=?/*.csv")
    start = glob.start()
    assert not start.accepts and start.descends
    assert start.step("b") is None
    in_a = start.step("a")
    assert in_a is not None and in_a.descends and not in_a.accepts
    deep = in_a.step("any")
    assert deep is not None and deep.step("any") is not None
    assert in_a.step("_hidden") is None
    in_x = in_a.step("x=1")
    assert in_x is not None
    done = in_x.step("f.csv")
    assert done is not None and done.accepts
    assert done.descends  # ** may have taken x=1 and f.csv: a/x=1/f.csv/x=2/g.csv matches too

    plain = compile_glob("/r/*/f.csv").start().step("a")
    assert plain is not None
    last = plain.step("f.csv")
    assert last is not None and last.accepts
    assert not last.descends  # nothing below a full match of the last segment

    anything = compile_glob("/r/**").start()
    assert not anything.accepts  # a last ** takes at least one level
    below = anything.step("x")
    assert below is not None and below.accepts and below.descends


TREE = (
    "t/dt=2024-01-01/h=00/part-0.parquet",
    "t/dt=2024-01-01/h=00/.part-0.parquet.crc",
    "t/dt=2024-01-01/h=01/part-0.parquet",
    "t/dt=2024-01-02/h=00/part-0.parquet",
    "t/dt=2024-01-02/h=00/part-1.parquet",
    "t/dt=2024-01-02/_SUCCESS",
    "t/dt=2024-01-03/h=10/part-0.parquet",
    "t/_temporary/0/part-9.parquet",
    "t/empty/",
    "t/notes.(v1).txt",
    "t/notes.v1.txt",
)


@pytest.mark.parametrize("pattern", [
    "t/*",
    "t/**",
    "t/**/*.parquet",
    "t/**/h=00",
    "t/**/h=00/**",
    "t/dt=2024-01-0{1,3}/h=*/*.parquet",
    "t/dt=2024-01-{01..02}/h={00..01}/part-?.parquet",
    "t/dt=*/_SUCCESS",
    "t/_temporary/**",
    "t/notes.(v1).txt",
    "t/*/h=0?/**/part-0.parquet",
    "t/{dt=2024-01-02,empty}",
    "t/*/**",
    "*/**",
])
def test_expand_agrees_with_matches(tmp_path: Path, pattern: str) -> None:
    """The pruned walk finds exactly the paths the pattern matches, sorted by path."""
    make_tree(tmp_path, *TREE)
    storage, root = open_storage(str(tmp_path))
    glob = compile_glob(f"{root}/{pattern}")
    below = Path(glob.prefix)
    everything = [os.path.relpath(os.path.join(directory, name), tmp_path)
                  for directory, dirs, files in os.walk(below) for name in dirs + files]
    expected = sorted(path for path in everything
                      if glob.matches(os.path.relpath(tmp_path / path, below)))
    assert expected, pattern
    found = expand(storage, f"{root}/{pattern}")
    assert [entry.path for entry in found] == sorted(entry.path for entry in found)
    assert sorted(relative(tmp_path, found)) == expected


def test_expand_results(tmp_path: Path) -> None:
    make_tree(tmp_path, *TREE)
    storage, root = open_storage(str(tmp_path))
    found = expand(storage, f"{root}/t/dt=2024-01-0{{1,2}}/*")
    assert relative(tmp_path, found) == [
        "t/dt=2024-01-01/h=00", "t/dt=2024-01-01/h=01", "t/dt=2024-01-02/h=00"]
    assert all(entry.is_dir for entry in found)
    files = expand(storage, f"{root}/t/**/part-?.parquet")
    assert relative(tmp_path, files) == [
        "t/dt=2024-01-01/h=00/part-0.parquet", "t/dt=2024-01-01/h=01/part-0.parquet",
        "t/dt=2024-01-02/h=00/part-0.parquet", "t/dt=2024-01-02/h=00/part-1.parquet",
        "t/dt=2024-01-03/h=10/part-0.parquet"]  # not t/_temporary/0/part-9.parquet
    assert not any(entry.is_dir for entry in files)
    assert files[0].size == 1
    assert relative(tmp_path, expand(storage, f"{root}/t/notes.(v1).txt")) == [
        "t/notes.(v1).txt"]
    assert relative(tmp_path, expand(storage, f"{root}/t/*/_SUCCESS")) == [
        "t/dt=2024-01-02/_SUCCESS"]


@pytest.mark.parametrize("pattern", [
    "t/dt=2025-*/*",
    "t/dt=2024-01-01/h=00/*.crc",  # the only .crc file is hidden
    "missing/*",  # the prefix does not exist
    "t/notes.v1.txt/*",  # a file cannot be descended into
])
def test_expand_no_match(tmp_path: Path, pattern: str) -> None:
    make_tree(tmp_path, *TREE)
    storage, root = open_storage(str(tmp_path))
    full = f"{root}/{pattern}"
    with pytest.raises(InvalidGlob, match="matches no file or directory") as raised:
        expand(storage, full)
    assert repr(full) in str(raised.value)


def test_expand_lists_only_reachable_directories(tmp_path: Path) -> None:
    """Of a tree with several deep branches, only the branch the pattern can reach is listed."""
    for branch in ("a", "b", "c"):
        for n in range(5):
            make_tree(tmp_path, f"{branch}/{n}/x/deep/more/f.csv", f"{branch}/{n}/y/f.csv")
    storage, root = open_storage(str(tmp_path))

    found = expand(storage, f"{root}/b/*/y/*.csv")
    assert len(found) == 5
    assert storage.list_calls == 1 + 5 + 5  # b, then b/0..b/4, then b/0/y..b/4/y

    storage.list_calls = 0
    assert len(expand(storage, f"{root}/{{a,zz}}/3/y/f.csv")) == 1
    assert storage.list_calls == 4  # root, a, a/3, a/3/y; never b or c

    storage.list_calls = 0
    assert len(expand(storage, f"{root}/c/{{0..1}}/**/f.csv")) == 4
    # c, c/0 and c/1, then their x, y, x/deep, x/deep/more: every directory ** can reach
    assert storage.list_calls == 1 + 2 + 2 * 4

    storage.list_calls = 0
    assert len(expand(storage, f"{root}/a/1/y/f.csv")) == 1
    assert storage.list_calls == 1  # a literal path lists only its parent


def test_a_last_double_star_never_matches_the_level_before_it(tmp_path: Path) -> None:
    """Like DuckDB: ``ROOT/*/**`` is every entry below the first level, not the files in ROOT."""
    make_tree(tmp_path, "top.csv", "a/f.csv", "a/b/f.csv", "a/b/c/f.csv", "d/f.csv")
    storage, root = open_storage(str(tmp_path))
    found = relative(tmp_path, expand(storage, f"{root}/*/**"))
    assert found == ["a/b", "a/b/c", "a/b/c/f.csv", "a/b/f.csv", "a/f.csv", "d/f.csv"]


def _groups(tmp_path: Path, starts: list[tuple[str, str | None]]) -> list[list[tuple[str, ...]]]:
    """select_files from directories relative to ``tmp_path``, each with the rest of a
    pattern (``None``: nothing left), as relative directories and file names."""
    storage, root = open_storage(str(tmp_path))
    states = [(f"{root}/{start}",
               compile_below(f"{root}/{start}", rest).start() if rest else None)
              for start, rest in starts]
    found = select_files(storage.list_many, states)
    return [[(os.path.relpath(directory, tmp_path), *(os.path.basename(f) for f in files))
             for directory, files in groups] for groups in found]


def test_select_files_walks_plain_directories_below_a_start(tmp_path: Path) -> None:
    make_tree(tmp_path, "p=1/f.parquet", "p=1/events/g.parquet", "p=1/events/deep/h.parquet",
              "p=1/_temporary/x.parquet", "p=1/.hidden/y.parquet", "p=1/_SUCCESS",
              "p=2/other/i.parquet", "p=2/j.csv")
    (tmp_path / "p=1" / "empty.parquet").write_bytes(b"")
    assert _groups(tmp_path, [("p=1", None), ("p=2", None)]) == [
        [("p=1", "f.parquet"), ("p=1/events", "g.parquet"), ("p=1/events/deep", "h.parquet")],
        [("p=2", "j.csv"), ("p=2/other", "i.parquet")],
    ]
    # What is left of a pattern picks files and directories; a matched directory is read whole.
    assert _groups(tmp_path, [("p=1", "events"), ("p=2", "*.parquet"), ("p=1", "_temp*/*")]) == [
        [("p=1/events", "g.parquet"), ("p=1/events/deep", "h.parquet")],
        [],
        [("p=1/_temporary", "x.parquet")],
    ]
    assert _groups(tmp_path, [("p=1", "**/*.parquet"), ("p=1", "*/**")]) == [
        [("p=1", "f.parquet"), ("p=1/events", "g.parquet"), ("p=1/events/deep", "h.parquet")],
        [("p=1/events", "g.parquet"), ("p=1/events/deep", "h.parquet")],
    ]


def test_select_files_lists_one_level_per_call(tmp_path: Path) -> None:
    make_tree(tmp_path, "a/x/f.csv", "a/y/f.csv", "b/x/z/f.csv")
    storage, root = open_storage(str(tmp_path))
    calls: list[list[str]] = []

    def list_many(paths: list[str]) -> list[list[Entry] | None]:
        calls.append(paths)
        return storage.list_many(paths)

    found = select_files(list_many, [(f"{root}/a", None), (f"{root}/b", None)])
    assert [len(groups) for groups in found] == [2, 1]
    assert [len(paths) for paths in calls] == [2, 3, 1]  # a, b; a/x, a/y, b/x; b/x/z
