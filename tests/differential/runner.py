"""Runs a :class:`~cases.Case` through the ``hms`` catalog and through Spark's built-in Hive
catalog on one metastore, and compares what each wrote and reads.

For a case, two tables are made in one database by the same statements: ``<name>_h`` written
through ``hms`` (or, for a step marked so, through ``spark_catalog`` too), ``<name>_b`` through
``spark_catalog``; both are created by the case's ``create_through`` catalog, or each by its own
catalog's create statement. The statements are in :mod:`statements`. Then:

- every read of the case runs four ways (each catalog reading each table) and must give the
  rows (and column names, as each side reports them, and types) of the built-in reading its own
  table; a read of every partition that the built-in fails on a partition value its casts reject
  (a foreign partition text) must fail through hms too;
- SHOW PARTITIONS through each catalog lists the same partitions for both tables;
- the partition directories hms made are named as the built-in names them (DOUBLE values as
  Java's Double.toString, keys in the case of the table's names);
- the statistics hms recorded (numFiles, totalSize, numRows) are those of the files in each
  partition's location;
- a statement the built-in runs must run through hms (and one the built-in refuses may be
  refused, with a first line that is not an internal error); a partition statement (DROP,
  TRUNCATE) that the built-in refuses must be refused by hms too, and the case goes on.

Where the built-in departs from Hive, the comparison follows Hive and says so (see
:data:`BUILTIN_DEPARTURES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from cases import CREATES, DDL, UNION, Case, quote
from statements import FALLBACK, Statements

from hmscatalog.partitions.codec import escape_path_name, unescape_path_name

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
SHOW_PARTITIONS = "SHOW PARTITIONS {t}"
ANSI = "spark.sql.ansi.enabled"

# Where the built-in catalog is not Hive, and how the harness judges instead.
BUILTIN_DEPARTURES = {
    "default partition as text": (
        "the built-in's Hive-SerDe reader returns the string __HIVE_DEFAULT_PARTITION__ for a "
        "NULL string partition value (Hive returns NULL), in results and in filters "
        "(WHERE p IS NULL finds nothing): the built-in's reads select from its table with that "
        "string as NULL"),
    "NOT NULL from the query": (
        "the built-in's CTAS keeps a query column's NOT NULL on a partition column, and then "
        "fails (NullPointerException) or finds no row for p IS NULL once '' became the default "
        "partition (docs/spark-sql.md, differences); Hive has no NOT NULL there: the source rows' "
        "columns are nullable"),
    "default partition as a value": (
        "the built-in's Hive-SerDe reader (text, SequenceFile, RCFile, Avro, JSON, OpenCSV; "
        "Parquet and ORC with convertMetastore* false) casts the string "
        "__HIVE_DEFAULT_PARTITION__ to the type of a NULL non-string partition value, which "
        "fails under ANSI casts (CAST_INVALID_INPUT; Hive reads NULL): such a read is compared "
        "with spark.sql.ansi.enabled=false on every side, where the built-in reads NULL"),
    "CTAS directories": (
        "the built-in's partitioned CTAS STORED AS PARQUET|ORC writes through its Hive SerDe "
        "writer and names partition directories in lower case (dt=x/hr=5), where its INSERTs "
        "into those formats name them in Spark's case (Dt=x/HR=5), as hms's CTAS does "
        "(docs/spark-sql.md, Tables; Hive names them in lower case): in such cases the "
        "directories' keys are compared ignoring case, and hms's must be in the case of the "
        "table's names"),
}

# Refusals hms shares with every catalog of Spark's data source V2 API: Spark itself refuses the
# statement before hms sees it (docs/spark-sql.md, differences). A write hms refuses with one of
# these first lines is not a finding.
V2_REFUSALS = {
    "LEGACY store assignment policy is disallowed in Spark data source V2":
        "spark.sql.storeAssignmentPolicy=LEGACY",
}


# Errors of a value, not of a statement: a read of every partition the built-in fails with one
# of these (a partition text its casts reject, such as '7.9' in an INT column) must fail
# through hms too, not read the value as something else.
VALUE_ERRORS = ("CAST_INVALID_INPUT", "CAST_OVERFLOW", "NUMERIC_VALUE_OUT_OF_RANGE",
                "INVALID_PARTITION_VALUE")


def _default_cast(error: str) -> bool:
    """The built-in's error casting the default partition's name to a column's type."""
    return "CAST_INVALID_INPUT" in error and f"'{DEFAULT_PARTITION}'" in error


def _whole(read: str) -> bool:
    """A read of every partition of the table (nothing to prune)."""
    return read.startswith("SELECT") and " WHERE " not in read and " JOIN " not in read


