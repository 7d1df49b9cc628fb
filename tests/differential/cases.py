"""Seeded random cases for the differential harness: a table (format, columns, partition
columns), the rows it gets, the statements that write them, the Spark settings in force and the
queries that read them back. Pure Python: drawing a case needs no Spark, and the same seed always
draws the same case (``HMSCATALOG_FUZZ_SEED`` replays one).

A case is run twice by :mod:`runner`: through the ``hms`` catalog and through Spark's built-in
Hive catalog, on one metastore, and the two are compared.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

# -- types ---------------------------------------------------------------------------------------
# A type is a tuple: ("int",), ("decimal", 10, 2), ("varchar", 5), ("array", T), ("map", K, V),
# ("struct", (("x", T), ...)).
Type = tuple

PRIMITIVES: tuple[Type, ...] = (
    ("tinyint",), ("smallint",), ("int",), ("bigint",), ("float",), ("double",),
    ("decimal", 10, 2), ("decimal", 38, 6), ("decimal", 5, 0), ("string",), ("varchar", 8),
    ("char", 4), ("boolean",), ("date",), ("timestamp",), ("binary",))
PARTITION_TYPES: tuple[Type, ...] = (("string",), ("int",), ("date",))

PLAIN_NAMES = ("id", "a", "b", "val", "name", "amount", "flag", "ts", "s", "n")
# Names Spark and Hive accept only back-quoted.
QUOTED_NAMES = ("a-b", "part key", "x.y", "c#1", "d$e", "1st")
STRUCT_FIELDS = ("x", "y", "z", "w")

FORMATS: dict[str, str] = {
    "parquet": "STORED AS PARQUET",
    "orc": "STORED AS ORC",
    "textfile": "STORED AS TEXTFILE",
    "delimited": ("ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' ESCAPED BY '\\\\' "
                  "COLLECTION ITEMS TERMINATED BY '|' MAP KEYS TERMINATED BY ':' "
                  "STORED AS TEXTFILE"),
    "opencsv": "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde' STORED AS TEXTFILE",
    "json": "ROW FORMAT SERDE 'org.apache.hive.hcatalog.data.JsonSerDe' STORED AS TEXTFILE",
    "avro": "STORED AS AVRO",
    "sequencefile": "STORED AS SEQUENCEFILE",
    "rcfile": "STORED AS RCFILE",
}

# Spark settings that change the write or the read path; each case draws a few.
SETTINGS: dict[str, tuple[str, ...]] = {
    "spark.sql.files.maxRecordsPerFile": ("1", "2", "3"),
    "spark.sql.adaptive.enabled": ("false",),
    "spark.sql.adaptive.coalescePartitions.enabled": ("false",),
    "spark.sql.shuffle.partitions": ("1", "3", "7"),
    "spark.sql.files.maxPartitionBytes": ("256", "4096"),
    "spark.sql.files.openCostInBytes": ("0",),
    "spark.sql.parquet.enableVectorizedReader": ("false",),
    "spark.sql.orc.enableVectorizedReader": ("false",),
    "spark.sql.parquet.compression.codec": ("gzip", "zstd", "uncompressed"),
    "spark.sql.orc.compression.codec": ("zlib", "none"),
    "spark.sql.sources.partitionOverwriteMode": ("dynamic",),
    "spark.sql.storeAssignmentPolicy": ("LEGACY",),
    "spark.sql.session.timeZone": ("UTC", "America/Los_Angeles", "Asia/Kolkata"),
    "spark.sql.hive.convertMetastoreParquet": ("false",),
    "spark.sql.hive.convertMetastoreOrc": ("false",),
    "spark.sql.optimizer.nestedSchemaPruning.enabled": ("false",),
    "hive.exec.compress.output": ("true",),
}


def sql_type(t: Type, cast: bool = False) -> str:
    """``t`` in SQL; as a CAST's target (``cast``) CHAR and VARCHAR are STRING, as Spark's
    cast takes them (it warns about them otherwise)."""
    kind = t[0]
    if kind in ("decimal",):
        return f"DECIMAL({t[1]},{t[2]})"
    if kind in ("varchar", "char"):
        return "STRING" if cast else f"{kind.upper()}({t[1]})"
    if kind == "array":
        return f"ARRAY<{sql_type(t[1], cast)}>"
    if kind == "map":
        return f"MAP<{sql_type(t[1], cast)},{sql_type(t[2], cast)}>"
    if kind == "struct":
        return "STRUCT<" + ",".join(f"{quote(n)}:{sql_type(f, cast)}" for n, f in t[1]) + ">"
    return kind.upper()


def quote(name: str) -> str:
    """A column name as Spark SQL takes it (always back-quoted: never wrong)."""
    return "`" + name.replace("`", "``") + "`"


# -- values (as SQL literals) --------------------------------------------------------------------
# Strings that stress formats: delimiters, escapes, quotes, unicode, the default partition's name.
TRICKY = ("", " ", "a,b", "tab\there", "line\nbreak", "back\\slash", "quote'd", 'dq"x', "|:",
          "\u0001ctrl\u0002", "é日本", "ß", "NA", "\\N", "null", "%2F", "a=b/c")
SIMPLE = ("x", "hello", "Zz", "42", "a b")


def string_literal(value: str) -> str:
    out = []
    for ch in value:
        if ch == "'" or ch == "\\" or not (" " <= ch <= "~"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


_INT_RANGE = {"tinyint": 7, "smallint": 15, "int": 31, "bigint": 63}


def literal(rnd: random.Random, t: Type, edgy: bool, nulls: bool = True) -> str:
    """A random value of ``t`` as a SQL expression of exactly that type."""
    if nulls and rnd.random() < 0.12:
        return f"CAST(NULL AS {sql_type(t, True)})"
    kind = t[0]
    if kind in _INT_RANGE:
        bits = _INT_RANGE[kind]
        if edgy and rnd.random() < 0.3:
            value = rnd.choice((-(2 ** bits), 2 ** bits - 1, 0, -1))
        else:
            value = rnd.randint(-100, 100)
        return f"CAST({value} AS {sql_type(t, True)})"
    if kind in ("float", "double"):
        if edgy and rnd.random() < 0.3:
            text = rnd.choice(("NaN", "Infinity", "-Infinity", "0.0", "-0.0", "1e30", "1e-30"))
        else:
            text = repr(round(rnd.uniform(-1000, 1000), 3))
        return f"CAST('{text}' AS {sql_type(t, True)})"
    if kind == "decimal":
        precision, scale = t[1], t[2]
        digits = precision - scale
        if edgy and rnd.random() < 0.3:
            whole = "9" * digits
        else:
            whole = str(rnd.randint(0, 10 ** min(digits, 6) - 1))
        frac = "".join(rnd.choice("0123456789") for _ in range(scale))
        sign = rnd.choice(("", "-"))
        return f"CAST('{sign}{whole}{'.' + frac if scale else ''}' AS {sql_type(t, True)})"
    if kind in ("string", "varchar", "char"):
        text = rnd.choice(TRICKY if edgy and rnd.random() < 0.5 else SIMPLE)
        if kind != "string":
            text = text[: t[1]]
        return f"CAST({string_literal(text)} AS {sql_type(t, True)})"
    if kind == "boolean":
        return rnd.choice(("true", "false"))
    if kind == "date":
        if edgy and rnd.random() < 0.2:
            return rnd.choice(("DATE'1969-12-31'", "DATE'2038-01-19'", "DATE'1900-03-01'"))
        return f"DATE'{rnd.randint(1990, 2030)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}'"
    if kind == "timestamp":
        micros = f".{rnd.randint(0, 999999):06d}" if rnd.random() < 0.5 else ""
        year = rnd.choice((1970, 1999, 2024, 2037)) if edgy else rnd.randint(2000, 2030)
        return (f"TIMESTAMP'{year}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} "
                f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"
                f"{micros}'")
    if kind == "binary":
        return "X'" + "".join(f"{rnd.randint(0, 255):02x}" for _ in range(rnd.randint(0, 4))) + "'"
    if kind == "array":
        items = [literal(rnd, t[1], edgy) for _ in range(rnd.randint(0, 3))]
        return f"CAST(array({', '.join(items)}) AS {sql_type(t, True)})"
    if kind == "map":
        keys: dict[str, None] = {}
        for _ in range(rnd.randint(0, 3)):
            keys[literal(rnd, t[1], False, nulls=False)] = None
        pairs = [f"{k}, {literal(rnd, t[2], edgy)}" for k in keys]
        return f"CAST(map({', '.join(pairs)}) AS {sql_type(t, True)})"
    if kind == "struct":
        parts = [f"{string_literal(n)}, {literal(rnd, f, edgy)}" for n, f in t[1]]
        return f"CAST(named_struct({', '.join(parts)}) AS {sql_type(t, True)})"
    raise ValueError(f"no literal for {t}")


# -- the case ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    name: str
    type: Type

    @property
    def ddl(self) -> str:
        return f"{quote(self.name)} {sql_type(self.type)}"


# Statements that create the table they write (the case then has no CREATE TABLE).
CREATES = ("ctas", "create", "save_as_table")


@dataclass(frozen=True)
class Step:
    """One write. ``kind``: ``insert`` (SQL, ``overwrite`` or not, ``spec`` maps each partition
    column to a static value literal or None for dynamic), ``ctas``, ``insert_into`` (the
    DataFrame API's insertInto), ``append`` and ``overwrite_partitions`` (``writeTo``),
    ``multi_insert`` (one FROM, two INSERTs with different static values); ``create``
    (``writeTo().partitionedBy().create()``) and ``save_as_table``
    (``write.partitionBy().saveAsTable()``), which the built-in's side runs as a CTAS."""

    kind: str
    overwrite: bool = False
    spec: tuple[tuple[str, str | None], ...] = ()
    where: str = ""  # a filter on the source rows (SQL over the source's columns)
    second: tuple[tuple[str, str | None], ...] = ()  # multi_insert's second spec


@dataclass(frozen=True)
class Case:
    seed: int
    fmt: str
    columns: tuple[Column, ...]
    partitions: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...]  # one SQL literal per column, data then partition
    create_through: str  # "hms" or "builtin": whose CREATE TABLE makes both tables
    steps: tuple[Step, ...]
    settings: tuple[tuple[str, str], ...]
    reads: tuple[str, ...]  # queries with {t} for the table
    notes: tuple[str, ...] = field(default=())

    @property
    def all_columns(self) -> tuple[Column, ...]:
        return self.columns + self.partitions

    def with_(self, **changes: object) -> Case:
        return replace(self, **changes)  # type: ignore[arg-type]


