"""Driver memory of an operation, for bench/scale.py: the JVM heap's peak (every heap pool's
peak after System.gc() and a reset) and what stays after another GC, this Python process's peak
resident growth (VmHWM, reset through /proc/self/clear_refs) and tracemalloc's peak."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Jvm:
    """The driver JVM's heap pools, through py4j."""

    def __init__(self, spark: Any) -> None:
        factory = spark._jvm.java.lang.management.ManagementFactory
        self.memory = factory.getMemoryMXBean()
        self.pools = [p for p in factory.getMemoryPoolMXBeans()
                      if str(p.getType().name()) == "HEAP"]

    def gc(self) -> int:
        """Collect (twice: a full collection may leave what finalizers free); heap used after."""
        self.memory.gc()
        self.memory.gc()
        return int(self.memory.getHeapMemoryUsage().getUsed())

    def reset_peaks(self) -> None:
        for pool in self.pools:
            pool.resetPeakUsage()

    def peak(self) -> int:
        return sum(int(pool.getPeakUsage().getUsed()) for pool in self.pools)


def _proc_status(key: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _reset_hwm() -> bool:
    """Reset this process's peak resident size (Linux 4.0+); whether that worked."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


@dataclass
class Memory:
    jvm_peak: int = 0
    jvm_kept: int = 0
    rss_growth: int | None = None
    traced_peak: int = 0

    @property
    def total(self) -> int:
        return self.jvm_peak + (self.rss_growth or 0)


def memory_of(jvm: Jvm, prepare: Callable[[], Callable[[], Any]]) -> Memory:
    """The driver memory an operation takes (JVM heap and this process's resident size), then
    tracemalloc's peak over another: ``prepare()`` (not measured) returns each."""
    found = Memory()
    run = prepare()
    gc.collect()
    jvm.gc()
    rss_before = _proc_status("VmRSS")
    hwm = _reset_hwm()
    jvm.reset_peaks()
    run()
    found.jvm_peak = jvm.peak()
    if hwm:
        found.rss_growth = max(0, _proc_status("VmHWM") - rss_before)
    gc.collect()
    found.jvm_kept = jvm.gc()
    run = prepare()
    tracemalloc.start()
    try:
        run()
        found.traced_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return found
