"""A real full disk and a real read-only workspace, without root: a command runs in a user and
mount namespace of its own (``unshare -rm``), where a tiny tmpfs or a read-only bind mount is
made for it alone and is gone when it ends. (``chmod`` cannot stand in: as root, which tests
may run as, it stops no write.)"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_helpers import ROOT


@functools.cache
def why_no_namespace() -> str | None:
    """Why mounts cannot be made here (None when they can)."""
    if shutil.which("unshare") is None:
        return "no unshare(1) on this system"
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"user and mount namespaces are not allowed here: {probe.stderr.strip()}"
    return None


needs_mounts = pytest.mark.skipif(why_no_namespace() is not None, reason=str(why_no_namespace()))


@dataclass(frozen=True)
class Ran:
    returncode: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def tic_in_namespace(setup: str, home: str, args: list[str], out: Path) -> Ran:
    """Run ``tic-desktop ARGS`` on the workspace ``home`` after the shell commands ``setup``
    (mounting), in a namespace of its own; ``out`` (outside the mounts) receives what it
    printed, and any files ``setup`` copies there."""
    out.mkdir(parents=True, exist_ok=True)
    script = (
        f"set -e\n{setup}\nset +e\n"
        f'"$PYTHON" -m tic_cli "$@" >"$OUT/stdout" 2>"$OUT/stderr"\n'
        'echo $? >"$OUT/rc"\n'
        'if [ -n "$AFTER" ]; then eval "$AFTER"; fi\n'
    )
    env = dict(
        os.environ,
        TIC_HOME=home,
        TIC_ALLOW_MODEL_REQUESTS="0",
        PYTHON=sys.executable,
        OUT=str(out),
        AFTER="",
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (out / "rc").exists(), f"the mounts could not be made: {done.stderr}"
    return Ran(
        int((out / "rc").read_text()),
        (out / "stdout").read_text(),
        (out / "stderr").read_text(),
    )


def full_disk_setup(workspace: Path, mount: Path, free_kb: int, keep: Path) -> str:
    """A copy of ``workspace`` on an 8 MB tmpfs at ``mount`` filled up to ``free_kb`` KB
    free; after the command its store is copied into ``keep``."""
    mount.mkdir(parents=True, exist_ok=True)
    keep.mkdir(parents=True, exist_ok=True)
    return (
        f'mount -t tmpfs -o size=8m tmpfs "{mount}"\n'
        f'cp -a "{workspace}" "{mount}/home"\n'
        f'avail=$(df -k --output=avail "{mount}" | tail -1)\n'
        f'dd if=/dev/zero of="{mount}/fill" bs=1k count=$((avail - {free_kb})) 2>/dev/null'
        " || true\n"
        f'export AFTER=\'cp "{mount}"/home/tic.db* "{keep}"/\''
    )


def read_only_setup(workspace: Path) -> str:
    """``workspace`` itself, mounted read-only over itself."""
    return f'mount --bind "{workspace}" "{workspace}"\nmount -o remount,bind,ro "{workspace}"'
