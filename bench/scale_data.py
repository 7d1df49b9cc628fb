"""Register many partitions of a Hive 2.3 metastore table by writing the metastore's PostgreSQL
tables directly: 1,000,000 partitions in about a minute, where the Thrift API
(``add_partitions``) takes about an hour. For benchmarks only (bench/scale.py): it bypasses the
metastore, so no listener, authorization or statistics task sees the partitions (one
notification event is logged, see below), and it knows only the schema that DataNucleus
creates for Hive 2.3 (``datanucleus.schema.autoCreateAll``, quoted upper-case names), as the
embedded metastore of hmscatalog/metastore/setup.py has it.

One ``psql`` process, one transaction. For each partition it writes what the metastore writes
for an ``add_partitions`` of a partition in the table's storage format:

- ``SERDES`` and ``SERDE_PARAMS``: a copy of the table's SerDe (name, library, parameters);
- ``SDS``: a copy of the table's storage descriptor (formats, flags, buckets; the same
  ``CD_ID``, so the table's columns) at the partition's location; its ``SD_PARAMS``,
  ``BUCKETING_COLS`` and ``SORT_COLS`` copied too (skew information is not);
- ``PARTITIONS``: ``PART_NAME`` escaped as Hive does, ``CREATE_TIME`` now;
  ``PARTITION_KEY_VALS`` (one row per value, ``INTEGER_IDX`` its position) and
  ``PARTITION_PARAMS`` (``transient_lastDdlTime`` = ``CREATE_TIME``, and ``parameters``).

New ids start above both the highest id in use and DataNucleus's next id (``SEQUENCE_TABLE``, a
running metastore may hold ids below it, allocated but unused); the sequences of
``MPartition``, ``MStorageDescriptor`` and ``MSerDeInfo`` are then advanced past them, so the
metastore's own later inserts do not collide. ``SEQUENCE_TABLE`` is locked meanwhile.

When the metastore keeps a notification log (``NOTIFICATION_SEQUENCE`` has its row: the
embedded server's listener, hmscatalog/metastore/notification_log.py), one ``ADD_PARTITION``
event for the table is logged too, with the next event id, its message (format
``hmscatalog-1``) naming the database and table but not the partitions: catalogs following the
log drop what they cached of the table, as after the metastore's own ``add_partitions``.

Every row references rows that exist (the table's) or that the same transaction writes, so as
a superuser (the throwaway cluster's ``hive``) the foreign keys' checks are skipped
(``session_replication_role = replica``: at COMMIT they took 83 of 148 s for 1,000,000). After
COMMIT the written tables are vacuumed and analyzed: PostgreSQL plans the metastore's queries with
their new sizes, and autovacuum does not start on them in the middle of a benchmark.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from hmscatalog.partitions.codec import make_part_name

MODEL = "org.apache.hadoop.hive.metastore.model."

# After the COPYs: the table's storage, the first new ids, then every row.
_INSERT = f"""
CREATE TEMP TABLE _t ON COMMIT DROP AS
  SELECT t."TBL_ID", s.*, e."NAME" AS serde_name, e."SLIB" AS serde_lib
  FROM "TBLS" t JOIN "DBS" d ON d."DB_ID" = t."DB_ID" JOIN "SDS" s ON s."SD_ID" = t."SD_ID"
  LEFT JOIN "SERDES" e ON e."SERDE_ID" = s."SERDE_ID"
  WHERE d."NAME" = :'db' AND t."TBL_NAME" = :'tbl';
DO $$ BEGIN
  IF (SELECT count(*) FROM _t) <> 1 THEN RAISE EXCEPTION 'no such table'; END IF;
END $$;
CREATE TEMP TABLE _id ON COMMIT DROP AS SELECT
  GREATEST((SELECT max("PART_ID") + 1 FROM "PARTITIONS"), (SELECT "NEXT_VAL" FROM
    "SEQUENCE_TABLE" WHERE "SEQUENCE_NAME" = '{MODEL}MPartition'), 1) AS part,
  GREATEST((SELECT max("SD_ID") + 1 FROM "SDS"), (SELECT "NEXT_VAL" FROM
    "SEQUENCE_TABLE" WHERE "SEQUENCE_NAME" = '{MODEL}MStorageDescriptor'), 1) AS sd,
  GREATEST((SELECT max("SERDE_ID") + 1 FROM "SERDES"), (SELECT "NEXT_VAL" FROM
    "SEQUENCE_TABLE" WHERE "SEQUENCE_NAME" = '{MODEL}MSerDeInfo'), 1) AS serde,
  (SELECT count(*) FROM _p) AS n;
INSERT INTO "SERDES" ("SERDE_ID", "NAME", "SLIB")
  SELECT i.serde + p.n, t.serde_name, t.serde_lib FROM _p p, _id i, _t t;
