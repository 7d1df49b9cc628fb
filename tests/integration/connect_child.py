"""A Spark Connect client in a process of its own (a Connect session cannot share a process with
the tests' classic SparkSession): ``python connect_child.py sc://...`` reads a JSON list of
steps on stdin and prints one JSON list of results.

A step is ``[session, "sql", text]`` (its rows) or ``[session, "append", table, rows, schema]``
(``DataFrame.writeTo(table).append()``); ``session`` names a client session, made on first use
(``SparkSession.builder.remote(url).create()``). A step that fails gives ``{"error": line,
"message": text}``, the first line of what the client raised and all of it; the steps go on.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def main() -> None:
    from pyspark.sql import SparkSession

    url = sys.argv[1]
    sessions: dict[str, Any] = {}
    results: list[Any] = []
    for name, kind, *rest in json.load(sys.stdin):
        try:
            if name not in sessions:
                sessions[name] = SparkSession.builder.remote(url).create()
            session = sessions[name]
            if kind == "sql":
                results.append([list(row) for row in session.sql(rest[0]).collect()])
            else:
                table, rows, schema = rest
                session.createDataFrame([tuple(row) for row in rows], schema).writeTo(
                    table).append()
                results.append([])
        except Exception as exc:
            lines = str(exc).strip().splitlines() or [type(exc).__name__]
            results.append({"error": lines[0], "message": str(exc)})
    for session in sessions.values():
        session.stop()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
