"""Decisions said the way people write to a human assistant: a permission with "always"
("Tomasz can always reach me"), a decision in a category's parenthesis ("The Pile (no
pings): …"), an "only" without a verb for telling ("Stripe nur wenn …"), an exception said
after a reason or on the next line. Each is read, or flagged; a sentence that says a word
that decides is never shown as talk, and a negation no decision took is never skipped."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.explain import file_notes
from engine.triage.rules.parse import parse_rules
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER
from tests.factories import make_event

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def _rules(text: str) -> list[CompiledRule]:
    return compile_rules_text(f"{text}\n")


@pytest.mark.parametrize(
    ("line", "section", "who"),
    [
        ("Tomasz, my brother, can always reach me, day or night.", ALWAYS, "Tomasz"),
        ("Hélène, ma sœur, c'est toujours, peu importe l'heure.", ALWAYS, "Hélène"),
        ("Mein Chef Herr Albrecht, der darf immer", ALWAYS, "Albrecht"),
        ("Mijn buurman Joost mag altijd", ALWAYS, "Joost"),
        ("O meu sócio, o Baltazar, pode sempre", ALWAYS, "Baltazar"),
        ("Il gruppo del padel invece mai", NEVER, "padel"),
        ("Le groupe « Rando du dimanche » ne doit jamais sonner", NEVER, "Rando du dimanche"),
        ("Werbung vom Baumarkt Kessler: keine Meldung", NEVER, "Kessler"),
        ("Ofertas de la ferretería Ruiz: jamás", NEVER, "Ruiz"),
        ("Les promos de Boulangerie Vasseur, non merci.", NEVER, "Vasseur"),
    ],
)
def test_a_decision_said_with_a_permission_or_a_last_word(
    line: str, section: str, who: str
) -> None:
    (rule,) = _rules(line)
    assert rule.rule.section == section
    assert who in rule.rule.read_text


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("The Pile (no pings, I read it on Sundays): receipts, invoices", NEVER),
        ("Caixa principal (me avisa na hora): a Odete e o Ramiro", ALWAYS),
        ("Archivio (niente avvisi): ricevute e fatture", NEVER),
    ],
)
def test_a_category_says_its_decision_in_its_parenthesis(line: str, section: str) -> None:
    (rule,) = _rules(line)
    assert rule.rule.section == section and rule.understood


def test_an_only_without_a_verb_for_telling_is_a_conditional_line() -> None:
    (rule,) = _rules("Wir vermieten Boote am See. Stripe nur wenn eine Zahlung fehlschlägt.")
    assert rule.rule.section == CUSTOM and rule.action == "only"


def test_a_word_that_decides_is_flagged_where_it_cannot_be_placed() -> None:
    text = "Hallo! Vom 14.3. bis 22.3. Kur: dann gar nix von der Firma Lindqvist."
    (rule,) = _rules(text)
    assert not rule.understood and "nix" in rule.unread
    assert [n.text for n in file_notes(f"{text}\n")] == ["Hallo!"]  # the rest is no talk


def test_a_day_and_month_end_no_sentence() -> None:
    (rule,) = parse_rules("Vom 14.3. bis 22.3. bitte nie die Firma Lindqvist.\n").rules
    assert rule.text.startswith("Vom 14.3. bis 22.3.")


def test_a_negation_no_decision_took_is_left_unread() -> None:
    (rule,) = _rules("## Custom rules\n- Vereinskram gar nicht")
    assert not rule.understood and "nicht" in rule.unread


def test_an_exception_after_the_reason_is_the_instructions() -> None:
    (rule,) = _rules(
        "Le groupe WhatsApp « Chorale Saint-Roch » : jamais, ça papote trop, "
        "sauf si on me mentionne."
    )
    assert rule.rule.section == NEVER and rule.exclusions


def test_a_line_opening_with_an_exception_goes_on_with_the_line_before() -> None:
    rules = _rules(
        "Team chat (@fernhill.example) only on weekdays\nExcept Priya, she can write whenever"
    )
    assert len(rules) == 1
    assert "Priya" in rules[0].rule.text


def test_a_reason_that_names_what_else_is_no_reason() -> None:
    (rule,) = _rules("Non mi interessano le newsletter, le offerte di Brico Fanti e Ottica Sala")
    assert rule.rule.section == NEVER
    assert "Brico Fanti" in rule.rule.text


def test_a_chat_message_keeps_what_it_tells_as_talk() -> None:
    said = "Ilse vom Einkauf schreibt mir für nichts. Ignoriere ihre Mails."
    parsed = parse_rules(f"{said}\n", said_in_chat=True)
    assert "Ilse vom Einkauf schreibt mir für nichts." in [t for _, t in parsed.notes]
    assert not [r for r in parsed.rules if "Ilse" in r.text]


def test_a_moved_meeting_is_not_a_cancelled_one() -> None:
    (moved,) = _rules("## Never notify\n- Termine, die verschoben werden")
    (either,) = _rules("## Never notify\n- meetings that are moved or called off")
    start = "2026-12-09T10:00:00+01:00"
    cancelled = make_event(
        source="calendar",
        event_type="calendar.cancelled",
        calendar={"start": start, "status": "cancelled"},
    )
    assert not moved.scope.matches(cancelled, NOW, classify(cancelled))
    assert either.scope.matches(cancelled, NOW, classify(cancelled))


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("only 9 to 5 on weekdays", 9, 17),
        ("from 9 to 5", 9, 17),
        ("10-6", 10, 18),
        ("from 11 to 2", 11, 14),
        ("from 11 to 7", 23, 7),
        ("between 22 and 7", 22, 7),
        ("von 8 bis 17 Uhr", 8, 17),
    ],
)
def test_hours_said_without_am_or_pm(said: str, start: int, end: int) -> None:
    from engine.triage.rules.windows import find_window

    _, window = find_window(said)
    assert window is not None and window.start is not None and window.end is not None
    assert (window.start.hour, window.end.hour) == (start, end)


def test_a_count_of_days_is_no_window() -> None:
    from engine.triage.rules.windows import find_window

    assert find_window("reminders 2 to 3 days ahead")[1] is None


@pytest.mark.parametrize(
    "line", ["Am Wochenende nichts von der Arbeit.", "Travail : seulement en semaine"]
)
def test_work_with_no_one_said_for_it_is_no_sender(line: str) -> None:
    (rule,) = _rules(line)
    assert not rule.understood and not rule.scope.names


def test_work_given_with_an_address_is_read() -> None:
    (rule,) = _rules("Werk (@tulpwerk.example): alleen op werkdagen")
    assert rule.understood and rule.scope.domains == ("tulpwerk.example",)
