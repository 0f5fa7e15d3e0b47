"""Triage speed without a model: the classifier per event, and TIC's whole decision per case
(classify, apply the compiled rules, the heuristics), on the labelled sets in tests/triage.

    python bench/triage_case_speed.py

A tiny scripted model stands in, so no line goes to a model. The first case of a run also
pays for compiling regular expressions and its rules file; the median is the steady state."""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from engine.events import parse_event
from engine.llm.scripted import ScriptedModel
from engine.triage.classifier import classify
from engine.triage.decider import TriageDecider
from engine.workspace import Workspace

SETS = Path(__file__).resolve().parents[1] / "tests" / "triage"


async def main() -> None:
    decider = TriageDecider(ScriptedModel(capability="tiny"), Workspace(Path(tempfile.mkdtemp())))
    for name in ("dev", "generalization", "eval"):
        folder = SETS / name
        cases = [json.loads(line) for line in (folder / "cases.jsonl").read_text().splitlines()]
        events = [parse_event(c["event"]) for c in cases]
        started = time.perf_counter()
        for event in events * 5:
            classify(event)
        classify_ms = (time.perf_counter() - started) / (5 * len(events)) * 1000
        times = []
        for case, event in zip(cases, events, strict=True):
            rules = (folder / f"rules-{case['rules']}.md").read_text(encoding="utf-8")
            started = time.perf_counter()
            await decider.decide([event], datetime.fromisoformat(case["now"]), rules_text=rules)
            times.append((time.perf_counter() - started) * 1000)
        p95 = sorted(times)[int(len(times) * 0.95)]
        print(
            f"{name}: {len(cases)} cases; classify {classify_ms:.2f} ms/event; decide "
            f"median {statistics.median(times):.2f} ms, 95th {p95:.2f} ms, max {max(times):.1f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
