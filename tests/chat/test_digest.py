"""What did I miss? A digest composed in code from a seeded store: a day of mixed events
(notified ones, newsletters, receipts, GitHub notices, a promotion, group chatter) decided
by a real tick, then asked about in several languages. Every notified message is named with
what it asks, the rest is counted by kind and sender, and the answer is in the question's
language; "since the last time you looked" is kept in the chat."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from engine.chat.digest import digest_request
from engine.engine import Engine
from engine.events import parse_event
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store import chat
from engine.store.digest import last_looked
from engine.store.models import ChatMessage, EventRecord
from engine.workspace import Workspace
from tests.factories import event_dict

NOW = datetime.fromisoformat("2026-11-10T16:00:00+00:00")  # a Tuesday
BULK = {"List-Unsubscribe": "<mailto:leave@quillon-mailer.example>", "Precedence": "bulk"}
GROUP = {"id": "120363000000000001@g.us", "name": "Vecinos Portal 7", "is_group": True}


def at(clock: str, day: str = "2026-11-10") -> str:
    return f"{day}T{clock}:00+00:00"


def mail(n: int, clock: str, name: str, address: str, subject: str, text: str, **extra: Any):
    return event_dict(
        id=f"gmail:day-{n}",
        time=at(clock),
        sender={"name": name, "address": address},
        subject=subject,
        text=text,
        refs={"thread_id": f"t-day-{n}"},
        **extra,
    )


def whatsapp(n: int, clock: str, name: str, number: str, text: str, chat: dict | None = None):
    own = {"id": f"{number.lstrip('+')}@s.whatsapp.net", "name": name, "is_group": False}
    return event_dict(
        id=f"whatsapp:day-{n}",
        source="whatsapp",
        event_type="whatsapp.message",
        time=at(clock),
        sender={"name": name, "address": number},
        subject=None,
        text=text,
        chat=chat or own,
        refs={},
    )


def day_of_events() -> list[dict[str, Any]]:
    """Two messages that ask something (TIC notifies them) among ten it does not."""
    return [
        mail(
            1,
            "07:01",
            "Lucía Prieto",
            "lucia@prieto-abogados.example",
            "Contrato de alquiler",
            "Hola. ¿Puedes firmarlo antes del viernes? Gracias.",
        ),
        *(
            mail(n, clock, "The Weekly Fold", "news@weeklyfold.example", f"Issue {n}", "Stories.")
            for n, clock in ((2, "06:00"), (3, "09:30"), (4, "12:00"))
        ),
        *(
            mail(
                n,
                clock,
                "Lampshop",
                "orders@lampshop.example",
                f"Your order confirmation #10{n}",
                "Thank you for your order. Total paid: 23.00 EUR. Receipt attached.",
            )
            for n, clock in ((5, "08:15"), (6, "13:40"))
        ),
        *(
            mail(
                n,
                clock,
                "GitHub",
                "notifications@github.com",
                f"[acme/widgets] Fix the build (#1{n})",
                "Someone commented on this pull request.",
                headers={"List-Id": "acme/widgets <widgets.acme.github.com>"},
            )
            for n, clock in ((7, "10:02"), (8, "11:47"))
        ),
        mail(
            9,
            "14:05",
            "Shoe Deals",
            "offers@shoedeals.example",
            "50% off everything this weekend",
            "Huge sale on all shoes. Shop now!",
            headers=BULK,
        ),
        whatsapp(10, "07:09", "Marco", "+34600111222", "Can you pick up the kids at 5?"),
        whatsapp(11, "15:10", "Neighbour", "+34600222331", "The lift works again", GROUP),
        whatsapp(12, "15:20", "Neighbour", "+34600222332", "Thanks to whoever fixed it", GROUP),
    ]


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The user's zone is the computer's: UTC here, so the times read as written."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
async def day(workspace: Workspace) -> AsyncIterator[tuple[Engine, Clock]]:
    """The embedded model's engine on a store holding the day, decided by a real tick."""
    clock = Clock(NOW)
    engine = Engine(workspace, Settings(), ScriptedModel(capability="tiny"), clock=clock)
    await engine.start(schedule=False)
    engine.ingest([parse_event(e) for e in day_of_events()])
    result = await engine.check_now(timeout=10)
    assert result.events == 12 and not result.error
    yield engine, clock
    await engine.stop()


