"""Calendar questions by any day — weekday names, dates, "next week", "this afternoon" — in
the supported languages, answered in the question's language from a seeded store; and with
no calendar connected, an answer that says so and how to connect one."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from datetime import datetime

import pytest

from engine.accounts.registry import AccountConfig
from engine.chat.calendar_answer import calendar_question, no_calendar
from engine.engine import Engine
from engine.events import parse_event
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.workspace import Workspace
from tests.factories import event_dict

NOW = datetime.fromisoformat("2026-11-10T09:00:00+00:00")  # a Tuesday morning


def meeting(n: int, title: str, start: str, **calendar: object) -> dict:
    return event_dict(
        id=f"gcal:m{n}",
        source="calendar",
        event_type="calendar.created",
        time="2026-11-01T08:00:00+00:00",
        subject=title,
        text="",
        calendar={"start": start, **calendar},
        refs={"event_id": f"m{n}"},
    )


MEETINGS = [
    meeting(1, "Yoga", "2026-11-10T14:30:00+00:00"),  # this afternoon
    meeting(2, "Budget review", "2026-11-11T15:00:00+00:00", location="Room 4"),  # Wednesday
    meeting(3, "Dentist", "2026-11-12T08:00:00+00:00"),  # Thursday
    meeting(4, "Team offsite", "2026-11-16T10:00:00+00:00"),  # next Monday
    meeting(5, "Quarterly planning", "2026-11-18T11:00:00+00:00"),  # next Wednesday
    meeting(6, "Birthday dinner", "2026-12-14T20:00:00+00:00"),  # December 14
]


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def started(workspace: Workspace, settings: Settings) -> Engine:
    engine = Engine(workspace, settings, ScriptedModel(capability="tiny"), clock=lambda: NOW)
    await engine.start(schedule=False)
    return engine


@pytest.fixture
async def calendar(workspace: Workspace) -> AsyncIterator[Engine]:
    engine = await started(workspace, Settings())
    engine.ingest([parse_event(m) for m in MEETINGS])
    yield engine
    await engine.stop()


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What do I have on Wednesday?", "Tomorrow: 15:00 Budget review (Room 4)."),
        ("what's on my calendar tomorrow?", "Tomorrow: 15:00 Budget review (Room 4)."),
        ("What's on Thursday?", "Thursday 12 November: 08:00 Dentist."),
        ("what do I have this afternoon?", "This afternoon: 14:30 Yoga."),
        (
            "Any meetings next week?",
            "Next week:\n- Monday 10:00 Team offsite\n- Wed 18 Nov 11:00 Quarterly planning",
        ),
        ("what do I have next Wednesday?", "Wednesday 18 November: 11:00 Quarterly planning."),
        ("What's on December 14?", "Monday 14 December: 20:00 Birthday dinner."),
        ("what's on 14/12?", "Monday 14 December: 20:00 Birthday dinner."),
        ("What's on the 14th?", "Nothing on your calendar on Saturday 14 November."),
        ("When is my next meeting?", "Next: Today 14:30 Yoga."),
        ("¿Qué tengo el jueves?", "Jueves 12 de noviembre: 08:00 Dentist."),
        ("¿qué tengo mañana por la tarde?", "Mañana por la tarde: 15:00 Budget review (Room 4)."),
        (
            "¿Qué hay en mi agenda el 14 de diciembre?",
            "Lunes 14 de diciembre: 20:00 Birthday dinner.",
        ),
        ("¿Qué tengo el sábado?", "No tienes nada en el calendario el sábado 14 de noviembre."),
        ("Was habe ich am Donnerstag?", "Donnerstag, 12. November: 08:00 Dentist."),
        (
            "Termine nächste Woche?",
            "Nächste Woche:\n- Montag 10:00 Team offsite\n- Mi, 18. Nov 11:00 Quarterly planning",
        ),
        ("qu'est-ce que j'ai jeudi ?", "Jeudi 12 novembre: 08:00 Dentist."),
        ("o que tenho na quinta?", "Quinta-feira, 12 de novembro: 08:00 Dentist."),
        ("cosa ho questo pomeriggio?", "Oggi pomeriggio: 14:30 Yoga."),
        ("wat heb ik donderdag?", "Donderdag 12 november: 08:00 Dentist."),
    ],
)
async def test_calendar_questions_by_any_day_in_their_language(calendar, question, answer):
    reply = await calendar.send(question)
    assert reply.text == answer
    assert calendar.loop.model.current.calls == []  # composed in code


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("what's on my calendar tomorrow?", "en"),
        ("¿qué tengo el miércoles?", "es"),
        ("was steht morgen an?", "de"),
        ("mon agenda demain", "fr"),
        ("o que tenho amanhã?", "pt"),
        ("che impegni ho domani?", "it"),
        ("wat heb ik morgen?", "nl"),
    ],
)
async def test_with_no_calendar_connected_it_says_so_and_how_to_connect(
    workspace, question, language
):
    engine = await started(workspace, Settings())
    try:
        reply = await engine.send(question)
    finally:
        await engine.stop()
    assert reply.text == no_calendar(language)
    assert "Settings → Accounts" in reply.text and "tic-desktop ingest" in reply.text


async def test_a_connected_calendar_with_nothing_on_says_nothing_is_on(workspace):
    account = AccountConfig(kind="gcal", account="me@quillon-partners.example")
    engine = await started(workspace, Settings().with_account(account))
    try:
        assert (await engine.send("what do I have tomorrow?")).text == (
            "Nothing on your calendar tomorrow."
        )
    finally:
        await engine.stop()


@pytest.mark.parametrize(
    "question",
    [
        "What did Ana say about the meeting on Wednesday?",  # about a message, not the calendar
        "cancel my meeting tomorrow",
        "what's on my calendar today and tomorrow?",  # two days
        "what did I have yesterday?",  # the look-up only sees what is ahead
        "Remind me on Wednesday to call the plumber",
    ],
)
def test_what_is_not_a_calendar_question_is_left_alone(question):
    assert calendar_question(question, NOW) is None
