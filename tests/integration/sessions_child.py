"""Spark Connect clients of tests/sessions_load.py in a process of their own (a Connect session
cannot share a process with the tests' classic SparkSession):

    python sessions_child.py sc://localhost:PORT CATALOG DB TABLE CLIENTS ROUNDS

runs CLIENTS sessions at once, each in a thread, and prints one JSON object: ``statements``,
``errors`` (first line -> count) and ``wrong`` (the wrong answers)."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sessions_load import ConnectClient, Load, Tally, run_clients


def main() -> None:
    url, catalog, db, table, clients, rounds = sys.argv[1:7]
    load = Load(catalog, db, table)
    with ThreadPoolExecutor(8) as pool:  # a Connect session takes a second or two to make
        sessions = list(pool.map(ConnectClient, [url] * int(clients)))
    tally = Tally()
    try:
        run_clients(sessions, int(rounds), load, tally,
                    begin=("SET hive.exec.dynamic.partition.mode=nonstrict",))
    finally:
        for session in sessions:
            session.close()
    print(json.dumps({"statements": tally.statements, "errors": dict(tally.errors),
                      "wrong": tally.wrong}))


if __name__ == "__main__":
    main()