def _names(rnd: random.Random, count: int, taken: set[str], quoted: float) -> list[str]:
    names = []
    while len(names) < count:
        pool = QUOTED_NAMES if rnd.random() < quoted else PLAIN_NAMES
        name = rnd.choice(pool)
        if name.lower() in taken:
            name = f"{name}{len(taken)}"
        if name.lower() not in taken:
            taken.add(name.lower())
            names.append(name)
    return names


def _data_type(rnd: random.Random, nested: bool, depth: int = 0) -> Type:
    roll = rnd.random() if nested and depth < 2 else 1.0
    if roll < 0.18:
        fields = rnd.sample(STRUCT_FIELDS, rnd.choice((1, 2, 2, 3)))
        return ("struct", tuple((f, _data_type(rnd, nested, depth + 1)) for f in fields))
    if roll < 0.28:
        return ("array", _data_type(rnd, nested, depth + 1))
    if roll < 0.34:
        return ("map", rnd.choice((("string",), ("int",))), _data_type(rnd, nested, depth + 1))
    return rnd.choice(PRIMITIVES)


def _nested_reads(columns: tuple[Column, ...]) -> list[str]:
    """Projections of and filters on nested fields: a struct's field, an array of structs'."""
    reads = []
    for col in columns:
        t = col.type
        if t[0] == "struct":
            name, _ = t[1][-1]
            path = f"{quote(col.name)}.{quote(name)}"
            reads.append(f"SELECT {path} FROM {{t}}")
            reads.append(f"SELECT * FROM {{t}} WHERE {path} IS NOT NULL")
        elif t[0] == "array" and t[1][0] == "struct":
            name, _ = t[1][1][0]
            reads.append(f"SELECT {quote(col.name)}.{quote(name)} FROM {{t}}")
    return reads


