"""Every code block of the documentation runs: each page of ``docs/`` and README.md is one test,
run in a fresh Python process of its own (``docs_child.py``) against a real metastore and, where
the page uses it, a real SparkSession it starts itself.

- ``python`` blocks run in page order in one namespace: a page is one script a reader could
  paste. ``sh``/``console`` lines that run ``hmscatalog`` run in between, through bash, and
  must exit with status 0; other shell lines (pip, git, pytest) are not run, nor are README's
  two quick-start commands, which CI runs itself.
- The examples talk to ``thrift://localhost:9083``. The test substitutes the session's
  metastore (tests/conftest.py's ``metastore``, on a free port), unless the page starts a
  metastore itself (``hmscatalog metastore start``): then the page gets a free port of its own,
  given to ``start`` as ``--port``, and its metastore is stopped afterwards. The S3 endpoint
  ``http://127.0.0.1:9000`` is moto's server (the session's ``moto_s3``), the credentials come
  from ``AWS_*`` variables, and every bucket a page names exists. No block may still name
  port 9083 or 9000 after that, so nothing here ever reaches a real server.
- Each page runs in a temporary directory with a fresh ``HMSCATALOG_HOME`` (the jars cache
  linked in, so nothing is fetched or built again); pages use databases and paths of their own.
- A ``text`` block marked ``<!-- docs-test: output -->`` must match what the block before it
  printed (``...`` matches anything, as doctest's ELLIPSIS).
- ``<!-- docs-test: skip (reason) -->`` keeps a block from running; at most MAX_SKIPS do.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from docs_blocks import ROOT, RUN, Block, blocks, pages
from docs_child import SENTINEL, URI_PLACEHOLDER
from s3 import ACCESS_KEY, REGION, SECRET_KEY, MotoServer

from hmscatalog import jars
from hmscatalog.metastore import server

pytestmark = pytest.mark.integration

MAX_SKIPS = 5
CHILD = Path(__file__).with_name("docs_child.py")
EXAMPLE_URI = "thrift://localhost:9083"
EXAMPLE_S3 = "http://127.0.0.1:9000"
_START = re.compile(r"\bhmscatalog metastore start\b")
_BUCKET = re.compile(r"\bs3a?://([a-z0-9][a-z0-9.-]{2,62})/")
# Spark for the pages' own sessions: fewer shuffle partitions, no UI. (Their drivers' JVM options
# come from SPARK_SUBMIT_OPTS, which conftest.py sets for the tests' drivers and children.)
SUBMIT_ARGS = ("--conf spark.sql.shuffle.partitions=2 --conf spark.ui.enabled=false "
               "--conf spark.ui.showConsoleProgress=false pyspark-shell")


def _quick_start() -> list[str]:
    """The two commands of README's Quick start, which install and run everything: CI runs them
    itself, so they are never run here (also where other pages repeat them)."""
    readme = ROOT / "README.md"
    heading = readme.read_text(encoding="utf-8").splitlines().index("## Quick start") + 1
    block = next(b for b in blocks(readme) if b.line > heading and b.language == "sh")
    return block.text.splitlines()


QUICK_START = _quick_start()


def _runs(block: Block) -> bool:
    return block.language in RUN and block.marker != "skip"


def _runs_something(page: Path) -> bool:
    """Whether the page has a python block or a command line that runs."""
    return any(_runs(b) and (b.language == "python" or set(b.commands()) - set(QUICK_START))
               for b in blocks(page))


def _uses_spark(page: Path) -> bool:
    return any(_runs(b) and "pyspark" in b.text for b in blocks(page))


# The pages a newcomer reads first run in the quick tier; the others in the thorough tier.
QUICK = ("README.md", "docs/getting-started.md")


def _param(page: Path) -> object:
    name = page.relative_to(ROOT).as_posix()
    marks = [pytest.mark.spark] if _uses_spark(page) else []
    return pytest.param(page, marks=marks if name in QUICK else [*marks, pytest.mark.thorough],
                        id=name)


def _substitute(text: str, uri: str, s3: str) -> str:
    return text.replace(EXAMPLE_URI, uri).replace(EXAMPLE_S3, s3)


def _script(page: Path, uri: str, port: int | None, s3: str) -> list[dict[str, object]]:
    """The page's blocks that run, substituted, as docs_child.py reads them."""
    script = []
    for block in blocks(page):
        if not _runs(block):
            continue
        text = _substitute(block.text, uri, s3)
        commands = []
        if block.language != "python":
            for line in block.commands():
                if line in QUICK_START:
                    continue
                line = _substitute(line, uri, s3).replace(".venv/bin/", "")
                if _START.search(line) and port is not None:
                    line = (line.replace("--port 9083", f"--port {port}") if "--port" in line
                            else _START.sub(f"hmscatalog metastore start --port {port}", line))
                commands.append(line)
            text = "\n".join(commands)
        for address in ("9083", "127.0.0.1:9000"):
            assert address not in text, (
                f"{block.where}: still names {address} after the test's substitutions: "
                f"write {EXAMPLE_URI} (or {EXAMPLE_S3}) so that the test can substitute it")
        script.append({"where": block.where, "page": block.page, "line": block.line,
                       "language": block.language, "text": text, "commands": commands})
    return script


