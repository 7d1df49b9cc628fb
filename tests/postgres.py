"""A throwaway PostgreSQL cluster for metastores backed by PostgreSQL: Debian's binaries
(initdb, pg_ctl) on a free loopback port, run as user postgres when this process is root (the
server refuses to run as root), durability off. Used by test_postgres_metastore.py and by
bench/scale.py."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from hmscatalog.metastore import server


class PostgresUnavailable(RuntimeError):
    """What a cluster needs is not installed here (the message says what)."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise PostgresUnavailable(f"PostgreSQL's {name} is not installed (Debian: postgresql)")
    return found


class Postgres:
    """A cluster from :meth:`start` to :meth:`stop`, with user ``hive`` (trusted) and the
    databases :meth:`create_database` makes.

    Raises:
        PostgresUnavailable: from the constructor, when the server's binaries, the metastore's
            JDBC driver or (as root) ``runuser`` are missing.
    """

    def __init__(self) -> None:
        self.binaries = {name: _binary(name) for name in ("initdb", "pg_ctl", "createdb")}
        if not any(Path(j).exists() for j in server.POSTGRES_JDBC_JARS):
            raise PostgresUnavailable("PostgreSQL's JDBC driver is not installed: "
                                      "apt-get install -y libpostgresql-jdbc-java")
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                raise PostgresUnavailable("running as root without runuser: PostgreSQL cannot "
                                          "run as root")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.base = Path(tempfile.mkdtemp(prefix="hmscatalog-pg-"))
        if self.as_user:
            shutil.chown(self.base, "postgres")
        self.data = self.base / "data"
        self.port = 0
        self.running = False

    def uri(self, database: str = "") -> str:
        """For the metastore's ``db``: ``postgresql://hive:unused@127.0.0.1:<port>/<database>``."""
        return f"postgresql://hive:unused@127.0.0.1:{self.port}/{database}"

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

    def create_database(self, name: str) -> None:
        self._run(self.binaries["createdb"], "-h", "127.0.0.1", "-p", str(self.port), "-U",
                  "hive", name)

    def stop(self) -> None:
        """Stop the cluster and remove its files (again: nothing)."""
        if self.running:
            self.running = False
            self._run(self.binaries["pg_ctl"], "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)