def notified_ids() -> set[str]:
    rows = EventRecord.select().where(EventRecord.decision_notify == True)  # noqa: E712
    return {r.event_id for r in rows}


def quotes(text: str) -> list[str]:
    return re.findall(r"[“«]([^”»]+)[”»]", text)


async def test_it_names_every_notified_message_and_counts_the_rest(day):
    engine, _ = day
    assert notified_ids() == {"gmail:day-1", "whatsapp:day-10"}  # TIC's own decisions
    answer = await engine.send("What did I miss today?")
    lines = answer.text.splitlines()
    assert lines[0] == "Today: 12 messages, 2 worth your attention:"
    assert lines[1] == (
        "- Lucía Prieto (email, 07:01): “Contrato de alquiler” — asks "
        "“¿Puedes firmarlo antes del viernes?”"
    )
    assert lines[2] == "- Marco (WhatsApp, 07:09): asks “Can you pick up the kids at 5?”"
    assert lines[4] == (
        "10 more: 3 newsletters, 2 receipts, 2 from GitHub, 2 in “Vecinos Portal 7” "
        "and 1 promotion."
    )
    stored = [e for e in day_of_events()]
    said = {e["subject"] for e in stored} | {e["text"] for e in stored} | {GROUP["name"]}
    for quoted in quotes(answer.text):  # every quote is the store's own words
        assert any(quoted in s for s in said if s), quoted
    assert engine.loop.model.current.calls == []  # composed in code: no model was asked
    reply = ChatMessage.get_by_id(answer.message_id)
    assert reply.meta["composed"] and reply.meta["digest_until"] == NOW.isoformat()


async def test_a_spanish_question_gets_a_spanish_answer(day):
    engine, _ = day
    answer = (await engine.send("¿Qué me perdí hoy?")).text
    assert answer.splitlines()[0] == "Hoy: 12 mensajes; 2 merecen tu atención:"
    assert "- Lucía Prieto (correo, 07:01): «Contrato de alquiler» — pide" in answer
    assert answer.splitlines()[-1] == (
        "10 más: 3 boletines, 2 recibos, 2 de GitHub, 2 en «Vecinos Portal 7» y 1 promoción."
    )
    english = {"more", "newsletters", "receipts", "worth", "from", "messages", "email"}
    assert not english & set(re.findall(r"\w+", answer))


@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        (
            "was habe ich heute verpasst?",
            "Heute: 12 Nachrichten; 2 verdienen deine Aufmerksamkeit:",
        ),
        (
            "qu'est-ce que j'ai raté aujourd'hui ?",
            "Aujourd'hui : 12 messages ; 2 méritent ton attention :",
        ),
        ("o que eu perdi hoje?", "Hoje: 12 mensagens; 2 merecem a sua atenção:"),
        ("cosa mi sono perso oggi?", "Oggi: 12 messaggi; 2 meritano la tua attenzione:"),
    ],
)
async def test_every_supported_language_gets_its_own_words(day, question, first_line):
    engine, _ = day
    answer = (await engine.send(question)).text
    assert answer.splitlines()[0] == first_line


async def test_since_the_last_look_covers_only_what_came_after(day):
    engine, clock = day
    await engine.send("what did I miss?")  # looked at 16:00
    later = whatsapp(13, "16:30", "Marco", "+34600111222", "Are you coming to dinner tonight?")
    engine.ingest([parse_event(later)])
    clock.now = NOW + timedelta(hours=1)
    await engine.check_now(timeout=10)
    answer = (await engine.send("anything new?")).text
    assert answer.splitlines() == [
        "Since 16:00: 1 message, 1 worth your attention:",
        "- Marco (WhatsApp, 16:30): asks “Are you coming to dinner tonight?”",
    ]
    assert (await engine.send("what did I miss?")).text == "Since 17:00: nothing new."