def _outputs(stdout: str) -> list[str]:
    """What each block printed, by the sentinels the child prints before each."""
    parts = re.split(rf"\n{re.escape(SENTINEL)} \d+\n", "\n" + stdout)
    return parts[1:]


def _check_outputs(page: Path, ran: list[Block], printed: list[str]) -> None:
    """Each ``output`` block matches what the block that ran before it printed."""
    checker = doctest.OutputChecker()
    previous: Block | None = None
    for block in blocks(page):
        if _runs(block):
            previous = block
        if block.marker != "output":
            continue
        assert previous is not None, f"{block.where}: an output block with no block before it"
        got = printed[ran.index(previous)]
        want, got = (_normal(text) for text in (block.text, got))
        assert checker.check_output(want, got, doctest.ELLIPSIS), (
            f"{block.where}: the output shown is not what {previous.where} prints; it "
            f"printed:\n{got}")


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"


@pytest.mark.parametrize("page", [_param(page) for page in pages() if _runs_something(page)])
def test_the_page_s_examples_run(page: Path, metastore: server.ServerInfo, moto_s3: MotoServer,
                                 tmp_path: Path) -> None:
    own = any(_START.search(line) for b in blocks(page) if _runs(b) for line in b.commands())
    for bucket in sorted(set(_BUCKET.findall(page.read_text(encoding="utf-8")))):
        try:
            moto_s3.create_bucket(bucket)
        except Exception as exc:  # owned already: made by an earlier run in this session
            if "BucketAlreadyOwnedByYou" not in str(exc):
                raise
    for attempt in range(3):
        run = _run_page(page, tmp_path / f"run-{attempt}",
                        server.free_port() if own else None, metastore, moto_s3)
        # A page that starts its own metastore runs again on another port when another program
        # took the free one first.
        if not own or run.returncode == 0 or "is already in use" not in run.stderr:
            break
    assert run.returncode == 0, f"{page.name} failed:\n{run.stderr[-6000:]}"
    ran = [b for b in blocks(page) if _runs(b)]
    _check_outputs(page, ran, _outputs(run.stdout))


def _run_page(page: Path, folder: Path, port: int | None, metastore: server.ServerInfo,
              moto_s3: MotoServer, uri: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the page's blocks in a child (docs_child.py) with ``folder/home`` as
    HMSCATALOG_HOME; with ``port``, those that start a metastore start it there. ``uri``: what
    the examples' URI becomes (by default the page's metastore's, or the session's)."""
    own = port is not None
    uri = uri or (f"thrift://127.0.0.1:{port}" if own else metastore.uri)
    home = folder / "home"
    home.mkdir(parents=True)
    (home / "jars").symlink_to(jars.cache(), target_is_directory=True)
    script = _script(page, uri, port, moto_s3.endpoint)
    (folder / "blocks.json").write_text(json.dumps(script), encoding="utf-8")
    work = folder / "work"
    work.mkdir()
    env = {**os.environ, "HMSCATALOG_HOME": str(home), "PYTHONUNBUFFERED": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYSPARK_PYTHON": sys.executable, "PYSPARK_SUBMIT_ARGS": SUBMIT_ARGS,
           "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
           "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION}
    try:
        return subprocess.run([sys.executable, str(CHILD), str(folder / "blocks.json")],
                              cwd=work, env=env, capture_output=True, text=True, timeout=600)
    finally:
        if server.status(home / "metastore") is not None:  # the page started one
            server.stop(home / "metastore")


@pytest.mark.spark
@pytest.mark.thorough  # the quick tier runs the page on a port of its own
def test_getting_started_runs_in_order_with_9083_taken(metastore: server.ServerInfo,
                                                       moto_s3: MotoServer,
                                                       tmp_path: Path) -> None:
    """getting-started.md as a reader follows it on a machine where another program listens on
    port 9083: its ``hmscatalog metastore start`` (no ``--port``) starts on a free port and
    says so, and the scripts that follow use the URI it printed."""
    page = ROOT / "docs" / "getting-started.md"
    with socket.socket() as other_program:
        try:
            other_program.bind((server.DEFAULT_HOST, server.DEFAULT_PORT))
            other_program.listen()
        except OSError:  # taken already
            assert not server.port_free(server.DEFAULT_HOST, server.DEFAULT_PORT)
        run = _run_page(page, tmp_path, None, metastore, moto_s3, uri=URI_PLACEHOLDER)
    assert run.returncode == 0, f"{page.name} failed:\n{run.stderr[-6000:]}"
    assert (f"port {server.DEFAULT_PORT} is in use by another program: started on port"
            in run.stderr)
    ran = [b for b in blocks(page) if _runs(b)]
    _check_outputs(page, ran, _outputs(run.stdout))


def test_few_blocks_are_skipped_and_each_says_why() -> None:
    skipped = [b for page in pages() for b in blocks(page) if b.marker == "skip"]
    assert all(b.reason.strip() for b in skipped)
    assert len(skipped) <= MAX_SKIPS, (
        f"{len(skipped)} blocks are skipped, more than {MAX_SKIPS}: "
        f"{', '.join(b.where for b in skipped)}")
    outputs = [b for page in pages() for b in blocks(page) if b.marker == "output"]
    assert all(b.language == "text" for b in outputs), "output blocks must be text blocks"
