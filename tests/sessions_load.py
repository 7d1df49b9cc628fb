"""Many sessions on one table at once: the workload of tests/integration/test_many_sessions.py
and bench/sessions.py.

Every client ``c`` runs ``rounds`` rounds of the same statements on one partitioned table
(``v BIGINT`` PARTITIONED BY ``p STRING``), each answer checked exactly as it comes:

- a static INSERT into a partition of its own (``o<c>``) and a pruned count and sum of it;
- a static INSERT into the partition every client writes (``shared``), and pruned reads of its
  own rows there, by value and by range;
- a dynamic INSERT (``PARTITION (p)``) into ``d<c>``, read back;
- an INSERT OVERWRITE of ``w<c>`` (two rows each time, never more);
- ADD PARTITION, SHOW PARTITIONS of it, DROP PARTITION;
- ALTER TABLE SET TBLPROPERTIES (one value every client sets) and SHOW TBLPROPERTIES;
- REFRESH TABLE, and with ``procedures`` ``CALL <catalog>.system.flush_metadata_cache``;
- a read of two of its partitions at once.

A background writer (:func:`background_writer`) appends to partition ``bw`` meanwhile, through
another catalog or session. :func:`totals_hold` checks the whole table afterwards: every row
every client and the writer said they wrote is there once, and nothing else.

A failed statement is counted with the first line of its error; a wrong answer is counted
apart. Clients are anything with ``sql(text) -> rows``: :class:`Hs2Client` (pyhive, one
HiveServer2 session per client), :class:`ConnectClient` (one Spark Connect session per client)
or :class:`SessionClient` (a SparkSession shared by threads).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Rows = list[tuple[Any, ...]]


class Client(Protocol):
    def sql(self, text: str) -> Rows: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Load:
    """The table every client of one run works on: ``<catalog>.<db>.<table>``."""
    catalog: str
    db: str
    table: str
    procedures: bool = True

    @property
    def name(self) -> str:
        return f"{self.catalog}.{self.db}.{self.table}"


@dataclass
class Tally:
    """What the clients of one run saw: statement latencies, errors, wrong answers."""
    latencies: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)  # kind(): its latencies
    errors: Counter[str] = field(default_factory=Counter)
    details: dict[str, str] = field(default_factory=dict)  # first line: one whole message
    wrong: list[str] = field(default_factory=list)
    # The rows INSERTs that returned successfully appended: (partition, value).
    acknowledged: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def statements(self) -> int:
        return len(self.latencies)

    def summary(self) -> str:
        lines = [f"{self.statements} statements, {sum(self.errors.values())} failed, "
                 f"{len(self.wrong)} wrong answers"]
        lines += [f"  {count} x {line}" for line, count in self.errors.most_common()]
        lines += [f"  wrong: {text}" for text in self.wrong[:20]]
        lines += [f"--- {line}:\n{text}" for line, text in list(self.details.items())[:3]]
        return "\n".join(lines)


def create(sql: Callable[[str], Any], load: Load) -> None:
    """Create ``load``'s table (Hive's Parquet table, which every catalog writes alike)."""
    sql(f"CREATE TABLE {load.name} (v BIGINT) PARTITIONED BY (p STRING) STORED AS PARQUET")


def _first_line(exc: BaseException) -> str:
    """The first line of what ``exc`` says (for pyhive's errors, of the server's message)."""
    status = getattr(exc.args[0], "status", None) if exc.args else None
    text = str(getattr(status, "errorMessage", None) or exc)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


Step = tuple[str, Rows | None, tuple[str, int] | None]


def _statements(load: Load, c: int, r: int) -> list[Step]:
    """Client ``c``'s round ``r``: each statement with the rows it must answer (``None``: any
    answer, as for a write) and, for an INSERT INTO, the row it appends (partition, value)."""
    t, own, mine = load.name, f"o{c}", c * 1000 + r
    added = f"a{c}_{r}"
    steps: list[Step] = [
        (f"INSERT INTO {t} PARTITION (p='{own}') VALUES ({r})", None, (own, r)),
        (f"SELECT count(*), sum(v) FROM {t} WHERE p = '{own}'", [(r + 1, r * (r + 1) // 2)],
         None),
        (f"INSERT INTO {t} PARTITION (p='shared') VALUES ({mine})", None, ("shared", mine)),
        (f"SELECT count(*) FROM {t} WHERE p = 'shared' AND v = {mine}", [(1,)], None),
        (f"SELECT count(*) FROM {t} WHERE p = 'shared' AND v >= {c * 1000} "
         f"AND v < {c * 1000 + 1000}", [(r + 1,)], None),
        (f"INSERT INTO {t} PARTITION (p) VALUES ({r}, 'd{c}')", None, (f"d{c}", r)),
        (f"SELECT count(*), max(v) FROM {t} WHERE p = 'd{c}'", [(r + 1, r)], None),
        (f"INSERT OVERWRITE TABLE {t} PARTITION (p='w{c}') VALUES ({r}), ({r})", None, None),
        (f"SELECT count(*), sum(v) FROM {t} WHERE p = 'w{c}'", [(2, 2 * r)], None),
        (f"ALTER TABLE {t} ADD PARTITION (p='{added}')", None, None),
        (f"SHOW PARTITIONS {t} PARTITION (p='{added}')", [(f"p={added}",)], None),
        (f"ALTER TABLE {t} DROP PARTITION (p='{added}')", None, None),
        (f"ALTER TABLE {t} SET TBLPROPERTIES ('load.touched'='yes')", None, None),
        (f"SHOW TBLPROPERTIES {t} ('load.touched')", None, None),
        (f"REFRESH TABLE {t}", None, None),
    ]
    if load.procedures:
        steps.append(
            (f"CALL {load.catalog}.system.flush_metadata_cache('{load.db}', '{load.table}')",
             None, None))
    steps.append((f"SELECT count(*) FROM {t} WHERE p IN ('{own}', 'd{c}')",
                  [(2 * (r + 1),)], None))
    return steps


def kind(text: str) -> str:
    """A statement's kind: its first words (``INSERT OVERWRITE``, ``ALTER TABLE ADD``)."""
    words = text.split()
    if words[0] == "ALTER":
        return f"ALTER TABLE {words[3]}"
    return " ".join(words[:1 if words[0] in ("SELECT", "CALL") else 2])


