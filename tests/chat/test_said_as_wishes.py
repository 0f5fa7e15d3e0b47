"""Requests said as a wish ("je veux le voir", "quiero verlos todos", "will ich alles
mitkriegen"), as an "only" with no other instruction ("Pour le groupe …, seulement si on me
mentionne"), after an arrow ("devis => préviens moi"), with the pronouns joined to the verb
("notificamelo sempre", "mostra-mos sempre"), in the app's nicknames ("no zap") or ending on
thanks and an emoji: read as the rules reader reads them, in each language."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request


@pytest.mark.parametrize(
    ("message", "section", "named"),
    [
        ("tout ce que ma cousine Inès écrit sur whatsapp je veux le voir", "always", "Inès"),
        ("Lo que mande mi primo Nacho quiero verlo todo", "always", "Nacho"),
        ("Vom Segelclub Möwe will ich alles mitkriegen", "always", "Möwe"),
        ("Del grupo 'Coro San Blas' avísame siempre, de todo lo que pongan", "always", "Coro"),
        ("devis => préviens moi à chaque fois", "always", ""),
        ("Pour le groupe des Tilleuls Bleus, seulement si on me mentionne.", "custom", "Tilleuls"),
        ("Mails von Notarin Frau Okafor nur, wenn es um den Hauskauf geht.", "custom", "Okafor"),
        (
            'Il gruppo "Bocce martedì" notificamelo sempre, qualunque cosa scrivano 🎳',
            "always",
            "Bocce",
        ),
        ("le comunicazioni della palestra AquaLuna fammele sempre vedere", "always", "AquaLuna"),
        ("Os avisos da Associação Recreio Azul, mostra-mos sempre", "always", "Recreio"),
        ("mio suocero Ettore: non voglio più notifiche da lui, grazie 🙏", "never", "Ettore"),
        ("para de me avisar das mensagens do Caio no zap", "never", "Caio"),
        ("ya no me avises de los whats de Toño", "never", "Toño"),
    ],
)
def test_a_wish_is_an_instruction(message: str, section: str, named: str) -> None:
    request = read_request(message)
    assert [s for s, _, _ in request.read] == [section], request
    assert named in request.read[0][1]
    assert not request.talk or message not in request.talk  # what it asks is no talk


def test_beside_an_instruction_an_only_stays_what_the_user_tells() -> None:
    request = read_request("Stell Bruno auf WhatsApp stumm, der schickt nur noch Memes")
    assert [s for s, _, _ in request.read] == ["never"]
    assert request.talk == ("der schickt nur noch Memes",)


@pytest.mark.parametrize(
    "message",
    [
        "Mails from the studio (@loomwell.example) only 9 to 5 on weekdays. After that, wait.",
        "E-mails da escola (@tintaviva.example) só em dias úteis. Fora disso podem esperar.",
        "Mails vom Verein (@ruderclub-nord.example) nur am Wochenende. Danach hat das Zeit.",
    ],
)
def test_what_happens_outside_an_only_is_its_otherwise(message: str) -> None:
    request = read_request(message)
    assert [s for s, _, _ in request.read] == ["custom"]
    assert not request.unread


def test_a_street_ends_no_sentence() -> None:
    request = read_request("Die Gruppe 'Haus Lindenstr. 40' bitte stummschalten")
    assert [s for s, _, _ in request.read] == ["never"]
    assert "Lindenstr. 40" in request.read[0][2]
