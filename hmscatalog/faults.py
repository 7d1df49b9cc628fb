"""Named points in the commit where tests stop the process, to prove what a crash leaves.

Set ``HMSCATALOG_FAULTS`` to a comma-separated list of ``<action>@<point>[:<n>]``: the
``n``-th time (the first by default) the process reaches the point, it sends itself SIGKILL
(``kill``) or SIGSTOP (``stop``, to hold a write while a test looks), or raises an error
(``fail``, as a failing metastore or disk would); ``note`` appends ``<point> <pid>`` to the file
named by ``HMSCATALOG_FAULTS_NOTES`` every time (at ``locked``: the order of commits). Without
the variable every point costs one dictionary lookup. The points are ``begin``, ``locked``,
``commit-record``, ``move``, ``committed``, ``register``, ``statistics``, ``retire`` (a path
write on S3, before it deletes what an overwrite replaced), ``cleanup``, ``abort-record``,
``undo-move`` and ``record-replace`` (every save of a record on local disk, between writing
it beside and renaming it over the record: the first save of a write is ``:1``, its
``committing`` record ``:2``, its ``committed`` one ``:3``).
"""

from __future__ import annotations

import os
import signal
from collections import Counter

from hmscatalog.errors import HmsCatalogError

ENVIRONMENT = "HMSCATALOG_FAULTS"
_reached: Counter[str] = Counter()


class InjectedFault(HmsCatalogError):
    """The error a ``fail@`` fault raises."""


def _faults() -> dict[str, tuple[str, int]]:
    spec = os.environ.get(ENVIRONMENT, "")
    faults = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        action, _, where = item.partition("@")
        point, _, count = where.partition(":")
        if action not in ("kill", "stop", "fail", "note") or not point:
            raise HmsCatalogError(f"{ENVIRONMENT}: {item!r} is not <action>@<point>[:<n>] with "
                                  "action kill, stop, fail or note")
        faults[point] = (action, int(count or 1))
    return faults


def reached(point: str) -> None:
    """Called by the commit at each named point. Counting starts again once the variable has
    been unset, so that faults set and unset by one test do not shift another's."""
    if ENVIRONMENT not in os.environ:
        if _reached:
            _reached.clear()
        return
    fault = _faults().get(point)
    if fault is None:
        return
    _reached[point] += 1
    action, count = fault
    if action == "note":
        with open(os.environ[f"{ENVIRONMENT}_NOTES"], "a", encoding="utf-8") as notes:
            notes.write(f"{point} {os.getpid()}\n")
        return
    if _reached[point] != count:
        return
    if action in ("kill", "stop"):
        os.kill(os.getpid(), signal.SIGKILL if action == "kill" else signal.SIGSTOP)
        return
    raise InjectedFault(f"injected failure at {point} ({ENVIRONMENT})")
