"""One write into a metastore table by hmscatalog's commit, as its own process.

    python commit_child.py URI DB TABLE MODE STATIC ROWS

``MODE`` is ``append``, ``overwrite`` or ``truncate`` (TRUNCATE TABLE of the partitions
``ROWS`` names, every one if it names none). ``STATIC`` is a JSON object of static partition
values (``null`` for none) and ``ROWS`` a JSON object of partition name (``""`` for an
unpartitioned table) to the values of column ``v``. Each partition's rows are staged as three
Parquet files (``files`` when called), the way Spark's tasks stage them, then committed. Faults
come from ``HMSCATALOG_FAULTS`` (see :mod:`hmscatalog.faults`).
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for kerberized
from kerberized import client_options

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.write.commit import TableCommit
from hmscatalog.write.truncate import truncate

FILES_PER_PARTITION = 3


def write(uri: str, database: str, name: str, mode: str, static: Mapping[str, str] | None,
          rows: Mapping[str, list[int]], lock_timeout_s: float = 60,
          files: int = FILES_PER_PARTITION) -> None:
    with MetastoreClient(uri, timeout_s=60, backoff_s=0.1, **client_options()) as client:
        table = client.get_table(database, name)
        if mode == "truncate":
            truncate(client, table, [p for p in rows if p] or None)
            return
        commit = TableCommit(client, table, uuid.uuid4().hex[:16])
        commit.lock_timeout_s = lock_timeout_s
        commit.begin()
        job = uuid.uuid4()
        for partition, values in rows.items():
            directory = commit.staging / partition if partition else commit.staging
            directory.mkdir(parents=True, exist_ok=True)
            for task in range(files):
                part = values[task::files]
                pq.write_table(pa.table({"v": pa.array(part, pa.int64())}),
                               directory / f"part-{task:05d}-{job}.c000.snappy.parquet")
        commit.commit(mode, static)  # type: ignore[arg-type]


if __name__ == "__main__":
    uri, database, name, mode, static, rows = sys.argv[1:]
    write(uri, database, name, mode, json.loads(static), json.loads(rows))
    print("committed")