def _normal(rows: Rows) -> Rows:
    """Rows as plain tuples of ints and strings (pyhive, Connect and Row differ in types)."""
    return [tuple(int(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
                  for v in row) for row in rows]


def _touched(rows: Rows) -> bool:
    """SHOW TBLPROPERTIES t ('load.touched'): one row whose last value is ``yes``."""
    return len(rows) == 1 and rows[0][-1] == "yes"


def run_client(client: Client, c: int, rounds: int, load: Load, tally: Tally,
               begin: Sequence[str] = ()) -> None:
    """Client ``c``'s ``rounds`` rounds, counted in ``tally``. A round stops at its first
    failed or wrong statement (what follows depends on it) and the next round starts over;
    rows a failed round may have written are allowed for by :func:`totals_hold`."""
    for text in begin:
        client.sql(text)
    for r in range(rounds):
        for text, expected, appended in _statements(load, c, r):
            started = time.monotonic()
            try:
                rows = _normal(client.sql(text))
            except Exception as exc:
                with tally.lock:
                    tally.latencies.append(time.monotonic() - started)
                    tally.errors[_first_line(exc)] += 1
                    tally.details.setdefault(_first_line(exc), f"{text}\n{exc}"[:6000])
                break
            with tally.lock:
                tally.latencies.append(time.monotonic() - started)
                tally.by_kind.setdefault(kind(text), []).append(tally.latencies[-1])
                if appended is not None:
                    tally.acknowledged.append(appended)
            bad = ((expected is not None and rows != expected)
                   or ("SHOW TBLPROPERTIES" in text and not _touched(rows)))
            if bad:
                with tally.lock:
                    tally.wrong.append(f"client {c} round {r}: {text} gave {rows}, "
                                       f"expected {expected}")
                break


def run_clients(clients: Sequence[Client], rounds: int, load: Load, tally: Tally,
                begin: Sequence[str] = (), first: int = 0) -> float:
    """Run ``clients`` at once, client ``i`` as number ``first + i``; the wall time."""
    threads = [threading.Thread(target=run_client,
                                args=(client, first + i, rounds, load, tally, begin))
               for i, client in enumerate(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def background_writer(sql: Callable[[str], Any], load: Load, stop: threading.Event,
                      written: list[int], tally: Tally) -> None:
    """Append 1, 2, 3... to partition ``bw`` of ``load``'s table until ``stop``; each value
    whose INSERT returned goes into ``written``, a failure into ``tally``."""
    n = 0
    while not stop.is_set():
        n += 1
        try:
            sql(f"INSERT INTO {load.name} PARTITION (p='bw') VALUES ({n})")
        except Exception as exc:
            with tally.lock:
                tally.errors[f"background writer: {_first_line(exc)}"] += 1
            continue
        written.append(n)


def totals_hold(sql: Callable[[str], Rows], load: Load, clients: Sequence[int], rounds: int,
                tally: Tally, written: Sequence[int] = ()) -> list[str]:
    """What is wrong with the table after a run (empty: nothing), read through ``sql``.

    Every row an INSERT acknowledged (it returned without error) must be there: one missing
    is a lost write. Without failures every client's partitions hold exactly its rows. A
    failed INSERT may have written its row or not, so with failures a partition may hold
    fewer rows than attempted, never more."""
    rows: Counter[tuple[str, int]] = Counter(
        (str(p), int(v)) for p, v in sql(f"SELECT p, v FROM {load.name}"))
    by_partition: dict[str, list[int]] = {}
    for (p, v), n in rows.items():
        by_partition.setdefault(p, []).extend([v] * n)
    problems = []
    lost = Counter(tally.acknowledged) - rows
    if lost:
        problems.append(f"{sum(lost.values())} rows whose INSERT returned are missing (lost "
                        f"writes), such as {sorted(lost)[:5]}")
    failed = sum(tally.errors.values())
    values = list(range(rounds))
    for c in clients:
        expected = {f"o{c}": values, f"d{c}": values, f"w{c}": [rounds - 1] * 2}
        for partition, want in expected.items():
            got = sorted(by_partition.pop(partition, []))
            if failed == 0 and got != want:
                problems.append(f"partition p={partition}: {got}, expected {want}")
            elif len(got) > len(want):
                problems.append(f"partition p={partition}: {len(got)} rows, more than "
                                f"{len(want)}")
    shared = sorted(by_partition.pop("shared", []))
    expected_shared = sorted(c * 1000 + r for c in clients for r in range(rounds))
    if (shared != expected_shared if failed == 0
            else not set(shared) <= set(expected_shared) or len(set(shared)) != len(shared)):
        problems.append(f"partition p=shared: {len(shared)} rows, expected "
                        f"{len(expected_shared)} distinct client values")
    appended = sorted(by_partition.pop("bw", []))
    missing = sorted(set(written) - set(appended))
    if missing or len(appended) != len(set(appended)):
        problems.append(f"partition p=bw: {len(appended)} rows for {len(written)} writes; "
                        f"missing {missing[:10]}")
    problems += [f"partition p={p}: not written by any client" for p in sorted(by_partition)]
    return problems


class Hs2Client:
    """One HiveServer2 session (pyhive)."""

    def __init__(self, port: int, user: str = "load") -> None:
        from pyhive import hive

        self._connection = hive.connect(host="127.0.0.1", port=port, username=user)
        self._cursor = self._connection.cursor()

    def sql(self, text: str) -> Rows:
        self._cursor.execute(text)
        return [tuple(row) for row in self._cursor.fetchall()] if self._cursor.description \
            else []

    def close(self) -> None:
        self._connection.close()


class ConnectClient:
    """One Spark Connect session."""

    def __init__(self, url: str) -> None:
        from pyspark.sql import SparkSession

        self._session = SparkSession.builder.remote(url).create()

    def sql(self, text: str) -> Rows:
        return [tuple(row) for row in self._session.sql(text).collect()]

    def close(self) -> None:
        self._session.stop()


class SessionClient:
    """A thread's use of a SparkSession that other threads use too."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark

    def sql(self, text: str) -> Rows:
        return [tuple(row) for row in self._spark.sql(text).collect()]

    def close(self) -> None:
        pass
