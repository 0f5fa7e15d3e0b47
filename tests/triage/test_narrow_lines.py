"""A narrow line decides only what it names. Each line below, alone in a rules file, is
applied to a varied pool — every event of the labelled sets in tests/triage (six languages,
mail, chats and calendars) — and may decide at most 15 % of it: read right, or flagged and
deciding nothing, never broadened to "all emails" or "anything"."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from engine.events import Event
from engine.triage.classifier import classify
from engine.triage.policy import decide_by_rules
from engine.triage.rules.compile import compile_rules_text

SETS = Path(__file__).parent
MAX_SHARE = 0.15


def pool() -> list[tuple[Event, datetime]]:
    out = []
    for path in sorted(SETS.glob("*/cases.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                out.append(
                    (Event.model_validate(case["event"]), datetime.fromisoformat(case["now"]))
                )
    return out


POOL = pool()

PROBES = [
    ("Never notify", "Correos de la tintorería"),
    ("Never notify", "Courriels du pressing"),
    ("Never notify", "E-Mails von der Reinigung"),
    ("Always notify", "Anything my kids' school sends is important"),
    ("Custom rules", "linkedin only if a recruiter mentions a salary"),
    ("Always notify", "Emails where someone thanks me"),
    (
        "Never notify",
        "Automatic replies of any kind, whether someone is out of the office or a system is "
        "just confirming that it has received my message, should never reach me.",
    ),
    ("Never notify", "Login codes, OTP"),
    ("Never notify", "Mensagens do grupo da academia"),
    ("Always notify", "Qualsiasi cosa dalla palestra"),
    ("Never notify", "Anything from the homeowners association"),
    ("Custom rules", "Only notify me about invoices if they are overdue"),
]


def test_the_pool_is_varied() -> None:
    assert len(POOL) > 500
    assert {e.source for e, _ in POOL} == {"email", "whatsapp", "calendar"}


@pytest.mark.parametrize(("section", "line"), PROBES)
def test_a_narrow_line_decides_little_of_a_varied_pool(section: str, line: str) -> None:
    compiled = compile_rules_text(f"## {section}\n- {line}\n")
    decided = sum(
        1
        for event, now in POOL
        if decide_by_rules(event, now, compiled, classify(event)) is not None
    )
    assert decided <= MAX_SHARE * len(POOL), f"{line!r} decides {decided} of {len(POOL)}"
