"""One engine per workspace: whichever front end starts first takes an OS lock (``flock``)
on ``tic.lock`` in the workspace and holds it for the process's life. The OS releases it when
the process ends, however it ends (kill -9 included), so a stale lock cannot exist.

The lock file also says who holds it (pid and front end), for the one-line messages of the
front ends that find it taken."""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from engine.workspace import Workspace

LOCK_NAME = "tic.lock"


def lock_path(workspace: Workspace) -> Path:
    return workspace.root / LOCK_NAME


@dataclass(frozen=True)
class Holder:
    """Who holds a workspace: e.g. ``Holder(4242, "tic-desktop tick")``."""

    pid: int | None
    role: str

    def describe(self) -> str:
        return f"{self.role} (pid {self.pid})" if self.pid else self.role


class WorkspaceLock:
    """The held lock. ``release`` (or the process's end) lets the next front end take it."""

    def __init__(self, fd: int, path: Path, role: str):
        self._fd: int | None = fd
        self.path = path
        self.role = role

    @classmethod
    def try_acquire(cls, workspace: Workspace, role: str) -> WorkspaceLock | None:
        """Take the workspace's lock now, or None when another process holds it."""
        path = lock_path(workspace)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by children
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {role}\n".encode(), 0)
        return cls(fd, path, role)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the descriptor releases the flock
        self._fd = None

    def __enter__(self) -> WorkspaceLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def holder(workspace: Workspace) -> Holder:
    """Who the lock file names (it is written just after the lock is taken)."""
    try:
        text = lock_path(workspace).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        text = ""
    pid_text, _, role = text.partition(" ")
    pid = int(pid_text) if pid_text.isdigit() else None
    return Holder(pid, role.strip() or "another TIC")