INSERT INTO "SERDE_PARAMS" ("SERDE_ID", "PARAM_KEY", "PARAM_VALUE")
  SELECT i.serde + p.n, x."PARAM_KEY", x."PARAM_VALUE"
  FROM _p p, _id i, _t t JOIN "SERDE_PARAMS" x ON x."SERDE_ID" = t."SERDE_ID";
INSERT INTO "SDS" ("SD_ID", "CD_ID", "INPUT_FORMAT", "IS_COMPRESSED",
    "IS_STOREDASSUBDIRECTORIES", "LOCATION", "NUM_BUCKETS", "OUTPUT_FORMAT", "SERDE_ID")
  SELECT i.sd + p.n, t."CD_ID", t."INPUT_FORMAT", t."IS_COMPRESSED",
    t."IS_STOREDASSUBDIRECTORIES", p.location, t."NUM_BUCKETS", t."OUTPUT_FORMAT", i.serde + p.n
  FROM _p p, _id i, _t t;
INSERT INTO "SD_PARAMS" ("SD_ID", "PARAM_KEY", "PARAM_VALUE")
  SELECT i.sd + p.n, x."PARAM_KEY", x."PARAM_VALUE"
  FROM _p p, _id i, _t t JOIN "SD_PARAMS" x ON x."SD_ID" = t."SD_ID";
INSERT INTO "BUCKETING_COLS" ("SD_ID", "BUCKET_COL_NAME", "INTEGER_IDX")
  SELECT i.sd + p.n, x."BUCKET_COL_NAME", x."INTEGER_IDX"
  FROM _p p, _id i, _t t JOIN "BUCKETING_COLS" x ON x."SD_ID" = t."SD_ID";
INSERT INTO "SORT_COLS" ("SD_ID", "COLUMN_NAME", "ORDER", "INTEGER_IDX")
  SELECT i.sd + p.n, x."COLUMN_NAME", x."ORDER", x."INTEGER_IDX"
  FROM _p p, _id i, _t t JOIN "SORT_COLS" x ON x."SD_ID" = t."SD_ID";
INSERT INTO "PARTITIONS" ("PART_ID", "CREATE_TIME", "LAST_ACCESS_TIME", "PART_NAME", "SD_ID",
    "TBL_ID")
  SELECT i.part + p.n, :now, 0, p.name, i.sd + p.n, t."TBL_ID" FROM _p p, _id i, _t t;
INSERT INTO "PARTITION_KEY_VALS" ("PART_ID", "PART_KEY_VAL", "INTEGER_IDX")
  SELECT i.part + p.n, v.value, v.idx - 1
  FROM _p p CROSS JOIN _id i CROSS JOIN unnest(p.vals) WITH ORDINALITY AS v(value, idx);
INSERT INTO "PARTITION_PARAMS" ("PART_ID", "PARAM_KEY", "PARAM_VALUE")
  SELECT i.part + p.n, x.key, x.value FROM _p p, _id i, _params x;
INSERT INTO "SEQUENCE_TABLE" ("SEQUENCE_NAME", "NEXT_VAL")
  SELECT '{MODEL}' || s.name, s.next FROM _id i, LATERAL (VALUES ('MPartition', i.part + i.n),
    ('MStorageDescriptor', i.sd + i.n), ('MSerDeInfo', i.serde + i.n)) AS s(name, next)
  ON CONFLICT ("SEQUENCE_NAME") DO UPDATE
  SET "NEXT_VAL" = GREATEST("SEQUENCE_TABLE"."NEXT_VAL", excluded."NEXT_VAL");
WITH event AS (UPDATE "NOTIFICATION_SEQUENCE" SET "NEXT_EVENT_ID" = "NEXT_EVENT_ID" + 1
    RETURNING "NEXT_EVENT_ID" - 1 AS id),
  logged AS (INSERT INTO "NOTIFICATION_LOG" ("NL_ID", "EVENT_ID", "EVENT_TIME", "EVENT_TYPE",
      "DB_NAME", "TBL_NAME", "MESSAGE", "MESSAGE_FORMAT")
    SELECT GREATEST((SELECT max("NL_ID") + 1 FROM "NOTIFICATION_LOG"), (SELECT "NEXT_VAL" FROM
      "SEQUENCE_TABLE" WHERE "SEQUENCE_NAME" = '{MODEL}MNotificationLog'), 1), e.id, :now,
      'ADD_PARTITION', :'db', :'tbl', :'message', 'hmscatalog-1' FROM event e
    RETURNING "NL_ID")
INSERT INTO "SEQUENCE_TABLE" ("SEQUENCE_NAME", "NEXT_VAL")
  SELECT '{MODEL}MNotificationLog', "NL_ID" + 1 FROM logged
  ON CONFLICT ("SEQUENCE_NAME") DO UPDATE
  SET "NEXT_VAL" = GREATEST("SEQUENCE_TABLE"."NEXT_VAL", excluded."NEXT_VAL");
COMMIT;
VACUUM (ANALYZE) "SERDES", "SERDE_PARAMS", "SDS", "PARTITIONS", "PARTITION_KEY_VALS",
  "PARTITION_PARAMS";
