"""Lines that used to be read wrongly and claimed understood: a heading that says what
can't wait ("Lo que no puede esperar" is Always), channels said with "doesn't matter" after
a rule (no Never on all mail), items answered yes and no in one line (one rule each), a
kind word at the start of a line (not also a sender), both parents, Portuguese "e" (and)
not read as "é" (is), a title alone not taken as part of a name, a title with a dot not
taken for a domain. Names are made up."""

from __future__ import annotations

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.parse import classify_heading, parse_rules


@pytest.mark.parametrize(
    ("title", "section"),
    [
        ("Lo que no puede esperar", "always"),
        ("Lo que puede esperar", "never"),
        ("Isso não pode esperar", "always"),
        ("Ce qui ne peut pas attendre", "always"),
        ("Was nicht warten kann", "always"),
        ("What can't wait", "always"),
        ("Ne jamais notifier", "never"),
        ("Nunca / Never", "never"),
        ("Não", "never"),
    ],
)
def test_a_heading_s_negation_turns_can_wait_round(title: str, section: str) -> None:
    assert classify_heading(title) == section


def _readings(text: str) -> list[tuple[str, bool, str]]:
    return [
        (r.rule.section, r.understood, explain_rule(r).reading) for r in compile_rules_text(text)
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Anything from Evander (my partner). Email or WhatsApp, doesn't matter",
        "Evander, Mail oder WhatsApp, ist egal",
        "Evander, por correo o por WhatsApp, da igual",
    ],
)
def test_channels_with_whichever_are_no_rule_of_their_own(line: str) -> None:
    read = _readings(f"## Always notify\n- {line}\n")
    assert [s for s, _, _ in read] == ["always"]
    assert "from Evander" in read[0][2]


def test_items_answered_yes_and_no_are_a_rule_each() -> None:
    read = _readings(
        "## Custom rules\n- Calendario: spostamenti e annullamenti si, i promemoria no\n"
        "- Zahnarzt Dr. Quast: Terminänderungen ja, die Erinnerungen an die Kontrolle nein\n"
    )
    assert [(s, u) for s, u, _ in read] == [
        ("always", True),
        ("never", True),
        ("always", True),
        ("never", True),
    ]
    assert read[0][2] == "Always notify: calendar events that were moved or cancelled"
    assert read[1][2] == "Never notify: reminders"
    assert "from Zahnarzt Dr. Quast" in read[2][2]


def test_two_sentences_each_deciding_stay_two_rules() -> None:
    read = _readings(
        "Newsletters can wait, but anything from my accountant Ilse Varga is important.\n"
    )
    assert [s for s, _, _ in read] == ["never", "always"]


@pytest.mark.parametrize(
    "line", ["Herinneringen → nee", "Herinneringen uit de agenda", "Erinnerungen → nein"]
)
def test_a_kind_word_opening_a_line_is_not_a_sender(line: str) -> None:
    assert _readings(f"## Never notify\n- {line}\n") == [("never", True, "Never notify: reminders")]


@pytest.mark.parametrize(
    "line", ["my parents", "os meus pais", "meine Eltern", "mis padres", "i miei genitori"]
)
def test_both_parents(line: str) -> None:
    rule = compile_rules_text(f"## Always notify\n- {line}\n")[0]
    assert rule.understood
    assert set(rule.scope.roles) == {"mother", "father"}


def test_parents_of_a_school_are_not_mine() -> None:
    rule = compile_rules_text("## Never notify\n- Padres del cole\n")[0]
    assert not rule.scope.roles


def test_portuguese_and_is_not_is() -> None:
    """ "Inês e os meus pais": she and my parents, not a definition of my parents."""
    parsed = parse_rules("## Always notify\n- Leonor e os meus pais\n")
    assert not parsed.definitions
    rule = compile_rules_text("## Always notify\n- Leonor e os meus pais\n")[0]
    assert rule.understood
    assert rule.scope.names == ("Leonor",)
    assert set(rule.scope.roles) == {"mother", "father"}


def test_portuguese_is_still_defines() -> None:
    parsed = parse_rules("## Always notify\n- O meu chefe é o Rui Seixas\n")
    assert [d.role for d in parsed.definitions] == ["O meu chefe"]


def test_a_title_alone_is_a_word_left_unread() -> None:
    rule = compile_rules_text(
        "## Custom rules\n- Dopo le 20: solo la nonna, e Blu Vela solo se si tratta di una "
        "scadenza.\n"
    )[0]
    assert not rule.understood
    assert "nonna" in rule.unread


def test_a_title_with_a_dot_is_no_domain() -> None:
    rule = compile_rules_text("## Always notify\n- la Sig.ra Ruffini\n")[0]
    assert rule.understood
    assert not rule.scope.domains


def test_a_generic_label_with_no_and_an_exception_is_everything_but_it() -> None:
    """ "Meldingen: nee — behalve facturen": all of them, except invoices (not a Never on
    the invoices themselves)."""
    rule = compile_rules_text("## Custom rules\n- Meldingen: nee — behalve facturen\n")[0]
    assert rule.rule.section == "never"
    assert rule.scope.anything
    assert rule.exception_notifies
    assert explain_rule(rule).reading.startswith("Never notify: anything — except receipts")


def test_the_label_s_aside_is_what_it_is_about() -> None:
    rule = compile_rules_text(
        "## Custom rules\n- Meldingen (automatische mails): nee — behalve facturen\n"
    )[0]
    assert rule.understood
    assert explain_rule(rule).reading.startswith("Never notify: emails from an automated sender")


def test_a_bare_yes_under_never_says_the_line_belongs_there() -> None:
    read = _readings(
        "## Never notify\n- Promotions and sales — yes, even from Hollis Hardware\n"
        "## Always notify\n- Odile: yes\n"
    )
    assert [s for s, _, _ in read] == ["never", "always"]


@pytest.mark.parametrize(
    "said",
    [
        "avis de livraison",
        "avisos de entrega",
        "factures, confirmations de commande, avis de livraison",
    ],
)
def test_a_notice_of_a_kind_is_that_kind_not_its_sender(said: str) -> None:
    rule = compile_rules_text(f"## Never notify\n- {said}\n")[0]
    assert "shipping" in rule.scope.kinds or any("shipping" in o.kinds for o in rule.scope.any_of)
    assert "shipping" not in rule.scope.sender_kinds


def test_a_notice_from_a_named_sender_is_still_theirs() -> None:
    rule = compile_rules_text("## Never notify\n- avisos de Correos\n")[0]
    assert rule.scope.names == ("Correos",)


def test_a_role_before_the_portuguese_article_is_the_name_s() -> None:
    """ "o meu ex-marido, o Rui Seixas": "o" is the article, not "or"."""
    rule = compile_rules_text("## Never notify\n- o meu ex-marido, o Rui Seixas\n")[0]
    assert rule.understood, rule.unread
    assert rule.scope.names == ("Rui Seixas",)
