"""Rules about one WhatsApp chat or one calendar event, by its id: what "Don't notify me
about this" writes.

    - WhatsApp messages in the group “Book club” (id 120363041234567890@g.us)
    - WhatsApp messages in the chat with “Marco” (id 34600111222@s.whatsapp.net)
    - Calendar events of the series “Standup” organised by ana@quillon.example (id 7kq2ab9)
    - The calendar event “Dentist” organised by desk@clinic.example (id 4hd81mq)
    - Reminders of the calendar series “Gym” (id 9sj3kd0)

The quoted name (and the organiser) is for the reader; such a line matches the chat's id and
its kind (group or direct chat), or the event's own id or its series' id, alone: a group
renamed "Marco" is not Marco's direct chat, an invitation titled like a muted event is not
that event, and no display name or title can stand in for the id."""

from __future__ import annotations

import re

from engine.triage.rules.match import CALENDAR_KEY, Match

MAX_ID = 200

_LINE = re.compile(
    r"WhatsApp messages in the (group|chat with) \u201c([^\u201d]*)\u201d \(id ([^\s()]{1,200})\)",
    re.IGNORECASE,
)


_CALENDAR_LINE = re.compile(
    r"(?:(Reminders) of the calendar (?:series|event)|Calendar events of the series|"
    r"The calendar event) \u201c([^\u201d]*)\u201d"
    r"(?: organised by [^\s()]{1,200})? \(id ([^\s()]{1,200})\)",
    re.IGNORECASE,
)


def _name(text: str) -> str:
    cleaned = " ".join(text.replace("\u201c", " ").replace("\u201d", " ").split())
    return cleaned[:60]


def chat_rule(chat_id: str, name: str, *, group: bool) -> str | None:
    """The rule line for one chat; None when its id cannot be written in one."""
    if not chat_id or len(chat_id) > MAX_ID or re.search(r"[\s()]", chat_id):
        return None
    kind = "group" if group else "chat with"
    return f"WhatsApp messages in the {kind} \u201c{_name(name)}\u201d (id {chat_id})"


def calendar_rule(
    event_id: str,
    title: str,
    *,
    series: bool,
    organiser: str | None = None,
    reminders: bool = False,
) -> str | None:
    """The rule line for one calendar event or series (only its reminders, with
    ``reminders``); None when its id cannot be written in one."""
    if not event_id or len(event_id) > MAX_ID or re.search(r"[\s()]", event_id):
        return None
    if reminders:
        what = "Reminders of the calendar " + ("series" if series else "event")
    else:
        what = "Calendar events of the series" if series else "The calendar event"
    by = ""
    if organiser and len(organiser) <= MAX_ID and not re.search(r"[\s()]", organiser):
        by = f" organised by {organiser}"
    return f"{what} \u201c{_name(title) or 'untitled'}\u201d{by} (id {event_id})"


def chat_scope(text: str) -> Match | None:
    """What an identity line matches, or None when ``text`` is not one."""
    m = _LINE.fullmatch(text.strip())
    if m is not None:
        group = m.group(1).lower() == "group"
        return Match(sources=frozenset({"whatsapp"}), addresses=(m.group(3),), group=group)
    m = _CALENDAR_LINE.fullmatch(text.strip())
    if m is not None:
        return Match(
            sources=frozenset({"calendar"}),
            addresses=(CALENDAR_KEY + m.group(3),),
            event_types=frozenset({"calendar.reminder"}) if m.group(1) else frozenset(),
        )
    return None