@dataclass
class Finding:
    """A difference between hms and the built-in (or an invariant hms broke)."""

    case: Case
    what: str
    detail: str
    statement: str = ""
    read: str | None = None  # the read (with {t}) that showed it, if a read did

    def __str__(self) -> str:
        return f"{self.what}: {self.detail}" + (f"\n  statement: {self.statement}"
                                                 if self.statement else "")


@dataclass
class Outcome:
    rows: list[str] | None = None
    schema: list[tuple[str, str]] | None = None
    error: str | None = None

    def show(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        shown = self.rows if self.rows is not None and len(self.rows) <= 12 else \
            [*(self.rows or [])[:12], "..."]
        return f"{len(self.rows or [])} rows {self.schema}: {shown}"


def lower_keys(path: str) -> str:
    """A partition's relative path (``Dt=x/HR=1``) with its keys in lower case."""
    segments = (segment.partition("=") for segment in path.split("/"))
    return "/".join(escape_path_name(unescape_path_name(key).lower()) + eq + value
                    for key, eq, value in segments)


def _spark_case_ctas(case: Case) -> bool:
    """Each catalog creates a Parquet or ORC table with its CTAS (or the DataFrame API's
    creates, which the built-in's side runs as one), and the built-in writes those formats with
    Spark's writers otherwise."""
    setting = f"spark.sql.hive.convertMetastore{case.fmt.capitalize()}"
    return (case.steps[0].kind in CREATES and case.fmt in ("parquet", "orc")
            and dict(case.settings).get(setting) != "false")


def _unreadable(line: str) -> bool:
    """A first line that names nothing the user wrote: a Py4J call or a bare class name."""
    return line.startswith("An error occurred while calling") or " " not in line.strip()


def first_line(exc: BaseException) -> str:
    """The first line of ``exc`` as a user sees it; for a Py4J error (whose first line is the
    call), with the Java exception's line after it."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if _unreadable(lines[0]) and len(lines) > 1:
        return f"{lines[0]} {lines[1].strip()[:300]}"
    return lines[0]


def _norm(value: Any) -> Any:
    from pyspark.sql import Row

    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value
    if isinstance(value, Row):
        return tuple((k, _norm(v)) for k, v in value.asDict().items())
    if isinstance(value, dict):
        return tuple(sorted(((_norm(k), _norm(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return value


class Runner(Statements):
    def __init__(self, spark: Any, client: Any, db: str) -> None:
        super().__init__(spark, client, db)
        self._names: dict[tuple[str, str], dict[str, str]] = {}  # a table's names, by lower case
        self.runs = 0
        self.status = ""  # what the last run compared, or why it stopped before the reads

    # -- running ---------------------------------------------------------------------------------
    def outcome(self, sql: str) -> Outcome:
        try:
            frame = self.spark.sql(sql)
            collected = frame.collect()
        except Exception as exc:
            return Outcome(error=first_line(exc))
        schema = [(f.name, f.dataType.simpleString()) for f in frame.schema.fields]
        return Outcome(sorted(repr(tuple(_norm(v) for v in row)) for row in collected), schema)

    def _source(self, case: Case, read: str, catalog: str, table: str) -> str:
        """What a read selects from: ``catalog.table``, or for the built-in's reads of a table
        with STRING (VARCHAR) partition columns, that table with the string
        __HIVE_DEFAULT_PARTITION__ in them read as NULL, named as the table names them
        (BUILTIN_DEPARTURES["default partition as text"])."""
        strings = {p.name for p in case.partitions if p.type[0] in ("string", "varchar")}
        if catalog != "spark_catalog" or not strings or not read.startswith("SELECT"):
            return f"{catalog}.{table}"
        if (catalog, table) not in self._names:
            names = self.spark.table(f"{catalog}.{table}").schema.fieldNames()
            self._names[(catalog, table)] = {n.lower(): n for n in names}
        named = self._names[(catalog, table)]

        def alias(name: str) -> str:
            # Spark names a selected column as the query spells it, not as the table does.
            return quote(named.get(name.lower(), name))

        columns = [f"{quote(c.name)} AS {alias(c.name)}" for c in case.columns] + [
            f"CASE WHEN {quote(p.name)} = '{DEFAULT_PARTITION}' THEN NULL ELSE {quote(p.name)} "
            f"END AS {alias(p.name)}" if p.name in strings
            else f"{quote(p.name)} AS {alias(p.name)}" for p in case.partitions]
        return f"(SELECT {', '.join(columns)} FROM {catalog}.{table})"

    def run(self, case: Case, full: bool = True) -> list[Finding]:
        """Run ``case``; the differences found (none: hms agrees with the built-in). Only
        its reads unless ``full``: also SHOW PARTITIONS, directories and statistics."""
        self.runs += 1
        name = f"f{case.seed % 100000}_{self.runs}"
        ours, theirs = f"{self.db}.{name}_h", f"{self.db}.{name}_b"
        spark = self.spark
        findings: list[Finding] = []
        spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
        # The built-in fails every partition filter on a column whose name needs back-quotes
        # (INTERNAL_ERROR_HIVE_METASTORE_PARTITION_FILTER) unless it may fall back to fetching
        # every partition (docs/spark-sql.md, differences); hms checks such filters on the client.
        spark.sql(f"SET {FALLBACK}=true")
        for key, value in case.settings:
            spark.sql(f"SET {key}={value}")
        try:
            spark.sql(self.source_sql(case))
            stopped = self._write(case, ours, theirs, findings)
            self.status = stopped or "compared"
            if stopped:
                return findings
            for read in case.reads:
                self._compare_read(case, read, ours, theirs, findings)
            if full:
                if case.partitions:
                    self._compare_read(case, SHOW_PARTITIONS, ours, theirs, findings)
                    self._compare_directories(case, name, findings)
                if not any(step.through for step in case.steps):
                    # (the built-in keeps a replaced partition's old totals: docs/spark-sql.md,
                    # differences)
                    self._check_statistics(case, f"{name}_h", findings)
        finally:
            for key in [k for k, _ in case.settings] + [FALLBACK]:
                spark.sql(f"RESET {key}")
            for table in (ours, theirs):
                spark.sql(f"DROP TABLE IF EXISTS spark_catalog.{table}")
        return findings

    def _write(self, case: Case, ours: str, theirs: str, findings: list[Finding]) -> str:
        """Create both tables and run the steps; why the reads cannot be compared (empty:
        they can)."""
        if case.steps[0].kind not in CREATES:
            catalog = "hms" if case.create_through == "hms" else "spark_catalog"
            for table in (ours, theirs):
                sql = self.create_sql(case, f"{catalog}.{table}")
                try:
                    self.spark.sql(sql)
                except Exception as exc:
                    line = first_line(exc)
                    if catalog == "hms" and "HMS_INTERNAL_ERROR" in line:
                        findings.append(Finding(case, "internal error", line, sql))
                    return f"CREATE refused: {line}"  # a table neither side can have
        for step in case.steps:
            # A step through the built-in changes hms's table through spark_catalog too.
            _text_b, act_b = self.step_action(case, step, f"spark_catalog.{theirs}")
            text_h, act_h = self.step_action(
                case, step, f"{'spark_catalog' if step.through else 'hms'}.{ours}")
            who = "the built-in" if step.through else "hms"
            error_b = error_h = None
            try:
                act_b()
            except Exception as exc:
                error_b = first_line(exc)
            try:
                act_h()
            except Exception as exc:
                error_h = first_line(exc)
            if error_h is not None and any(error_h.startswith(r) for r in V2_REFUSALS):
                return f"refused by Spark for every V2 catalog: {error_h}"
            if error_h is not None and error_b is None:
                what = "write" if step.kind not in DDL else "change"
                findings.append(Finding(
                    case, f"{who} refused a {what} of hms's table that the built-in made of "
                    "its own", error_h, text_h))
                return f"{who} refused"
            if error_h is not None and _unreadable(error_h) and not (
                    error_b is not None and _unreadable(error_b)):
                findings.append(Finding(case, "an error whose first line says nothing",
                                        error_h, text_h))
                return "unreadable error"
            if error_h is not None and "HMS_INTERNAL_ERROR" in error_h:
                findings.append(Finding(case, "internal error", error_h, text_h))
                return "internal error"
            if step.kind in DDL and error_b is not None:
                if error_h is None:  # Hive refuses it too: e.g. no partition matches
                    findings.append(Finding(case, f"{who} made a change the built-in refused",
                                            f"built-in: {error_b}", text_h))
                    return f"{who} changed"
                continue  # refused by both: nothing changed, the case goes on
            if error_b is not None:  # nothing left to compare against
                return f"the built-in refused {step.kind}: {error_b}"
        return ""

    def _compare_read(self, case: Case, read: str, ours: str, theirs: str,
                      findings: list[Finding], ansi: bool = True) -> None:
        reference = self.outcome(read.format(t=self._source(case, read, "spark_catalog",
                                                            theirs)))
        if ansi and reference.error is not None and _default_cast(reference.error):
            # BUILTIN_DEPARTURES["default partition as a value"]: compared without ANSI casts
            self._with_conf({ANSI: "false"}, lambda: self._compare_read(
                case, read, ours, theirs, findings, ansi=False))
            return
        if reference.error is not None and UNION in read:  # each predicate on its own
            for branch in read.split(UNION):
                self._compare_read(case, branch, ours, theirs, findings, ansi)
            return
        if reference.error is not None:
            own = self.outcome(read.format(t=f"hms.{ours}"))
            if own.error is not None and "HMS_INTERNAL_ERROR" in own.error:
                findings.append(Finding(case, "internal error", own.error,
                                        read.format(t=f"hms.{ours}"), read))
            elif own.error is None and own.rows and _whole(read) and any(
                    c in reference.error for c in VALUE_ERRORS):
                # A partition value Spark's casts reject is read by hms as some other value
                # (a table whose only such partition has no files may read no rows).
                findings.append(Finding(
                    case, "hms reads a partition value the built-in's casts reject",
                    f"\n    hms:       {own.show()}\n    reference: {reference.show()}",
                    read.format(t=f"hms.{ours}"), read))
            return
        for catalog, table, builtin in (("hms", ours, False), ("spark_catalog", ours, True),
                                        ("hms", theirs, False)):
            sql = read.format(t=self._source(case, read, catalog, table))
            got = self.outcome(sql)
            if got.rows != reference.rows or got.schema != reference.schema:
                who = {(False, ours): "hms reading its own table",
                       (True, ours): "the built-in reading hms's table",
                       (False, theirs): "hms reading the built-in's table"}[(builtin, table)]
                if got.rows == reference.rows and got.schema and reference.schema and [
                        t for _, t in got.schema] == [t for _, t in reference.schema]:
                    detail = (f"column names {[n for n, _ in got.schema]}, reference "
                              f"{[n for n, _ in reference.schema]} (rows agree)")
                else:
                    detail = f"\n    hms side:  {got.show()}\n    reference: {reference.show()}"
                findings.append(Finding(
                    case, f"{who} differs from the built-in reading its own", detail, sql, read))

    def _locations(self, table: str) -> tuple[str, dict[str, str]]:
        meta = self.client.get_table(self.db, table)
        spec = meta.partition_spec
        parts = {p.name(spec): p.location or ""
                 for p in self.client.list_partitions(self.db, table)} if spec.names else {}
        return meta.location or "", parts

    def _compare_directories(self, case: Case, name: str, findings: list[Finding]) -> None:
        """Partition directories below each table's location, as relative names, with hms's
        version directories (``hms-v<write id>``) left out."""
        relative = []
        for table in (f"{name}_h", f"{name}_b"):
            root, parts = self._locations(table)
            root_path = urlparse(root).path.rstrip("/")
            names = set()
            for location in parts.values():
                path = urlparse(location).path
                segments = [s for s in path[len(root_path):].split("/")
                            if s and not s.startswith("hms-v")]
                names.add("/".join(segments))
            relative.append(names)
        if _spark_case_ctas(case):  # BUILTIN_DEPARTURES["CTAS directories"]
            keys = {unescape_path_name(segment.partition("=")[0])
                    for path in relative[0] for segment in path.split("/")}
            # A partition another engine renamed through the metastore has the directory
            # the metastore made for it, in lower case (seed 1259).
            foreign = any(step.kind == "foreign" for step in case.steps)
            if not foreign and not keys <= {p.name for p in case.partitions}:
                findings.append(Finding(case, "partition directories are named differently",
                                        f"hms: {sorted(relative[0])}, keys not in the case of "
                                        f"the table's names {[p.name for p in case.partitions]}"))
            relative = [{lower_keys(path) for path in names} for names in relative]
        if relative[0] != relative[1]:
            findings.append(Finding(case, "partition directories are named differently",
                                    f"hms: {sorted(relative[0])}, built-in: {sorted(relative[1])}"))

    def _check_statistics(self, case: Case, table: str, findings: list[Finding]) -> None:
        """The numFiles, totalSize and numRows hms recorded are those of the files there."""
        meta = self.client.get_table(self.db, table)
        if meta.partition_spec.names:
            owners = [(p.location, p.parameters, str(p.values))
                      for p in self.client.list_partitions(self.db, table)]
        else:
            owners = [(meta.location, meta.parameters, "(table)")]
        for location, params, label in owners:
            if not location or not location.startswith("file:"):
                continue
            folder = Path(urlparse(location).path)
            files = sorted(f for f in folder.iterdir() if f.is_file()
                           and not f.name.startswith(("_", "."))) if folder.is_dir() else []
            expected = {"numFiles": str(len(files)),
                        "totalSize": str(sum(f.stat().st_size for f in files))}
            rows = _row_count(case.fmt, files)
            if rows is not None and "numRows" in params:
                expected["numRows"] = str(rows)
            for key, value in expected.items():
                if key in params and params[key] != value:
                    findings.append(Finding(
                        case, "recorded statistics disagree with the files",
                        f"{table} {label} {key}={params[key]}, files say {value} ({folder})"))


def _row_count(fmt: str, files: list[Path]) -> int | None:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    if fmt == "orc":
        import pyarrow.orc as orc

        return sum(orc.ORCFile(f).nrows for f in files)
    return None
