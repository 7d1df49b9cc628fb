"""The harness's case generator, without Spark: seeds replay, and the space it draws from is
the one the harness claims to search."""

from __future__ import annotations

import re
from collections import Counter

from cases import FORMATS, QUOTED_NAMES, SETTINGS, draw, string_literal

SEEDS = range(600)


def test_a_seed_always_draws_the_same_case() -> None:
    assert draw(17) == draw(17)
    assert draw(17) != draw(18)


def test_the_drawn_cases_cover_the_space() -> None:
    cases = [draw(seed) for seed in SEEDS]
    assert {c.fmt for c in cases} == set(FORMATS)
    assert {s.kind for c in cases for s in c.steps} == {
        "insert", "ctas", "create", "save_as_table", "insert_into", "append",
        "overwrite_partitions", "multi_insert"}
    assert {len(c.partitions) for c in cases} == {0, 1, 2, 3}
    assert {p.type[0] for c in cases for p in c.partitions} == {"string", "int", "date"}
    kinds = Counter(col.type[0] for c in cases for col in c.columns)
    for kind in ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "string",
                 "varchar", "char", "boolean", "date", "timestamp", "binary", "struct",
                 "array", "map"):
        assert kinds[kind] > 0, kind
    names = {col.name for c in cases for col in c.all_columns}
    assert set(QUOTED_NAMES) <= names
    assert {k for c in cases for k, _ in c.settings} >= set(SETTINGS)
    # Static, dynamic and mixed PARTITION clauses, and both INSERT modes.
    specs = {tuple(v is None for _, v in s.spec) for c in cases for s in c.steps
             if s.kind == "insert" and len(s.spec) >= 2}
    assert (False, True) in specs and (True, True) in specs and (False, False) in specs
    assert {s.overwrite for c in cases for s in c.steps if s.kind == "insert"} == {True, False}
    # Nested reads: a struct's field and an array of structs' field.
    reads = [r for c in cases for r in c.reads]
    assert any(re.search(r"SELECT `[^`]+`\.`[^`]+` FROM", r) for r in reads)
    assert any("JOIN" in r for r in reads)


def test_values_reach_the_edges() -> None:
    text = " ".join(v for c in map(draw, SEEDS) for row in c.rows for v in row)
    for edge in ("NULL", "NaN", "Infinity", "-2147483648", "9223372036854775807",
                 string_literal("line\nbreak"), string_literal("é日本"), "X''"):
        assert edge in text, edge


def test_string_literals_escape_what_sql_would_misread() -> None:
    assert string_literal("it's") == "'it\\u0027s'"
    assert string_literal("a\\b\n") == "'a\\u005cb\\u000a'"
    assert string_literal("plain") == "'plain'"
