"""How many threads llama.cpp gets, chosen for the machine and what else runs on it now.

llama.cpp's worker threads spin while they wait for each other, so a thread without a free
core of its own does not just idle: it holds up every other one. Measured on a 2-core machine
(``python -m bench --only threads``): idle, decoding with 2 threads is ~1.4x faster than with
1; with one other busy process, 2 prompt threads halve prompt speed and 2 decode threads
collapse decoding to 2–4 tok/s. llama-cpp-python's defaults (all cores for prompts, half for
decoding) are right for neither case. So both counts are the cores free right now: the
usable CPUs minus what other processes keep busy, measured from ``/proc/stat`` since the last
call (this process's own CPU time subtracted), or the load average when there is no recent
reading. Decoding is memory-bound and gains nothing past a few threads, so it is capped."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

DECODE_MAX = 8
MIN_WINDOW = 0.25  # seconds: a shorter window between readings says too little
MAX_WINDOW = 60.0  # seconds: a longer one is too old to describe "now"


@dataclass(frozen=True)
class ThreadChoice:
    decode: int
    prompt: int
    why: str


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def choose_threads(others_busy: float | None = None, cpus: int | None = None) -> ThreadChoice:
    """Threads for decoding and for prompts when other processes keep ``others_busy`` cores
    busy (default: the 1-minute load average)."""
    cpus = cpus if cpus is not None else usable_cpus()
    if others_busy is None:
        others_busy = os.getloadavg()[0]
    free = cpus - max(0.0, others_busy)
    threads = max(1, min(cpus, int(free + 0.5)))
    decode = min(threads, DECODE_MAX)
    why = (
        f"{cpus} CPU(s), {others_busy:.1f} kept busy by other processes: "
        f"{threads} thread(s) for prompts, {decode} for decoding"
    )
    return ThreadChoice(decode=decode, prompt=threads, why=why)


def _cpu_busy_seconds() -> float | None:
    """Seconds of CPU time all processes have used (``/proc/stat``), None if unreadable."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(v) for v in fields[1:9]]  # user nice system idle iowait irq softirq steal
    busy = sum(ticks) - ticks[3] - ticks[4]
    return busy / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    t = os.times()
    return t.user + t.system


class LoadMeter:
    """How many cores other processes kept busy since the previous reading."""

    def __init__(self) -> None:
        self._last = (time.monotonic(), _cpu_busy_seconds(), _own_seconds())

    def others_busy(self) -> float | None:
        """Cores kept busy by other processes since the last call (None: no usable window,
        e.g. too short, too long ago, or no ``/proc/stat``); starts a new window."""
        now = (time.monotonic(), _cpu_busy_seconds(), _own_seconds())
        (t0, busy0, own0), self._last = self._last, now
        window = now[0] - t0
        if busy0 is None or now[1] is None or not MIN_WINDOW <= window <= MAX_WINDOW:
            return None
        return max(0.0, (now[1] - busy0) - (now[2] - own0)) / window


class ThreadPolicy:
    """The choice before each model call: fixed when the user set ``model_threads``,
    otherwise measured (``LoadMeter``, or the load average without a recent window)."""

    def __init__(self, fixed: int | None = None) -> None:
        self.fixed = fixed
        self._meter = LoadMeter()

    def choose(self) -> ThreadChoice:
        if self.fixed is not None:
            return ThreadChoice(self.fixed, self.fixed, f"{self.fixed} thread(s), as set")
        return choose_threads(self._meter.others_busy())