async def test_what_tic_has_not_checked_yet_is_counted_apart(day):
    engine, clock = day
    clock.now = NOW + timedelta(minutes=30)
    engine.ingest(
        [parse_event(mail(14, "16:10", "Lampshop", "orders@lampshop.example", "Hi", "x"))]
    )
    answer = (await engine.send("anything important today?")).text
    assert answer.splitlines()[-1] == (
        "11 more: 3 newsletters, 2 receipts, 2 from GitHub, 2 in “Vecinos Portal 7”, "
        "1 promotion and 1 not checked yet."
    )


async def test_unread_mail_is_the_emails_of_the_last_day_when_never_looked(day):
    engine, _ = day
    answer = (await engine.send("summarise my unread mail")).text
    assert answer.splitlines()[0] == "In the last 24 hours: 9 messages, 1 worth your attention:"
    assert "Marco" not in answer and "Vecinos" not in answer  # WhatsApp is not mail
    assert (
        answer.splitlines()[-1]
        == "8 more: 3 newsletters, 2 receipts, 2 from GitHub and 1 promotion."
    )


async def test_a_day_with_nothing_notified_says_so_in_one_sentence(workspace):
    engine = Engine(workspace, Settings(), ScriptedModel(capability="tiny"), clock=lambda: NOW)
    await engine.start(schedule=False)
    try:
        engine.ingest([parse_event(e) for e in day_of_events()[1:4]])
        await engine.check_now(timeout=10)
        answer = (await engine.send("what's new since Monday?")).text
        assert answer == "Since Monday: 3 messages, none that needed you: 3 newsletters."
    finally:
        await engine.stop()


def test_the_last_look_is_the_last_digest_or_the_message_before_the_question(db):
    session = chat.default_session().id
    assert last_looked(session, NOW) is None
    chat.add_message(session, "user", "hello", created_at=NOW - timedelta(hours=3))
    assert last_looked(session, NOW) is None  # the only message is the question itself
    chat.add_message(session, "user", "what did I miss?", created_at=NOW)
    assert last_looked(session, NOW) == (NOW - timedelta(hours=3), "message")
    until = NOW - timedelta(hours=1)
    chat.add_message(session, "assistant", "…", meta={"digest_until": until.isoformat()})
    assert last_looked(session, NOW) == (until, "digest")
    assert last_looked(session, NOW - timedelta(hours=2)) == (NOW - timedelta(hours=3), "message")


@pytest.mark.parametrize(
    ("question", "language", "period", "source"),
    [
        ("What did I miss?", "en", None, "any"),
        ("summarise my unread mail", "en", None, "email"),
        ("anything important today?", "en", "today", "any"),
        ("what did I miss since Monday?", "en", "since", "any"),
        ("Catch me up on WhatsApp this week", "en", "this_week", "whatsapp"),
        ("¿Qué me he perdido desde el lunes?", "es", "since", "any"),
        ("resume mis correos sin leer", "es", None, "email"),
        ("¿hay algo importante hoy?", "es", "today", "any"),
        ("Fasse meine ungelesenen Mails zusammen", "de", None, "email"),
        ("gibt es heute etwas Wichtiges?", "de", "today", "any"),
        ("qu'est-ce que j'ai raté depuis lundi ?", "fr", "since", "any"),
        ("résume mes mails non lus", "fr", None, "email"),
        ("o que eu perdi ontem?", "pt", "yesterday", "any"),
        ("tem algo importante hoje?", "pt", "today", "any"),
        ("cosa mi sono perso?", "it", None, "any"),
        ("c'è qualcosa di importante oggi?", "it", "today", "any"),
        ("wat heb ik vandaag gemist?", "nl", "today", "any"),
    ],
)
def test_the_question_is_read_in_every_supported_language(question, language, period, source):
    request = digest_request(question, NOW)
    assert request is not None, question
    assert request.language == language
    assert (request.period.name if request.period else None) == period
    assert request.source == source


@pytest.mark.parametrize(
    "question",
    [
        "what did I miss at the dentist?",  # "dentist" is not read: no digest of everything
        "what did I miss tomorrow?",  # a day to come
        "summarize the email from Ana",
        "what did I miss today and yesterday?",  # two days
        "I missed the train",
    ],
)
def test_a_question_not_read_in_full_is_no_digest(question):
    assert digest_request(question, NOW) is None
