"""Scale: `hms` against Spark's built-in Hive catalog on a table of 100,000 (or 1,000,000)
partitions, in one run, on a PostgreSQL-backed metastore.

    .venv/bin/python bench/scale.py [--partitions 100000] [--repeat 5] [--db postgres|derby]
        [--only point,range,plan,cold_point,cold_range,cold_plan,fresh_plan,msck]
        [--msck-base N] [--memory-repeat 1] [--register direct|thrift]
        [--driver-memory 2g] [--metastore-heap 2g] [--catalogs hms,spark_catalog] [--keep]

Why PostgreSQL: at 100,000 partitions Hive 2.3 on Derby leaves its direct-SQL path (Derby:
"Statement too complex") and every unfiltered ``get_partitions`` takes 80-100 s, for both
catalogs. ``--db postgres`` (the default) starts a throwaway PostgreSQL cluster (initdb, pg_ctl;
fsync off) on a free loopback port for the embedded metastore and removes it afterwards.
SIGTERM or SIGHUP stops the metastore, Spark's JVM and PostgreSQL and removes the work directory
(unless ``--keep``).

Table ``bench_scale.t`` (v DOUBLE) PARTITIONED BY (dt STRING, hr INT), STORED AS PARQUET, is
created through the built-in catalog (so ``hms.bench_scale.t`` is the same metastore table);
partition k is ``dt`` = 2020-01-01 + k div 24 days, ``hr`` = k mod 24. One Parquet file of 10
rows is written with pyarrow and hard-linked into every partition directory; the partitions
are registered by writing the metastore's PostgreSQL tables (bench/scale_data.py, about
20,000 partitions/s), or with ``--register thrift`` through hmscatalog's client
(``add_partitions``, about 300/s). Printed: how long making the directories and registering
took, per table, and the rates.

The metastore records its notification log (the embedded server's listener), so ``hms``
follows it with its metadata cache on, as by default. Measured, each alternating the two
catalogs (order swapped every run), after one warm-up run whose time is printed as ``first``,
``--repeat`` times; medians and the ratio hms / built-in:

- ``point``: ``SELECT count(*), sum(v) ... WHERE dt = ... AND hr = ...`` (collect), warm: the
  table unchanged since the last query;
- ``range``: the same over 1 % of the partitions (42 days, 1,008 partitions, of 100,000),
  ``dt BETWEEN`` two dates (collect);
- ``plan``: planning an unfiltered ``SELECT count(*), sum(v)``, nothing executed:
  ``executedPlan()`` of a new DataFrame, then what each scan of that plan reads, which running
  it would compute first (the built-in's ``FileSourceScanExec.selectedPartitions``: the
  metastore's partitions and the files of each; hms's ``BatchScanExec.inputPartitions``). The
  built-in lists nothing in ``executedPlan()`` itself, so that alone would compare hms's
  listing with none; the time of ``executedPlan()`` alone is printed too;
- ``cold_point``, ``cold_range``, ``cold_plan``: the same, cold: for hms through a catalog
  attached just before (nothing cached, nothing listed), for the built-in after
  ``REFRESH TABLE`` (its file status cache of the table dropped);
- ``fresh_plan``: ``plan`` right after another process added one partition through the Thrift
  client (another engine's write, which hms learns from the notification log);
- ``msck``: ``MSCK REPAIR TABLE`` after 1,000 new partition directories appear. Each catalog
  repairs its own table (``t_msck_hms``, ``t_msck_builtin``: ``--msck-base`` partitions
  registered, default ``--partitions``), new directories every run.

Results of the point and range queries must be identical through both catalogs (exit 1 if
not). After the timed runs, one more run of each measurement and catalog counts its metastore
calls (the audit lines, ``cmd=``, the metastore writes to its log; the notification log's calls
apart, as the follower's background polls land there too) and its py4j commands.

Driver memory, for each measurement and catalog, in ``--memory-repeat`` more rounds after the
timed runs (so the timings carry no measuring overhead; 0: none), two runs each (medians
printed):

- JVM heap: System.gc(), then every heap pool's peak reset (MemoryPoolMXBean.resetPeakUsage);
  after the operation the sum of the pools' peak used bytes ("peak"), and the heap used after
  another System.gc() ("kept", caches included);
- Python, this process (where hms's catalog runs): the peak resident size's growth over the
  resident size before (VmHWM reset through /proc/self/clear_refs, then VmHWM - VmRSS before:
  native allocations such as pyarrow's included), and in the round's second run tracemalloc's
  peak of Python allocations;
- ``total``: JVM peak + Python peak growth; the goal: hms's total <= the built-in's JVM peak.

The JVM's peak sums each pool's own peak: eden's is how much the operation allocated, up to the
young generation's size, so it reads as allocation volume more than as live data; ``kept`` is
what stays.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from peers import Py4jCounter, chosen, peers, plan_leaves
from postgres import Postgres, PostgresUnavailable
from scale_data import register_direct
from scale_memory import Jvm, Memory, memory_of

from hmscatalog.spark import attach

DB = "bench_scale"
CATALOGS = ("hms", "spark_catalog")
HOURS = 24
FIRST_DAY = datetime.date(2020, 1, 1)
RANGE_SHARE = 0.01  # the range query reads 1 % of the partitions: 42 days of 100,000
MSCK_NEW = 1000
ROWS = 10
FILE = "part-00000.parquet"
# Warm (the table unchanged since the last query), cold (hms: a catalog attached for the run;
# the built-in: after REFRESH TABLE), and the full scan after another process added a partition.
MEASUREMENTS = ("point", "range", "plan", "cold_point", "cold_range", "cold_plan", "fresh_plan",
                "msck")
# Ratio hms / built-in of the median time (the goals at 100,000 partitions).
GOALS = {"point": 0.5, "plan": 0.2, "cold_point": 0.9, "cold_range": 0.9, "cold_plan": 1.0}
MB = 1024 * 1024
def _spec(k: int) -> tuple[str, int]:
    """Partition k's values: (dt, hr)."""
    return (FIRST_DAY + datetime.timedelta(days=k // HOURS)).isoformat(), k % HOURS


# --- building ----------------------------------------------------------------------------


def _data_file(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"v": pa.array([0.25 * (i + 1) for i in range(ROWS)],
                                           pa.float64())}), path)


