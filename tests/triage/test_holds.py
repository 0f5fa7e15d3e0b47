"""A Never or "only if" line that would silence most recent messages waits for the user's
yes: in ticks, in the Rules preview, in `tic-desktop rules` and when added from the chat."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from engine.store.inbox import ingest
from engine.store.models import EventRecord
from engine.triage.holds import CONFIRMED_FILE, MIN_SAMPLE, broad_lines, confirm, read_confirmed
from engine.triage.rules.compile import compile_rules_text
from tests.factories import make_event

NOW = datetime.fromisoformat("2026-11-10T12:00:00+00:00")


PEOPLE = (
    "Ana Lopez",
    "Bruno Costa",
    "Carla Dias",
    "Dario Neri",
    "Elena Rossi",
    "Fabio Greco",
    "Gina Bauer",
    "Hugo Roth",
    "Ines Sousa",
    "Jonas Weber",
    "Karin Vogel",
    "Luca Ferri",
    "Marta Ruiz",
    "Nico Fabbri",
    "Olga Petrova",
    "Pablo Vidal",
    "Rita Moreau",
    "Sara Blanc",
    "Tomas Novak",
    "Ugo Conti",
    "Vera Kral",
    "Wim Peeters",
    "Xenia Ivanova",
    "Yara Lima",
    "Zeno Galli",
    "Alba Serra",
    "Bea Marin",
    "Cleo Dumas",
    "Dora Haas",
    "Emil Berg",
    "Flora Klein",
)
NAMES = [w for p in PEOPLE for w in p.split()]


def person(i: int) -> dict:
    first, last = NAMES[2 * i % len(NAMES)], NAMES[(2 * i + 1) % len(NAMES)]
    return {
        "id": f"gmail:p{i}",
        "sender": {
            "name": f"{first} {last}",
            "address": f"{first.lower()}.{last.lower()}@people{i}.example",
        },
        "subject": f"Can you call me today? ({i})",
        "text": "Please call me back today.",
        "time": (NOW - timedelta(minutes=i + 1)).isoformat(),
    }


def sample(n: int) -> list:
    return [(make_event(**person(i)), NOW) for i in range(n)]


def test_a_line_that_would_silence_most_messages_is_held() -> None:
    compiled = compile_rules_text("## Never notify\n- Emails\n- Newsletters\n")
    (hold,) = broad_lines(compiled, sample(30))
    assert (hold.line_number, hold.text, hold.silenced, hold.total) == (2, "Emails", 30, 30)
    assert hold.sentence == (
        "held: this would silence 30 of your last 30 messages \u2014 confirm it to apply it"
    )


def test_a_confirmed_line_a_catch_all_and_a_narrow_line_are_not_held() -> None:
    text = (
        "## Never notify\n- Emails\n- Anything from people3.example\n"
        "- Everything else: whatever fits no other category\n"
    )
    compiled = compile_rules_text(text)
    assert broad_lines(compiled, sample(30), frozenset({"Emails"})) == []


def test_too_few_messages_hold_nothing() -> None:
    compiled = compile_rules_text("## Never notify\n- Emails\n")
    assert broad_lines(compiled, sample(MIN_SAMPLE - 1)) == []


def test_only_if_lines_are_measured_by_what_they_silence() -> None:
    compiled = compile_rules_text("## Custom rules\n- Only notify me about emails from Mario\n")
    (hold,) = broad_lines(compiled, sample(25))
    assert hold.silenced == 25


@pytest.mark.allow_log_warnings
def test_confirmations_are_kept_beside_the_rules_file(tmp_path) -> None:
    path = tmp_path / "data" / "notifications.confirmed.json"
    assert read_confirmed(path) == frozenset()
    confirm(path, "Emails")
    confirm(path, "Emails")
    assert json.loads(path.read_text()) == {"confirmed": ["Emails"]}
    path.write_text("{not json")
    assert read_confirmed(path) == frozenset()  # unreadable: nothing confirmed, logged


@pytest.mark.allow_log_warnings  # the held line is logged
async def test_a_tick_does_not_apply_a_held_line_until_it_is_confirmed(engine, workspace):
    workspace.rules_file.write_text("## Never notify\n- Emails\n")
    ingest([make_event(**person(i)) for i in range(30)])
    result = await engine.tic.tick()
    assert result.events == 30
    rows = list(EventRecord.select())
    assert all(r.decision_notify for r in rows)  # the heuristics decided: people asking
    assert not any(r.decision_rule == "Emails" for r in rows)
    assert [h.text for h in await engine.rule_holds()] == ["Emails"]
    preview = await engine.preview_rules(workspace.rules_file.read_text())
    assert [h.text for h in preview.held] == ["Emails"]
    assert all(row.rule != "Emails" for row in preview.events)

    engine.confirm_rule("Emails")
    assert await engine.rule_holds() == []
    ingest([make_event(**{**person(40), "id": "gmail:later"})])
    await engine.tic.tick()
    later = EventRecord.get(EventRecord.event_id == "gmail:later")
    assert (later.decision_notify, later.decision_rule) == (False, "Emails")
    assert (workspace.root / CONFIRMED_FILE).exists()


@pytest.mark.allow_log_warnings
async def test_a_broad_rule_from_the_chat_waits_for_yes(engine, model, workspace):
    ingest([make_event(**person(i)) for i in range(30)])
    await engine.tic.tick()
    assert await engine.hub.drain(timeout=5)  # the notified ones are told first, by the model
    told = len(model.calls)
    answer = await engine.hub.send("Stop telling me about emails")
    assert "- Emails" in workspace.rules_file.read_text()
    assert "would silence 30 of your last 30 messages" in answer.content
    assert answer.content.endswith("so it waits for your yes before it applies. Apply it?")
    assert await engine.rule_holds() != []
    done = await engine.hub.send("yes")
    assert done.content == "Done — “Emails” applies from the next check."
    assert await engine.rule_holds() == []
    assert model.calls[told:] == []  # the change itself needs no model


async def test_a_flagged_rule_from_the_chat_is_never_claimed_as_read(engine, model, workspace):
    answer = await engine.hub.send("Stop telling me about emails from the tintorería")
    assert "it isn't applied" in answer.content
    assert "tintorería" in answer.content
    assert "I read it as" not in answer.content
    assert answer.content.endswith("Say yes to read it that way.")
    assert "Did you mean: Never notify: emails from" in answer.content
    done = await engine.hub.send("yes")
    assert done.content.endswith("is read that way from the next check.")
    assert all(line.understood for line in engine.rules_report())
    assert model.calls == []
