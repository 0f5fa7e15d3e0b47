"""Where a notified message lives, for "Open": the Gmail thread in the browser, the calendar
event's page, the WhatsApp chat with a person, an IMAP message by its Message-ID in the
user's mail client. What has no place of its own (a group chat, a reminder) or may not open
(no mail client takes ``mid:``) is shown in TIC: the message as TIC stored it, or the chat.

Every URL is built here from what the source stored, and what a sender controls never
becomes a URL as it is: ids are quoted into a fixed address, a calendar link is kept only
when it is Google Calendar's own, a phone number is kept as digits."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote, urlsplit

from engine.chat.wording import SOURCE_LABELS
from engine.clock import local_zone_name, zone
from engine.errors import TicError
from engine.events import Event
from engine.store import chat
from engine.store.inbox import stored_events
from engine.store.models import Notification

GMAIL_THREAD = "https://mail.google.com/mail/u/{account}/#all/{thread}"
WHATSAPP_CHAT = "https://wa.me/{number}"
CALENDAR_HOSTS = ("calendar.google.com", "www.google.com")
PERSON_JID = re.compile(r"^(\d{6,15})@s\.whatsapp\.net$")
_NOT_DIGITS = re.compile(r"[\s().\-/]")
MESSAGE_TEXT_LIMIT = 4000


@dataclass(frozen=True)
class Place:
    """Where one notification's message is. ``url`` is handed to the desktop's opener when
    it can open it; otherwise (or with no ``url``) the front end shows ``text``, the message
    as TIC stored it, or, with no ``text`` either, the chat at ``message_id``."""

    notification_id: int
    message_id: int | None  # the chat reply that told the user
    label: str  # what "Open" does, e.g. "Open the Gmail thread"
    title: str  # which message, e.g. "Email from Anna Berg"
    url: str | None = None
    text: str | None = None


def gmail_thread_url(account: str | None, thread_id: str) -> str:
    """The thread in Gmail's web app, signed in as ``account`` (the first account if None)."""
    return GMAIL_THREAD.format(account=quote(account or "0", safe="@"), thread=quote(thread_id))


def message_id_url(message_id: str) -> str:
    """A ``mid:`` URL (RFC 2392) for a Message-ID (angle brackets left out)."""
    return "mid:" + quote(message_id.strip().strip("<>"), safe="@!$&'()*+,;=:._~-")


def calendar_url(link: object) -> str | None:
    """The event's page, when the link is Google Calendar's own over https."""
    if not isinstance(link, str):
        return None
    parts = urlsplit(link)
    return link if parts.scheme == "https" and parts.hostname in CALENDAR_HOSTS else None


def phone_digits(text: str | None) -> str | None:
    """The digits of a phone number as WhatsApp links take it ("+39 333 123 4567" →
    "393331234567"), or None when ``text`` is no phone number."""
    if not text:
        return None
    number = _NOT_DIGITS.sub("", text.strip())
    number = number[1:] if number.startswith("+") else number
    return number if number.isdigit() and 6 <= len(number) <= 15 else None


def whatsapp_number(event: Event | None, refs: dict[str, object]) -> str | None:
    """The person's number for a one-to-one chat; None for a group or an unknown number."""
    if event is not None and event.chat is not None and event.chat.is_group:
        return None
    jid = refs.get("chat_jid")
    if isinstance(jid, str):
        found = PERSON_JID.match(jid)
        return found.group(1) if found else None
    return phone_digits(event.sender.address) if event and event.sender else None


def message_text(event: Event | None, notification: Notification) -> str:
    """The message as TIC stored it, for TIC's own view of it (plain text)."""
    if event is None:
        return notification.summary
    lines = []
    if event.sender is not None:
        lines.append(f"From: {event.sender.display()}")
    if event.chat is not None and event.chat.is_group and event.chat.name:
        lines.append(f"Chat: {event.chat.name}")
    if event.subject:
        lines.append(f"Subject: {event.subject}")
    lines.append(f"Date: {event.time.astimezone(zone(local_zone_name())):%a %d %b %Y, %H:%M}")
    body = event.text.strip() or notification.summary
    text = "\n".join(lines) + "\n\n" + body
    return text if len(text) <= MESSAGE_TEXT_LIMIT else text[: MESSAGE_TEXT_LIMIT - 1] + "…"


def title_of(notification: Notification, event: Event | None) -> str:
    """Which message it is, in a few words: "Email from Anna Berg", "Calendar: Design
    review", "Reminder: Call Mario"."""
    label = SOURCE_LABELS.get(notification.source, notification.source.capitalize())
    if notification.source == "cron":
        text = notification.summary.strip().removeprefix("Reminder:").strip()
        return f"{label}: {text}" if text else label
    if event is not None and notification.source == "calendar" and event.subject:
        return f"{label}: {event.subject}"
    sender = event.sender.name or event.sender.address if event and event.sender else None
    if event is not None and event.chat is not None and event.chat.is_group and event.chat.name:
        sender = f"{sender} in {event.chat.name}" if sender else event.chat.name
    return f"{label} from {sender}" if sender else label


def place_of(notification: Notification, event: Event | None) -> Place:
    """Where ``notification``'s message is (``event``: the stored event it came from)."""
    title = title_of(notification, event)
    refs = dict(notification.refs or {})
    text = message_text(event, notification)

    def place(label: str, url: str | None = None, shown: str | None = text) -> Place:
        return Place(
            notification.id, notification.reply_message_id, label, title, url=url, text=shown
        )

    source = notification.source
    if source == "email":
        thread, mid = _str(refs.get("thread_id")), _str(refs.get("message_id"))
        if "folder" in refs and mid and mid.strip("<> "):  # IMAP: the RFC 5322 Message-ID
            return place("Open in your mail app", message_id_url(mid))
        if "folder" not in refs and thread:  # Gmail
            return place(
                "Open the Gmail thread", gmail_thread_url(_str(refs.get("account")), thread)
            )
        return place("Show the email")
    if source == "calendar":
        url = calendar_url(refs.get("html_link"))
        return place("Open in Google Calendar" if url else "Show the event", url)
    if source == "whatsapp":
        number = whatsapp_number(event, refs)
        if number is not None:
            return place("Open the WhatsApp chat", WHATSAPP_CHAT.format(number=number))
        return place("Show the message")
    return place("Show in the chat", shown=None)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def notifications_of(message_id: int) -> list[Notification]:
    """The notifications a reply delivered; TicError when it is no notification's reply."""
    notes = chat.notifications_of_reply(message_id)
    if not notes:
        raise TicError(f"message {message_id} is not a notification")
    return notes


def open_reply(message_id: int, now: datetime) -> list[Place]:
    """ "Open" on a notification's reply: where each of its messages is, the reply marked
    read."""
    notes = notifications_of(message_id)
    events = stored_events(n.event_id for n in notes if n.event_id is not None)
    places = [place_of(n, events.get(n.event_id or "")) for n in notes]
    chat.mark_read(message_id, now)
    return places


def titles_of(notes: list[Notification]) -> list[str]:
    events = stored_events(n.event_id for n in notes if n.event_id is not None)
    return [title_of(n, events.get(n.event_id or "")) for n in notes]
