"""Faster Spark drivers for the tests: JVM options in ``SPARK_SUBMIT_OPTS``, which Spark's
launcher gives every driver it starts (the session's and every child process's), with a
class-data-sharing archive of the classes a Spark driver loads.

A Spark driver spends most of its start loading and verifying some 10,000 classes; Java 17
can map them from an archive instead (``-XX:SharedArchiveFile``): a driver starts and runs a
small query in about half the time and a third of the CPU. The archive is made once per Java
and pyspark (its name holds a digest of both), by a child process that starts a driver with
``-XX:ArchiveClassesAtExit``, runs a few statements and exits; the JVM writes the archive as it
exits, to a temporary name that becomes the archive's only after a clean exit, so a killed run
leaves no archive that a later JVM would map. The test session makes it while its unit tests
run, which start no JVM. A JVM whose classes do not match an archive
ignores it (``-Xshare:auto``, its message silenced) and starts as without.

    python tests/jvm_archive.py ARCHIVE  (the child: write the archive to ARCHIVE)
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The C1 compiler only and the serial collector spend about 40% less CPU starting a JVM on two
# cores, and the tests' JVMs run minutes, not hours. With C1 alone the JVM reserves 48 MB for
# compiled code, not 240: a test session's driver that has run some thousands of statements
# filled it ("CodeCache is full. Compiler has been disabled"), and statements then failed with
# errors of the JVM's own; so the code cache keeps its usual size.
SHORT_LIVED_JVM = ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m",
                   "-XX:+UseSerialGC")
_QUIET = "-Xlog:cds*=off"


def _pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def archive_path(home: Path) -> Path:
    """Where the archive for this machine's ``java`` and this pyspark lives under ``home``."""
    java = shutil.which("java") or ""
    facts = [str(Path(java).resolve()) if java else "",
             *(f"{p.name}:{p.stat().st_size}" for p in sorted(_pyspark_jars().glob("*.jar")))]
    digest = hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]
    return home / "class-archives" / f"spark-driver-{digest}.jsa"


def start_making(home: Path) -> subprocess.Popen[str] | None:
    """Start making the archive in the background, unless it exists: the process doing it."""
    archive = archive_path(home)
    if archive.exists():
        return None
    archive.parent.mkdir(parents=True, exist_ok=True)
    # Not a pipe, which nobody reads until it ends: full, it would stop the maker.
    return subprocess.Popen([sys.executable, __file__, str(archive)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)


def driver_options(home: Path, maker: subprocess.Popen[str] | None) -> str:
    """``SPARK_SUBMIT_OPTS`` for the tests' drivers, once ``maker`` (:func:`start_making`) has
    ended: with the archive, if there is one (a failure to make it costs speed, never a
    test)."""
    archive = archive_path(home)
    if maker is not None and maker.wait(timeout=600) != 0:
        print(f"note: no class archive for Spark drivers: `python {__file__} {archive}` "
              f"ended with {maker.returncode}", file=sys.stderr)
    if not archive.exists():
        return " ".join(SHORT_LIVED_JVM)
    return " ".join([*SHORT_LIVED_JVM, f"-XX:SharedArchiveFile={archive}", _QUIET])


def _make(archive: Path) -> None:
    """Start a driver that writes its classes to a temporary file as it exits; rename that
    after the JVM ended with status 0. One maker at a time: the test sessions of several
    worker processes each start one, and those after the first find the archive made."""
    with open(archive.with_name(f"{archive.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not archive.exists():
            _make_unlocked(archive)


def _make_unlocked(archive: Path) -> None:
    from pyspark.sql import SparkSession

    partial = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
    spark = (SparkSession.builder.master("local[2]").appName("hmscatalog-class-archive")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.extraJavaOptions",
                     " ".join([*SHORT_LIVED_JVM, f"-XX:ArchiveClassesAtExit={partial}"]))
             .getOrCreate())
    with tempfile.TemporaryDirectory(prefix="hmscatalog-archive-") as work:
        # What the tests' drivers do most: SQL parsed, planned and run; Parquet written, read.
        spark.range(1000).selectExpr("id", "id % 7 AS k", "CAST(id AS STRING) AS s") \
            .write.partitionBy("k").parquet(f"{work}/t")
        spark.read.parquet(f"{work}/t").createOrReplaceTempView("t")
        spark.sql("SELECT k, count(*), max(s) FROM t WHERE k IN (1, 2) GROUP BY k "
                  "ORDER BY k").collect()
        spark.sql("SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.k = 3").collect()
    gateway = spark.sparkContext._gateway
    spark.stop()
    jvm = gateway.proc  # pyspark's handle on the driver JVM, which exits when stdin closes
    gateway.shutdown()
    jvm.stdin.close()
    if jvm.wait(timeout=300) != 0 or not partial.exists():
        raise SystemExit(f"the driver JVM ended with {jvm.returncode}; no archive")
    os.replace(partial, archive)


if __name__ == "__main__":
    _make(Path(sys.argv[1]))
