"""A real S3 endpoint for tests: moto's server in a subprocess, and what it was asked.

Claims such as "a point filter makes at most two List requests" have to be checked against the
server's own record, not against hmscatalog's counters, or a counting bug would vouch for
itself. moto's server (werkzeug) logs one line per HTTP request; this module reads that log.
Every request is expected path-style (``/bucket/key``), which is what pyarrow and the boto3
client below send to an ``http://127.0.0.1:port`` endpoint.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import boto3  # type: ignore[import-untyped]
from botocore.config import Config  # type: ignore[import-untyped]

REGION = "us-east-1"
ACCESS_KEY = "hmscatalog-test"
SECRET_KEY = "hmscatalog-test-secret"

# werkzeug writes `127.0.0.1 - - [date] "GET /b?x=1 HTTP/1.1" 200 -`, colouring non-2xx lines.
_REQUEST_LINE = re.compile(r'"(?P<method>[A-Z]+) (?P<target>.+?) HTTP/[0-9.]+" (?P<status>\d{3})')
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
_RUNNING_ON = re.compile(r"Running on http://127\.0\.0\.1:(\d+)")
# moto's own control endpoint; the sync requests go there and are never reported.
_MOTO_API = "/moto-api/"
# Query parameters of ListObjects (v1) and ListObjectsV2; other bucket GETs (?location,
# ?versioning, ?versions...) are different operations.
_LIST_PARAMS = frozenset({"list-type", "prefix", "delimiter", "max-keys", "continuation-token",
                          "start-after", "marker", "encoding-type", "fetch-owner"})
_UPLOAD_THREADS = 8


class MotoStartError(RuntimeError):
    """moto's server did not come up; the message carries the tail of its log."""


@dataclass(frozen=True)
class Request:
    """One HTTP request as the server logged it; ``bucket`` and ``key`` are decoded."""

    method: str
    path: str  # as logged, still percent-encoded
    query: str  # raw query string, "" if none
    status: int
    bucket: str
    key: str

    @property
    def params(self) -> dict[str, list[str]]:
        return parse_qs(self.query, keep_blank_values=True)

    @property
    def is_list(self) -> bool:
        """ListObjects or ListObjectsV2: a GET on a bucket with listing parameters, or none."""
        return (self.method == "GET" and bool(self.bucket) and not self.key
                and (not self.query or bool(_LIST_PARAMS & self.params.keys())))

    @property
    def is_get(self) -> bool:
        """GetObject: a GET of an object key."""
        return self.method == "GET" and bool(self.key)


def parse_log_line(line: str) -> Request | None:
    """The request a server log line records, or ``None`` for any other line."""
    match = _REQUEST_LINE.search(_ANSI_ESCAPE.sub("", line))
    if match is None:
        return None
    target = urlsplit(match["target"])
    bucket, _, key = unquote(target.path).lstrip("/").partition("/")
    return Request(match["method"], target.path, target.query, int(match["status"]),
                   bucket, key)


