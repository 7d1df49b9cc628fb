"""One writer of the commit soak test: ``COMMITS`` random appends and overwrites.

    python soak_child.py URI DB WRITER COMMITS SEED

Commit ``i`` of writer ``w`` writes rows tagged ``w * 1000 + i`` (value ``tag * 100 + j``) into
one or two of the partitions ``k=0..2``, by append or overwrite, and prints ``ok <i>`` once the
commit returned. The commit order is noted by the commit itself (``note@locked``).
"""

from __future__ import annotations

import random
import sys

from commit_child import write


def plan(writer: int, commits: int, seed: int) -> list[tuple[str, dict[str, list[int]]]]:
    """Each commit's mode and rows; the test computes the same plan to replay it."""
    chooser = random.Random(seed * 100 + writer)
    commits_planned = []
    for i in range(commits):
        tag = writer * 1000 + i
        partitions = chooser.sample(range(3), chooser.choice((1, 2)))
        rows = {f"k={k}": [tag * 100 + j for j in range(chooser.randint(3, 8))]
                for k in sorted(partitions)}
        commits_planned.append((chooser.choice(("append", "overwrite")), rows))
    return commits_planned


if __name__ == "__main__":
    uri, database, writer, commits, seed = sys.argv[1:]
    for index, (mode, rows) in enumerate(plan(int(writer), int(commits), int(seed))):
        write(uri, database, "t", mode, None, rows, files=2)
        print(f"ok {index}", flush=True)
