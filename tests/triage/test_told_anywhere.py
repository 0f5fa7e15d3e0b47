"""A word for telling the user said anywhere in a line, in the user's own construction:
"Kannst du mir künftig Bescheid geben, wenn …", "… muss ich nicht gemeldet bekommen",
"je veux plus être prévenu pour …", "Les avis de …, signale-les moi". A negation in its
clause says never; a negated "miss" says tell; what is left is read or flagged as any line."""

from __future__ import annotations

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.decision import read_decision
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.match import _name_hit
from engine.triage.rules.names import name_list
from engine.triage.rules.parse import parse_rules


@pytest.mark.parametrize(
    ("line", "section", "kept"),
    [
        ("Kannst du mir künftig Bescheid geben, wenn Rechnungen kommen?", "always", "Rechnungen"),
        ("Abgesagte Termine muss ich nicht gemeldet bekommen", "never", "Abgesagte Termine"),
        ("mon voisin écrit sans arrêt, je veux plus être prévenu pour lui", "never", "voisin"),
        ("Les relevés de la banque Ardoise, signale-les moi", "always", "banque Ardoise"),
        ("Quando spostano una cena non serve che me lo dici", "never", "spostano una cena"),
        ("Del grupo Remo Norte no me quiero perder nada", "always", "Remo Norte"),
        ("can u make sure i always see whatever Odile posts", "always", "Odile"),
        ("Je veux toutes les notifs du club de voile", "always", "club de voile"),
        ("Avisa-me das faturas da água quando chegarem", "always", "faturas"),
        ("Por la noche que no me notifiquen los grupos", "never", "grupos"),
    ],
)
def test_the_word_for_telling_decides_where_it_stands(line: str, section: str, kept: str) -> None:
    body, decision = read_decision(line)
    assert decision is not None and decision.section == section
    assert kept in body


@pytest.mark.parametrize(
    "line",
    [
        "I keep missing the bills",
        "Je t'explique ce que je veux, parce que je suis kiné",
        "Mi vecina me manda fotos todo el día",
    ],
)
def test_talk_that_tells_nothing_decides_nothing(line: str) -> None:
    assert read_decision(line)[1] is None


def test_a_want_said_of_a_noun_is_no_telling() -> None:
    """ "I want every transaction alert": the alert is what is wanted, and the line under its
    heading is read as before, not as an instruction of its own."""
    rules = compile_rules_text(
        "## Always notify\n- Emails from bank.example addresses, I want every transaction alert\n"
    )
    assert rules[0].understood
    assert "bank.example" in explain_rule(rules[0]).reading


def test_a_list_between_dashes_gives_examples() -> None:
    rule = compile_rules_text(
        "Whenever a bill comes in — gas, water, phone, whatever — tell me.\n"
    )[0]
    assert rule.rule.section == "always" and rule.understood
    assert "invoices" in explain_rule(rule).reading


def test_a_reason_after_the_exception_is_talk() -> None:
    said = (
        "Silencia el grupo Portal Sur (Vecinos Portal Sur 12) salvo cuando hablen de la "
        "piscina, que está cerrada y necesito saber cuándo abren"
    )
    found = parse_rules(said, said_in_chat=True)
    assert [r.section for r in found.rules] == ["custom"]
    assert any("necesito" in note for _, note in found.notes)
    rule = compile_rules_text(f"{said}\n")[0]
    assert "piscina" in explain_rule(rule).reading


def test_german_except_with_a_sharp_s_opens_the_exception() -> None:
    """ "außer" is "ausser" folded: the exception is read as one, whatever its topic."""
    rule = compile_rules_text("Schalt den Chat „Laube 9“ stumm, außer es geht um den Zaun\n")[0]
    assert "außer" not in rule.unread
    assert "only if" in explain_rule(rule).reading


def test_names_keep_their_articles_lose_their_elisions_and_possessives() -> None:
    assert name_list("Colegio Los Robles") == ["Colegio Los Robles"]
    assert name_list("dall'Agenzia delle Dogane") == ["Agenzia delle Dogane"]
    assert _name_hit("Inés Varela's", "Inés Varela")  # her emails: her name
    assert _name_hit("St Aidan's", "St Aidan's Primary School")
    assert name_list("I.C. Monte Rosa") == ["I.C. Monte Rosa"]


def test_words_before_a_name_in_parentheses_describe_it() -> None:
    rule = compile_rules_text(
        "Avisame de todo lo que pongan en el grupo del edificio (Torre Norte 221)\n"
    )[0]
    assert rule.understood, rule.unread
    assert "Torre Norte 221" in explain_rule(rule).reading


def test_not_wanting_to_miss_is_wanting_to_know() -> None:
    body, decision = read_decision("Non voglio perdermi niente dal gruppo Vela Nord")
    assert decision is not None and decision.section == "always"
    assert body.startswith("dal gruppo")


def test_a_word_for_telling_inside_what_a_line_is_about_is_no_part_of_it() -> None:
    rule = compile_rules_text(
        "Nada de lo que mande Inés Varela me lo pases, ni por correo ni por whatsapp\n"
    )[0]
    assert rule.rule.section == "never" and rule.understood, rule.unread


def test_what_happens_outside_the_condition_said_last_is_its_otherwise() -> None:
    rule = compile_rules_text("Do Tiago só me avisa se for sobre a obra, o resto pode esperar\n")[0]
    assert rule.understood, rule.unread
    assert rule.rule.section == "custom"


def test_a_line_numbered_in_words_is_a_bullet() -> None:
    found = parse_rules("## Regeln\nRegel 6 – WhatsApp-Gruppen: nie, außer ich werde erwähnt.\n")
    assert [r.text for r in found.rules] == ["WhatsApp-Gruppen: nie, außer ich werde erwähnt."]
    rule = compile_rules_text("Regel 6 – WhatsApp-Gruppen: nie, außer ich werde erwähnt.\n")[0]
    assert rule.understood and not rule.scope.names
