"""A group message that names nobody is idle chatter, unless it tells of an emergency or of a
change for today, tonight or tomorrow: the built-in judgement (no rules) interrupts for
"Training morgen fällt aus" and "Grandad's had a fall", not for "Buenos días familia" or a
question to everyone. A Never line on the group still silences it. Groups and people here are
made up for these tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.policy import decide_by_rules, heuristic
from engine.triage.rules.compile import compile_rules_text
from tests.factories import make_event

NOW = datetime(2026, 12, 9, 19, 0, tzinfo=UTC)


def group(text: str, *, mention: bool = False, name: str = "Vecinos Tilo 8") -> dict:
    return {
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "time": NOW.isoformat(),
        "sender": {"name": "Quim", "address": "+34600111222"},
        "subject": None,
        "text": text,
        "chat": {"id": "1203@g.us", "name": name, "is_group": True},
        "mentions_me": mention,
    }


@pytest.mark.parametrize(
    "text",
    [
        "Heads up: the pool is closed tomorrow for repairs",
        "Trening jutro? No — Training morgen fällt aus, die Halle ist zu!",
        "Mañana cortan el agua de 8 a 14 por la avería",
        "Info : coupure d'eau demain de 9h à 13h",
        "Atenção: o ensaio de amanhã foi cancelado",
        "Stasera la riunione è annullata, ci vediamo giovedì",
        "De training van vanavond gaat niet door",
        "Nonno è caduto, l'hanno portato in ospedale",
        "Sentimos cheiro de gás na garagem, ninguém acenda nada",
        "Vovó passou mal, estamos indo pro hospital",
    ],
)
def test_an_emergency_or_a_change_for_today_or_tomorrow_interrupts(text: str) -> None:
    event = make_event(**group(text))
    decision = heuristic(event, NOW)
    assert decision.notify, decision.reason
    assert "emergency or a change" in decision.reason


@pytest.mark.parametrize(
    "text",
    [
        "Guten Morgen ihr Lieben ☀️ schönes Wochenende!",
        "Buenos días familia 🌸 feliz domingo",
        "Who's bringing cookies for the concert?",
        "Qué partidazo el del domingo, menudo golazo",
        "Este domingo no podré ir, me toca guardia en el hospital",
        "Le match de samedi dernier était annulé, quelle honte 😂",
    ],
)
def test_idle_chatter_and_questions_to_everyone_wait(text: str) -> None:
    event = make_event(**group(text))
    assert not heuristic(event, NOW).notify


def test_a_mention_is_judged_as_before() -> None:
    event = make_event(**group("@Pilar mañana se cancela el ensayo, ¿avisas tú?", mention=True))
    assert heuristic(event, NOW).notify
    assert not classify(event).has("group_alert")


def test_a_never_line_on_the_group_still_silences_it() -> None:
    event = make_event(**group("Mañana cortan el agua de 8 a 14", name="Vecinos Tilo 8"))
    rules = compile_rules_text("## Never notify\n- El grupo «Vecinos Tilo 8»\n")
    decision = decide_by_rules(event, NOW, rules, classify(event))
    assert decision is not None and not decision.notify
