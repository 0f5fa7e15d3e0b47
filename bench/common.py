"""What every figure of the bench shares: how a figure is reported (a ``Row``: median
[min–max] over repeated runs, with a raw reference and the ratio when there is one), the
temporary workspaces, the model given on the command line, process memory and CPU, and a
time limit on everything.

Figures depend on the machine and on what else runs on it; quote ratios."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
if str(ROOT) not in sys.path:  # ``python bench/x.py`` from anywhere
    sys.path.insert(0, str(ROOT))


@dataclass
class Options:
    """What ``python -m bench`` was asked for."""

    model: Path | None = None  # None: the embedded default
    quick: bool = False
    runs: int | None = None  # None: each figure's own default (fewer with --quick)

    def repeat(self, full: int, quick: int) -> int:
        return self.runs if self.runs is not None else (quick if self.quick else full)

    def model_path(self) -> Path:
        if self.model is not None:
            return self.model
        from engine.llm.select import default_model_path

        return default_model_path()


@dataclass
class Row:
    """One figure: its samples (median [min–max] is what is shown), and where there is one,
    the raw llama-cpp-python reference on the same work (``ratio`` = app / raw)."""

    figure: str
    what: str
    unit: str
    samples: list[float] = field(default_factory=list)
    raw: list[float] | None = None
    note: str = ""
    error: str | None = None

    @property
    def ratio(self) -> float | None:
        if not self.raw or not self.samples:
            return None
        raw = statistics.median(self.raw)
        return statistics.median(self.samples) / raw if raw else None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["value"] = spread(self.samples) if self.samples else None
        out["raw_value"] = spread(self.raw) if self.raw else None
        out["ratio"] = round(self.ratio, 3) if self.ratio is not None else None
        return out


def spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "median": _round(statistics.median(values)),
        "min": _round(min(values)),
        "max": _round(max(values)),
        "runs": len(values),
    }


def _round(value: float) -> float:
    return round(value, 3) if abs(value) < 10 else round(value, 1)


def fmt(values: Sequence[float] | None) -> str:
    """median [min–max], with as many digits as the size needs."""
    if not values:
        return "–"
    s = spread(values)
    if len(values) == 1:
        return _num(s["median"])
    return f"{_num(s['median'])} [{_num(s['min'])}\u2013{_num(s['max'])}]"


def _num(value: float) -> str:
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if abs(value) >= 0.1 else f"{value:.3f}"


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


# workspaces ----------------------------------------------------------------------------------


@contextmanager
def scratch_home(settings: dict[str, Any] | None = None, rules: str = "") -> Iterator[Path]:
    """A fresh workspace folder (deleted after), with these settings and rules file."""
    with tempfile.TemporaryDirectory(prefix="tic-bench-") as home:
        root = Path(home)
        (root / "data").mkdir()
        (root / "data" / "notifications.md").write_text(rules, encoding="utf-8")
        if settings:
            (root / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        yield root


def env_for(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a TIC subprocess on ``home`` running this checkout's code."""
    env = dict(os.environ, TIC_HOME=str(home), TIC_ALLOW_MODEL_REQUESTS="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run_process(
    args: list[str], *, env: dict[str, str], timeout: float, stdin: str | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run to completion; (wall ms, result). Raises TimeoutError past ``timeout``."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            args,
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=stdin,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"{' '.join(args[:4])} took longer than {timeout:.0f}s") from None
    return ms_since(start), done


# processes -----------------------------------------------------------------------------------


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process (this one by default), in MB."""
    status = Path(f"/proc/{pid or 'self'}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc status")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def machine() -> dict[str, Any]:
    import platform

    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
    }


async def bounded(coro: Any, seconds: float, what: str) -> Any:
    """Await ``coro`` for at most ``seconds``; TimeoutError naming ``what`` after."""
    try:
        return await asyncio.wait_for(coro, timeout=seconds)
    except TimeoutError:
        raise TimeoutError(f"{what} took longer than {seconds:.0f}s") from None
