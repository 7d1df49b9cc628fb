"""Scale: `hms` against Spark's built-in Hive catalog on a table of 100,000 partitions, in one
run, on a PostgreSQL-backed metastore.

    .venv/bin/python bench/scale.py [--partitions 100000] [--repeat 5] [--db postgres|derby]
        [--only point,range,plan,msck] [--msck-base N] [--memory-repeat 3]
        [--driver-memory 2g] [--metastore-heap 2g] [--keep]

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
are registered with hmscatalog's client (``add_partitions``, batches of 1,000). Printed: how
long making the directories and registering took, per table, and the rates.

Measured, each alternating the two catalogs (order swapped every run), after one warm-up run
whose time is printed as ``first``, ``--repeat`` times; medians and the ratio hms / built-in:

- ``point``: ``SELECT count(*), sum(v) ... WHERE dt = ... AND hr = ...`` (collect);
- ``range``: the same over 42 days (1,008 partitions), ``dt BETWEEN`` two dates (collect);
- ``plan``: planning an unfiltered ``SELECT count(*), sum(v)``, nothing executed:
  ``executedPlan()`` of a new DataFrame, then what each scan of that plan reads, which running
  it would compute first (the built-in's ``FileSourceScanExec.selectedPartitions``: the
  metastore's partitions and the files of each; hms's ``BatchScanExec.inputPartitions``). The
  built-in lists nothing in ``executedPlan()`` itself, so that alone would compare hms's
  listing with none; the time of ``executedPlan()`` alone is printed too;
- ``msck``: ``MSCK REPAIR TABLE`` after 1,000 new partition directories appear. Each catalog
  repairs its own table (``t_msck_hms``, ``t_msck_builtin``: ``--msck-base`` partitions
  registered, default ``--partitions``), new directories every run.

Results of ``point`` and ``range`` must be identical through both catalogs (exit 1 if not).

Driver memory, for each measurement and catalog, in ``--memory-repeat`` more rounds after the
timed runs (so the timings carry no measuring overhead), two runs each (medians printed):

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
import gc
import os
import shutil
import signal
import socket
import statistics
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from peers import chosen, peers, plan_leaves
from postgres import Postgres, PostgresUnavailable

DB = "bench_scale"
CATALOGS = ("hms", "spark_catalog")
HOURS = 24
FIRST_DAY = datetime.date(2020, 1, 1)
RANGE_DAYS = 42  # 1,008 partitions
MSCK_NEW = 1000
ROWS = 10
FILE = "part-00000.parquet"
MEASUREMENTS = ("point", "range", "plan", "msck")
GOALS = {"point": 0.9, "plan": 0.5}  # ratio hms / built-in of the median time
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
           partitions: int) -> Path:
    """Create table ``name`` through the built-in catalog, make its ``partitions`` directories
    and register them; print how long each step took. Returns the table's directory."""
    spark.sql(f"CREATE TABLE spark_catalog.{DB}.{name} (v DOUBLE) "
              "PARTITIONED BY (dt STRING, hr INT) STORED AS PARQUET")
    table = client.get_table(DB, name)
    root = Path((table.location or "").removeprefix("file:"))
    began = time.perf_counter()
    _make_dirs(root, source, range(partitions))
    dirs_s = time.perf_counter() - began
    began = time.perf_counter()
    # The directories exist: no client-side creation, nor its check for registered ones.
    added = client.add_partitions(table, (client.new_partition(table, list(_spec(k)))
                                          for k in range(partitions)),
                                  create_local_dirs=False)
    registered_s = time.perf_counter() - began
    if added != partitions:
        raise SystemExit(f"{name}: registered {added} partitions, expected {partitions}")
    print(f"{name}: {partitions:,} directories in {dirs_s:.1f} s "
          f"({partitions / max(dirs_s, 1e-6):,.0f}/s), registered in {registered_s:.1f} s "
          f"({partitions / max(registered_s, 1e-6):,.0f} partitions/s)", flush=True)
    return root


# --- memory ------------------------------------------------------------------------------


class Jvm:
    """The driver JVM's heap pools, through py4j."""

    def __init__(self, spark: Any) -> None:
        factory = spark._jvm.java.lang.management.ManagementFactory
        self.memory = factory.getMemoryMXBean()
        self.pools = [p for p in factory.getMemoryPoolMXBeans()
                      if str(p.getType().name()) == "HEAP"]

    def gc(self) -> int:
        """Collect (twice: a full collection may leave what finalizers free); heap used after."""
        self.memory.gc()
        self.memory.gc()
        return int(self.memory.getHeapMemoryUsage().getUsed())

    def reset_peaks(self) -> None:
        for pool in self.pools:
            pool.resetPeakUsage()

    def peak(self) -> int:
        return sum(int(pool.getPeakUsage().getUsed()) for pool in self.pools)


