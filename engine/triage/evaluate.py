"""``tic eval``: run TIC's decision pipeline over a labelled set (the dev-set format) and
measure it: accuracy, precision, recall, hard-rule violations, and each wrong case."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.errors import InputError
from engine.events import Event, parse_event, read_jsonl
from engine.triage.classifier import classify, is_spam
from engine.triage.decider import Decision, TriageDecider
from engine.triage.policy import applicable
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.parse import ALWAYS, NEVER


@dataclass
class Case:
    line: int
    rules_id: str
    now: datetime
    event: Event
    expected: bool


@dataclass
class EvalReport:
    total: int = 0
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    never_violations: list[str] = field(default_factory=list)
    always_violations: list[str] = field(default_factory=list)
    wrong: list[tuple[Case, Decision]] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.total if self.total else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def lines(self) -> list[str]:
        out = [
            f"cases: {self.total}",
            f"accuracy: {self.accuracy:.1%} ({self.tp + self.tn}/{self.total})",
            f"precision: {self.precision:.1%}  recall: {self.recall:.1%}  "
            f"(notified right {self.tp}, false alarms {self.fp}, missed {self.fn})",
            f"Never-rule matches notified: {len(self.never_violations)}",
            f"Always-rule matches not notified: {len(self.always_violations)}",
        ]
        for case, decision in self.wrong:
            want = "notify" if case.expected else "not notify"
            out.append(
                f"WRONG line {case.line} [{case.rules_id}] {case.event.id}: expected {want}; "
                f"{decision.reason}" + (f" (rule: {decision.rule})" if decision.rule else "")
            )
        return out


def read_cases(path: Path) -> list[Case]:
    cases = []
    for number, obj in read_jsonl(path):
        try:
            if not isinstance(obj, dict):
                raise ValueError("expected a JSON object")
            now = datetime.fromisoformat(str(obj["now"]))
            if now.tzinfo is None:
                raise ValueError("now needs a UTC offset")
            cases.append(
                Case(number, str(obj["rules"]), now, parse_event(obj["event"]), bool(obj["notify"]))
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(f"{path}:{number}: invalid case ({exc})") from None
    return cases


def _rules_text(rules_dir: Path, rules_id: str, cache: dict[str, str]) -> str:
    if rules_id not in cache:
        path = rules_dir / f"rules-{rules_id}.md"
        try:
            cache[rules_id] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read ({exc})") from None
    return cache[rules_id]


async def evaluate(cases: list[Case], rules_dir: Path, decider: TriageDecider) -> EvalReport:
    report = EvalReport()
    texts: dict[str, str] = {}
    groups: dict[tuple[str, datetime], list[Case]] = defaultdict(list)
    for case in cases:
        groups[(case.rules_id, case.now)].append(case)
    for (rules_id, now), group in groups.items():
        text = _rules_text(rules_dir, rules_id, texts)
        compiled = compile_rules_text(text)
        decisions = await decider.decide([c.event for c in group], now, rules_text=text)
        for case, decision in zip(group, decisions, strict=True):
            _score(report, case, decision, compiled, now)
    return report


def _score(
    report: EvalReport, case: Case, decision: Decision, compiled: list[CompiledRule], now: datetime
) -> None:
    report.total += 1
    if decision.notify and case.expected:
        report.tp += 1
    elif decision.notify:
        report.fp += 1
    elif case.expected:
        report.fn += 1
    else:
        report.tn += 1
    if decision.notify != case.expected:
        report.wrong.append((case, decision))
    kinds = classify(case.event)
    applying, _ = applicable(case.event, now, compiled, kinds)
    never = [r for r in applying if r.rule.section == NEVER and r.action == "drop"]
    always = [r for r in applying if r.rule.section == ALWAYS and r.action == "notify"]
    if decision.notify and never:
        report.never_violations.append(case.event.id)
    if not decision.notify and not is_spam(kinds) and always and not never:
        report.always_violations.append(case.event.id)