LINKS_PER_FILE = 50_000  # ext4 allows 65,000 hard links to a file


def _make_dirs(root: Path, source: Path, keys: range) -> None:
    """Partition directories ``dt=.../hr=...`` under ``root`` for ``keys``, each holding a hard
    link to a copy of ``source`` (a new copy every ``LINKS_PER_FILE`` links)."""
    target = source
    for n, k in enumerate(keys):
        if n % LINKS_PER_FILE == 0:  # a copy of its own for each table's run of links
            target = source.with_name(f"{source.stem}-{root.name}-{k}{source.suffix}")
            shutil.copyfile(source, target)
        dt, hr = _spec(k)
        directory = root / f"dt={dt}" / f"hr={hr}"
        directory.mkdir(parents=True, exist_ok=True)
        os.link(target, directory / FILE)


def _build(spark: Any, client: Any, work: Path, name: str, source: Path,
           partitions: int, db_uri: str | None) -> Path:
    """Create table ``name`` through the built-in catalog, make its ``partitions`` directories
    and register them (with ``db_uri``, the metastore's PostgreSQL database, by writing its
    tables directly: bench/scale_data.py; else through the Thrift client); print how long each
    step took. Returns the table's directory."""
    spark.sql(f"CREATE TABLE spark_catalog.{DB}.{name} (v DOUBLE) "
              "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET")
    table = client.get_table(DB, name)
    root = Path((table.location or "").removeprefix("file:"))
    began = time.perf_counter()
    _make_dirs(root, source, range(partitions))
    dirs_s = time.perf_counter() - began
    began = time.perf_counter()
    if db_uri is not None:
        # The statistics add_partitions writes for a directory holding the file.
        added = register_direct(db_uri, DB, name, (
            ([dt, str(hr)], f"file:{root}/dt={dt}/hr={hr}")
            for dt, hr in map(_spec, range(partitions))),
            parameters={"numFiles": "1", "totalSize": str(source.stat().st_size)})
    else:
        # The directories exist: no client-side creation, nor its check for registered ones.
        added = client.add_partitions(table, (client.new_partition(table, list(_spec(k)))
                                              for k in range(partitions)),
                                      create_local_dirs=False)
    registered_s = time.perf_counter() - began
    if added != partitions:
        raise SystemExit(f"{name}: registered {added} partitions, expected {partitions}")
    print(f"{name}: {partitions:,} directories in {dirs_s:.1f} s "
          f"({partitions / max(dirs_s, 1e-6):,.0f}/s), registered "
          f"{'in PostgreSQL' if db_uri else 'through Thrift'} in {registered_s:.1f} s "
          f"({partitions / max(registered_s, 1e-6):,.0f} partitions/s)", flush=True)
    return root