def _proc_status(key: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _reset_hwm() -> bool:
    """Reset this process's peak resident size (Linux 4.0+); whether that worked."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


@dataclass
class Memory:
    jvm_peak: int = 0
    jvm_kept: int = 0
    rss_growth: int | None = None
    traced_peak: int = 0

    @property
    def total(self) -> int:
        return self.jvm_peak + (self.rss_growth or 0)


def _memory(jvm: Jvm, prepare: Callable[[], Callable[[], Any]]) -> Memory:
    """The driver memory an operation takes (JVM heap and this process's resident size), then
    tracemalloc's peak over another: ``prepare()`` (not measured) returns each."""
    found = Memory()
    run = prepare()
    gc.collect()
    jvm.gc()
    rss_before = _proc_status("VmRSS")
    hwm = _reset_hwm()
    jvm.reset_peaks()
    run()
    found.jvm_peak = jvm.peak()
    if hwm:
        found.rss_growth = max(0, _proc_status("VmHWM") - rss_before)
    gc.collect()
    found.jvm_kept = jvm.gc()
    run = prepare()
    tracemalloc.start()
    try:
        run()
        found.traced_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return found


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Measured:
    first: dict[str, float] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=lambda: {c: [] for c in CATALOGS})
    results: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Memory] = field(default_factory=dict)
    run_results: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in CATALOGS})

    def median(self, catalog: str) -> float:
        return statistics.median(self.times[catalog])


