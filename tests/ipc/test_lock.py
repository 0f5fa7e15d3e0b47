"""The workspace lock: one holder at a time, named in the lock file, released by the OS when
its process dies however it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from engine.ipc.lock import WorkspaceLock, holder
from tests.cli_helpers import ROOT

HOLD = """
import sys, time
from engine.ipc.lock import WorkspaceLock
from engine.workspace import Workspace
from pathlib import Path
lock = WorkspaceLock.try_acquire(Workspace(Path(sys.argv[1])), "a test holder")
print("held" if lock else "refused", flush=True)
time.sleep(60)
"""


def test_one_holder_at_a_time_named_in_the_lock_file(workspace):
    first = WorkspaceLock.try_acquire(workspace, "tic-desktop tick")
    assert first is not None
    try:
        assert WorkspaceLock.try_acquire(workspace, "tic-desktop chat") is None
        who = holder(workspace)
        assert (who.pid, who.role) == (os.getpid(), "tic-desktop tick")
        assert who.describe() == f"tic-desktop tick (pid {os.getpid()})"
    finally:
        first.release()
    with WorkspaceLock.try_acquire(workspace, "tic-desktop chat") as second:
        assert second is not None and second.held
    assert not second.held


def test_the_lock_goes_with_its_process_even_on_kill_9(workspace):
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(workspace.root)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert WorkspaceLock.try_acquire(workspace, "me") is None
        assert holder(workspace).role == "a test holder"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
    deadline = time.monotonic() + 5
    lock = None
    while lock is None and time.monotonic() < deadline:
        lock = WorkspaceLock.try_acquire(workspace, "me")
    assert lock is not None
    lock.release()
