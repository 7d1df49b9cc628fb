"""The setting of every benchmark of `hms` against Spark's built-in Hive catalog: one embedded
metastore in a fresh directory, one local Spark session (2 cores) whose built-in catalog uses
that metastore, and catalog `hms` attached to the same session and metastore.

The metastore keeps its catalog in Derby by default, or in PostgreSQL (``db=`` a
``postgresql://`` URI, such as the throwaway cluster :func:`postgres` starts)."""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hmscatalog.metastore import server
from hmscatalog.spark import attach
from hmscatalog.storage import hadoop_jars


def chosen(parser: argparse.ArgumentParser, text: str, known: Sequence[str],
           noun: str) -> list[str]:
    """The comma-separated names in ``text``; the parser's error for one not in ``known``."""
    names = text.split(",")
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"unknown {noun} {', '.join(unknown)}; choose from {', '.join(known)}")
    return names


@contextlib.contextmanager
def peers(name: str, s3: Mapping[str, str] | None = None, db: str = "derby",
          conf: Mapping[str, str] | None = None,
          metastore_heap: str = "768m",
          jars: Sequence[str] = ()) -> Iterator[tuple[Path, Any, Any]]:
    """Yield ``(work directory, SparkSession, hms catalog)``; stop both afterwards.

    Args:
        s3: Hadoop S3A settings (``fs.s3a.endpoint``...): S3A then goes on the class paths of
            the metastore and Spark, with these settings in both.
        db: the metastore's database: ``derby`` (in the work directory) or a
            ``postgresql://user:password@host:port/database`` URI.
        conf: more Spark settings for the session (``spark.driver.memory``...).
        metastore_heap: the metastore JVM's maximum heap.
        jars: more jars for Spark's class path (``spark.jars``), such as Hive's JSON SerDe's
            (``hadoop_jars.spark_jars("json")``).
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers see hmscatalog
    work = Path(tempfile.mkdtemp(prefix=f"hmscatalog-bench-{name}-"))
    info = server.start(port=server.free_port(), data_dir=work / "metastore", db=db,
                        heap=metastore_heap, with_s3=s3 is not None, hadoop_conf=s3)
    try:
        extra = {f"spark.hadoop.{k}": v for k, v in (s3 or {}).items()}
        spark_jars = [*(hadoop_jars.spark_jars("s3") if s3 is not None else ()), *jars]
        if spark_jars:
            extra["spark.jars"] = ",".join(spark_jars)
        extra.update(conf or {})
        spark = (SparkSession.builder.master("local[2]").appName(f"bench-{name}")
                 .config(map=extra)
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.catalogImplementation", "hive")
                 .config("spark.hadoop.hive.metastore.uris", info.uri)
                 .config("spark.sql.warehouse.dir", str(work / "warehouse"))
                 .getOrCreate())
        try:
            spark.sparkContext.setLogLevel("ERROR")
            yield work, spark, attach(spark, uri=info.uri)
        finally:
            spark.stop()
    finally:
        server.stop(work / "metastore")


def _pg_binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise SystemExit(f"PostgreSQL's {name} is not installed (Debian: postgresql)")
    return found


class Postgres:
    """A throwaway PostgreSQL cluster on a free loopback port (run as user postgres when this
    process is root), holding one empty database, from :meth:`start` to :meth:`stop`."""

    def __init__(self, database: str = "hms") -> None:
        self.binaries = {name: _pg_binary(name) for name in ("initdb", "pg_ctl", "createdb")}
        if not any(Path(j).exists() for j in server.POSTGRES_JDBC_JARS):
            raise SystemExit("PostgreSQL's JDBC driver is not installed: "
                             "apt-get install -y libpostgresql-jdbc-java")
        self.as_user: list[str] = []
        self.base = Path(tempfile.mkdtemp(prefix="hmscatalog-bench-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            shutil.chown(self.base, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.data = self.base / "data"
        self.database = database
        self.port = 0
        self.running = False

    @property
    def uri(self) -> str:
        """For :func:`peers`' ``db``."""
        return f"postgresql://hive:unused@127.0.0.1:{self.port}/{self.database}"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(self.binaries["initdb"], "-D", str(self.data), "-A", "trust", "-U", "hive",
                  "--no-sync")
        for attempt in range(3):  # another program may take the free port before PostgreSQL
            self.port = server.free_port()
            try:
                self._run(self.binaries["pg_ctl"], "-D", str(self.data), "-l",
                          str(self.base / "postgres.log"), "-w", "-o",
                          f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
                          "-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
                          "start")
                self.running = True
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
        self._run(self.binaries["createdb"], "-h", "127.0.0.1", "-p", str(self.port), "-U",
                  "hive", self.database)

    def stop(self) -> None:
        """Stop the cluster and remove its files (again: nothing)."""
        if self.running:
            self.running = False
            self._run(self.binaries["pg_ctl"], "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)


def plan_leaves(plan: Any) -> list[Any]:
    """Every leaf of a physical plan, looking into AQE's current plan and its query stages."""
    found, stack = [], [plan]
    while stack:
        node = stack.pop()
        kind = str(node.getClass().getSimpleName())
        if kind == "AdaptiveSparkPlanExec":
            stack.append(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            stack.append(node.plan())
        else:
            children = node.children()
            if children.size() == 0:
                found.append(node)
            stack.extend(children.apply(i) for i in range(children.size()))
    return found
