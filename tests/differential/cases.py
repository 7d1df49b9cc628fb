"""Seeded random cases for the differential harness: a table (format, columns, partition
columns), the rows it gets, the statements that write and change it, the Spark settings in force
and the queries that read it back. Pure Python: drawing a case needs no Spark, and the same seed
always draws the same case (``HMSCATALOG_FUZZ_SEED`` replays one). Types and values are drawn by
:mod:`values`.

A case is run twice by :mod:`runner`: through the ``hms`` catalog and through Spark's built-in
Hive catalog, on one metastore, and the two are compared.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from values import (
    PARTITION_TYPES,
    PRIMITIVES,
    Type,
    constant,
    foreign_text,
    literal,
    other_literals,
    partition_text,
    quote,
    sql_type,
    typed,
)

__all__ = ["CREATES", "FORMATS", "SETTINGS", "Case", "Column", "Step", "draw", "quote",
           "sql_type"]

PLAIN_NAMES = ("id", "a", "b", "val", "name", "amount", "flag", "ts", "s", "n")
# Names Spark and Hive accept only back-quoted.
QUOTED_NAMES = ("a-b", "part key", "x.y", "c#1", "d$e", "1st")
# Names in mixed case, which the metastore stores in lower case.
MIXED_NAMES = ("Id", "Dt", "HR", "Val", "aB", "Part Key")
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

OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"
CASE_SENSITIVE = "spark.sql.caseSensitive"
# Spark settings that change the write or the read path; each case draws a few (and the two
# above on their own, more often).
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
    "spark.sql.storeAssignmentPolicy": ("LEGACY",),
    "spark.sql.session.timeZone": ("UTC", "America/Los_Angeles", "Asia/Kolkata"),
    "spark.sql.hive.convertMetastoreParquet": ("false",),
    "spark.sql.hive.convertMetastoreOrc": ("false",),
    "spark.sql.optimizer.nestedSchemaPruning.enabled": ("false",),
    "spark.sql.ansi.enabled": ("false",),
    "hive.exec.compress.output": ("true",),
}

# The comparisons a predicate on a partition column takes; NOT wraps another.
PREDICATE_FORMS = ("=", "<", "<=", ">", ">=", "<=>", "IN", "BETWEEN", "NOT", "IS NULL",
                   "IS NOT NULL")
EMPTY = "row_n < 0"  # a step's source with no row
UNION = " UNION ALL "  # between the predicates of one read
WHERES = ("row_n % 2 = 0", "row_n < 3", "row_n > 0", EMPTY, EMPTY)


@dataclass(frozen=True)
class Column:
    name: str
    type: Type

    @property
    def ddl(self) -> str:
        return f"{quote(self.name)} {sql_type(self.type)}"


# Statements that create the table they write (the case then has no CREATE TABLE).
CREATES = ("ctas", "create", "save_as_table")
# Statements that change which partitions a table has without writing rows (their refusal
# changes nothing, so a case both catalogs refuse one of goes on).
DDL = ("drop_partition", "truncate")

Spec = tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class Step:
    """One write or change. ``kind``: ``insert`` (SQL, ``overwrite`` or not, ``spec`` maps each
    partition column to a static value's constant or None for dynamic; ``if_not_exists`` for
    ``INSERT OVERWRITE ... PARTITION (static) IF NOT EXISTS``), ``ctas``, ``insert_into`` (the
    DataFrame API's insertInto), ``append`` and ``overwrite_partitions`` (``writeTo``),
    ``multi_insert`` (one FROM, two INSERTs with different static values); ``create``
    (``writeTo().partitionedBy().create()``) and ``save_as_table``
    (``write.partitionBy().saveAsTable()``), which the built-in's side runs as a CTAS;
    ``drop_partition`` (``ALTER TABLE ... DROP [IF EXISTS] PARTITION spec[, PARTITION second]``,
    specs naming some partition columns or all) and ``truncate`` (``TRUNCATE TABLE ...
    [PARTITION spec]``); ``foreign``: a partition renamed through the metastore client to texts
    Spark would not write (``raw``, None: a column's value kept), the ``pick``-th of the
    reference table's partitions (or one added, empty, if it has none).

    ``through="builtin"``: hms's table is changed through ``spark_catalog`` too, so that hms
    reads (and later writes) what the built-in wrote into its table."""

    kind: str
    overwrite: bool = False
    spec: Spec = ()
    where: str = ""  # a filter on the source rows (SQL over the source's columns)
    second: Spec = ()  # multi_insert's second spec; drop_partition's second PARTITION
    if_not_exists: bool = False
    if_exists: bool = False
    through: str = ""
    raw: tuple[str | None, ...] = ()
    pick: int = 0


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


def _names(rnd: random.Random, count: int, taken: set[str], quoted: float,
           mixed: float) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        roll = rnd.random()
        pool = QUOTED_NAMES if roll < quoted else MIXED_NAMES if roll < quoted + mixed \
            else PLAIN_NAMES
        name = rnd.choice(pool)
        if name.lower() in taken:  # the metastore's names are unique in lower case
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


Pools = dict[str, list[str | None]]


def _static(rnd: random.Random, col: Column, pools: Pools, edgy: bool) -> str:
    """A value of ``col`` for a PARTITION clause (not NULL, not empty: Spark refuses those),
    mostly one the rows have."""
    texts = [v for v in pools[col.name] if v]
    text = rnd.choice(texts) if texts and rnd.random() < 0.85 else None
    while not text:
        text = partition_text(rnd, col.type, edgy)
    return constant(rnd, col.type, text)


def _partial(rnd: random.Random, parts: tuple[Column, ...], pools: Pools, edgy: bool) -> Spec:
    """A spec naming some of the partition columns (or all), in the table's order."""
    chosen = sorted(rnd.sample(range(len(parts)), rnd.randint(1, len(parts))))
    return tuple((parts[i].name, _static(rnd, parts[i], pools, edgy)) for i in chosen)


def _step(rnd: random.Random, index: int, parts: tuple[Column, ...], pools: Pools,
          edgy: bool) -> Step:
    kinds = ["insert", "insert", "insert", "insert", "insert_into", "append"]
    if index == 0:
        kinds += ["ctas", "ctas", "create", "save_as_table"]
    if parts:
        kinds += ["overwrite_partitions", "multi_insert"]
    if index > 0:
        kinds += ["truncate"] + (["drop_partition", "drop_partition", "foreign", "foreign"]
                                 if parts else [])
    kind = rnd.choice(kinds)
    through = "builtin" if kind not in CREATES and rnd.random() < 0.2 else ""
    if kind in DDL:
        which = _partial(rnd, parts, pools, edgy) if parts and (
            kind == "drop_partition" or rnd.random() < 0.7) else ()
        also = _partial(rnd, parts, pools, edgy) if (
            kind == "drop_partition" and rnd.random() < 0.25) else ()
        return Step(kind, spec=which, second=also, if_exists=rnd.random() < 0.5,
                    through=through)
    if kind == "foreign":
        chosen = rnd.randrange(len(parts))
        raw = tuple(foreign_text(rnd, p.type) if i == chosen else None
                    for i, p in enumerate(parts))
        return Step(kind, raw=raw, pick=rnd.randrange(8))
    spec: list[tuple[str, str | None]] = []
    static_left = rnd.random() < 0.55
    for p in parts:  # Hive: static columns come before dynamic ones
        static_left = static_left and rnd.random() < 0.75
        spec.append((p.name, _static(rnd, p, pools, edgy) if static_left else None))
    if kind != "insert":
        spec = [(p.name, None) for p in parts]
    second: list[tuple[str, str | None]] = []
    if kind == "multi_insert":
        first = parts[0]
        spec = [(first.name, _static(rnd, first, pools, edgy)), *spec[1:]]
        second = [(first.name, _static(rnd, first, {first.name: []}, edgy)), *spec[1:]]
    overwrite = kind in ("insert", "insert_into") and rnd.random() < 0.45
    if kind in CREATES or (index == 0 and kind == "overwrite_partitions"):
        overwrite = False
    if_not_exists = (overwrite and bool(spec) and all(v is not None for _, v in spec)
                     and rnd.random() < 0.4)
    where = rnd.choice(WHERES) if rnd.random() < 0.35 else ""
    if overwrite and rnd.random() < 0.25:
        where = EMPTY  # an overwrite with no rows: what does it replace?
    return Step(kind, overwrite, tuple(spec), where, tuple(second), if_not_exists,
                through=through)


def predicate(rnd: random.Random, col: Column, texts: list[str | None], edgy: bool,
              form: str | None = None) -> str:
    """A predicate on partition column ``col`` of one of :data:`PREDICATE_FORMS`, comparing it
    with values the rows have (mostly) or others, as literals of its type or of other types."""
    form = form or rnd.choice(PREDICATE_FORMS)
    name = quote(col.name)

    def value() -> str:
        text = rnd.choice(texts) if texts and rnd.random() < 0.7 else partition_text(
            rnd, col.type, edgy)
        if rnd.random() < 0.5:
            return typed(col.type, text)
        return rnd.choice(other_literals(col.type, text))

    if form in ("IS NULL", "IS NOT NULL"):
        return f"{name} {form}"
    if form == "NOT":
        inner = rnd.choice([f for f in PREDICATE_FORMS if f != "NOT"])
        return f"NOT ({predicate(rnd, col, texts, edgy, inner)})"
    if form == "IN":
        return f"{name} IN ({', '.join(value() for _ in range(rnd.randint(1, 3)))})"
    if form == "BETWEEN":
        return f"{name} BETWEEN {value()} AND {value()}"
    return f"{name} {form} {value()}"


def _braced(sql: str) -> str:
    """``sql`` in a read's template, where ``{t}`` is the table (its own braces doubled)."""
    return sql.replace("{", "{{").replace("}", "}}")


def _reads(rnd: random.Random, data: tuple[Column, ...], parts: tuple[Column, ...],
           pools: Pools, edgy: bool) -> list[str]:
    reads = ["SELECT * FROM {t}"]
    if parts:
        cols = ", ".join(quote(p.name) for p in parts)
        reads.append(f"SELECT {cols}, count(*) FROM {{t}} GROUP BY {cols}")
        branches = []
        for i in range(rnd.choice((2, 2, 3, 4))):
            col = rnd.choice(parts)
            where = predicate(rnd, col, pools[col.name], edgy)
            others = [p for p in parts if p is not col]
            if others and rnd.random() < 0.3:  # two columns, as a metastore filter takes them
                other = rnd.choice(others)
                where = (f"({where}) {rnd.choice(('AND', 'OR'))} "
                         f"({predicate(rnd, other, pools[other.name], edgy)})")
            branches.append(f"SELECT {i} AS `#`, * FROM {{t}} WHERE {_braced(where)}")
        # One query, each branch pruned on its own (the runner splits it if it fails).
        reads.append(UNION.join(branches))
        if rnd.random() < 0.5:  # a join on a partition column, for runtime filtering
            first = quote(parts[0].name)
            reads.append(f"SELECT t.* FROM {{t}} t JOIN (SELECT {first} AS k FROM src "
                         f"WHERE row_n = 0) d ON t.{first} = d.k")
        if rnd.random() < 0.25:
            spec = _partial(rnd, parts, pools, edgy)
            clause = ", ".join(f"{quote(n)} = {v}" for n, v in spec)
            reads.append(f"SHOW PARTITIONS {{t}} PARTITION ({_braced(clause)})")
    reads += _nested_reads(data)
    for col in data:
        if col.type[0] in ("int", "bigint", "string", "date", "decimal") and rnd.random() < 0.5:
            reads.append(f"SELECT * FROM {{t}} WHERE {quote(col.name)} IS NOT NULL")
    return reads


def _settings(rnd: random.Random) -> dict[str, str]:
    settings = dict(rnd.sample(sorted(SETTINGS.items()), rnd.randint(0, 4)))
    chosen = {k: rnd.choice(v) for k, v in settings.items()}
    if rnd.random() < 0.45:
        chosen["spark.sql.files.maxRecordsPerFile"] = rnd.choice(SETTINGS[
            "spark.sql.files.maxRecordsPerFile"])
    roll = rnd.random()
    if roll < 0.7:  # otherwise Spark's default (static)
        chosen[OVERWRITE_MODE] = "dynamic" if roll < 0.45 else "static"
    if rnd.random() < 0.45:
        chosen[CASE_SENSITIVE] = rnd.choice(("true", "true", "false"))
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
    return chosen


def _serde_read(fmt: str, settings: dict[str, str]) -> bool:
    """The built-in reads the table through its Hive SerDe, not Spark's own reader."""
    if fmt in ("parquet", "orc"):
        return settings.get(f"spark.sql.hive.convertMetastore{fmt.capitalize()}") == "false"
    return True


def draw(seed: int) -> Case:
    """The case of ``seed``."""
    rnd = random.Random(seed)
    fmt = rnd.choice(tuple(FORMATS))
    edgy = rnd.random() < 0.6
    # Avro names must be identifiers, and OpenCSV has no nested values: cases that both
    # catalogs refuse at CREATE compare nothing, so they are rare.
    quoted = rnd.choice((0.0, 0.0, 0.3, 0.6)) if fmt != "avro" or rnd.random() < 0.1 else 0.0
    mixed = rnd.choice((0.0, 0.0, 0.4, 0.7))
    nested = fmt != "opencsv" or rnd.random() < 0.1
    taken: set[str] = set()
    n_data = rnd.randint(1, 5)
    data = tuple(Column(n, _data_type(rnd, nested))
                 for n in _names(rnd, n_data, taken, quoted, mixed))
    n_parts = rnd.choice((0, 1, 1, 2, 2, 3))
    parts = tuple(Column(n, rnd.choice(PARTITION_TYPES))
                  for n in _names(rnd, n_parts, taken, quoted, mixed))
    # A few values per partition column, so that rows share partitions.
    pools: Pools = {p.name: [partition_text(rnd, p.type, edgy)
                             for _ in range(rnd.randint(1, 3))] for p in parts}
    chosen = _settings(rnd)
    steps = [_step(rnd, index, parts, pools, edgy) for index in range(rnd.choice((1, 1, 2, 3)))]
    if steps[0].kind in ("create", "save_as_table"):
        fmt = "parquet"  # the DataFrame API's creates make Parquet tables (Spark's default)
    if _serde_read(fmt, chosen):
        # The built-in reads NULL in a CHAR partition column through a SerDe as the text
        # __HIVE_DEFAULT_PARTITION__, which the harness turns back into NULL only by making the
        # column a STRING, whose comparisons do not pad as CHAR's do: no NULL there.
        for p in parts:
            if p.type[0] == "char":
                pools[p.name] = [v if v is not None else "n" for v in pools[p.name]]
    n_rows = rnd.randint(1, 24)
    rows = tuple(tuple(literal(rnd, c.type, edgy) for c in data)
                 + tuple(typed(p.type, rnd.choice(pools[p.name])) for p in parts)
                 for _ in range(n_rows))
    reads = _reads(rnd, data, parts, pools, edgy)
    create_through = rnd.choice(("hms", "builtin"))
    for p in parts:
        # FLOAT and DOUBLE: compared with NaN, the infinities, zero and numbers beyond the
        # rows' (Spark orders NaN above every number and takes NaN = NaN, -0.0 = 0.0), often
        # with a row of NaN beside the others.
        if p.type[0] not in ("float", "double") or rnd.random() < 0.1:
            continue
        if "NaN" not in pools[p.name] and rnd.random() < 0.6:
            rows += (tuple(literal(rnd, c.type, edgy) for c in data) + tuple(
                typed(q.type, "NaN" if q is p else rnd.choice(pools[q.name])) for q in parts),)
        texts = [*pools[p.name], rnd.choice(("NaN", "Infinity", "-Infinity", "-0.0", "1000"))]
        # A value of the rows as a literal of the column's type: a FLOAT one is single precision.
        equal = f"{quote(p.name)} = {typed(p.type, rnd.choice(texts))}" if rnd.random() < 0.5 \
            else predicate(rnd, p, texts, True, rnd.choice(("=", "<=>", "IN")))
        wheres = (equal, predicate(rnd, p, texts, True))
        reads.append(UNION.join(f"SELECT {i} AS `#`, * FROM {{t}} WHERE {_braced(where)}"
                                for i, where in enumerate(wheres)))
    if parts and rnd.random() < 0.2:
        # Last, an overwrite by no rows of a partition named in full (mostly one the rows
        # have), in either overwrite mode: Spark states it as a dynamic overwrite in dynamic
        # mode, which names no partition, where Hive and the built-in replace it.
        spec = tuple((p.name, _static(rnd, p, pools, edgy)) for p in parts)
        steps.append(Step("insert", True, spec, EMPTY))
        chosen[OVERWRITE_MODE] = rnd.choice(("dynamic", "dynamic", "static"))
    return Case(seed, fmt, data, parts, rows, create_through, tuple(steps),
                tuple(sorted(chosen.items())), tuple(reads))
