"""``python -m bench`` runs and writes its JSON (figures are never asserted: they depend on
the machine; a cheap figure is run here only for the report's shape)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import ROOT


def bench(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TIC_HOME=str(tmp_path / "home"))
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_quick_run_of_one_figure_writes_the_table_and_the_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = bench("--quick", "--only", "cli", "--runs", "1", "--json", str(out), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| cli | tic-desktop --help |" in done.stdout
    report = json.loads(out.read_text())
    assert report["quick"] is True and report["command"].startswith("python -m bench")
    assert set(report["machine"]) >= {"cpus", "platform"} and "cli" in report["seconds"]
    whats = [f["what"] for f in report["figures"]]
    assert whats == ["import tic_cli.cli", "tic-desktop --help", "tic-desktop triage on 8 events"]
    for figure in report["figures"]:
        assert figure["figure"] == "cli" and figure["unit"] == "ms" and figure["error"] is None
        assert set(figure["value"]) == {"median", "min", "max", "runs"}
        assert figure["value"]["runs"] == 1 and figure["value"]["median"] > 0


def test_an_unknown_figure_is_refused_in_one_line(tmp_path: Path) -> None:
    done = bench("--only", "nope", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "unknown figure(s) nope" in done.stderr.strip().splitlines()[-1]