# Registers one partition through the Thrift client of another process ("another engine").
_ADD_ELSEWHERE = """
import sys
from hmscatalog.metastore.client import MetastoreClient
uri, db, name, dt, hr = sys.argv[1:]
with MetastoreClient(uri) as client:
    table = client.get_table(db, name)
    client.add_partitions(table, [client.new_partition(table, [dt, int(hr)])],
                          create_local_dirs=False)
"""


def _add_elsewhere(uri: str, root: Path, source: Path, k: int) -> None:
    _make_dirs(root, source, range(k, k + 1))
    dt, hr = _spec(k)
    subprocess.run([sys.executable, "-c", _ADD_ELSEWHERE, uri, DB, "t", dt, str(hr)],
                   check=True, timeout=300)


class Calls:
    """Metastore calls (the metastore's audit lines, ``cmd=``, in its log) and py4j commands
    of one run of an operation."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.py4j = Py4jCounter()

    def _lines(self) -> list[str]:
        return [line for line in self.log.read_text(errors="replace").splitlines()
                if "cmd=" in line]

    def of(self, run: Callable[[], Any]) -> tuple[dict[str, int], int]:
        before = len(self._lines())
        sent: list[tuple[int, int]] = []
        with self.py4j.counting(sent):
            run()
        time.sleep(0.5)  # the log's last lines
        called: dict[str, int] = {}
        for line in self._lines()[before:]:
            words = line.split("cmd=", 1)[1].split()  # "source:<ip> get_table : db=..."
            command = (words[1] if words[0].startswith("source:") and len(words) > 1
                       else words[0]).rstrip(":")
            if command not in ("get_next_notification", "get_current_notificationEventId"):
                called[command] = called.get(command, 0) + 1
            else:  # the follower's own polls run meanwhile; counted apart
                called["(log) " + command] = called.get("(log) " + command, 0) + 1
        return called, sent[0][0]


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Measured:
    first: dict[str, float] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=lambda: {c: [] for c in CATALOGS})
    results: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Memory] = field(default_factory=dict)
    run_results: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in CATALOGS})
    failed: dict[str, str] = field(default_factory=dict)  # a catalog's error, its first line

    def median(self, catalog: str) -> float:
        return statistics.median(self.times[catalog]) if self.times[catalog] else float("nan")


def _measure(prepare: Callable[[str], Callable[[], Any]], repeat: int, jvm: Jvm,
             memory_repeat: int, skipped: Sequence[str] = ()) -> Measured:
    """Time ``prepare(catalog)()`` (prepare itself untimed) for both catalogs (but
    ``skipped``), alternating, one warm-up and ``repeat`` runs; then the memory of
    ``memory_repeat`` more runs of each (the median of each figure)."""
    measured = Measured()
    for catalog in skipped:
        measured.failed[catalog] = "not run (--catalogs)"
    for run in range(repeat + 1):
        for catalog in CATALOGS if run % 2 == 0 else CATALOGS[::-1]:
            if catalog in measured.failed:
                continue
            operation = prepare(catalog)
            began = time.perf_counter()
            try:
                result = operation()
            except Exception as exc:  # an error is a result: recorded, not retried
                java = getattr(exc, "java_exception", None)  # py4j's: the JVM's own error
                text = str(java.toString()) if java is not None else str(exc)
                measured.failed[catalog] = (text.strip().splitlines() or [repr(exc)])[0]
                print(f"{catalog} failed after {time.perf_counter() - began:.1f} s: "
                      f"{measured.failed[catalog][:300]}", flush=True)
                continue
            elapsed = time.perf_counter() - began
            if run:
                measured.times[catalog].append(elapsed)
                measured.run_results[catalog].append(result)
            else:
                measured.first[catalog] = elapsed
            measured.results[catalog] = result
    samples: dict[str, list[Memory]] = {c: [] for c in CATALOGS}
    for _ in range(memory_repeat):
        for catalog in CATALOGS:
            if catalog in measured.failed:
                continue
            samples[catalog].append(memory_of(jvm, functools.partial(prepare, catalog)))
    for catalog, found in samples.items():
        if not found:
            continue
        measured.memory[catalog] = Memory(
            jvm_peak=int(statistics.median(m.jvm_peak for m in found)),
            jvm_kept=int(statistics.median(m.jvm_kept for m in found)),
            rss_growth=None if any(m.rss_growth is None for m in found)
            else int(statistics.median(m.rss_growth or 0 for m in found)),
            traced_peak=int(statistics.median(m.traced_peak for m in found)))
    return measured


def _plan(spark: Any, query: str) -> tuple[float, int]:
    """Plan ``query`` and compute what its scans read; the seconds ``executedPlan()`` took and
    the number of scans whose input was computed."""
    began = time.perf_counter()
    plan = spark.sql(query)._jdf.queryExecution().executedPlan()
    planned = time.perf_counter() - began
    scans = 0
    for leaf in plan_leaves(plan):
        kind = str(leaf.getClass().getSimpleName())
        if kind == "FileSourceScanExec":
            leaf.selectedPartitions()
            scans += 1
        elif kind == "BatchScanExec":
            leaf.inputPartitions()
            scans += 1
    if scans == 0:
        raise SystemExit(f"no scan found in the plan of {query}:\n{plan}")
    return planned, scans


def _rows(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(tuple(round(v, 6) if isinstance(v, float) else v for v in row)
                  for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", choices=("postgres", "derby"), default="postgres")
    parser.add_argument("--only", default=",".join(MEASUREMENTS),
                        help=f"comma-separated measurements, of {', '.join(MEASUREMENTS)}")
    parser.add_argument("--msck-base", type=int, default=None,
                        help="partitions registered in each MSCK table before the runs "
                             "(default: --partitions)")
    parser.add_argument("--driver-memory", default="2g", help="spark.driver.memory")
    parser.add_argument("--metastore-heap", default="2g", help="the metastore JVM's -Xmx")
    parser.add_argument("--memory-repeat", type=int, default=1,
                        help="runs of each measurement whose driver memory is measured "
                             "(medians printed)")
    parser.add_argument("--register", choices=("direct", "thrift"), default="direct",
                        help="register the partitions by writing the metastore's PostgreSQL "
                             "tables (bench/scale_data.py; the default) or through Thrift")
    parser.add_argument("--catalogs", default=",".join(CATALOGS),
                        help="comma-separated catalogs to run, of hms, spark_catalog (one "
                             "alone: where the other's failure ends the driver, as the "
                             "built-in's OutOfMemoryError at 1,000,000 partitions does)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (tables' files, metastore log)")
    args = parser.parse_args()
    only = chosen(parser, args.only, list(MEASUREMENTS), "measurement")
    args.catalogs = chosen(parser, args.catalogs, list(CATALOGS), "catalog")
    if min(args.partitions, args.repeat) < 1 or min(args.msck_base or 0,
                                                    args.memory_repeat) < 0:
        parser.error("--partitions and --repeat must be at least 1, --memory-repeat (0: no "
                     "memory rounds) and --msck-base at least 0")
    msck_base = args.partitions if args.msck_base is None else args.msck_base

    cleanup: list[Callable[[], None]] = []
    _stop_on_signal(cleanup)
    started = time.perf_counter()
    work: Path | None = None
    try:
        cluster = Postgres() if args.db == "postgres" else None
    except PostgresUnavailable as exc:
        raise SystemExit(str(exc)) from None
    try:
        if cluster is not None:
            cleanup.append(cluster.stop)
            cluster.start()
            cluster.create_database("hms")
        print(f"metastore database: {'PostgreSQL' if cluster else 'Derby'}; driver memory "
              f"{args.driver_memory}, metastore heap {args.metastore_heap}", flush=True)
        with peers("scale", db=cluster.uri("hms") if cluster else "derby",
                   conf={"spark.driver.memory": args.driver_memory},
                   metastore_heap=args.metastore_heap) as (work, spark, hms):
            if not args.keep:
                cleanup.append(functools.partial(shutil.rmtree, work, ignore_errors=True))
            code = _run(spark, hms.client, work, args, only, msck_base,
                        cluster.uri("hms") if cluster and args.register == "direct" else None)
    finally:
        if cluster is not None:
            cluster.stop()
        if work is not None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"whole run: {time.perf_counter() - started:.0f} s")
    return code


def _children() -> list[int]:
    """This process's child processes (the metastore's JVM, Spark's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{os.getpid()}\n" in status:
                found.append(int(entry.name))
    return found


