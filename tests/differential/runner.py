"""Runs a :class:`~cases.Case` through the ``hms`` catalog and through Spark's built-in Hive
catalog on one metastore, and compares what each wrote and reads.

For a case, two tables are made in one database by the same statements: ``<name>_h`` written
through ``hms``, ``<name>_b`` through ``spark_catalog``. Then:

- every read of the case runs four ways (each catalog reading each table) and must give the
  rows (and column names and types) of the built-in reading its own table;
- SHOW PARTITIONS through each catalog lists the same partitions for both tables;
- the partition directories hms made are named as the built-in names them;
- the statistics hms recorded (numFiles, totalSize, numRows) are those of the files in each
  partition's location;
- a statement the built-in runs must run through hms (and one the built-in refuses may be
  refused, with a first line that is not an internal error).

Where the built-in departs from Hive, the comparison follows Hive and says so (see
:data:`BUILTIN_DEPARTURES`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from cases import CREATES, FORMATS, Case, Step, quote, sql_type

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
SHOW_PARTITIONS = "SHOW PARTITIONS {t}"
FALLBACK = "spark.sql.hive.metastorePartitionPruningFallbackOnException"

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
}

# Refusals hms shares with every catalog of Spark's data source V2 API: Spark itself refuses the
# statement before hms sees it (docs/spark-sql.md, differences). A write hms refuses with one of
# these first lines is not a finding.
V2_REFUSALS = {
    "LEGACY store assignment policy is disallowed in Spark data source V2":
        "spark.sql.storeAssignmentPolicy=LEGACY",
}


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


def _col(name: str) -> Any:
    from pyspark.sql.functions import col

    return col(name)


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


class Runner:
    def __init__(self, spark: Any, client: Any, db: str) -> None:
        self.spark = spark
        self.client = client
        self.db = db
        self.runs = 0
        self.status = ""  # what the last run compared, or why it stopped before the reads

    # -- the statements ------------------------------------------------------------------------
    def source_sql(self, case: Case) -> str:
        """The rows as view ``src``, its columns nullable (a row of NULLs, filtered out) as a
        table's are (BUILTIN_DEPARTURES["NOT NULL from the query"])."""
        names = ", ".join([quote(c.name) for c in case.all_columns] + ["row_n"])
        nulls = [f"CAST(NULL AS {sql_type(c.type, True)})" for c in case.all_columns]
        values = ", ".join("(" + ", ".join([*row, str(n)]) + ")"
                           for n, row in enumerate([*case.rows, nulls]))
        return (f"CREATE OR REPLACE TEMPORARY VIEW src AS SELECT * FROM VALUES {values} "
                f"AS src({names}) WHERE row_n < {len(case.rows)}")

    def create_sql(self, case: Case, table: str) -> str:
        cols = ", ".join(c.ddl for c in case.columns)
        parts = (" PARTITIONED BY (" + ", ".join(c.ddl for c in case.partitions) + ")"
                 if case.partitions else "")
        return f"CREATE TABLE {table} ({cols}){parts} {FORMATS[case.fmt]}"

    def _select(self, case: Case, spec: tuple[tuple[str, str | None], ...], where: str,
                source: str = "src") -> str:
        static = {n for n, v in spec if v is not None}
        cols = [quote(c.name) for c in case.columns]
        cols += [quote(p.name) for p in case.partitions if p.name not in static]
        return f"SELECT {', '.join(cols)} FROM {source}" + (f" WHERE {where}" if where else "")

    @staticmethod
    def _partition_clause(spec: tuple[tuple[str, str | None], ...]) -> str:
        if not spec:
            return ""
        return " PARTITION (" + ", ".join(
            quote(n) + ("" if v is None else f" = {v}") for n, v in spec) + ")"

    def step_action(self, case: Case, step: Step, table: str) -> tuple[str, Callable[[], None]]:
        """What ``step`` does to ``table``: its text (SQL, or the DataFrame call) and the
        action."""
        spark = self.spark
        if step.kind == "insert":
            sql = (f"INSERT {'OVERWRITE' if step.overwrite else 'INTO'} TABLE {table}"
                   f"{self._partition_clause(step.spec)} "
                   f"{self._select(case, step.spec, step.where)}")
            return sql, lambda: spark.sql(sql).collect()
        builtin = table.startswith("spark_catalog.")
        if step.kind == "ctas" or (step.kind in CREATES and builtin):
            parts = (" PARTITIONED BY (" + ", ".join(quote(p.name) for p in case.partitions)
                     + ")" if case.partitions else "")
            sql = (f"CREATE TABLE {table} {FORMATS[case.fmt]}{parts} AS "
                   f"{self._select(case, (), step.where)}")
            return sql, lambda: spark.sql(sql).collect()
        if step.kind == "multi_insert":
            where = f" WHERE {step.where}" if step.where else ""
            sql = (f"FROM (SELECT * FROM src{where}) s "
                   f"INSERT INTO TABLE {table}{self._partition_clause(step.spec)} "
                   + self._select(case, step.spec, "", "s").split(" FROM ")[0]
                   + f" INSERT INTO TABLE {table}{self._partition_clause(step.second)} "
                   + self._select(case, step.second, "", "s").split(" FROM ")[0])
            return sql, lambda: spark.sql(sql).collect()
        query = self._select(case, (), step.where)
        names = [p.name for p in case.partitions]
        if step.kind == "create":
            if not names:  # partitionedBy takes one column or more
                text = f"spark.sql({query!r}).writeTo({table!r}).create()"
                return text, lambda: spark.sql(query).writeTo(table).create()
            # Spark parses each partitionedBy column's name again, as it prints the name (in
            # back-quotes only if it has a dot): other names back-quoted twice (docs/spark-sql.md,
            # differences).
            refs = [quote(n) if "." in n else quote(quote(n)) for n in names]
            text = (f"spark.sql({query!r}).writeTo({table!r})"
                    f".partitionedBy(*[col(n) for n in {refs!r}]).create()")
            return text, lambda: spark.sql(query).writeTo(table).partitionedBy(
                *[_col(n) for n in refs]).create()
        if step.kind == "save_as_table":
            # Spark parses partitionBy's names for catalogs other than its own: back-quoted
            # (docs/spark-sql.md, differences).
            quoted = [quote(n) for n in names]
            text = f"spark.sql({query!r}).write.partitionBy(*{quoted!r}).saveAsTable({table!r})"
            return text, lambda: spark.sql(query).write.partitionBy(*quoted).saveAsTable(table)
        if step.kind == "insert_into":
            text = (f"spark.sql({query!r}).write.insertInto({table!r}, "
                    f"overwrite={step.overwrite})")
            return text, lambda: spark.sql(query).write.insertInto(table, step.overwrite)
        if builtin and step.kind in ("append", "overwrite_partitions"):
            # Spark's writeTo cannot write into the built-in's (v1) tables: the same write in
            # SQL, an overwrite replacing the partitions that receive rows.
            overwrite = step.kind == "overwrite_partitions"
            sql = (f"INSERT {'OVERWRITE' if overwrite else 'INTO'} TABLE {table}"
                   f"{self._partition_clause(tuple((p.name, None) for p in case.partitions))} "
                   f"{query}")
            return sql, lambda: self._with_conf(
                {"spark.sql.sources.partitionOverwriteMode": "dynamic"} if overwrite else {},
                lambda: spark.sql(sql).collect())
        if step.kind == "append":
            text = f"spark.sql({query!r}).writeTo({table!r}).append()"
            return text, lambda: spark.sql(query).writeTo(table).append()
        if step.kind == "overwrite_partitions":
            text = f"spark.sql({query!r}).writeTo({table!r}).overwritePartitions()"
            return text, lambda: spark.sql(query).writeTo(table).overwritePartitions()
        raise ValueError(step.kind)

    def _with_conf(self, conf: dict[str, str], action: Callable[[], object]) -> None:
        before = {k: self.spark.conf.get(k, None) for k in conf}
        for key, value in conf.items():
            self.spark.conf.set(key, value)
        try:
            action()
        finally:
            for key, value in before.items():
                if value is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, value)

    def script(self, case: Case, table: str = "hms.db.t") -> str:
        """The case as statements a person can run (hms's side)."""
        lines = [f"-- seed {case.seed}: HMSCATALOG_FUZZ_SEED={case.seed}",
                 "SET hive.exec.dynamic.partition.mode=nonstrict", f"SET {FALLBACK}=true"]
        lines += [f"SET {k}={v}" for k, v in case.settings]
        lines.append(self.source_sql(case))
        if case.steps[0].kind not in CREATES:
            lines.append(self.create_sql(case, table))
        lines += [self.step_action(case, step, table)[0] for step in case.steps]
        return ";\n".join(lines) + ";"

    # -- running ---------------------------------------------------------------------------------
    def outcome(self, sql: str) -> Outcome:
        try:
            frame = self.spark.sql(sql)
            collected = frame.collect()
        except Exception as exc:
            return Outcome(error=first_line(exc))
        schema = [(f.name, f.dataType.simpleString()) for f in frame.schema.fields]
        return Outcome(rows=sorted(repr(tuple(_norm(v) for v in row)) for row in collected),
                       schema=schema)

    @staticmethod
    def _source(case: Case, read: str, catalog: str, table: str) -> str:
        """What a read selects from: ``catalog.table``, or for the built-in's reads of a table
        with string partition columns, that table with the string __HIVE_DEFAULT_PARTITION__ in
        them read as NULL (BUILTIN_DEPARTURES["default partition as text"])."""
        strings = {p.name for p in case.partitions if p.type[0] == "string"}
        if catalog != "spark_catalog" or not strings or not read.startswith("SELECT"):
            return f"{catalog}.{table}"
        columns = [quote(c.name) for c in case.columns] + [
            f"CASE WHEN {quote(p.name)} = '{DEFAULT_PARTITION}' THEN NULL ELSE {quote(p.name)} "
            f"END AS {quote(p.name)}" if p.name in strings else quote(p.name)
            for p in case.partitions]
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
            _text_b, act_b = self.step_action(case, step, f"spark_catalog.{theirs}")
            text_h, act_h = self.step_action(case, step, f"hms.{ours}")
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
                findings.append(Finding(case, "hms refused a write the built-in made",
                                        error_h, text_h))
                return "hms refused"
            if error_h is not None and _unreadable(error_h) and not (
                    error_b is not None and _unreadable(error_b)):
                findings.append(Finding(case, "an error whose first line says nothing",
                                        error_h, text_h))
                return "unreadable error"
            if error_h is not None and "HMS_INTERNAL_ERROR" in error_h:
                findings.append(Finding(case, "internal error", error_h, text_h))
                return "internal error"
            if error_b is not None:  # nothing left to compare against
                return f"the built-in refused {step.kind}: {error_b}"
        return ""

    def _compare_read(self, case: Case, read: str, ours: str, theirs: str,
                      findings: list[Finding]) -> None:
        reference = self.outcome(read.format(t=self._source(case, read, "spark_catalog",
                                                            theirs)))
        if reference.error is not None:
            own = self.outcome(read.format(t=f"hms.{ours}"))
            if own.error is not None and "HMS_INTERNAL_ERROR" in own.error:
                findings.append(Finding(case, "internal error", own.error,
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
                findings.append(Finding(
                    case, f"{who} differs from the built-in reading its own",
                    f"\n    hms side:  {got.show()}\n    reference: {reference.show()}", sql,
                    read))

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
