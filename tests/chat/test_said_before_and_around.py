"""Requests whose subject is said in the sentence before ("O meu senhorio é a Leite &
Filhos … Quero ser avisado sempre que mandarem alguma coisa", "Die Grundschule … schickt
Elternbriefe über die App „Schulfunk“. Die will ich … sehen"), whose courtesies and
widening asides stand anywhere ("colis stp (…)", "egal wie banal", "merci !"), and whose
channel is said with "por" ("escriba por WhatsApp"). A sentence that decides about words the
reader cannot place is answered with those words, never dropped in silence. Names here are
made up for these tests."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.decision import without_courtesies
from engine.triage.rules.explain import explain_rule


@pytest.mark.parametrize(
    ("said", "name"),
    [
        (
            "O meu senhorio é a Matos & Irmãos Imobiliária e eles mandam os recibos por e-mail. "
            "Quero ser avisado sempre que mandarem alguma coisa.",
            "Matos & Irmãos Imobiliária",
        ),
        (
            'Die Grundschule am Lindenhof schickt Briefe über die App "Elternpost". Die will '
            "ich ab sofort immer sehen, egal wie banal.",
            "Elternpost",
        ),
    ],
)
def test_the_subject_said_before_is_what_the_rule_is_about(said: str, name: str) -> None:
    request = read_request(said)
    assert [r[0] for r in request.read] == ["always"], request
    assert name in request.read[0][2]


def test_a_channel_said_with_por_is_the_channel() -> None:
    (rule,) = compile_rules_text(
        "## Always notify\n- cuando Nuria Celaya escriba por WhatsApp, también en el grupo\n"
    )
    reading = explain_rule(rule).reading
    assert "WhatsApp messages from Nuria Celaya" in reading
    assert "about" not in reading


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Previens-moi pour tous les colis stp (Colissimo, Mondial Relay…).", "colis (Colissimo"),
        ("Dès qu'on me partage un fichier (Drive…), dis-le moi, merci !", "dis-le moi !"),
    ],
)
def test_a_courtesy_goes_wherever_it_stands(said: str, kept: str) -> None:
    assert kept in without_courtesies(said)
    assert read_request(said).read, said


def test_a_decision_about_words_it_cannot_place_is_answered_with_them() -> None:
    request = read_request("Quero sempre ser lembrada das quermesses do bairro.")
    assert not request.read
    assert request.unread, "a rule sentence is answered, not dropped in silence"
