"""How many threads llama.cpp gets, chosen for the machine and what else runs on it now.

llama.cpp's worker threads spin while they wait for each other, so a thread without a free
core of its own does not just idle: it holds up every other one. Measured with the embedded
model on a 2-core machine (``python -m bench --only threads``, raw llama-cpp-python): quiet,
2 threads read a prompt at 429 tok/s against 240 with 1 (decoding: 131 against 127); with
the other core busy, 2 threads read at 103 tok/s against 156 with 1, and decode at 8 tok/s
against 95. llama-cpp-python's defaults (every core for prompts, half for decoding) are
right for neither case. So both counts are the cores free right now: the usable CPUs minus
what other processes keep busy, measured from ``/proc/stat`` since the last call (this
process's own CPU time subtracted; the first time over a quarter of a second, on the model's
thread), or the load average when the last call is too long ago. Decoding is memory-bound
and gains little past a few threads, so it is capped."""

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
    """How many cores other processes kept busy since the window began."""

    def __init__(self) -> None:
        self._start = self._reading()

    @staticmethod
    def _reading() -> tuple[float, float | None, float]:
        return time.monotonic(), _cpu_busy_seconds(), _own_seconds()

    def others_busy(self, *, wait: bool = False) -> float | None:
        """Cores kept busy by other processes over the window, which then starts afresh.
        A window too short to say anything is kept growing (None), unless ``wait``: then
        it is waited out. Past ``MAX_WINDOW`` the 1-minute load average stands in, less
        this process's own share. None without ``/proc/stat``."""
        now = self._reading()
        t0, busy0, own0 = self._start
        if now[0] - t0 < MIN_WINDOW:
            if not wait:
                return None
            time.sleep(MIN_WINDOW - (now[0] - t0))
            now = self._reading()
        self._start = now
        window = now[0] - t0
        own = (now[2] - own0) / window
        if busy0 is None or now[1] is None:
            return None
        if window > MAX_WINDOW:
            return max(0.0, os.getloadavg()[0] - own)
        return max(0.0, (now[1] - busy0) / window - own)


class ThreadPolicy:
    """The choice before each model call: fixed when the user set ``model_threads``,
    otherwise measured (``LoadMeter``); between calls too close together to measure, the
    previous choice stands."""

    def __init__(self, fixed: int | None = None) -> None:
        self.fixed = fixed
        self._meter = LoadMeter()
        self._last: ThreadChoice | None = None

    def choose(self) -> ThreadChoice:
        if self.fixed is not None:
            return ThreadChoice(self.fixed, self.fixed, f"{self.fixed} thread(s), as set")
        others = self._meter.others_busy(wait=self._last is None)
        if others is None and self._last is not None:
            return self._last
        self._last = choose_threads(others)
        return self._last
