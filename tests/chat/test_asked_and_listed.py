"""Requests asked as a question ("Podias avisar-me de …?"), said as "no notifications
from …", with examples that end on "whatever" ("DHL, Hermes, egal": no "no" of its own,
not a Never on those senders), with "@'s me" for a mention, and with "otherwise not" after
an "only" ("…, danach bitte Ruhe"). Names are made up."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request


def test_a_request_asked_as_a_question() -> None:
    request = read_request("Podias avisar-me de todas as faturas que chegam por email?")
    assert [r[0] for r in request.read] == ["always"], request


@pytest.mark.parametrize(
    "said",
    [
        "No notifications from Quirin",
        "Keine Benachrichtigungen von Quirin",
        "Pas de notifications de Quirin",
    ],
)
def test_no_notifications_from_is_never(said: str) -> None:
    request = read_request(said)
    assert [r[0] for r in request.read] == ["never"], request
    assert "Quirin" in request.read[0][2]


def test_examples_ending_on_whatever_are_examples() -> None:
    request = read_request(
        "ab jetzt bitte alle Paket- und Lieferbenachrichtigungen anzeigen, DHL, Hermes, egal."
    )
    assert [r[0] for r in request.read] == ["always"], request
    assert "DHL" in request.read[0][2]


def test_a_sentence_of_names_and_whatever_gives_examples_of_the_one_before() -> None:
    request = read_request(
        "a partir de agora me avisa de toda entrega: enviado, saiu pra entrega, entregue. "
        "Correios, Mercado Livre, Amazon, tanto faz"
    )
    assert [r[0] for r in request.read] == ["always"], request
    assert "Mercado Livre" in request.read[0][2]


def test_at_s_me_is_a_mention() -> None:
    request = read_request("For the Ridgeway Joggers group, only notify me if someone @'s me")
    assert request.read, request
    assert "mention you" in request.read[0][2]


def test_otherwise_not_after_only_is_read() -> None:
    request = read_request(
        "Mails von der Arbeit (@werkhof.example) nur Mo–Fr zwischen 8 und 17 Uhr, danach bitte "
        "Ruhe."
    )
    assert [r[0] for r in request.read] == ["custom"], request
    assert not request.unread


@pytest.mark.parametrize(
    "said",
    [
        "le week-end, rien du boulot. Aucun mail @atelier.example. Le samedi c'est pour moi",
        "nel weekend niente dal lavoro, ok? nessuna mail da @studio.example. sono miei",
        "los fines de semana nada del laburo, ¿dale? ni un mail de @estudio.example. son míos",
    ],
)
def test_work_named_by_the_sentence_after(said: str) -> None:
    request = read_request(said)
    assert [r[0] for r in request.read] == ["never"], request
    assert ".example" in request.read[0][2]
    assert "nessuna" not in request.read[0][1] and "Aucun" not in request.read[0][1]
