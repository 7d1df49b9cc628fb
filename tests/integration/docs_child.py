"""Run one documentation page's blocks in order, in this process: its python blocks in one
namespace, as the one script a reader could paste, its command lines through bash.

    python docs_child.py BLOCKS.json

``BLOCKS.json`` holds ``[{"where", "page", "line", "language", "text", "commands"}, ...]``
with the test's substitutions made. Where the test leaves the metastore's URI to the page,
:data:`URI_PLACEHOLDER` stands for it, and is replaced by the URI the page's last
``hmscatalog metastore start`` printed. Before each block a line ``SENTINEL <n>`` is printed, so
that the test can cut the output into each block's own. Tracebacks name the page and its line.
A command that exits with another status than 0 ends the run (status 3), naming it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SENTINEL = "@@docs-block@@"
URI_PLACEHOLDER = "@@metastore-uri@@"

if __name__ == "__main__":
    namespace = {"__name__": "__main__"}
    uri = URI_PLACEHOLDER
    for index, block in enumerate(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))):
        print(f"\n{SENTINEL} {index}", flush=True)
        if block["language"] == "python":
            # Blank lines first, so that a traceback's line numbers are the page's.
            text = block["text"].replace(URI_PLACEHOLDER, uri)
            code = compile("\n" * block["line"] + text, block["page"], "exec")
            exec(code, namespace)
            sys.stdout.flush()
            continue
        for command in block["commands"]:
            run = subprocess.run(["bash", "-c", command.replace(URI_PLACEHOLDER, uri)],
                                 capture_output=True, text=True, timeout=600)
            print(run.stdout, end="", flush=True)
            print(run.stderr, end="", file=sys.stderr, flush=True)
            if "hmscatalog metastore start" in command and run.returncode == 0:
                uri = run.stdout.strip().splitlines()[-1]
            if run.returncode != 0:
                print(f"{block['where']}: `{command}` exited with status {run.returncode}:\n"
                      f"{run.stderr}", file=sys.stderr)
                sys.exit(3)
