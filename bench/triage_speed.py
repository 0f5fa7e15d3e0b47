"""Triage speed on the dev set (``tests/triage/dev``): milliseconds per event when code decides
everything, and when a rules line code cannot read is sent to the model (a capable model
forced on the embedded GGUF: a tiny one is not trusted with such a line), with those model
calls replayed on raw llama-cpp-python. The old baseline, asking the model about every
event, is kept for the CLI.

    python bench/triage_speed.py [--repeat 3]        # the old side-by-side
    python -m bench --only triage                     # the figures
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import Options, Row, scratch_home  # noqa: E402

DEV = ROOT / "tests" / "triage" / "dev"
# A line no compiler reads: the model is asked whether it applies to each event no other
# rule decides.
UNREADABLE = "- Things my gut says matter"


def load_groups() -> list[tuple[str, datetime, list[Any]]]:
    from engine.events import parse_event

    groups: dict[tuple[str, str], list[Any]] = {}
    for line in (DEV / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        groups.setdefault((case["rules"], case["now"]), []).append(parse_event(case["event"]))
    return [
        ((DEV / f"rules-{r}.md").read_text(), datetime.fromisoformat(n), evs)
        for (r, n), evs in groups.items()
    ]


async def compiled_pass(decider: Any, groups: list[tuple[str, datetime, list[Any]]]) -> None:
    for rules, now, events in groups:
        await decider.decide(events, now, rules_text=rules)


async def model_pass(model: Any, groups: list[tuple[str, datetime, list[Any]]]) -> None:
    """The baseline: one schema-constrained model call per event, rules in the prompt."""
    from engine.triage.decider import grammar_safe, rule_choice_schema
    from engine.triage.rules.parse import parse_rules
    from engine.triage.summary import describe_event

    for rules, _now, events in groups:
        lines = [grammar_safe(r.text) for r in parse_rules(rules).rules]
        system = {"role": "system", "content": f"Decide notifications.\n\n{rules}"}
        for event in events:
            user = {"role": "user", "content": json.dumps(describe_event(event))}
            await model.complete([system, user], schema=rule_choice_schema(lines), max_tokens=120)


def with_unreadable(rules: str) -> str:
    """The rules with the unreadable line added to their Custom section (or a new one)."""
    if "## Custom rules" in rules:
        return rules.replace("## Custom rules", "## Custom rules\n" + UNREADABLE, 1)
    return rules.rstrip() + "\n\n## Custom rules\n" + UNREADABLE + "\n"


async def triage_figures(opts: Options) -> list[Row]:
    from bench.probe import CountingModel, RawLlama, threads_of
    from engine.llm.holder import ModelHolder
    from engine.llm.llama import LlamaCppModel
    from engine.triage.decider import TriageDecider
    from engine.workspace import Workspace

    groups = load_groups()
    count = sum(len(g[2]) for g in groups)
    path = opts.model_path()
    rows: list[Row] = []
    with scratch_home() as home:
        workspace = Workspace.open(home)
        inner = CountingModel(LlamaCppModel(path))
        model = ModelHolder(inner, "capable")
        decider = TriageDecider(model, workspace)
        try:
            compiled = []
            for _ in range(opts.repeat(full=20, quick=5)):
                started = time.perf_counter()
                await compiled_pass(decider, groups)
                compiled.append((time.perf_counter() - started) * 1000 / count)
            if inner.calls:
                raise RuntimeError("the compiled pass asked the model")
            rows.append(Row("triage", "ms per event, decided in code", "ms", compiled))

            await model.load()
            raw = RawLlama(path, int(inner.context_size), threads_of(inner) or (1, 1))
            await raw.load()
            try:
                asked = [(with_unreadable(r), n, evs) for r, n, evs in groups]
                per_event, per_call, raw_calls, calls_per_event = [], [], [], []
                remembered: list[float] = []
                for _ in range(opts.repeat(full=3, quick=1)):
                    decider = TriageDecider(model, workspace)  # nothing remembered yet
                    first = len(inner.calls)
                    started = time.perf_counter()
                    for rules, now, events in asked:
                        await decider.decide(events, now, rules_text=rules)
                    per_event.append((time.perf_counter() - started) * 1000 / count)
                    made = inner.calls[first:]
                    started = time.perf_counter()
                    for rules, now, events in asked:  # the same questions again
                        await decider.decide(events, now, rules_text=rules)
                    remembered.append((time.perf_counter() - started) * 1000 / count)
                    if not made:
                        raise RuntimeError(f"code read {UNREADABLE!r}: no model call to measure")
                    calls_per_event.append(len(made) / count)
                    per_call += [c.wall_ms for c in made]
                    raw_calls += [(await raw.replay(c)).wall_ms for c in made[:10]]
                rows.append(
                    Row(
                        "triage",
                        "ms per event, one line sent to the model (capable)",
                        "ms",
                        per_event,
                    )
                )
                rows.append(
                    Row(
                        "triage",
                        "ms per event, the same events again (verdicts remembered)",
                        "ms",
                        remembered,
                    )
                )
                rows.append(
                    Row(
                        "triage",
                        "model calls per event, one line sent to the model",
                        "calls",
                        calls_per_event,
                    )
                )
                if per_call:
                    rows.append(
                        Row(
                            "triage",
                            "one triage model call",
                            "ms",
                            per_call,
                            raw=raw_calls,
                            note="raw: the first 10 of each pass replayed",
                        )
                    )
            finally:
                await raw.close()
        finally:
            await model.close()
    return rows


async def main(repeat: int) -> None:
    from engine.llm.llama import LlamaCppModel
    from engine.llm.select import default_model_path
    from engine.triage.decider import TriageDecider
    from engine.workspace import Workspace

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
