"""A full disk said as what it is: "the disk is full (32 KB free)", measured where TIC writes.

SQLite reports a disk with no room left as "database or disk is full", or, when it cannot
even grow its shared-memory file, as "disk I/O error"; the operating system as ENOSPC (or
EDQUOT, a quota spent). Either way nothing is damaged and nothing should be restored: once
there is space again, the same command works.

``disk_usage`` is looked up when it is called, so a test can put its own in its place."""

from __future__ import annotations

import errno
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
LOW_SPACE = 4 * 1024 * 1024
"""Bytes free under which a disk I/O error is taken for a full disk: SQLite's write-ahead
log grows to about 4 MB between checkpoints, so with less free it may fail to grow."""


class Usage(NamedTuple):
    total: int
    used: int
    free: int


DiskUsage = Callable[[Path], Usage]


def disk_usage(path: Path) -> Usage:
    """``shutil.disk_usage`` (the stand-in tests replace)."""
    total, used, free = shutil.disk_usage(path)
    return Usage(total, used, free)


def free_bytes(where: Path, usage: DiskUsage | None = None) -> int | None:
    """Bytes free on the disk holding ``where`` (its nearest existing folder); None when it
    cannot be measured."""
    measure = usage if usage is not None else disk_usage
    path = where
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return measure(path).free
    except OSError:
        return None


def is_full_error(exc: BaseException) -> bool:
    """An OSError saying there is no space left (ENOSPC, or EDQUOT: the quota is spent)."""
    return isinstance(exc, OSError) and exc.errno in FULL_ERRNOS


def kilobytes(size: int) -> str:
    return f"{size // 1024:,} KB".replace(",", " ")


def full_disk(where: Path, usage: DiskUsage | None = None) -> str:
    """ "the disk is full (32 KB free)", with what is free on the disk holding ``where``."""
    free = free_bytes(where, usage)
    return "the disk is full" + (f" ({kilobytes(free)} free)" if free is not None else "")


def looks_full(where: Path, usage: DiskUsage | None = None) -> bool:
    """Whether the disk holding ``where`` has under ``LOW_SPACE`` free."""
    free = free_bytes(where, usage)
    return free is not None and free < LOW_SPACE
