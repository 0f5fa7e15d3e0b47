"""The reasons TIC gives ("why?", ``tic-desktop history``) speak to you: "Anna wrote to you
directly and asks you something", never "… to the user …"."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from engine.events import parse_event
from engine.triage.policy import heuristic
from tests.cli_helpers import ROOT

SETS = [ROOT / "tests" / "triage" / "dev" / "cases.jsonl", ROOT / "tests" / "triage" / "eval"]


def cases() -> list[dict[str, object]]:
    files: list[Path] = []
    for path in SETS:
        files += sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    found = []
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            case = json.loads(line) if line.strip() else {}
            if isinstance(case, dict) and isinstance(case.get("event"), dict):
                found.append(case)
    return found


def test_the_built_in_judgement_says_you() -> None:
    reasons = set()
    for case in cases():
        now = datetime.fromisoformat(str(case.get("now") or "2026-11-10T08:00:00+00:00"))
        reasons.add(heuristic(parse_event(case["event"]), now).reason)
    assert len(reasons) > 20  # the sets were read
    assert not [r for r in reasons if "the user" in r]
    assert any("wrote to you directly" in r for r in reasons)
