""" "Open" leads to the message in its own place, and "Remind me in 1 hour" delivers it again:
the places each source's notifications open, that nothing a sender wrote becomes a URL as
it is, the reply marked read, and the later delivery on an injected clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.bus import ReplyFinished
from engine.chat.places import (
    calendar_url,
    gmail_thread_url,
    message_id_url,
    phone_digits,
    place_of,
)
from engine.engine import Engine
from engine.errors import TicError
from engine.events import Event
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store import chat
from engine.store.models import ChatMessage, Job, Notification
from engine.workspace import Workspace
from tests.factories import make_event

ANNA = {"name": "Anna Berg", "address": "anna@example.org"}


def note(source: str, refs: dict[str, Any], summary: str = "Something happened.") -> Notification:
    return Notification(id=7, source=source, summary=summary, refs=refs, reply_message_id=3)


def whatsapp(chat_id: str, *, group: bool = False, address: str | None = None) -> Event:
    return make_event(
        source="whatsapp",
        event_type="whatsapp.message",
        sender={"name": "Marco", "address": address},
        chat={"id": chat_id, "name": "Family" if group else "Marco", "is_group": group},
        text="I'm at A&E with grandma, she fell. Please call me",
    )


def test_a_gmail_message_opens_its_thread_in_the_account():
    event = make_event(refs={"thread_id": "18c2f", "account": "me@gmail.com"})
    place = place_of(note("email", event.refs), event)
    assert place.url == "https://mail.google.com/mail/u/me@gmail.com/#all/18c2f"
    assert (place.title, place.label) == ("Email from Anna Berg", "Open the Gmail thread")
    assert (place.notification_id, place.message_id) == (7, 3)


def test_an_imap_message_opens_by_its_message_id_with_its_text_beside():
    refs = {"folder": "INBOX", "uid": 4, "message_id": "a.b+c@post.quillon-partners.example"}
    event = make_event(refs=refs, subject="Q3 VAT return", text="Please sign it by Friday.")
    place = place_of(note("email", refs), event)
    assert place.url == "mid:a.b+c@post.quillon-partners.example"
    assert place.text is not None and place.text.startswith("From: Anna Berg <anna@example.org>")
    assert "Subject: Q3 VAT return" in place.text and place.text.endswith("by Friday.")
    no_id = place_of(note("email", {"folder": "INBOX", "uid": 5}), event)
    assert no_id.url is None and no_id.text == place.text


def test_a_calendar_event_opens_its_own_page_only():
    link = "https://www.google.com/calendar/event?eid=abc"
    event = make_event(source="calendar", event_type="calendar.invited", subject="Design review")
    place = place_of(note("calendar", {"html_link": link}), event)
    assert (place.url, place.title) == (link, "Calendar: Design review")
    for elsewhere in ("http://www.google.com/calendar/event", "https://evil.example/calendar"):
        assert calendar_url(elsewhere) is None
    assert place_of(note("calendar", {"html_link": "javascript:x"}), event).url is None


def test_whatsapp_opens_the_chat_with_a_person_and_tics_view_for_a_group():
    live = whatsapp("393331234567@s.whatsapp.net")
    place = place_of(note("whatsapp", {"chat_jid": "393331234567@s.whatsapp.net"}), live)
    assert place.url == "https://wa.me/393331234567"
    exported = whatsapp("Marco|hi", address="+39 333 123 4567")
    assert place_of(note("whatsapp", {}), exported).url == "https://wa.me/393331234567"
    group = whatsapp("120363@g.us", group=True)
    shown = place_of(note("whatsapp", {"chat_jid": "120363@g.us"}), group)
    assert shown.url is None and shown.title == "WhatsApp from Marco in Family"
    assert shown.text is not None and "Chat: Family" in shown.text
    assert place_of(note("whatsapp", {}), whatsapp("Marco|hi")).url is None  # no number known


def test_a_reminder_is_shown_in_the_chat_by_its_text():
    place = place_of(note("cron", {"job_id": 2}, "Reminder: Call Mario"), None)
    assert (place.url, place.text, place.title) == (None, None, "Reminder: Call Mario")


def test_what_a_sender_wrote_never_becomes_a_url_as_it_is():
    assert gmail_thread_url("a b@x", "t/../../x?y") == (
        "https://mail.google.com/mail/u/a%20b@x/#all/t/../../x%3Fy"
    )
    assert gmail_thread_url(None, "t1").startswith("https://mail.google.com/mail/u/0/")
    assert message_id_url("<x y>\n@z") == "mid:x%20y%3E%0A@z"
    assert phone_digits("+39 (333) 123-4567") == "393331234567"
    assert phone_digits("call me") is None and phone_digits("12") is None


# -- through the engine ----------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 10, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def engine_at(workspace: Workspace) -> AsyncIterator[tuple[Engine, Clock]]:
    clock = Clock()
    workspace.rules_file.write_text("## Always notify\n- Emails from Anna Berg\n")
    eng = Engine(workspace, Settings(), ScriptedModel(capability="tiny"), clock=clock)
    await eng.start(schedule=False)
    yield eng, clock
    await eng.stop()


async def notified(engine: Engine, *events: Event) -> list[ReplyFinished]:
    seen: list[ReplyFinished] = []
    engine.bus.subscribe(lambda m: seen.append(m) if isinstance(m, ReplyFinished) else None)
    engine.ingest(list(events))
    await engine.check_now(timeout=5)
    return seen


async def test_open_gives_the_places_and_marks_the_reply_read(engine_at):
    engine, clock = engine_at
    event = make_event(sender=ANNA, refs={"thread_id": "t9", "account": "me@gmail.com"})
    (reply,) = await notified(engine, event)

    (place,) = engine.open_notification(reply.message_id)

    assert place.url == "https://mail.google.com/mail/u/me@gmail.com/#all/t9"
    meta = ChatMessage.get_by_id(reply.message_id).meta
    assert meta[chat.READ_AT] == clock.now.isoformat()
    with pytest.raises(TicError, match="is not a notification"):
        engine.open_notification(10_000)


async def test_remind_me_later_delivers_the_same_message_again_an_hour_later(engine_at):
    engine, clock = engine_at
    event = make_event(sender=ANNA, refs={"thread_id": "t3"})
    (first,) = await notified(engine, event)
    again: list[ReplyFinished] = []
    engine.bus.subscribe(lambda m: again.append(m) if isinstance(m, ReplyFinished) else None)

    due = engine.remind_later(first.message_id)

    assert due == clock.now + timedelta(hours=1)
    clock.now += timedelta(minutes=59)
    assert await engine.jobs.run_due() == 0 and again == []
    clock.now += timedelta(minutes=1)
    assert await engine.jobs.run_due() == 1
    assert await engine.hub.drain(timeout=5)
    (reply,) = again
    (redelivered,) = reply.notifications
    assert redelivered.refs["event_id"] == event.id  # the same message: "Open" still works
    assert redelivered.refs["again"].startswith("later:")
    assert redelivered.sender == "Anna Berg"
    assert reply.text == first.text  # composed from the same facts
    (place,) = engine.open_notification(reply.message_id)
    assert place.url is not None and place.url.endswith("#all/t3")
    assert Job.get().status == "done" and await engine.jobs.run_due() == 0
    note_row = Notification.get(Notification.reply_message_id == reply.message_id)
    assert note_row.reason == "you asked to be reminded of it"