"""


def _copy_text(text: str) -> str:
    """A value in COPY's text format."""
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def _array(values: Sequence[str]) -> str:
    """A text[] literal of ``values``."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
                          for v in values) + "}"


def _psql(uri: str) -> tuple[list[str], dict[str, str]]:
    """psql's command line (no script yet) and environment for ``postgresql://`` ``uri``."""
    parts = urlsplit(uri)
    env = dict(os.environ, PGCLIENTENCODING="UTF8")
    if parts.password:
        env["PGPASSWORD"] = unquote(parts.password)
    command = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
               "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
               "-U", unquote(parts.username or "hive"), "-d", parts.path.lstrip("/")]
    return command, env


def register_direct(db_uri: str, database: str, table: str,
                    partitions: Iterable[tuple[Sequence[str], str | None]],
                    parameters: Mapping[str, str] | None = None) -> int:
    """Register each ``(values, location)`` as a new partition of ``database.table``, in one
    transaction, as the metastore's ``add_partitions`` would (see the module docstring);
    returns how many.

    Args:
        db_uri: the metastore's database, ``postgresql://user:password@host:port/name``
            (``tests/postgres.py``'s ``Postgres.uri("hms")``).
        partitions: value strings in the order of the partition columns, and the location
            (``None``: the table's location + ``/`` + the partition's name).
        parameters: more partition parameters (such as ``numFiles``, ``totalSize``).

    Raises:
        ValueError: a partition without one value for each partition column (nothing written).
        RuntimeError: psql failed (no such table, a partition that exists already...):
            nothing was written (unless only the VACUUM after COMMIT failed).
    """
    command, env = _psql(db_uri)
    database, table = database.lower(), table.lower()
    found = subprocess.run(
        [*command, "-F", "\t", "-v", f"db={database}", "-v", f"tbl={table}"], env=env,
        input="""SELECT k."PKEY_NAME", s."LOCATION" FROM "TBLS" t
                 JOIN "DBS" d ON d."DB_ID" = t."DB_ID" JOIN "SDS" s ON s."SD_ID" = t."SD_ID"
                 JOIN "PARTITION_KEYS" k ON k."TBL_ID" = t."TBL_ID"
                 WHERE d."NAME" = :'db' AND t."TBL_NAME" = :'tbl' ORDER BY k."INTEGER_IDX";""",
        capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise RuntimeError(f"psql failed: {found.stderr.strip()}")
    rows = [line.split("\t") for line in found.stdout.splitlines() if line]
    if not rows:
        raise RuntimeError(f"{database}.{table}: no such partitioned table in {db_uri}")
    keys, root = [row[0] for row in rows], rows[0][1].rstrip("/")
    now = int(time.time())
    params = {**(parameters or {}), "transient_lastDdlTime": str(now)}
    count, broken = 0, False
    with tempfile.TemporaryFile("w+") as errors:
        psql = subprocess.Popen(
            [*command, "-v", f"db={database}", "-v", f"tbl={table}", "-v", f"now={now}",
             "-v", "message=" + json.dumps({"db": database, "table": table})],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors,
            text=True, encoding="utf-8")
        assert psql.stdin is not None
        write = psql.stdin.write
        try:
            write("BEGIN;\nLOCK TABLE \"SEQUENCE_TABLE\" IN EXCLUSIVE MODE;\n"
                  "DO $$ BEGIN SET LOCAL session_replication_role = replica;\n"
                  "EXCEPTION WHEN insufficient_privilege THEN NULL; END $$;\n"
                  "CREATE TEMP TABLE _p (n bigint, name text, location text, vals text[])"
                  " ON COMMIT DROP;\n"
                  "CREATE TEMP TABLE _params (key text, value text) ON COMMIT DROP;\n"
                  "COPY _params FROM STDIN;\n")
            write("".join(f"{_copy_text(k)}\t{_copy_text(v)}\n" for k, v in params.items()))
            write("\\.\nCOPY _p FROM STDIN;\n")
            for strings, location in partitions:
                if len(strings) != len(keys):
                    raise ValueError(f"partition {list(strings)}: {len(keys)} values expected")
                name = make_part_name(keys, strings)
                write(f"{count}\t{_copy_text(name)}\t{_copy_text(location or root + '/' + name)}"
                      f"\t{_copy_text(_array(strings))}\n")
                count += 1
            write("\\.\n" + _INSERT)
            psql.stdin.close()
        except BrokenPipeError:  # psql stopped at an error: its message follows
            broken = True
            with contextlib.suppress(BrokenPipeError):
                psql.stdin.close()
        except BaseException:
            psql.kill()  # before COMMIT: PostgreSQL rolls the transaction back
            psql.wait()
            raise
        if psql.wait() != 0 or broken:
            errors.seek(0)
            raise RuntimeError(f"psql failed, nothing registered: {errors.read().strip()}")
    return count
