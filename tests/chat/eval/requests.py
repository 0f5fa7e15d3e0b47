"""Score a set of chat requests that change (or must not change) the rules: each request is
said to the chat of a fresh workspace holding the case's rules file, on a tiny model (the
embedded model's path: what code recognises is done by code, anything else is refused), a
"yes" follows when the answer asks for one, and the case's probe events are then decided
under the rules file as it was left. A case passes when every probe comes out as the case
expects (``notify_after``) and, for a request that must change nothing, the file is as it
was.

Usage: python -m tests.chat.eval.requests DIR [--show]   (DIR holds requests.jsonl)
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.engine import Engine
from engine.events import Event
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.triage.decider import TriageDecider
from engine.workspace import Workspace

ASKS_YES = ("Say yes", "Apply it?", "Shall I", "say yes")


@dataclass
class Outcome:
    case: dict[str, Any]
    passed: bool
    answer: str
    rules_after: str
    wrong: list[str]


async def run_case(case: dict[str, Any]) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace.open(Path(tmp) / "home")
        workspace.rules_file.write_text(case["rules_before"], encoding="utf-8")
        model = ScriptedModel(capability="tiny")
        engine = Engine(workspace, Settings(), model)
        await engine.start(schedule=False)
        try:
            reply = await engine.send(case["request"])
            answer = reply.text
            if reply.awaits_yes or any(cue in answer for cue in ASKS_YES):
                answer += "\n> yes\n" + (await engine.send("yes")).text
            rules_after = workspace.rules_file.read_text(encoding="utf-8")
            decider = TriageDecider(model, workspace)
            events = [Event.model_validate(p["event"]) for p in case["probes"]]
            now = datetime.fromisoformat(case["now"])
            decided = await decider.decide_each(events, now)
        finally:
            await engine.stop()
    wrong = []
    for probe, decision in zip(case["probes"], decided, strict=True):
        got = getattr(decision, "notify", None)
        if got != probe["notify_after"]:
            reason = getattr(decision, "reason", repr(decision))
            wrong.append(f"{probe['event']['id']}: expected {probe['notify_after']} ({reason})")
    if case["expect"] == "no_change" and rules_after != case["rules_before"]:
        wrong.append("the rules file changed")
    return Outcome(case, not wrong, answer, rules_after, wrong)


async def main(folder: Path, show: bool) -> None:
    cases = [json.loads(line) for line in (folder / "requests.jsonl").open(encoding="utf-8")]
    outcomes = [await run_case(c) for c in cases]
    by_lang: Counter[str] = Counter()
    passed_lang: Counter[str] = Counter()
    by_expect: Counter[str] = Counter()
    passed_expect: Counter[str] = Counter()
    for o in outcomes:
        by_lang[o.case["lang"]] += 1
        by_expect[o.case["expect"]] += 1
        passed_lang[o.case["lang"]] += o.passed
        passed_expect[o.case["expect"]] += o.passed
        if show and not o.passed:
            print(f"FAIL {o.case['id']}: {o.case['request']}")
            print(f"   answer: {o.answer[:300]}")
            for w in o.wrong:
                print(f"   {w[:200]}")
    total = sum(o.passed for o in outcomes)
    print(f"requests: {len(outcomes)}  passed: {total} ({total / len(outcomes):.1%})")
    for lang in sorted(by_lang):
        print(f"  {lang}: {passed_lang[lang]}/{by_lang[lang]}")
    for expect in sorted(by_expect):
        print(f"  {expect}: {passed_expect[expect]}/{by_expect[expect]}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), "--show" in sys.argv[2:]))
