"""A request that says whose messages with a possessive or who writes with a pronoun ("his
emails", "sempre que ele mandar e-mail") is about the person named before it; with no one
named, it is not read at all: read without that person, it would be about everyone's."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        (
            "Lucas keeps writing to me about the boat. I don't want notifications for his "
            "emails anymore.",
            "Never notify: emails from Lucas",
        ),
        (
            "Mi antiguo casero Ramiro me sigue mandando correos. No quiero notificaciones de "
            "sus correos.",
            "No avisar nunca: correos de Ramiro",
        ),
        (
            "Mon ancien coloc, Bastien, continue de m'écrire. Je ne veux plus de notifications "
            "pour ses mails.",
            "Ne jamais prévenir : e-mails envoyés par Bastien",
        ),
        (
            "O meu antigo chefe, o Jorge, continua me mandando e-mail. Não quero mais "
            "notificação dos e-mails dele.",
            "Nunca avisar: e-mails de Jorge",
        ),
    ],
)
def test_whose_messages_is_the_person_named_before(said: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [r for _, _, r in request.read] == [reading]


@pytest.mark.parametrize(
    "said",
    [
        "I don't want notifications for his emails anymore.",
        "me avisa sempre que ele mandar e-mail",
        "Je ne veux plus de notifications pour ses mails.",
    ],
)
def test_whose_messages_with_no_one_named_is_not_read(said: str) -> None:
    request = read_request(said)
    assert request.read == ()
    assert len(request.unread) == 1
