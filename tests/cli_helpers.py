"""Run the ``tic`` command line in a subprocess, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRIAGE_DEV = ROOT / "tests" / "triage" / "dev"  # the labelled triage dev set


def run_tic(
    *args: str,
    home: Path,
    allow_model: bool = False,
    timeout: float = 600,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TIC_HOME=str(home), TIC_ALLOW_MODEL_REQUESTS="1" if allow_model else "0")
    return subprocess.run(
        [sys.executable, "-m", "tic_cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
        input=input_text,
    )


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
