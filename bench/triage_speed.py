"""Triage speed: TIC's compiled rules vs asking the model about every event (the baseline a
plain LLM triage would be), side by side on the dev set with the embedded model.

    python bench/triage_speed.py [--repeat 3]

Prints seconds per pass for each and the ratio. Figures depend on the machine; quote ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from datetime import datetime
from pathlib import Path

from engine.events import parse_event
from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path
from engine.triage.decider import TriageDecider, grammar_safe, rule_choice_schema
from engine.triage.rules.parse import parse_rules
from engine.triage.summary import describe_event
from engine.workspace import Workspace

DEV = Path(__file__).resolve().parents[1] / "tests" / "triage" / "dev"


def load_groups() -> list[tuple[str, object, list]]:
    groups: dict[tuple[str, str], list] = {}
    for line in (DEV / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        groups.setdefault((case["rules"], case["now"]), []).append(parse_event(case["event"]))
    return [
        ((DEV / f"rules-{r}.md").read_text(), datetime.fromisoformat(n), evs)
        for (r, n), evs in groups.items()
    ]


async def compiled_pass(decider: TriageDecider, groups) -> None:
    for rules, now, events in groups:
        await decider.decide(events, now, rules_text=rules)


async def model_pass(model: LlamaCppModel, groups) -> None:
    """The baseline: one schema-constrained model call per event, rules in the prompt."""
    for rules, _now, events in groups:
        lines = [grammar_safe(r.text) for r in parse_rules(rules).rules]
        system = {"role": "system", "content": f"Decide notifications.\n\n{rules}"}
        for event in events:
            user = {"role": "user", "content": json.dumps(describe_event(event))}
            await model.complete([system, user], schema=rule_choice_schema(lines), max_tokens=120)


async def main(repeat: int) -> None:
    workspace = Workspace(Path("/tmp/tic-bench-home"))
    model = LlamaCppModel(default_model_path())
    await model.load()
    decider = TriageDecider(model, workspace)
    groups = load_groups()
    n = sum(len(g[2]) for g in groups)
    compiled, baseline = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        await compiled_pass(decider, groups)
        compiled.append(time.perf_counter() - t)
        t = time.perf_counter()
        await model_pass(model, groups)
        baseline.append(time.perf_counter() - t)
    await model.close()
    c, b = statistics.median(compiled), statistics.median(baseline)
    print(f"{n} events, median of {repeat} passes")
    print(f"compiled rules: {c * 1000:.1f} ms per pass")
    print(f"model per event: {b * 1000:.1f} ms per pass")
    print(f"ratio: compiled rules are {b / c:.0f}x faster")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(parser.parse_args().repeat))