def constant(value: str) -> str:
    """A partition value drawn by :func:`literal` as a PARTITION clause takes it: a constant
    (``93``, ``'x'``, ``'2024-01-05'``), not an expression."""
    cast = re.fullmatch(r"CAST\((.*) AS (?:INT|STRING)\)", value)
    if cast:
        return cast.group(1)
    date = re.fullmatch(r"DATE('.*')", value)
    return date.group(1) if date else value


def _spec_value(rnd: random.Random, pool: list[str]) -> str:
    values = [v for v in pool if not v.startswith("CAST(NULL")]
    return constant(rnd.choice(values)) if values else "'0'"


def draw(seed: int) -> Case:
    """The case of ``seed``."""
    rnd = random.Random(seed)
    fmt = rnd.choice(tuple(FORMATS))
    edgy = rnd.random() < 0.6
    # Avro names must be identifiers, and OpenCSV has no nested values: cases that both
    # catalogs refuse at CREATE compare nothing, so they are rare.
    quoted = rnd.choice((0.0, 0.0, 0.3, 0.6)) if fmt != "avro" or rnd.random() < 0.1 else 0.0
    nested = fmt != "opencsv" or rnd.random() < 0.1
    taken: set[str] = set()
    n_data = rnd.randint(1, 5)
    data = tuple(Column(n, _data_type(rnd, nested)) for n in _names(rnd, n_data, taken, quoted))
    n_parts = rnd.choice((0, 1, 1, 2, 2, 3))
    parts = tuple(Column(n, rnd.choice(PARTITION_TYPES))
                  for n in _names(rnd, n_parts, taken, quoted))
    # A few values per partition column, so that rows share partitions.
    pools = {p.name: [literal(rnd, p.type, edgy) for _ in range(rnd.randint(1, 3))]
             for p in parts}
    n_rows = rnd.randint(1, 24)
    rows = tuple(tuple(literal(rnd, c.type, edgy) for c in data)
                 + tuple(rnd.choice(pools[p.name]) for p in parts) for _ in range(n_rows))

    steps: list[Step] = []
    for index in range(rnd.choice((1, 1, 2, 3))):
        kinds = ["insert", "insert", "insert", "insert_into", "append"]
        if index == 0:
            kinds += ["ctas", "ctas", "create", "save_as_table"]
        if parts:
            kinds += ["overwrite_partitions", "multi_insert"]
        kind = rnd.choice(kinds)
        spec: list[tuple[str, str | None]] = []
        static_left = rnd.random() < 0.4
        for p in parts:  # Hive: static columns come before dynamic ones
            static_left = static_left and rnd.random() < 0.7
            spec.append((p.name, _spec_value(rnd, pools[p.name]) if static_left else None))
        if kind != "insert":
            spec = [(p.name, None) for p in parts]
        second: list[tuple[str, str | None]] = []
        if kind == "multi_insert":
            first = parts[0]
            spec = [(first.name, _spec_value(rnd, pools[first.name])), *spec[1:]]
            second = [(first.name, constant(literal(rnd, first.type, edgy, nulls=False))),
                      *spec[1:]]
        overwrite = kind in ("insert", "insert_into") and rnd.random() < 0.4
        if kind in CREATES or (index == 0 and kind == "overwrite_partitions"):
            overwrite = False
        where = ""
        if rnd.random() < 0.3 and n_rows > 1:
            where = rnd.choice(("row_n % 2 = 0", "row_n < 3", "row_n > 0"))
        steps.append(Step(kind, overwrite, tuple(spec), where, tuple(second)))

    settings = dict(rnd.sample(sorted(SETTINGS.items()), rnd.randint(0, 4)))
    chosen = {k: rnd.choice(v) for k, v in settings.items()}
    if rnd.random() < 0.45:
        chosen["spark.sql.files.maxRecordsPerFile"] = rnd.choice(SETTINGS[
            "spark.sql.files.maxRecordsPerFile"])
    if chosen.get("spark.sql.hive.convertMetastoreParquet") == "false":
        # The built-in then writes Parquet through Hive's SerDe (decimals as fixed-length byte
        # arrays) and reads it through Hive's reader, which cannot read Spark's INT32/INT64
        # decimals (in the built-in's default files as in hms's): both sides write Hive's
        # layout (docs/spark-sql.md, differences).
        chosen["spark.sql.parquet.writeLegacyFormat"] = "true"
    if chosen.get("hive.exec.compress.output") == "true":
        chosen["mapreduce.output.fileoutputformat.compress.codec"] = rnd.choice((
            "org.apache.hadoop.io.compress.GzipCodec",
            "org.apache.hadoop.io.compress.DefaultCodec"))

    reads = ["SELECT * FROM {t}"]
    if parts:
        cols = ", ".join(quote(p.name) for p in parts)
        reads.append(f"SELECT {cols}, count(*) FROM {{t}} GROUP BY {cols}")
        first = parts[0]
        value = _spec_value(rnd, pools[first.name])
        reads.append(f"SELECT * FROM {{t}} WHERE {quote(first.name)} = {value}")
        reads.append(f"SELECT * FROM {{t}} WHERE {quote(first.name)} IS NULL")
        last = parts[-1]
        bound = value if len(parts) == 1 else _spec_value(rnd, pools[last.name])
        reads.append(f"SELECT * FROM {{t}} WHERE {quote(last.name)} >= {bound}")
        # A join on the partition column, for runtime filtering.
        reads.append(f"SELECT t.* FROM {{t}} t JOIN (SELECT {quote(first.name)} AS k FROM src "
                     f"WHERE row_n = 0) d ON t.{quote(first.name)} = d.k")
    reads += _nested_reads(data)
    for col in data:
        if col.type[0] in ("int", "bigint", "string", "date", "decimal") and rnd.random() < 0.5:
            reads.append(f"SELECT * FROM {{t}} WHERE {quote(col.name)} IS NOT NULL")
    if steps[0].kind in ("create", "save_as_table"):
        fmt = "parquet"  # the DataFrame API's creates make Parquet tables (Spark's default)
    return Case(seed, fmt, data, parts, rows, rnd.choice(("hms", "builtin")), tuple(steps),
                tuple(sorted(chosen.items())), tuple(reads))
