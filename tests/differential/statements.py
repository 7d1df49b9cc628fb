"""The statements of a :class:`~cases.Case` for one of its two tables: the source rows, the
CREATE TABLE, each step as SQL or as a DataFrame call (and as text a person can run), and the
partitions another writer registers (``foreign`` steps, through the metastore client)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cases import CREATES, FORMATS, Case, Spec, Step, quote, sql_type

from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME, make_part_name

FALLBACK = "spark.sql.hive.metastorePartitionPruningFallbackOnException"


def _col(name: str) -> Any:
    from pyspark.sql.functions import col

    return col(name)


def partition_clause(spec: Spec) -> str:
    if not spec:
        return ""
    return " PARTITION (" + ", ".join(
        quote(n) + ("" if v is None else f" = {v}") for n, v in spec) + ")"


class Statements:
    def __init__(self, spark: Any, client: Any, db: str) -> None:
        self.spark = spark
        self.client = client
        self.db = db
        self._picked: tuple[str, ...] | None = None  # the foreign step's partition

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

    def _select(self, case: Case, spec: Spec, where: str, source: str = "src") -> str:
        static = {n for n, v in spec if v is not None}
        cols = [quote(c.name) for c in case.columns]
        cols += [quote(p.name) for p in case.partitions if p.name not in static]
        return f"SELECT {', '.join(cols)} FROM {source}" + (f" WHERE {where}" if where else "")

    def step_action(self, case: Case, step: Step, table: str) -> tuple[str, Callable[[], None]]:
        """What ``step`` does to ``table``: its text (SQL, or the DataFrame call) and the
        action."""
        spark = self.spark

        def run(sql: str) -> tuple[str, Callable[[], None]]:
            return sql, lambda: spark.sql(sql).collect()

        if step.kind == "insert":
            return run(f"INSERT {'OVERWRITE' if step.overwrite else 'INTO'} TABLE {table}"
                       f"{partition_clause(step.spec)}"
                       f"{' IF NOT EXISTS' if step.if_not_exists else ''} "
                       f"{self._select(case, step.spec, step.where)}")
        if step.kind == "drop_partition":
            specs = [s for s in (step.spec, step.second) if s]
            return run(f"ALTER TABLE {table} DROP {'IF EXISTS ' if step.if_exists else ''}"
                       + ",".join(partition_clause(s) for s in specs))
        if step.kind == "truncate":
            return run(f"TRUNCATE TABLE {table}{partition_clause(step.spec)}")
        if step.kind == "foreign":
            texts = ", ".join(f"{quote(p.name)} = {raw!r}" for p, raw in
                              zip(case.partitions, step.raw, strict=True) if raw is not None)
            text = (f"-- through the metastore client: rename partition #{step.pick} (in the "
                    f"order of their values; none: add one) of {table} to ({texts}); REFRESH")
            return text, lambda: self._foreign(case, step, table)
        builtin = table.startswith("spark_catalog.")
        if step.kind == "ctas" or (step.kind in CREATES and builtin):
            parts = (" PARTITIONED BY (" + ", ".join(quote(p.name) for p in case.partitions)
                     + ")" if case.partitions else "")
            return run(f"CREATE TABLE {table} {FORMATS[case.fmt]}{parts} AS "
                       f"{self._select(case, (), step.where)}")
        if step.kind == "multi_insert":
            where = f" WHERE {step.where}" if step.where else ""
            return run(f"FROM (SELECT * FROM src{where}) s "
                       f"INSERT INTO TABLE {table}{partition_clause(step.spec)} "
                       + self._select(case, step.spec, "", "s").split(" FROM ")[0]
                       + f" INSERT INTO TABLE {table}{partition_clause(step.second)} "
                       + self._select(case, step.second, "", "s").split(" FROM ")[0])
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
                   f"{partition_clause(tuple((p.name, None) for p in case.partitions))} "
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

    def _foreign(self, case: Case, step: Step, table: str) -> None:
        """Rename a partition of ``table`` through the metastore to the step's texts, as another
        writer may have named it: the one the built-in's table had at the step's ``pick``, in
        the order of their values (run for the built-in's table first), or, if that table had
        none, an empty one added."""
        name = table.rsplit(".", 1)[1]
        meta = self.client.get_table(self.db, name)
        if name.endswith("_b"):
            found = sorted(tuple(p.values) for p in self.client.list_partitions(self.db, name))
            self._picked = found[step.pick % len(found)] if found else None
        if self._picked is None:
            strings = [DEFAULT_PARTITION_NAME if raw is None else raw for raw in step.raw]
            location = (f"{meta.location.rstrip('/')}/"
                        f"{make_part_name(meta.partition_spec.names, strings)}")
            self.client.add_partitions(meta, [meta.partition_at(strings, location)])
        else:
            old = next((p for p in self.client.list_partitions(self.db, name)
                        if tuple(p.values) == self._picked), None)
            if old is None:  # SHOW PARTITIONS shows that the tables differ
                return
            strings = [v if raw is None else raw for raw, v in zip(step.raw, self._picked,
                                                                  strict=True)]
            self.client.rename_partition(self.db, name, list(self._picked), meta.partition_at(
                strings, old.location, old.parameters))
        for catalog in ("spark_catalog", "hms"):
            self.spark.sql(f"REFRESH TABLE {catalog}.{self.db}.{name}")

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
        builtin = table.replace("hms.", "spark_catalog.", 1)
        if case.steps[0].kind not in CREATES:
            lines.append(self.create_sql(case, table if case.create_through == "hms"
                                         else builtin))
        for step in case.steps:
            target = builtin if step.through else table
            lines.append(self.step_action(case, step, target)[0]
                         + (" -- through the built-in" if step.through else ""))
        return ";\n".join(lines) + ";"
