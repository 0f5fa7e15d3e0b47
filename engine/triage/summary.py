"""The neutral summary of an event TIC notifies about, and the compact form of an event the
model reads: both written by code from the event's fields, never by the model."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from engine.events import Event

TEXT_LIMIT = 400


def _short(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_event(event: Event) -> dict[str, Any]:
    """The event as TIC reads it: compact, empty fields left out, long text cut."""
    out: dict[str, Any] = {
        "source": event.source,
        "type": event.event_type,
        "time": event.time.isoformat(),
    }
    if event.sender:
        out["from"] = event.sender.display()
    if event.chat:
        out["chat"] = {"name": event.chat.name, "group": event.chat.is_group}
        out["mentions_me"] = event.mentions_me
    if event.subject:
        out["subject"] = _short(event.subject, 200)
    if event.text:
        out["text"] = _short(event.text)
    if event.labels:
        out["labels"] = event.labels
    if event.headers:
        out["headers"] = event.headers
    cal = event.calendar
    if cal:
        c = cal.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
        c.pop("attendees", None)
        out["calendar"] = c
    return out


def _when(moment: datetime | None, tz: tzinfo | None) -> str:
    if moment is None:
        return ""
    local = moment.astimezone(tz)
    return local.strftime("%a %d %b %H:%M").replace(" 0", " ")


def summarize(event: Event) -> str:
    """A neutral, third-person statement of who and what, built from the event's fields."""
    who = _short((event.sender.name or event.sender.address) if event.sender else None, 80)
    if event.source == "email":
        about = f" about \u201c{_short(event.subject, 120)}\u201d" if event.subject else ""
        return f"{who or 'Someone'} sent an email{about}."
    if event.source == "whatsapp":
        where = (
            f" in the group \u201c{_short(event.chat.name, 80)}\u201d"
            if event.chat and event.chat.is_group and event.chat.name
            else ""
        )
        said = f": \u201c{_short(event.text, 140)}\u201d." if event.text else "."
        return f"{who or 'Someone'} wrote on WhatsApp{where}{said}"
    if event.source == "cron":
        return _short(event.text or event.subject, 200) or "A scheduled reminder is due."
    title = f"\u201c{_short(event.subject, 120)}\u201d" if event.subject else "A calendar event"
    cal = event.calendar
    tz = event.time.tzinfo
    start = _when(cal.start if cal else None, tz)
    by = f" by {who}" if who else ""
    if event.event_type == "calendar.cancelled":
        return f"{title}{f' on {start}' if start else ''} was cancelled{by}."
    if event.event_type == "calendar.reminder":
        return f"{title} starts{f' at {start}' if start else ' soon'}."
    if cal is not None and cal.previous_start and cal.previous_start != cal.start:
        return f"{title} was moved{by} from {_when(cal.previous_start, tz)} to {start}."
    if event.event_type == "calendar.created":
        return f"{title} was added to the calendar{by}{f' for {start}' if start else ''}."
    return f"{title}{f' on {start}' if start else ''} was changed{by}."
