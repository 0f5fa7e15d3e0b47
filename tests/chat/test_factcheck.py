"""The check of a (capable) model's notification reply against the facts: who and what must be
named; times, dates, weekdays, numbers, addresses, links and names must come from the facts."""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.chat.factcheck import check_reply
from engine.chat.facts import NoteFacts, batch_facts
from engine.clock import zone
from engine.events import Event
from engine.store.models import Notification
from tests.factories import event_dict

BERLIN = zone("Europe/Berlin")
NOW = datetime.fromisoformat("2026-11-08T09:00:00+00:00")  # Sunday, 10:00 in Berlin


def facts(**fields) -> list[NoteFacts]:
    event = Event.model_validate(event_dict(**fields))
    note = Notification(
        id=1,
        event_id=event.id,
        source=event.source,
        event_type=event.event_type,
        summary="(summary)",
        event_time=event.time,
        refs={"event_id": event.id},
    )
    return batch_facts([note], {event.id: event})


EMAIL = facts(
    sender={"name": "Tomas Herrera", "address": "tomas@herrera-lutz.es"},
    subject="Q3 VAT return",
    text="Please sign the attached VAT return by Friday.",
    time="2026-11-08T07:01:00+00:00",
)
MEETING = {
    "source": "calendar",
    "sender": None,
    "subject": "Budget review",
    "text": "",
    "time": "2026-11-08T08:50:00+00:00",
}
ORGANIZER = {"name": "Ian Wright", "address": "ian@fabrikam.io"}
REMINDER = facts(
    event_type="calendar.reminder",
    calendar={
        "start": "2026-11-08T14:00:00+00:00",
        "end": "2026-11-08T15:00:00+00:00",
        "location": "Room 2",
        "organizer": ORGANIZER,
    },
    **MEETING,
)
CANCELLED = facts(
    event_type="calendar.cancelled",
    calendar={
        "start": "2026-11-10T14:00:00+00:00",
        "status": "cancelled",
        "organizer": ORGANIZER,
    },
    **MEETING,
)
SPANISH = facts(
    source="whatsapp",
    event_type="whatsapp.message",
    sender={"name": "Rita", "address": "+34600111223"},
    subject=None,
    text="@Elena \u00bfjuegas el domingo?",
    chat={"id": "p", "name": "Padel", "is_group": True},
    mentions_me=True,
)

CASES = [
    ("correct", EMAIL, "Tomas Herrera needs your signature on the VAT return by Friday.", []),
    ("3pm is 15:00", REMINDER, "Budget review with Ian Wright starts at 3pm in Room 2.", []),
    ("3:00 p.m.", REMINDER, "Ian Wright's Budget review starts today at 3:00 p.m.", []),
    ("in UTC too", REMINDER, "Ian Wright: budget review at 15:00 (14:00 UTC).", []),
    ("a label", EMAIL, "Sender: Tomas Herrera. Subject: Q3 VAT return, to sign by Friday.", []),
    ("a sentence opener", REMINDER, "Quick note: Ian Wright's budget review is at 15:00.", []),
    ("words for numbers", EMAIL, "Tomas Herrera sent one email: sign the VAT return.", []),
    (
        "invented time",
        REMINDER,
        "Budget review with Ian Wright starts at 5pm in Room 2.",
        ["invented time 5pm"],
    ),
    (
        "invented 24h time",
        REMINDER,
        "Ian Wright moved the budget review to 16:30.",
        ["invented time 16:30"],
    ),
    (
        "invented date",
        EMAIL,
        "Tomas Herrera needs the VAT return signed by 12 December.",
        ["invented date 12 December"],
    ),
    (
        "invented weekday",
        EMAIL,
        "Tomas Herrera needs the VAT return signed by Thursday.",
        ["invented weekday Thursday"],
    ),
    (
        "invented number",
        REMINDER,
        "Ian Wright's budget review is in Room 7 at 15:00.",
        ["invented number 7"],
    ),
    (
        "invented address",
        EMAIL,
        "Tomas Herrera (tomas@gmail.com) sent the VAT return.",
        ["invented address tomas@gmail.com"],
    ),
    (
        "invented link",
        EMAIL,
        "Tomas Herrera sent the VAT return: https://evil.example/sign",
        ["invented link https://evil.example/sign"],
    ),
    (
        "invented name",
        REMINDER,
        "Ian Wright and Carla meet for the budget review at 15:00.",
        ["invented name Carla"],
    ),
    (
        "invented name opening a sentence",
        EMAIL,
        "Tomas Herrera sent the VAT return. Carla wrote too.",
        ["invented name Carla"],
    ),
    (
        "invented day",
        REMINDER,
        "Ian Wright's budget review is tomorrow at 15:00.",
        ["invented day \u201ctomorrow\u201d"],
    ),
    (
        "the issue's invented calendar fact",
        REMINDER,
        "Calendar: Q1 numbers were released to the public on 2026-12-31T15:49Z.",
        [
            "missing who: Ian Wright",
            "missing what: Budget review",
            "invented date 2026-12-31",
            "invented time 15:49",
        ],
    ),
    (
        "missing who",
        REMINDER,
        "The budget review starts at 15:00 in Room 2.",
        ["missing who: Ian Wright"],
    ),
    ("missing what", EMAIL, "Tomas Herrera has news for you.", ["missing what: Q3 VAT return"]),
    (
        "a cancellation not said",
        CANCELLED,
        "Ian Wright's budget review is on Tuesday at 15:00.",
        ["missing what: Budget review was cancelled"],
    ),
    ("a cancellation said", CANCELLED, "Ian Wright cancelled Tuesday's budget review.", []),
    (
        "the sender's weekday, translated",
        SPANISH,
        "Rita asks Elena in Padel if she plays on Sunday.",
        [],
    ),
    ("the sender's language quoted", SPANISH, "Rita: \u201c\u00bfjuegas el domingo?\u201d", []),
]


@pytest.mark.parametrize(
    ("facts", "reply", "problems"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_reply_is_checked_against_the_facts(facts, reply, problems):
    assert check_reply(reply, facts, now=NOW, tz=BERLIN) == problems


def test_what_a_tool_returned_is_a_fact_too():
    reply = "Ian Wright's budget review starts at 15:00; tomorrow you have Standup at 09:30."
    result = '[{"title": "Standup", "start": "2026-11-09T08:30:00+00:00"}]'
    assert check_reply(reply, REMINDER, now=NOW, tz=BERLIN, extra=[result]) == []
    assert check_reply(reply, REMINDER, now=NOW, tz=BERLIN) == [
        "invented time 09:30",
        "invented day \u201ctomorrow\u201d",
        "invented name Standup",
    ]


def test_every_notification_of_a_batch_must_be_named():
    problems = check_reply(
        "Tomas Herrera sent the Q3 VAT return.", EMAIL + REMINDER, now=NOW, tz=BERLIN
    )
    assert problems == ["missing who: Ian Wright", "missing what: Budget review"]
