"""Reducing a failing case: drop what the difference does not need (settings, steps, reads,
columns, rows), keeping each reduction that still shows a finding of the same kind."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import replace

from cases import CREATES, UNION, Case
from runner import Finding, Runner

# How long a failure may spend reducing its case (HMSCATALOG_FUZZ_SHRINK_SECONDS; 0: not at all).
SHRINK_SECONDS = float(os.environ.get("HMSCATALOG_FUZZ_SHRINK_SECONDS", "120"))


def _smaller(case: Case) -> Iterator[Case]:
    """Candidates one step smaller than ``case``, the biggest cuts first."""
    for read in case.reads:
        if UNION in read:  # the predicate that differs
            yield from (case.with_(reads=(branch,)) for branch in read.split(UNION))
    if len(case.rows) > 1:
        half = len(case.rows) // 2
        yield case.with_(rows=case.rows[:half])
        yield case.with_(rows=case.rows[half:])
    for i in range(len(case.settings)):
        yield case.with_(settings=case.settings[:i] + case.settings[i + 1:])
    for i in range(len(case.steps)):
        if len(case.steps) > 1 and (i > 0 or case.steps[1].kind not in CREATES):
            yield case.with_(steps=case.steps[:i] + case.steps[i + 1:])
    for i, step in enumerate(case.steps):
        if step.where:
            yield case.with_(steps=(*case.steps[:i], replace(step, where=""),
                                    *case.steps[i + 1:]))
        if step.through:  # the step through hms: a smaller cross-catalog history
            yield case.with_(steps=(*case.steps[:i], replace(step, through=""),
                                    *case.steps[i + 1:]))
    if len(case.columns) > 1:
        for i in range(len(case.columns)):
            dropped = case.columns[i].name
            if any(dropped in read for read in case.reads if read != "SELECT * FROM {t}"):
                continue
            yield case.with_(columns=case.columns[:i] + case.columns[i + 1:],
                             rows=tuple(row[:i] + row[i + 1:] for row in case.rows))
    for i in range(len(case.rows)):
        if len(case.rows) > 1:
            yield case.with_(rows=case.rows[:i] + case.rows[i + 1:])


def shrink(runner: Runner, case: Case, findings: list[Finding]) -> tuple[Case, list[Finding]]:
    """The smallest case found within :data:`SHRINK_SECONDS` that still shows a finding of
    the kind of the first one, and its findings."""
    kind = findings[0].what
    # A difference one of the case's reads showed needs only that read.
    full = findings[0].read not in case.reads
    if not full:
        case = case.with_(reads=(findings[0].read,))
    deadline = time.monotonic() + SHRINK_SECONDS
    best, best_findings = case, findings
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for candidate in _smaller(best):
            if time.monotonic() >= deadline:
                break
            found = [f for f in runner.run(candidate, full) if f.what == kind]
            if found:
                best, best_findings, improved = candidate, found, True
                break
    return best, best_findings