def _stop_on_signal(cleanup: list[Callable[[], None]]) -> None:
    """On SIGTERM or SIGHUP: end this process's child processes (TERM, then KILL after 10 s),
    run ``cleanup`` (PostgreSQL, the work directory; last added first) and exit. A thread of
    its own does it, woken through the signal wake-up fd: the main thread may be blocked in a
    call into the JVM, where no Python signal handler runs."""
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: None)

    def wait() -> None:
        assert writer.fileno() >= 0  # the closure keeps the wake-up fd's socket open
        received = reader.recv(1)
        if not received:  # closed: this process is exiting
            return
        signum = received[0]
        print(f"\nsignal {signum}: stopping the metastore, Spark and PostgreSQL",
              file=sys.stderr, flush=True)
        # The main thread's calls fail as their servers go: not worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
        children = _children()
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while children and time.monotonic() < deadline:
            time.sleep(0.2)
            children = [pid for pid in children if Path(f"/proc/{pid}").exists()
                        and "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()]
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for step in reversed(cleanup):
            with contextlib.suppress(Exception):
                step()
        os._exit(128 + signum)

    threading.Thread(target=wait, name="stop-on-signal", daemon=True).start()


def _run(spark: Any, client: Any, work: Path, args: Any, only: list[str],
         msck_base: int, db_uri: str | None) -> int:
    print(f"work directory: {work}{' (kept)' if args.keep else ''}", flush=True)
    client.create_database(DB, location=f"file:{work / 'db'}")
    source = work / FILE
    _data_file(source)
    partitions = args.partitions
    root = Path()
    if set(only) - {"msck"}:
        root = _build(spark, client, work, "t", source, partitions, db_uri)
    msck_roots: dict[str, Path] = {}
    if "msck" in only:
        for catalog, name in (("hms", "t_msck_hms"), ("spark_catalog", "t_msck_builtin")):
            msck_roots[catalog] = _build(spark, client, work, name, source, msck_base, db_uri)

    point_dt, point_hr = _spec(partitions // 2)
    days = (partitions + HOURS - 1) // HOURS
    range_days = max(1, round(partitions * RANGE_SHARE / HOURS))
    first_day = max(0, days // 2 - range_days // 2)
    last_day = min(days - 1, first_day + range_days - 1)
    low, high = _spec(first_day * HOURS)[0], _spec(last_day * HOURS)[0]
    in_range = min(partitions, (last_day + 1) * HOURS) - first_day * HOURS
    queries = {
        "point": "SELECT count(*), sum(v) FROM {c}." + DB + ".t "
                 f"WHERE dt = '{point_dt}' AND hr = {point_hr}",
        "range": "SELECT count(*), sum(v) FROM {c}." + DB + ".t "
                 f"WHERE dt BETWEEN '{low}' AND '{high}'",
        "plan": "SELECT count(*), sum(v) FROM {c}." + DB + ".t",
    }
    expected = {"point": ROWS, "range": ROWS * in_range}
    labels = {"point": "point query (1 partition)",
              "range": f"range ({in_range:,} partitions)",
              "plan": f"full-scan planning ({partitions:,})",
              "msck": f"MSCK +{MSCK_NEW:,} (base {msck_base:,})"}
    for shape in ("point", "range", "plan"):
        labels[f"cold_{shape}"] = f"cold: {labels[shape]}"
    labels["fresh_plan"] = "full scan after another engine's +1"
    jvm = Jvm(spark)
    calls = Calls(work / "metastore" / "metastore.log")
    uri = client.uris[0]
    msck_next = {catalog: msck_base for catalog in msck_roots}
    extra = [partitions]  # the next partition another engine adds
    cold: list[Any] = []  # the catalogs attached for cold runs

    def attach_cold() -> str:
        for earlier in cold:  # a cold catalog serves one run: it lets go of what it holds
            if earlier.cache.follower is not None:
                earlier.cache.follower.stop()
            earlier.cache.clear()
            earlier.forget_listings(None)
        name = f"hms_cold{len(cold)}"
        cold.append(attach(spark, name=name, uri=uri))
        return name

    def prepare(measurement: str) -> Callable[[str], Callable[[], Any]]:
        shape = measurement.removeprefix("cold_").removeprefix("fresh_")

        def for_catalog(catalog: str) -> Callable[[], Any]:
            if measurement == "msck":
                name = "t_msck_hms" if catalog == "hms" else "t_msck_builtin"
                start = msck_next[catalog]
                _make_dirs(msck_roots[catalog], source, range(start, start + MSCK_NEW))
                msck_next[catalog] = start + MSCK_NEW
                statement = f"MSCK REPAIR TABLE {catalog}.{DB}.{name}"
                return lambda: spark.sql(statement).collect()
            if measurement.startswith("cold_"):
                if catalog == "hms":
                    catalog = attach_cold()
                else:
                    spark.sql(f"REFRESH TABLE spark_catalog.{DB}.t")
            if measurement == "fresh_plan":
                _add_elsewhere(uri, root, source, extra[0])
                extra[0] += 1
            query = queries[shape].format(c=catalog)
            if shape == "plan":
                return functools.partial(_plan, spark, query)
            return lambda: _rows(spark.sql(query).collect())
        return for_catalog

    differ: list[str] = []
    report: dict[str, Measured] = {}
    counted: dict[str, dict[str, tuple[dict[str, int], int]]] = {}
    for measurement in only:
        began = time.perf_counter()
        measured = _measure(prepare(measurement), args.repeat, jvm, args.memory_repeat,
                            [c for c in CATALOGS if c not in args.catalogs])
        report[measurement] = measured
        counted[measurement] = {c: calls.of(prepare(measurement)(c)) for c in CATALOGS
                                if c not in measured.failed}
        print(f"{measurement}: measured in {time.perf_counter() - began:.1f} s", flush=True)
        # Each measurement's figures at once: a later one may fail (a JVM out of memory).
        _print({measurement: measured}, {measurement: counted[measurement]}, labels, args,
               partitions)
        shape = measurement.removeprefix("cold_")
        if shape in expected and not measured.failed:
            results = measured.results
            if results["hms"] != results["spark_catalog"]:
                differ.append(f"{measurement}: results differ: {results}")
            elif results["hms"][0][0] != expected[shape]:
                differ.append(f"{measurement}: count {results['hms'][0][0]}, expected "
                              f"{expected[shape]}: {results}")
        if measurement == "msck":
            for catalog, name in (("hms", "t_msck_hms"), ("spark_catalog", "t_msck_builtin")):
                registered = len(client.list_partition_names(DB, name))
                if registered != msck_next[catalog]:
                    differ.append(f"msck: {name} has {registered:,} partitions after MSCK "
                                  f"through {catalog}, expected {msck_next[catalog]:,}")
    _print(report, counted, labels, args, partitions)
    for line in differ:
        print(f"ERROR: {line}", file=sys.stderr)
    return 1 if differ else 0


def _print(report: dict[str, Measured], counted: dict[str, Any], labels: dict[str, str],
           args: Any, partitions: int) -> None:
    print(f"\n{partitions:,} partitions, metastore on "
          f"{'PostgreSQL' if args.db == 'postgres' else 'Derby'}; seconds, median of "
          f"{args.repeat} after a warm-up (first: the warm-up run)")
    print(f"{'measurement':38} {'hms':>8} {'built-in':>9} {'hms/built-in':>13} {'goal':>12} "
          f"{'first hms':>10} {'built-in':>9}")
    for measurement, measured in report.items():
        ours, theirs = measured.median("hms"), measured.median("spark_catalog")
        goal = GOALS.get(measurement)
        verdict = "" if goal is None or measured.failed else (
            f"<={goal}x " + ("met" if ours / theirs <= goal else "NOT met"))
        first = {c: measured.first.get(c, float("nan")) for c in CATALOGS}
        print(f"{labels[measurement]:38} {ours:8.3f} {theirs:9.3f} {ours / theirs:12.2f}x "
              f"{verdict:>12} {first['hms']:10.3f} {first['spark_catalog']:9.3f}")
        for catalog, error in measured.failed.items():
            print(f"  {catalog} failed: {error[:400]}")
        if measurement.endswith("plan") and not measured.failed:
            alone = {c: statistics.median(r[0] for r in measured.run_results[c])
                     for c in CATALOGS}
            print(f"{'  of which executedPlan() alone':38} {alone['hms']:8.3f} "
                  f"{alone['spark_catalog']:9.3f}")

    print("\nper query, one more run of each: metastore calls (the metastore's audit log; "
          "'(log)': the notification log's, the follower's polls included) and py4j commands")
    for measurement, by_catalog in counted.items():
        for catalog, (called, py4j) in by_catalog.items():
            text = ", ".join(f"{name} {n}" for name, n in sorted(called.items())) or "none"
            print(f"{labels[measurement]:38} {catalog:14} py4j {py4j:6,}  calls: {text}")

    print("\ndriver memory, MB: JVM heap peak (sum of heap pools' peaks, after System.gc() and "
          "a reset) and kept after another System.gc(); Python (this process) peak resident "
          "growth (VmHWM - VmRSS before) and tracemalloc peak; total = JVM peak + Python growth")
    print(f"{'measurement':38} {'JVM peak hms':>12} {'built-in':>9} {'kept hms':>9} "
          f"{'built-in':>9} {'Py RSS hms':>11} {'built-in':>9} {'traced hms':>11} "
          f"{'built-in':>9} {'total hms':>10} {'built-in':>9} {'ratio':>6}")

    def mb(value: int | None) -> str:
        return "n/a" if value is None else f"{value / MB:.0f}"

    for measurement, measured in report.items():
        if not measured.memory:
            continue
        # A catalog that failed or did not run has no figures ("n/a") and the row no ratio.
        mine, builtin = (measured.memory.get(c) for c in CATALOGS)
        ratio = mine.total / builtin.jvm_peak if mine and builtin and builtin.jvm_peak else None
        figures = [mb(getattr(m, name) if m else None)
                   for name in ("jvm_peak", "jvm_kept", "rss_growth", "traced_peak", "total")
                   for m in (mine, builtin)]
        widths = (12, 9, 9, 9, 11, 9, 11, 9, 10, 9)
        print(f"{labels[measurement]:38} "
              + " ".join(f"{text:>{width}}" for text, width in zip(figures, widths, strict=True))
              + (f" {ratio:5.2f}x" if ratio is not None else "   n/a"))
    print("ratio: hms total / built-in JVM peak (goal <= 1.00x)")


if __name__ == "__main__":
    raise SystemExit(main())
