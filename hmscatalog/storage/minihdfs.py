"""A real HDFS on loopback for tests and benchmarks: Hadoop's mini cluster in its own JVM.

One name node and one data node from ``hadoop-client-minicluster`` (the Hadoop version of
pyspark's client, fetched once by :mod:`hmscatalog.storage.hadoop_jars`), formatted fresh under a
data directory. Spark's own Hadoop client opens ``hdfs://127.0.0.1:<port>/`` without more jars.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hmscatalog.errors import ServerError
from hmscatalog.jars import classpath
from hmscatalog.processes import find_java, free_port, log_tail, terminate
from hmscatalog.storage import hadoop_jars

_MAIN = "org.apache.hadoop.mapreduce.MiniHadoopClusterManager"
START_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class MiniHdfs:
    """A running mini cluster."""

    pid: int
    port: int
    data_dir: Path

    @property
    def uri(self) -> str:
        """The file system's root, ``hdfs://127.0.0.1:<port>``."""
        return f"hdfs://127.0.0.1:{self.port}"

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop the cluster's JVM (and with it name node and data node)."""
        terminate(self.pid, _MAIN, timeout_s)


def start(data_dir: Path, port: int | None = None, heap: str = "512m",
          timeout_s: float = START_TIMEOUT_S) -> MiniHdfs:
    """Format and start a mini HDFS under ``data_dir``; returns once it takes requests.

    Raises:
        ServerError: no Java, or the cluster died or did not come up in time (with the tail
            of ``<data_dir>/minihdfs.log``).
        JarsUnavailable: the mini cluster's jars are not cached and cannot be fetched.
    """
    java = find_java()
    jars = classpath(hadoop_jars.minicluster())
    data_dir = Path(data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    written = data_dir / "core-site.xml"
    written.unlink(missing_ok=True)
    log_path = data_dir / "minihdfs.log"
    command = [java, f"-Xmx{heap}", "-XX:+UseSerialGC", f"-Dtest.build.data={data_dir / 'dfs'}",
               "-cp", os.pathsep.join(jars), _MAIN, "-nomr", "-format",
               "-nnport", str(port), "-nnhttpport", "0", "-writeConfig", str(written)]
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=data_dir, start_new_session=True)
    cluster = MiniHdfs(proc.pid, port, data_dir)
    deadline = time.monotonic() + timeout_s
    # The launcher writes its configuration once the name node and data node are up.
    while not written.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            cluster.stop()
            state = "exited" if proc.returncode is not None else "did not start in time"
            raise ServerError(f"the mini HDFS on port {port} {state}; last lines of "
                              f"{log_path}:\n{log_tail(log_path)}")
        time.sleep(0.2)
    return cluster
