"""The launcher above the command line and the desktop: no subcommand starts the desktop app,
a subcommand runs in the command line (``tic_cli``); ``python -m tic_cli`` stays headless."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tic_desktop.launcher as launcher
from engine.errors import TicError
from tests.cli_helpers import ROOT


@pytest.fixture
def desktop_runs(monkeypatch) -> list[tuple[Path | None, str | None, bool]]:
    calls: list[tuple[Path | None, str | None, bool]] = []

    def run_desktop(home: Path | None, model_path: str | None, verbose: bool) -> int:
        calls.append((home, model_path, verbose))
        return 0

    monkeypatch.setattr(launcher, "run_desktop", run_desktop)
    return calls


def test_no_subcommand_starts_the_desktop_app_with_the_global_options(desktop_runs, tmp_path):
    assert launcher.main([]) == 0
    assert launcher.main(["--home", str(tmp_path), "--model", "m.gguf", "-v"]) == 0
    assert desktop_runs == [(None, None, False), (tmp_path, "m.gguf", True)]


def test_a_subcommand_runs_in_the_command_line(desktop_runs, tmp_path, capsys):
    assert launcher.main(["--home", str(tmp_path / "home"), "history", "--json"]) == 0
    assert desktop_runs == []
    assert capsys.readouterr().out == ""


@pytest.mark.allow_log_warnings
def test_a_desktop_that_cannot_start_is_one_line(monkeypatch, capsys):
    def broken(home: Path | None, model_path: str | None, verbose: bool) -> int:
        raise TicError("the desktop app cannot start: no display")

    monkeypatch.setattr(launcher, "run_desktop", broken)
    assert launcher.main([]) == 1
    assert (
        capsys.readouterr().err == "tic-desktop: error: the desktop app cannot start: no display\n"
    )


def run(module: str, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TIC_HOME=str(home), TIC_ALLOW_MODEL_REQUESTS="0")
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_python_m_tic_cli_is_headless_and_says_where_the_app_is(tmp_path):
    out = run("tic_cli", home=tmp_path / "home")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "tic-desktop: error: a command is needed here "
        "(the desktop app starts with: python -m tic_desktop)"
    )


def test_python_m_tic_desktop_runs_the_commands(tmp_path):
    out = run("tic_desktop", "history", "--json", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
