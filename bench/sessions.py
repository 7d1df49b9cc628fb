"""Many sessions: throughput and latency of concurrent clients of one ``hmscatalog serve``, on
catalog ``hms`` and on Spark's built-in Hive catalog of the same server, in one run.

    .venv/bin/python bench/sessions.py [--protocol hs2|connect] [--clients 1,8,32,64]
        [--rounds 3] [--master local[2]] [--db derby|postgres] [--writer]
        [--conf KEY=VALUE ...] [--keep]

One embedded metastore (Derby, or a throwaway PostgreSQL cluster with ``--db postgres``) and one
``hmscatalog serve`` in a child process whose session also has the built-in catalog on that
metastore (``spark.sql.catalogImplementation=hive``). After a warm-up (two clients, one round, on
each catalog; not measured), for each number of clients, in turn for each catalog (the order
swapped at every step), a fresh table: that many clients at once, each a session of its own (pyhive
over HiveServer2, or Spark Connect), run ``--rounds`` rounds of the workload of
tests/sessions_load.py (17 statements a round on hms, 16 on the built-in, which has no
``flush_metadata_cache``: static, dynamic and overwriting inserts, pruned reads, ADD/DROP
PARTITION, ALTER TABLE, REFRESH), every answer checked. ``--writer`` adds a background writer
appending through the other catalog of the server meanwhile.

Printed per step: statements per second (all clients' statements over the wall time), p50 and p99
latency of one statement, failed statements and wrong answers (and rows whose INSERT returned but
which the table does not hold); then the ratio of hms's throughput to the built-in's. Exit 1 if an
answer through hms was wrong or its table's totals do not hold (the built-in's failures and wrong
answers are printed, and counted, as results).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))

from serving import serve
from sessions_load import (
    ConnectClient,
    Hs2Client,
    Load,
    Tally,
    background_writer,
    create,
    run_clients,
    totals_hold,
)

from hmscatalog.metastore import server

BEGIN = ("SET hive.exec.dynamic.partition.mode=nonstrict",)
CATALOGS = {"hms": "hms", "builtin": "spark_catalog"}


@contextlib.contextmanager
def serving(uri: str, work: Path, protocol: str, master: str,
            conf: list[str]) -> Iterator[int]:
    """``hmscatalog serve`` of ``protocol`` with the built-in catalog on ``uri`` too, and the
    settings ``conf`` (``KEY=VALUE``); its port."""
    server_process = serve(uri, work, "--protocol", protocol, "--master", master,
                           *[option for setting in conf for option in ("--conf", setting)],
                           "--conf", "spark.sql.catalogImplementation=hive",
                           "--conf", f"spark.hadoop.hive.metastore.uris={uri}",
                           "--conf", f"spark.sql.warehouse.dir={work / 'warehouse'}",
                           "--conf", "spark.ui.enabled=false",
                           "--conf", "spark.sql.shuffle.partitions=2")
    try:
        yield int(next(server_process).args[-1])
    finally:
        server_process.close()  # stops it


def _client(protocol: str, port: int) -> Any:
    return Hs2Client(port) if protocol == "hs2" else ConnectClient(f"sc://localhost:{port}")


def step(protocol: str, port: int, load: Load, clients: int, rounds: int,
         writer: Load | None) -> tuple[Tally, float, list[str]]:
    """One measured step; (tally, wall seconds, problems with the table's totals)."""
    admin = _client(protocol, port)
    try:
        admin.sql(f"CREATE DATABASE IF NOT EXISTS {load.catalog}.{load.db}")
        create(admin.sql, load)
        sessions = [_client(protocol, port) for _ in range(clients)]
        tally, written, stop = Tally(), list[int](), threading.Event()
        background = None
        if writer is not None:
            writer_client = _client(protocol, port)
            background = threading.Thread(target=background_writer, args=(
                writer_client.sql, writer, stop, written, tally))
            background.start()
        try:
            wall = run_clients(sessions, rounds, load, tally, begin=BEGIN)
        finally:
            stop.set()
            if background is not None:
                background.join()
                writer_client.close()
            for session in sessions:
                session.close()
        problems = totals_hold(admin.sql, load, range(clients), rounds, tally, written)
        return tally, wall, problems
    finally:
        admin.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", choices=("hs2", "connect"), default="hs2")
    parser.add_argument("--clients", default="1,8,32,64")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--db", choices=("derby", "postgres"), default="derby")
    parser.add_argument("--catalogs", default="hms,builtin")
    parser.add_argument("--writer", action="store_true")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of the server's session (repeatable)")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    counts = [int(n) for n in args.clients.split(",")]
    catalogs = args.catalogs.split(",")
    work = Path(tempfile.mkdtemp(prefix="hmscatalog-bench-sessions-"))
    failed = False
    with contextlib.ExitStack() as stack:
        db = "derby"
        if args.db == "postgres":
            from postgres import Postgres
            cluster = Postgres()
            stack.callback(cluster.stop)
            cluster.start()
            cluster.create_database("metastore")
            db = cluster.uri("metastore")
        info = server.start(port=0, data_dir=work / "metastore", db=db, heap="2g")
        stack.callback(server.stop, work / "metastore")
        port = stack.enter_context(serving(info.uri, work, args.protocol, args.master,
                                             args.conf))
        print(f"serve --protocol {args.protocol} --master {args.master}, metastore on "
              f"{args.db}, {args.rounds} rounds per client"
              + "".join(f", --conf {setting}" for setting in args.conf), flush=True)
        print("clients | catalog | statements | wall s | stmts/s | p50 ms | p99 ms | failed | "
              "wrong", flush=True)
        for name in catalogs:  # warm-up, not measured: the server's JIT, both catalogs' paths
            step(args.protocol, port, Load(CATALOGS[name], f"bench_{name}", "warmup",
                                           procedures=name == "hms"), 2, 1, None)
        for i, clients in enumerate(counts):
            rates = {}
            order = catalogs if i % 2 == 0 else catalogs[::-1]
            for name in order:
                load = Load(CATALOGS[name], f"bench_{name}", f"t{clients}",
                            procedures=name == "hms")
                other = [n for n in catalogs if n != name]
                writer = (Load(CATALOGS[other[0]], load.db, load.table, False)
                          if args.writer and other else None)
                tally, wall, problems = step(args.protocol, port, load, clients, args.rounds,
                                             writer)
                lat = sorted(tally.latencies)
                p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
                rates[name] = tally.statements / wall
                print(f"{clients} | {name} | {tally.statements} | {wall:.1f} | "
                      f"{rates[name]:.2f} | {statistics.median(lat) * 1000:.0f} | "
                      f"{p99 * 1000:.0f} | {sum(tally.errors.values())} | {len(tally.wrong)}",
                      flush=True)
                if clients == 1:  # where a lone client's time goes
                    print("  median ms by statement: " + ", ".join(
                        f"{k} {statistics.median(v) * 1000:.0f}"
                        for k, v in sorted(tally.by_kind.items())), flush=True)
                if tally.errors or tally.wrong or problems:
                    print(tally.summary(), *problems, sep="\n", flush=True)
                # The built-in's wrong answers are a finding about it, not a failed run.
                failed |= name == "hms" and bool(tally.wrong or problems)
            if len(rates) == 2:
                print(f"{clients} clients: hms / built-in throughput = "
                      f"{rates['hms'] / rates['builtin']:.2f}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
