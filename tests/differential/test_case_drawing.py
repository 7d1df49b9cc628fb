"""The harness's case generator, without Spark: seeds replay, and the space it draws from is
the one the harness claims to search (issue 40: every partition type and its edges, names in
mixed case under both settings of spark.sql.caseSensitive, empty sources under both overwrite
modes, partial specs, IF NOT EXISTS, every predicate form on every partition type)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from cases import (
    CASE_SENSITIVE,
    CREATES,
    EMPTY,
    FORMATS,
    OVERWRITE_MODE,
    PREDICATE_FORMS,
    QUOTED_NAMES,
    SETTINGS,
    Case,
    _serde_read,
    draw,
)
from runner import lower_keys
from values import ESCAPED, PARTITION_TYPES, constant, quote, string_literal, typed

SEEDS = range(1500)


@cache
def _cases() -> tuple[Case, ...]:
    return tuple(draw(seed) for seed in SEEDS)


def _partition_values(kind: str) -> set[str]:
    """Every partition value drawn for columns of type ``kind``, as the rows have them."""
    out: set[str] = set()
    for case in _cases():
        offset = len(case.columns)
        for i, col in enumerate(case.partitions):
            if col.type[0] == kind:
                out.update(row[offset + i] for row in case.rows)
    return out


def _text(value: str) -> str | None:
    """The text of a STRING (CHAR, VARCHAR) value drawn as ``CAST('...' AS STRING)``."""
    found = re.fullmatch(r"CAST\('(.*)' AS STRING\)", value)
    return None if found is None else re.sub(
        r"\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), found.group(1))


def test_a_seed_always_draws_the_same_case() -> None:
    assert draw(17) == draw(17)
    assert draw(17) != draw(18)


def test_the_drawn_cases_cover_the_space() -> None:
    cases = _cases()
    assert {c.fmt for c in cases} == set(FORMATS)
    assert {s.kind for c in cases for s in c.steps} == {
        "insert", "ctas", "create", "save_as_table", "insert_into", "append",
        "overwrite_partitions", "multi_insert", "drop_partition", "truncate", "foreign"}
    assert {len(c.partitions) for c in cases} == {0, 1, 2, 3}
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


def test_every_hive_type_is_a_partition_column() -> None:
    drawn = Counter(p.type for c in _cases() for p in c.partitions)
    assert set(drawn) == set(PARTITION_TYPES)
    assert {t[0] for t in drawn} == {
        "tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "string", "char",
        "varchar", "boolean", "date", "timestamp"}
    assert {t[1:] for t in drawn if t[0] == "decimal"} >= {
        (10, 2), (38, 6), (5, 0), (38, 0), (3, 3)}
    assert min(drawn.values()) >= 20, drawn


def test_partition_values_reach_the_edges() -> None:
    doubles, floats = _partition_values("double"), _partition_values("float")
    for text in ("NaN", "Infinity", "-Infinity", "-0.0", "4.9E-324", "8.41E21", "1e23"):
        assert typed(("double",), text) in doubles, text
    for text in ("NaN", "Infinity", "-Infinity", "-0.0", "1.4E-45", "3.4028235E38"):
        assert typed(("float",), text) in floats, text
    decimals = _partition_values("decimal")
    assert typed(("decimal", 38, 0), "9" * 38) in decimals
    assert typed(("decimal", 38, 6), "-" + "9" * 32 + "." + "9" * 6) in decimals
    assert typed(("decimal", 3, 3), "0.999") in decimals
    # The longest CHAR: values that fill their column.
    chars = {(p.type[1], _text(row[len(c.columns) + i])) for c in _cases()
             for i, p in enumerate(c.partitions) if p.type[0] == "char" for row in c.rows}
    assert {n for n, text in chars if text is not None and len(text) == n} == {1, 6}
    assert max(len(text or "") for n, text in chars if n == 120) >= 40
    strings = _partition_values("string")
    for ch in [*ESCAPED, "\u0001", "\u001f"]:
        assert any(string_literal(ch)[1:-1] in v for v in strings), repr(ch)
    assert typed(("string",), ESCAPED) in strings
    for kind in ("tinyint", "smallint", "int", "bigint", "boolean", "date", "timestamp",
                 "varchar"):
        assert any(v.startswith("CAST(NULL") for v in _partition_values(kind)), kind
    assert typed(("tinyint",), "-128") in _partition_values("tinyint")
    assert typed(("bigint",), str(2 ** 63 - 1)) in _partition_values("bigint")
    assert typed(("date",), "1582-10-10") in _partition_values("date")
    assert typed(("timestamp",), "2024-03-10 02:30:00") in _partition_values("timestamp")


def test_both_case_settings_with_mixed_case_names() -> None:
    def mixed(case: Case) -> bool:
        return any(p.name != p.name.lower() for p in case.partitions)

    by_setting = {value: [c for c in _cases() if dict(c.settings).get(CASE_SENSITIVE) == value]
                  for value in ("true", "false", None)}
    for value, cases in by_setting.items():
        assert sum(map(mixed, cases)) >= 30, value
    # Either catalog creates the table, with CREATE TABLE or a create statement.
    for cases in by_setting.values():
        assert {(c.create_through, c.steps[0].kind in CREATES) for c in cases if mixed(c)} == {
            ("hms", True), ("hms", False), ("builtin", True), ("builtin", False)}


def _shape(spec: tuple[tuple[str, str | None], ...]) -> str:
    static = [v is not None for _, v in spec]
    return "static" if all(static) else "dynamic" if not any(static) else "mixed"


def test_empty_sources_under_both_overwrite_modes_and_every_spec() -> None:
    seen = set()
    for case in _cases():
        mode = dict(case.settings).get(OVERWRITE_MODE, "static")
        for step in case.steps:
            if step.kind == "insert" and step.overwrite and step.where == EMPTY and step.spec:
                seen.add((mode, _shape(step.spec)))
    assert seen == {(m, s) for m in ("static", "dynamic") for s in ("static", "dynamic",
                                                                    "mixed")}
    modes = {dict(c.settings).get(OVERWRITE_MODE) for c in _cases()}
    assert modes == {"static", "dynamic", None}


def test_partial_specs_in_drop_truncate_and_show_partitions() -> None:
    drops: Counter[tuple[bool, bool, bool]] = Counter()
    truncates: Counter[str] = Counter()
    shows = 0
    for case in _cases():
        width = len(case.partitions)
        for step in case.steps:
            if step.kind == "drop_partition":
                assert 1 <= len(step.spec) <= width
                drops[(len(step.spec) < width, step.if_exists, bool(step.second))] += 1
            elif step.kind == "truncate":
                truncates["whole" if not step.spec else
                          "partial" if len(step.spec) < width else "full"] += 1
        shows += sum(1 for r in case.reads if r.startswith("SHOW PARTITIONS {t} PARTITION")
                     and r.count("=") < width)
    assert {k for k, n in drops.items() if n} >= {
        (True, True, False), (True, False, False), (False, True, False), (False, False, False),
        (True, False, True)}
    assert set(truncates) == {"whole", "partial", "full"}
    assert shows >= 20


def test_if_not_exists_with_a_static_spec() -> None:
    steps = [s for c in _cases() for s in c.steps if s.if_not_exists]
    assert len(steps) >= 20
    assert all(s.kind == "insert" and s.overwrite and s.spec and _shape(s.spec) == "static"
               for s in steps)


_FORM_PATTERNS = {
    "=": r" = ", "<": r" < ", "<=": r" <= ", ">": r" > ", ">=": r" >= ", "<=>": r" <=> ",
    "IN": r" IN \(", "BETWEEN": r" BETWEEN ", "IS NULL": r" IS NULL", "IS NOT NULL":
    r" IS NOT NULL"}


def test_every_predicate_form_on_every_partition_type() -> None:
    assert set(_FORM_PATTERNS) | {"NOT"} == set(PREDICATE_FORMS)
    seen = set()
    for case in _cases():
        for read in case.reads:
            if " WHERE " not in read or " JOIN " in read:
                continue
            for col in case.partitions:
                name = re.escape(quote(col.name))
                for form, pattern in _FORM_PATTERNS.items():
                    if re.search(name + pattern, read):
                        seen.add((col.type[0], form))
                if re.search(r"NOT \(" + name, read):
                    seen.add((col.type[0], "NOT"))
    kinds = {t[0] for t in PARTITION_TYPES}
    missing = {(k, f) for k in kinds for f in PREDICATE_FORMS} - seen
    assert not missing, sorted(missing)


def test_predicates_compare_with_literals_of_other_types() -> None:
    found: Counter[str] = Counter()
    for case in _cases():
        for col in case.partitions:
            name = re.escape(quote(col.name))
            for read in case.reads:
                if col.type[0] == "float" and re.search(
                        name + r" (=|<=>|<|<=|>|>=) CAST\([-0-9.E]+ AS FLOAT\)", read):
                    found["float = CAST(x AS FLOAT)"] += 1
                if col.type[0] == "double" and re.search(name + r" \S+ double\('NaN'\)", read):
                    found["double = double('NaN')"] += 1
                if col.type[0] == "double" and re.search(name + r" (>|>=|<|<=) 1000\b", read):
                    found["double > 1000"] += 1
                if col.type[0] == "int" and re.search(name + r" \S+ '-?[0-9]+'", read):
                    found["int = 'n'"] += 1
                if col.type[0] == "date" and re.search(name + r" \S+ TIMESTAMP'", read):
                    found["date = TIMESTAMP"] += 1
    assert set(found) == {"float = CAST(x AS FLOAT)", "double = double('NaN')", "double > 1000",
                          "int = 'n'", "date = TIMESTAMP"}, found


def test_foreign_partition_values_and_writes_across_catalogs() -> None:
    foreign = [(p.type[0], raw) for c in _cases() for s in c.steps if s.kind == "foreign"
               for p, raw in zip(c.partitions, s.raw, strict=True) if raw is not None]
    assert {k for k, _ in foreign} >= {"int", "double", "decimal", "date", "timestamp",
                                       "boolean", "string"}
    assert ("int", "7.9") in foreign or ("smallint", "7.9") in foreign or (
        "bigint", "7.9") in foreign or ("tinyint", "7.9") in foreign
    through = [s for c in _cases() for s in c.steps if s.through]
    assert through and all(s.through == "builtin" and s.kind not in CREATES for s in through)
    assert {s.kind for s in through} >= {"insert", "drop_partition", "truncate", "append"}


def test_no_null_char_partition_where_the_built_in_reads_through_a_serde() -> None:
    seen: Counter[tuple[bool, bool]] = Counter()
    for case in _cases():
        for i, p in enumerate(case.partitions):
            if p.type[0] == "char":
                nulls = any(row[len(case.columns) + i].startswith("CAST(NULL")
                            for row in case.rows)
                serde = _serde_read(case.fmt, dict(case.settings))
                assert not (nulls and serde), case.seed
                seen[(nulls, serde)] += 1
    assert seen[(True, False)] and seen[(False, True)]


def test_values_reach_the_edges() -> None:
    text = " ".join(v for c in _cases() for row in c.rows for v in row)
    for edge in ("NULL", "NaN", "Infinity", "-2147483648", "9223372036854775807",
                 string_literal("line\nbreak"), string_literal("é日本"), "X''"):
        assert edge in text, edge


def test_partition_clause_constants() -> None:
    import random

    rnd = random.Random(0)
    assert {constant(rnd, ("double",), "NaN") for _ in range(20)} == {"'NaN'"}
    assert {constant(rnd, ("int",), "7") for _ in range(40)} == {"7", "'7'"}
    assert {constant(rnd, ("date",), "2024-01-05") for _ in range(40)} == {
        "'2024-01-05'", "DATE'2024-01-05'"}
    assert constant(rnd, ("boolean",), "true") == "true"


def test_partition_keys_in_lower_case() -> None:
    assert lower_keys("Dt=X/HR=1") == "dt=X/hr=1"
    assert lower_keys("Part Key=a%3DB/C%231=Q") == "part key=a%3DB/c%231=Q"


def test_string_literals_escape_what_sql_would_misread() -> None:
    assert string_literal("it's") == "'it\\u0027s'"
    assert string_literal("a\\b\n") == "'a\\u005cb\\u000a'"
    assert string_literal("plain") == "'plain'"
