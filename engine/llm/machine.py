"""What this computer can give a model: free memory, CPU cores, free disk space. Read from
``/proc/meminfo`` on Linux (``MemAvailable``: what can be had without swapping), else from
``os.sysconf``; cores are the ones this process may run on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from engine.modeltypes import MachineInfo

MEMINFO = Path("/proc/meminfo")


def _meminfo(path: Path = MEMINFO) -> dict[str, int]:
    """``/proc/meminfo`` in bytes (it says kB), or {} where there is none."""
    values: dict[str, int] = {}
    try:
        text = path.read_text(encoding="ascii")
    except OSError:
        return values
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            scale = 1024 if len(parts) > 1 and parts[1].lower() == "kb" else 1
            values[key.strip()] = int(parts[0]) * scale
    return values


def _sysconf(name: str) -> int | None:
    try:
        value = os.sysconf(name)
    except (ValueError, OSError, AttributeError):
        return None
    return value if value > 0 else None


def memory(meminfo: Path = MEMINFO) -> tuple[int, int]:
    """(total, available) bytes of memory; (0, 0) where neither source says."""
    info = _meminfo(meminfo)
    total = info.get("MemTotal")
    available = info.get("MemAvailable")
    page = _sysconf("SC_PAGE_SIZE") or 4096
    if total is None:
        pages = _sysconf("SC_PHYS_PAGES")
        total = pages * page if pages else 0
    if available is None:
        pages = _sysconf("SC_AVPHYS_PAGES")
        available = pages * page if pages else total
    return total, available


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def disk_free(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def probe_machine(models_dir: Path | None = None) -> MachineInfo:
    total, available = memory()
    return MachineInfo(
        memory_total=total,
        memory_available=available,
        cores=cores(),
        disk_free=disk_free(models_dir) if models_dir is not None else None,
    )
