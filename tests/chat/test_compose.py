"""Composed notification replies: who, what, when (in the user's zone) and a next step, from
the notification and its event; several at once with a heading, most important first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from engine.chat.compose import at, compose, span, when
from engine.chat.factcheck import check_reply
from engine.chat.facts import batch_facts
from engine.clock import zone
from engine.events import Event
from engine.store.models import Notification
from tests.factories import event_dict

BERLIN = zone("Europe/Berlin")  # UTC+1 in November
NOW = datetime.fromisoformat("2026-11-08T09:00:00+00:00")  # Sunday, 10:00 in Berlin


def calendar(**fields: Any) -> dict[str, Any]:
    base = {
        "start": None,
        "end": None,
        "status": "confirmed",
        "organizer": {"name": "Ian Wright", "address": "ian@fabrikam.io"},
        "location": "",
    }
    return {**base, **fields}


def whatsapp(text: str, sender: str, *, group: str | None = None, **extra: Any) -> dict:
    return {
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "sender": {"name": sender, "address": "+49301234567"},
        "subject": None,
        "text": text,
        "chat": {"id": "c", "name": group or sender, "is_group": group is not None},
        "refs": {},
        **extra,
    }


def calendar_event(event_type: str, title: str, **cal: Any) -> dict:
    return {
        "source": "calendar",
        "event_type": event_type,
        "sender": None,
        "subject": title,
        "text": "",
        "calendar": calendar(**cal),
        "refs": {},
    }


def note(event: Event, n: int = 1, reason: str | None = None) -> Notification:
    return Notification(
        id=n,
        event_id=event.id,
        source=event.source,
        event_type=event.event_type,
        summary="(the neutral summary)",
        event_time=event.time,
        refs={"event_id": event.id},
        reason=reason,
    )


def reminder(text: str, due: str, n: int = 1) -> Notification:
    return Notification(
        id=n,
        event_id=f"cron:1:{due}",
        source="cron",
        event_type="cron.reminder",
        summary=f"Reminder: {text}",
        event_time=datetime.fromisoformat(due),
        refs={"job_id": 1},
        reason="a scheduled job you set up is due",
    )


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "email with a request",
        {
            "sender": {"name": "Tomas Herrera", "address": "tomas@herrera-lutz.es"},
            "subject": "Q3 VAT return",
            "text": "Please sign the attached VAT return by Friday.",
            "time": "2026-11-08T07:01:00+00:00",
        },
        "Tomas Herrera emailed you at 08:01: \u201cQ3 VAT return\u201d \u2014 \u201cPlease sign "
        "the attached VAT return by Friday.\u201d Reply by email.",
    ),
    (
        "email without a subject, received yesterday",
        {
            "sender": {"name": "Nadia Kim", "address": "nadia@kim-legal.example"},
            "subject": None,
            "text": "I've marked up the contract, see sections 3 and 9.",
            "time": "2026-11-07T16:30:00+00:00",
        },
        "Nadia Kim emailed you yesterday at 17:30: \u201cI've marked up the contract, see "
        "sections 3 and 9.\u201d",
    ),
    (
        "email with attachments only",
        {
            "sender": {"name": "Nadia Kim", "address": "nadia@kim-legal.example"},
            "subject": "Scans",
            "text": "[4 attachments: a.pdf, b.pdf, c.jpg, d_1.jpg]",
            "refs": {"attachments": ["a.pdf", "b.pdf", "c.jpg", "d_1.jpg"]},
            "time": "2026-11-08T08:40:00+00:00",
        },
        "Nadia Kim emailed you at 09:40: \u201cScans\u201d \u2014 sent 4 attachments: a.pdf, "
        "b.pdf, c.jpg and 1 more.",
    ),
    (
        "email with a text and an attachment",
        {
            "sender": {"name": "Nadia Kim", "address": "nadia@kim-legal.example"},
            "subject": None,
            "text": "Signed copy attached.",
            "refs": {"attachments": ["contract_signed.pdf"]},
            "time": "2026-11-08T08:40:00+00:00",
        },
        "Nadia Kim emailed you at 09:40: \u201cSigned copy attached.\u201d \u2014 sent 1 "
        "attachment: contract\\_signed.pdf.",
    ),
    (
        "email in French, quoted as written",
        {
            "sender": {"name": "Chlo\u00e9 Martin", "address": "chloe@exemple.fr"},
            "subject": "R\u00e9union de lundi",
            "text": "Pouvez-vous confirmer votre pr\u00e9sence ?",
            "time": "2026-11-08T08:40:00+00:00",
        },
        "Chlo\u00e9 Martin emailed you at 09:40: \u201cR\u00e9union de lundi\u201d \u2014 "
        "\u201cPouvez-vous confirmer votre pr\u00e9sence ?\u201d Reply by email.",
    ),
    (
        "email from an address only, markdown escaped, long text cut",
        {
            "sender": {"name": None, "address": "alerts@shop.example"},
            "subject": "See *this*",
            "text": "[click](http://x.example) " + "very long words " * 20,
            "time": "2026-11-01T08:55:00+00:00",
        },
        "alerts@shop.example emailed you on Sun 1 Nov at 09:55: \u201cSee \\*this\\*\u201d "
        "\u2014 \u201c\\[click\\](http://x.example) very long words very long words very long "
        "words very long words very long words very long words very long words very long "
        "words very\u2026\u201d",
    ),
    (
        "WhatsApp direct, German, asks for a call back",
        whatsapp(
            "Kannst du mich heute Abend zur\u00fcckrufen?",
            "Oma",
            time="2026-11-08T08:55:00+00:00",
        ),
        "Oma wrote on WhatsApp at 09:55: \u201cKannst du mich heute Abend "
        "zur\u00fcckrufen?\u201d Call Oma back (+49301234567).",
    ),
    (
        "WhatsApp direct, a statement: no next step",
        whatsapp("Picked up the kids, all good", "Marco", time="2026-11-08T08:09:00+00:00"),
        "Marco wrote on WhatsApp at 09:09: \u201cPicked up the kids, all good\u201d.",
    ),
    (
        "WhatsApp direct in Japanese",
        whatsapp(
            "\u660e\u65e5\u306e\u4f1a\u8b70\u306f10\u6642\u304b\u3089\u3067\u3059",
            "\u5065\u592a",
            time="2026-11-08T08:55:00+00:00",
        ),
        "\u5065\u592a wrote on WhatsApp at 09:55: "
        "\u201c\u660e\u65e5\u306e\u4f1a\u8b70\u306f10\u6642\u304b\u3089\u3067\u3059\u201d.",
    ),
    (
        "WhatsApp group",
        whatsapp(
            "API latency p99 over 2s since 11:40",
            "Ravi",
            group="Prod Incidents",
            time="2026-11-08T08:03:00+00:00",
        ),
        "Ravi wrote in \u201cProd Incidents\u201d on WhatsApp at 09:03: \u201cAPI latency p99 "
        "over 2s since 11:40\u201d.",
    ),
    (
        "WhatsApp group mention in Spanish",
        whatsapp(
            "@Elena \u00bfjuegas el domingo?",
            "Rita",
            group="Padel Sundays",
            mentions_me=True,
            time="2026-11-08T08:11:00+00:00",
        ),
        "Rita mentioned you in \u201cPadel Sundays\u201d on WhatsApp at 09:11: \u201c@Elena "
        "\u00bfjuegas el domingo?\u201d Reply in \u201cPadel Sundays\u201d.",
    ),
    (
        "calendar created, tomorrow, in a room",
        calendar_event(
            "calendar.created",
            "Parent-teacher meeting",
            start="2026-11-09T16:00:00+00:00",
            end="2026-11-09T16:30:00+00:00",
            location="Room 2",
            organizer={"name": "School", "address": "office@school.example"},
        ),
        "School added \u201cParent-teacher meeting\u201d to your calendar: tomorrow "
        "17:00\u201317:30 in Room 2.",
    ),
    (
        "calendar created, a video call",
        calendar_event(
            "calendar.created",
            "Design sync",
            start="2026-11-10T14:00:00+00:00",
            end="2026-11-10T15:00:00+00:00",
            location="https://meet.google.com/abc-defg-hij",
        ),
        "Ian Wright added \u201cDesign sync\u201d to your calendar: Tue 15:00\u201316:00. "
        "It's a video call: the join link is in the invitation.",
    ),
    (
        "calendar moved",
        calendar_event(
            "calendar.updated",
            "Budget review",
            start="2026-11-11T10:00:00+00:00",
            end="2026-11-11T11:00:00+00:00",
            previous_start="2026-11-10T09:00:00+00:00",
        ),
        "Ian Wright moved \u201cBudget review\u201d from Tue 10:00 to Wed 11:00.",
    ),
    (
        "calendar cancelled, weeks ahead",
        calendar_event(
            "calendar.cancelled",
            "Dentist",
            start="2026-11-20T14:00:00+00:00",
            end="2026-11-20T15:00:00+00:00",
            status="cancelled",
        ),
        "Ian Wright cancelled \u201cDentist\u201d (Fri 20 Nov 15:00\u201316:00).",
    ),
    (
        "calendar reminder",
        calendar_event(
            "calendar.reminder",
            "Budget review",
            start="2026-11-08T14:00:00+00:00",
            end="2026-11-08T15:00:00+00:00",
            location="Room 2",
        ),
        "Reminder: \u201cBudget review\u201d starts at 15:00 in Room 2 (organised by Ian Wright).",
    ),
    (
        "calendar all-day, several days",
        calendar_event(
            "calendar.created",
            "Holiday",
            start="2026-11-11T00:00:00+01:00",
            end="2026-11-13T00:00:00+01:00",
        ),
        "Ian Wright added \u201cHoliday\u201d to your calendar: Wed \u2013 Thu (all day).",
    ),
]


@pytest.mark.parametrize(("fields", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_notification_is_composed_from_its_event(fields, expected):
    event = Event.model_validate(event_dict(**{"time": "2026-11-08T08:00:00+00:00", **fields}))
    batch = [note(event)]
    text = compose(batch, {event.id: event}, NOW, BERLIN)
    assert text == expected
    # what is composed passes the check a model's reply must pass
    assert check_reply(text, batch_facts(batch, {event.id: event}), now=NOW, tz=BERLIN) == []


def test_a_reminder_from_a_job_has_no_event():
    batch = [reminder("call Mario", "2026-11-08T16:00:00+00:00")]
    text = compose(batch, {}, NOW, BERLIN)
    assert text == "Reminder: call Mario (set for today 17:00)."
    assert check_reply(text, batch_facts(batch, {}), now=NOW, tz=BERLIN) == []


def test_a_notification_without_its_event_says_its_summary():
    batch = [
        Notification(
            id=1,
            event_id="gmail:gone",
            source="email",
            event_type="email.received",
            summary="Anna Berg sent an email about \u201cInvoice 7\u201d.",
        )
    ]
    text = compose(batch, {}, NOW, BERLIN)
    assert text == "Email: Anna Berg sent an email about \u201cInvoice 7\u201d."
    assert check_reply(text, batch_facts(batch, {}), now=NOW, tz=BERLIN) == []


def test_several_at_once_have_a_heading_and_come_most_important_first():
    plain = Event.model_validate(
        event_dict(
            id="gmail:1",
            sender={"name": "Lucia Vidal", "address": "lucia@example.org"},
            subject="Documents received",
            text="We received your receipts, thanks.",
            time="2026-11-08T08:01:00+00:00",
        )
    )
    always = Event.model_validate(
        event_dict(
            id="whatsapp:2",
            **whatsapp("Landed safely", "Papa", time="2026-11-08T08:02:00+00:00"),
        )
    )
    soon = Event.model_validate(
        event_dict(
            id="gcal:3",
            time="2026-11-08T08:03:00+00:00",
            **calendar_event(
                "calendar.cancelled",
                "Climbing",
                start="2026-11-08T17:00:00+00:00",
                end="2026-11-08T19:00:00+00:00",
                status="cancelled",
            ),
        )
    )
    events = {e.id: e for e in (plain, always, soon)}
    batch = [
        note(plain, 1, "Lucia Vidal wrote to you directly"),
        note(always, 2, "matches the Always rule \u201cWhatsApp messages from Papa\u201d"),
        note(soon, 3, "an event was cancelled"),
    ]
    text = compose(batch, events, NOW, BERLIN)
    assert text == (
        "3 new: 1 email, 1 WhatsApp message, 1 calendar change.\n"
        "\n"
        "- Papa wrote on WhatsApp at 09:02: \u201cLanded safely\u201d.\n"
        "- Ian Wright cancelled \u201cClimbing\u201d (today 18:00\u201320:00).\n"
        "- Lucia Vidal emailed you at 09:01: \u201cDocuments received\u201d \u2014 \u201cWe "
        "received your receipts, thanks.\u201d"
    )
    assert check_reply(text, batch_facts(batch, events), now=NOW, tz=BERLIN) == []


def test_an_urgent_message_comes_first():
    calm = Event.model_validate(
        event_dict(id="whatsapp:1", **whatsapp("See you", "Ana", time="2026-11-08T08:01:00Z"))
    )
    urgent = Event.model_validate(
        event_dict(
            id="whatsapp:2",
            **whatsapp("Mum's in hospital, call me asap", "Sister", time="2026-11-08T08:02:00Z"),
        )
    )
    events = {e.id: e for e in (calm, urgent)}
    text = compose([note(calm, 1), note(urgent, 2)], events, NOW, BERLIN)
    lines = text.splitlines()
    assert lines[0] == "2 new: 2 WhatsApp messages."
    assert lines[2].startswith("- Sister wrote on WhatsApp at 09:02")
    assert lines[2].endswith("Call Sister back (+49301234567).")
    assert lines[3].startswith("- Ana wrote")


@pytest.mark.parametrize(
    ("moment", "expected_when", "expected_at"),
    [
        ("2026-11-08T16:00:00+00:00", "today 17:00", "at 17:00"),
        ("2026-11-09T08:30:00+00:00", "tomorrow 09:30", "tomorrow at 09:30"),
        ("2026-11-07T21:10:00+00:00", "yesterday 22:10", "yesterday at 22:10"),
        ("2026-11-12T10:00:00+00:00", "Thu 11:00", "on Thu at 11:00"),
        ("2026-11-25T10:00:00+00:00", "Wed 25 Nov 11:00", "on Wed 25 Nov at 11:00"),
        ("2027-01-04T10:00:00+00:00", "Mon 4 Jan 2027 11:00", "on Mon 4 Jan 2027 at 11:00"),
        ("2026-11-08T23:30:00+00:00", "tomorrow 00:30", "tomorrow at 00:30"),  # the zone's day
    ],
)
def test_times_are_words_in_the_users_zone(moment, expected_when, expected_at):
    instant = datetime.fromisoformat(moment)
    assert when(instant, NOW, BERLIN) == expected_when
    assert at(instant, NOW, BERLIN) == expected_at


def test_a_span_that_ends_another_day():
    start = datetime.fromisoformat("2026-11-08T21:00:00+00:00")
    end = datetime.fromisoformat("2026-11-09T01:00:00+00:00")
    assert span(start, end, NOW, BERLIN) == "today 22:00 \u2013 tomorrow 02:00"