def _measure(prepare: Callable[[str], Callable[[], Any]], repeat: int, jvm: Jvm,
             memory_repeat: int) -> Measured:
    """Time ``prepare(catalog)()`` (prepare itself untimed) for both catalogs, alternating,
    one warm-up and ``repeat`` runs; then the memory of ``memory_repeat`` more runs of each
    (the median of each figure)."""
    measured = Measured()
    for run in range(repeat + 1):
        for catalog in CATALOGS if run % 2 == 0 else CATALOGS[::-1]:
            operation = prepare(catalog)
            began = time.perf_counter()
            result = operation()
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
            samples[catalog].append(_memory(jvm, functools.partial(prepare, catalog)))
    for catalog, found in samples.items():
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
    parser.add_argument("--memory-repeat", type=int, default=3,
                        help="runs of each measurement whose driver memory is measured "
                             "(medians printed)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (tables' files, metastore log)")
    args = parser.parse_args()
    only = chosen(parser, args.only, list(MEASUREMENTS), "measurement")
    if min(args.partitions, args.repeat, args.memory_repeat) < 1 or (args.msck_base or 0) < 0:
        parser.error("--partitions, --repeat and --memory-repeat must be at least 1, "
                     "--msck-base at least 0")
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
            code = _run(spark, hms.client, work, args, only, msck_base)
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
         msck_base: int) -> int:
    print(f"work directory: {work}{' (kept)' if args.keep else ''}", flush=True)
    client.create_database(DB, location=f"file:{work / 'db'}")
    source = work / FILE
    _data_file(source)
    partitions = args.partitions
    if {"point", "range", "plan"} & set(only):
        _build(spark, client, work, "t", source, partitions)
    msck_roots: dict[str, Path] = {}
    if "msck" in only:
        for catalog, name in (("hms", "t_msck_hms"), ("spark_catalog", "t_msck_builtin")):
            msck_roots[catalog] = _build(spark, client, work, name, source, msck_base)

    point_dt, point_hr = _spec(partitions // 2)
    days = (partitions + HOURS - 1) // HOURS
    first_day = max(0, days // 2 - RANGE_DAYS // 2)
    last_day = min(days - 1, first_day + RANGE_DAYS - 1)
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
    jvm = Jvm(spark)
    msck_next = {catalog: msck_base for catalog in msck_roots}

    def prepare(measurement: str) -> Callable[[str], Callable[[], Any]]:
        def for_catalog(catalog: str) -> Callable[[], Any]:
            if measurement == "plan":
                return functools.partial(_plan, spark, queries["plan"].format(c=catalog))
            if measurement == "msck":
                name = "t_msck_hms" if catalog == "hms" else "t_msck_builtin"
                start = msck_next[catalog]
                _make_dirs(msck_roots[catalog], source, range(start, start + MSCK_NEW))
                msck_next[catalog] = start + MSCK_NEW
                statement = f"MSCK REPAIR TABLE {catalog}.{DB}.{name}"
                return lambda: spark.sql(statement).collect()
            query = queries[measurement].format(c=catalog)
            return lambda: _rows(spark.sql(query).collect())
        return for_catalog

    differ: list[str] = []
    report: dict[str, Measured] = {}
    for measurement in only:
        began = time.perf_counter()
        measured = _measure(prepare(measurement), args.repeat, jvm, args.memory_repeat)
        report[measurement] = measured
        print(f"{measurement}: measured in {time.perf_counter() - began:.1f} s", flush=True)
        if measurement in expected:
            results = measured.results
            if results["hms"] != results["spark_catalog"]:
                differ.append(f"{measurement}: results differ: {results}")
            elif results["hms"][0][0] != expected[measurement]:
                differ.append(f"{measurement}: count {results['hms'][0][0]}, expected "
                              f"{expected[measurement]}: {results}")
        if measurement == "msck":
            for catalog, name in (("hms", "t_msck_hms"), ("spark_catalog", "t_msck_builtin")):
                registered = len(client.list_partition_names(DB, name))
                if registered != msck_next[catalog]:
                    differ.append(f"msck: {name} has {registered:,} partitions after MSCK "
                                  f"through {catalog}, expected {msck_next[catalog]:,}")

    print(f"\n{partitions:,} partitions, metastore on "
          f"{'PostgreSQL' if args.db == 'postgres' else 'Derby'}; seconds, median of "
          f"{args.repeat} after a warm-up (first: the warm-up run)")
    print(f"{'measurement':34} {'hms':>8} {'built-in':>9} {'hms/built-in':>13} {'goal':>7} "
          f"{'first hms':>10} {'built-in':>9}")
    for measurement, measured in report.items():
        ours, theirs = measured.median("hms"), measured.median("spark_catalog")
        goal = GOALS.get(measurement)
        verdict = "" if goal is None else (f"<={goal}x " + ("met" if ours / theirs <= goal
                                                             else "NOT met"))
        print(f"{labels[measurement]:34} {ours:8.3f} {theirs:9.3f} {ours / theirs:12.2f}x "
              f"{verdict:>7} {measured.first['hms']:10.3f} "
              f"{measured.first['spark_catalog']:9.3f}")
        if measurement == "plan":
            alone = {c: statistics.median(r[0] for r in measured.run_results[c])
                     for c in CATALOGS}
            print(f"{'  of which executedPlan() alone':34} {alone['hms']:8.3f} "
                  f"{alone['spark_catalog']:9.3f}")

    print("\ndriver memory, MB: JVM heap peak (sum of heap pools' peaks, after System.gc() and "
          "a reset) and kept after another System.gc(); Python (this process) peak resident "
          "growth (VmHWM - VmRSS before) and tracemalloc peak; total = JVM peak + Python growth")
    print(f"{'measurement':34} {'JVM peak hms':>12} {'built-in':>9} {'kept hms':>9} "
          f"{'built-in':>9} {'Py RSS hms':>11} {'built-in':>9} {'traced hms':>11} "
          f"{'built-in':>9} {'total hms':>10} {'built-in':>9} {'ratio':>6}")

    def mb(value: int | None) -> str:
        return "n/a" if value is None else f"{value / MB:.0f}"

    for measurement, measured in report.items():
        mine, builtin = measured.memory["hms"], measured.memory["spark_catalog"]
        ratio = mine.total / builtin.jvm_peak if builtin.jvm_peak else float("nan")
        print(f"{labels[measurement]:34} {mb(mine.jvm_peak):>12} {mb(builtin.jvm_peak):>9} "
              f"{mb(mine.jvm_kept):>9} {mb(builtin.jvm_kept):>9} {mb(mine.rss_growth):>11} "
              f"{mb(builtin.rss_growth):>9} {mb(mine.traced_peak):>11} "
              f"{mb(builtin.traced_peak):>9} {mb(mine.total):>10} {mb(builtin.total):>9} "
              f"{ratio:5.2f}x")
    print("ratio: hms total / built-in JVM peak (goal <= 1.00x)")
    for line in differ:
        print(f"ERROR: {line}", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
