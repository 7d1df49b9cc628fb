"""Run one documentation page's blocks in order, in this process: its python blocks in one
namespace, as the one script a reader could paste, its command lines through bash.

    python docs_child.py BLOCKS.json

``BLOCKS.json`` holds ``[{"where", "page", "line", "language", "text", "commands"}, ...]``
with the test's substitutions made. Before each block a line ``SENTINEL <n>`` is printed, so
that the test can cut the output into each block's own. Tracebacks name the page and its line.
A command that exits with another status than 0 ends the run (status 3), naming it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SENTINEL = "@@docs-block@@"

if __name__ == "__main__":
    namespace = {"__name__": "__main__"}
    for index, block in enumerate(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))):
        print(f"\n{SENTINEL} {index}", flush=True)
        if block["language"] == "python":
            # Blank lines first, so that a traceback's line numbers are the page's.
            code = compile("\n" * block["line"] + block["text"], block["page"], "exec")
            exec(code, namespace)
            sys.stdout.flush()
            continue
        for command in block["commands"]:
            run = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                                 timeout=600)
            print(run.stdout, end="", flush=True)
            if run.returncode != 0:
                print(f"{block['where']}: `{command}` exited with status {run.returncode}:\n"
                      f"{run.stderr}", file=sys.stderr)
                sys.exit(3)
