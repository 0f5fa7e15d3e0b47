"""A line read only in part offers the nearest readings; the one the user accepts is kept
beside the rules file and applied from the next check, the file left as the user wrote it."""

from __future__ import annotations

import json

from engine.store.inbox import ingest
from engine.store.models import EventRecord
from engine.triage.holds import CONFIRMED_FILE
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.suggest import suggest
from tests.factories import make_event

RULES = "## Never notify\n- Correos de la tintorería\n"
CLEANER = make_event(
    sender={"name": "Tintorería Sol", "address": "avisos@tintoreria-sol.example"},
    subject="Su ropa está lista",
    text="Puede pasar a recogerla hoy.",
)


def test_a_line_read_in_part_is_offered_a_sender_and_a_topic() -> None:
    (rule,) = compile_rules_text(RULES)
    offered = {s.kind: s.rule for s in suggest(rule)}
    assert set(offered) == {"sender", "topic"}
    assert offered["sender"].scope.names == ("tintorería",)
    assert offered["topic"].scope.topics == ("tintoreria",)
    assert all(r.understood and r.read_by == "user" for r in offered.values())


def test_no_sender_is_offered_beside_a_sender_the_line_names() -> None:
    (rule,) = compile_rules_text("## Custom rules\n- Emails where someone thanks me\n")
    assert [s.kind for s in suggest(rule)] == ["topic"]


def test_an_understood_line_is_offered_nothing() -> None:
    (rule,) = compile_rules_text("## Never notify\n- Newsletters\n")
    assert suggest(rule) == []


async def test_an_accepted_reading_is_applied_from_the_next_check(engine, workspace):
    workspace.rules_file.write_text(RULES)
    (offer, _) = engine.rule_suggestions()
    assert (offer.line_number, offer.kind) == (2, "sender")
    assert offer.reading == "Never notify: emails from tintorería"
    engine.accept_suggestion(offer.line, offer.kind)
    saved = json.loads((workspace.root / CONFIRMED_FILE).read_text())
    assert saved["readings"] == {"Correos de la tintorería": "sender"}
    assert engine.rule_suggestions() == []
    (line,) = engine.rules_report()
    assert line.understood and line.sentence.startswith("read as you chose: Never notify")
    ingest([CLEANER])
    await engine.tic.tick()
    record = EventRecord.get()
    assert (record.decision_notify, record.decision_rule) == (False, "Correos de la tintorería")
    assert workspace.rules_file.read_text() == RULES
