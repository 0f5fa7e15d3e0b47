"""A request whose last sentence says only its decision ("Bitte immer anzeigen.",
"Mettile sempre in evidenza") is about what the sentence before it named; a pronoun elided
onto the word before it ("qu'elle écrit") stands for the person named before."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request


@pytest.mark.parametrize(
    ("said", "section", "reading"),
    [
        (
            "Die Mails vom Turnverein Eiche kommen immer zu spät bei mir an. Bitte immer anzeigen.",
            "always",
            "Immer benachrichtigen: von Turnverein Eiche",
        ),
        (
            "Le circolari della Scuola Primaria Rodari finiscono sempre in fondo. Mettile "
            "sempre in evidenza",
            "always",
            "Avvisa sempre: da Scuola Primaria Rodari",
        ),
        (
            "Ma voisine, Odile Marchand, m'écrit pour le chat. Préviens-moi à chaque fois "
            "qu'elle écrit.",
            "always",
            "Toujours prévenir : envoyés par Odile Marchand",
        ),
    ],
)
def test_a_decision_said_alone_is_about_what_was_named_before(
    said: str, section: str, reading: str
) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [(s, r) for s, _, r in request.read] == [(section, reading)]


def test_a_decision_alone_with_nothing_named_before_changes_nothing() -> None:
    request = read_request("Bitte immer anzeigen.")
    assert request.read == ()


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        (
            "Was der Kegelclub schreibt, ist mir ab jetzt egal.",
            "Nie benachrichtigen: von Kegelclub",
        ),
        ("Já não quero saber do Duolingo para nada.", "Nunca avisar: de Duolingo"),
    ],
)
def test_from_now_on_said_inside_changes_nothing(said: str, reading: str) -> None:
    request = read_request(said)
    assert [r for _, _, r in request.read] == [reading]
