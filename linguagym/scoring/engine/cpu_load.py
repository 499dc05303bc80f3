"""How many CPUs other processes keep busy now: ``/proc/stat``'s per-CPU counters over a short interval.

The 1-minute load average still counts a job that ended a minute ago (a cold run started right after a
6-minute job chose one thread and took 85 s instead of 71 s). Two samples of the busy time of the CPUs this
process may use, less this process's own CPU time between them, say what the others use in that interval.
Nothing here imports torch; where ``/proc/stat`` is missing (macOS, Windows) the answer is None.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.15  # the shortest interval measured: 15 jiffies per CPU at the usual 100 Hz
MAX_AGE = 30.0  # a first sample older than this measures the past, not now: a fresh interval is taken


@dataclass(frozen=True)
class CpuSample:
    at: float  # time.monotonic() when taken
    own: float  # this process's CPU seconds so far (user + system, every thread)
    busy: int  # jiffies the sampled CPUs spent on anything but idle and I/O wait
    total: int  # all jiffies of the sampled CPUs
    cpus: int  # how many CPUs were sampled


def _read_proc_stat() -> str:
    return Path("/proc/stat").read_text(encoding="ascii")


def _own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def sample(
    cpus: Collection[int] | None = None,
    *,
    read_stat: Callable[[], str] = _read_proc_stat,
    own_seconds: Callable[[], float] = _own_cpu_seconds,
    clock: Callable[[], float] = time.monotonic,
) -> CpuSample | None:
    """The counters of the CPUs numbered ``cpus`` (all when None) now; None where they cannot be read."""
    try:
        text = read_stat()
    except OSError:
        return None
    busy = total = sampled = 0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue  # the summed "cpu" line and the rest of the file
        if cpus is not None and int(name[3:]) not in cpus:
            continue
        try:
            # user nice system idle iowait irq softirq steal (guest time is already counted in user and nice)
            fields = [int(value) for value in rest.split()[:8]]
        except ValueError:
            return None
        if len(fields) < 4:
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        total += sum(fields)
        busy += sum(fields) - idle
        sampled += 1
    if not sampled:
        return None
    return CpuSample(clock(), own_seconds(), busy, total, sampled)


def busy_elsewhere(before: CpuSample, after: CpuSample) -> float | None:
    """CPUs (a fraction) that other processes kept busy between two samples of the same CPUs; None when the
    interval holds no tick to go by."""
    elapsed = after.at - before.at
    ticks = after.total - before.total
    if elapsed <= 0 or ticks <= 0 or after.cpus != before.cpus:
        return None
    busy = after.cpus * (after.busy - before.busy) / ticks
    ours = (after.own - before.own) / elapsed
    return max(0.0, min(float(after.cpus), busy - ours))
