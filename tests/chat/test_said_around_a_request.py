"""What a request says around its instruction: a reason after it ("no para de mandarme
audios") is the user's talk, not the rule; "not even when someone tags me" widens a Never
line, it never narrows it to the tags; a title before a name ("il signor Colombo") and a
label of several words before the decision ("Il mio padrone di casa, il signor Colombo:")
are read with the name."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request


@pytest.mark.parametrize(
    ("said", "reading", "talk"),
    [
        (
            "silencia a Tomás en el whatsapp, no para de mandarme memes",
            "No avisar nunca: mensajes de WhatsApp de Tomás",
            "no para de mandarme memes",
        ),
        (
            "schalte bitte Jannik auf whatsapp stumm, der schickt nur noch Sprachnachrichten",
            "Nie benachrichtigen: WhatsApp-Nachrichten von Jannik",
            "der schickt nur noch Sprachnachrichten",
        ),
    ],
)
def test_a_reason_after_the_instruction_is_talk(said: str, reading: str, talk: str) -> None:
    request = read_request(said)
    assert [r for _, _, r in request.read] == [reading]
    assert request.talk == (talk,)


def test_not_even_when_tagged_widens_a_never_line() -> None:
    request = read_request(
        "Am Wochenende bitte nix aus der Gruppe 'Elternrat 4b', "
        "auch nicht wenn mich jemand markiert"
    )
    ((section, _, reading),) = request.read
    assert section == "never"
    assert "Erwähnung" not in reading and "Elternrat 4b" in reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        (
            "Il mio padrone di casa, il signor Ferraris: avvisami sempre quando mi scrive, "
            "anche le mail a tutti gli inquilini",
            "Avvisa sempre: da Ferraris",
        ),
        (
            "El casero, el señor Quintana: que me avises siempre que me escriba, aunque sean "
            "los avisos a todos los vecinos",
            "Avisar siempre: de Quintana",
        ),
    ],
)
def test_a_label_with_a_title_names_who_the_line_is_about(said: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [r for _, _, r in request.read] == [reading]


def test_what_is_kept_is_talk_and_what_is_not_is_a_never_line() -> None:
    request = read_request(
        "Dalla palestra Vitaforma voglio sempre tutto, tranne la loro newsletter "
        "'Vitaforma News', quella mai"
    )
    assert [(s, r) for s, _, r in request.read] == [
        ("never", "Non avvisare mai: da Vitaforma News")
    ]
    assert request.talk == ("Dalla palestra Vitaforma voglio sempre tutto",)


@pytest.mark.parametrize(
    "said",
    [
        "Benachrichtige mich nie über Lidl",
        "Sag mir nie Bescheid über Lidl",
        "Avísame nunca de Lidl",
    ],
)
def test_a_negation_after_a_word_for_telling_is_never(said: str) -> None:
    request = read_request(said)
    assert [s for s, _, _ in request.read] == ["never"]


def test_a_clause_of_lower_case_words_after_an_instruction_is_talk() -> None:
    """ "…, il me met en copie de tout": the words after the instruction name no one."""
    from engine.chat.requests import read_request

    request = read_request(
        "Arrête de me notifier les mails de Gaëlle Ferrat, elle me met en copie de tout"
    )
    assert [section for section, _, _ in request.read] == ["never"]
    assert request.talk and not request.unread


@pytest.mark.parametrize(
    ("said", "talk"),
    [
        (
            "don't let the Walkers group buzz me at night, like after 10pm. daytime is fine",
            "daytime is fine",
        ),
        (
            "El grupo Vecinos Norte que no me suene de noche, de 10 de la noche a 7 de la mañana. "
            "De día sí",
            "De día sí",
        ),
    ],
)
def test_the_other_hours_said_fine_after_a_windowed_line_are_talk(said: str, talk: str) -> None:
    """ "… after 10pm. daytime is fine": the line holds at night only; the day is no rule."""
    from engine.chat.requests import read_request

    request = read_request(said)
    assert [section for section, _, _ in request.read] == ["never"]
    assert talk in request.talk


def test_a_greeting_opens_a_request_and_is_no_part_of_it() -> None:
    from engine.chat.requests import read_request

    request = read_request(
        "Grüezi, Mails von @alpenholz.example bitte nur Mo bis Fr 8 bis 17 Uhr melden"
    )
    assert request.read and not request.unread