class MotoServer:
    """moto's S3 server on 127.0.0.1, started on construction, with its request log.

    It binds port 0 and reads the port werkzeug reports, so parallel sessions never race for
    a port. Marks are positions in the request log: ``list_requests(mark)`` is what was
    listed after ``mark()`` was taken.
    """

    def __init__(self, log_path: Path, timeout_s: float = 30.0) -> None:
        self.log_path = log_path
        self._syncs = 0
        # The server's URL has no proxy, whatever the environment says.
        self._http = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self._log = log_path.open("wb")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
            stdout=self._log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            self.port = self._wait_for_port(timeout_s)
            self.endpoint = f"http://127.0.0.1:{self.port}"
            self._wait_until_serving(timeout_s)
        except BaseException:
            self.stop()
            raise
        # A boto3 S3 client for this server, for set-up beyond put() and for raw calls.
        self.client: Any = boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
            config=Config(s3={"addressing_style": "path"},
                          max_pool_connections=_UPLOAD_THREADS),
        )

    @property
    def options(self) -> dict[str, str]:
        """Catalog/read options that point hmscatalog's S3 storage at this server."""
        return {"s3.endpoint": self.endpoint, "s3.region": REGION,
                "s3.access-key-id": ACCESS_KEY, "s3.secret-access-key": SECRET_KEY}

    @property
    def hadoop_settings(self) -> dict[str, str]:
        """Hadoop's S3A settings for this server (for Spark, ``spark.hadoop.`` before each)."""
        return {"fs.s3a.endpoint": self.endpoint, "fs.s3a.endpoint.region": REGION,
                "fs.s3a.path.style.access": "true", "fs.s3a.connection.ssl.enabled": "false",
                "fs.s3a.access.key": ACCESS_KEY, "fs.s3a.secret.key": SECRET_KEY}

    def create_bucket(self, name: str) -> None:
        self.client.create_bucket(Bucket=name)

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=bucket, Key=key, Body=data)

    def put_many(self, bucket: str, objects: Mapping[str, bytes]) -> None:
        """Upload ``{key: data}`` concurrently: moto takes milliseconds per request, so a
        table with thousands of partition files would otherwise take a minute to set up."""
        with ThreadPoolExecutor(_UPLOAD_THREADS) as pool:
            for future in [pool.submit(self.put, bucket, key, data)
                           for key, data in objects.items()]:
                future.result()

    def upload_tree(self, bucket: str, root: Path, prefix: str = "") -> list[str]:
        """Upload every file under ``root`` to ``prefix`` + its relative path (``/``-separated);
        the keys written, sorted. Lets a test lay a table out on local disk, then serve it."""
        base = prefix.strip("/")
        objects = {"/".join(filter(None, (base, path.relative_to(root).as_posix()))):
                   path.read_bytes()
                   for path in root.rglob("*") if path.is_file()}
        self.put_many(bucket, objects)
        return sorted(objects)

    def mark(self) -> int:
        """A position in the request log; requests made after this call come after it."""
        return len(self._sync())

    def requests(self, since: int = 0) -> list[Request]:
        """Every S3 request logged after mark ``since``, in log order."""
        return self._sync()[since:]

    def list_requests(self, since: int = 0) -> list[Request]:
        return [r for r in self.requests(since) if r.is_list]

    def get_requests(self, since: int = 0) -> list[Request]:
        return [r for r in self.requests(since) if r.is_get]

    def head_requests(self, since: int = 0) -> list[Request]:
        return [r for r in self.requests(since) if r.method == "HEAD"]

    def stop(self) -> None:
        """Stop the server (idempotent); the log file stays for post-mortems."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._log.close()

    def _sync(self) -> list[Request]:
        """The S3 requests logged so far, read only once the log provably holds them.

        A sentinel request goes to moto's control endpoint and the log is re-read until its
        line appears; the server logs each request before answering it, so every request a
        caller saw answered is on an earlier line. Reading stops at the sentinel's line, which
        keeps a half-written trailing line from ever being skipped once and counted later.
        """
        self._syncs += 1
        target = f"{_MOTO_API}?hmscatalog-sync={self._syncs}"
        with self._http.open(f"{self.endpoint}{target}", timeout=30) as response:
            response.read()
        token = f'"GET {target} HTTP/'  # exact, so sync 1 never matches sync 10's line
        deadline = time.monotonic() + 30
        while True:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
            end = next((i for i, line in enumerate(lines) if token in line), None)
            if end is not None:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"moto never logged sync request {target!r}; see "
                                   f"{self.log_path}")
            time.sleep(0.01)
        requests = (parse_log_line(line) for line in lines[:end])
        return [r for r in requests if r is not None and not r.path.startswith(_MOTO_API)]

    def _wait_for_port(self, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = _RUNNING_ON.search(self.log_path.read_text(encoding="utf-8", errors="replace"))
            if match:
                return int(match[1])
            if self._process.poll() is not None:
                raise MotoStartError(f"moto's server exited ({self._process.returncode}):\n"
                                     f"{self._log_tail()}")
            time.sleep(0.05)
        raise MotoStartError(f"moto's server did not report a port in {timeout_s:.0f}s:\n"
                             f"{self._log_tail()}")

    def _wait_until_serving(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with self._http.open(f"{self.endpoint}{_MOTO_API}", timeout=5) as response:
                    response.read()
                return
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise MotoStartError(f"moto's server at {self.endpoint} does not answer: "
                                         f"{exc}\n{self._log_tail()}") from exc
                time.sleep(0.05)

    def _log_tail(self) -> str:
        return "\n".join(self.log_path.read_text(encoding="utf-8",
                                                 errors="replace").splitlines()[-20:])
