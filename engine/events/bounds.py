"""Cutting what an outside sender controls to a working size, on ingest.

Anyone who can send the user an email or a WhatsApp message chooses the sender's display
name, the subject, the text, a group's name, labels and headers; a calendar invitation adds
its times. Nothing downstream (the rules, the summary, ``notify``'s schema, the store, the
prompt) may fail because of their size or shape, so every event is bounded here, once, as
it is read: long strings are cut, long lists shortened, deep structures flattened, invalid
characters (a lone UTF-16 surrogate) replaced, a time with no UTC offset read in the user's
zone and an instant beyond what can be shifted between zones brought back within range.

The working copy is what everything reads; what it changed is kept in the event itself
(``Event.original``: each changed field's full original value, ``Event.notes``: one line
each) for "why?". Bounding an event twice changes nothing more.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from engine.clock import clamp_instant, local_zone_name, zone

if TYPE_CHECKING:
    from engine.events import Event, Person

ID = 200
EVENT_TYPE = 60
NAME = 80
ADDRESS = 254  # the longest address SMTP carries
SUBJECT = 300
TEXT = 20_000
CHAT_ID = 200
LABELS = 50
LABEL = 100
HEADERS = 50
HEADER_NAME = 100
HEADER_VALUE = 2_000
REFS = 30
REF_STRING = 500
REF_ITEMS = 20
DEPTH = 4
"""How deep refs and attendees may nest in the working copy; deeper becomes a string."""
CALENDAR_TEXT = 300
RECURRENCE = 20
ATTENDEES = 100
NOTES = 50

MAX_INPUT_DEPTH = 64
"""A line nested deeper than this is no event (refused with a one-line error, see
``engine.events.parse_event``); within it, deep parts are cut as above."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def clean(text: str) -> str:
    """``text`` that can be stored and shown: a lone surrogate becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def one_line(text: str, limit: int) -> str:
    """A single-line field (a name, a subject): control characters and line breaks become
    one space, then cut."""
    return cut(_CONTROL.sub(" ", clean(text)).strip(), limit)


def nesting(value: Any) -> int:
    """How deep lists and objects nest in a decoded JSON value (iteratively: a value nested
    deeper than Python's recursion limit is measured too)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            depth += 1
            stack.extend((v, depth) for v in item.values())
        elif isinstance(item, list | tuple):
            depth += 1
            stack.extend((v, depth) for v in item)
        deepest = max(deepest, depth)
    return deepest


def _short_id(value: str) -> str:
    """An id too long to keep: its start and a digest, so distinct ids stay distinct."""
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{clean(value)[: ID - 17]}#{digest}"


def bounded_json(value: Any, depth: int = DEPTH) -> Any:
    """A JSON-like value with strings, lists and objects cut, nesting at most ``depth``."""
    if isinstance(value, str):
        return cut(clean(value), REF_STRING)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if depth <= 0:
        return "\u2026"
    if isinstance(value, dict):
        items = list(value.items())[:REFS]
        return {cut(clean(str(k)), LABEL): bounded_json(v, depth - 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [bounded_json(v, depth - 1) for v in list(value)[:REF_ITEMS]]
    return cut(clean(str(value)), REF_STRING)


class _Bounder:
    """Bounds one event in place, recording each change."""

    def __init__(self, event: Event):
        self.event = event
        self.original: dict[str, Any] = _cleaned(event.original)
        self.notes: list[str] = [one_line(str(n), 300) for n in event.notes[:NOTES]]

    def changed(self, path: str, before: Any, after: Any, note: str) -> None:
        if before == after:
            return
        if path not in self.original:
            keep = before.isoformat() if isinstance(before, datetime) else before
            if nesting(keep) <= MAX_INPUT_DEPTH:
                self.original[path] = _cleaned(keep)
        self.notes.append(note)

    def text(self, path: str, value: str | None, limit: int, *, single: bool = True) -> Any:
        if value is None:
            return None
        after = one_line(value, limit) if single else cut(clean(value), limit)
        if len(value) > limit:
            note = f"{path} cut to {limit} of {len(value)} characters"
        else:
            note = f"{path}: control or invalid characters replaced"
        self.changed(path, value, after, note)
        return after

    def json(self, path: str, value: Any, depth: int = DEPTH) -> Any:
        after = bounded_json(value, depth)
        self.changed(path, value, after, f"{path} cut to size (long, numerous or nested)")
        return after

    def instant(self, path: str, value: datetime | None, tz: tzinfo) -> datetime | None:
        if value is None:
            return None
        after = value
        if after.tzinfo is None:
            after = after.replace(tzinfo=tz)
            self.changed(path, value, after, f"{path} had no UTC offset; read in {tz} time")
        clamped = clamp_instant(after)
        if clamped is not after:
            note = f"{path} out of range; set to {clamped.date().isoformat()}"
            self.changed(path, value, clamped, note)
        return clamped

    def person(self, path: str, person: Person | None) -> None:
        if person is None:
            return
        person.name = self.text(f"{path}.name", person.name, NAME)
        person.address = self.text(f"{path}.address", person.address, ADDRESS)

    def run(self) -> None:
        e = self.event
        if len(e.id) > ID or _SURROGATE.search(e.id):
            short = _short_id(e.id)
            self.changed("id", e.id, short, f"id cut to {ID} characters")
            e.id = short
        e.event_type = self.text("event_type", e.event_type, EVENT_TYPE) or "unknown"
        e.time = self.instant("time", e.time, zone(local_zone_name())) or e.time
        self.person("sender", e.sender)
        e.subject = self.text("subject", e.subject, SUBJECT)
        e.text = self.text("text", e.text, TEXT, single=False)
        if e.chat is not None:
            e.chat.id = self.text("chat.id", e.chat.id, CHAT_ID)
            e.chat.name = self.text("chat.name", e.chat.name, NAME)
        labels = [one_line(str(label), LABEL) for label in e.labels[:LABELS]]
        self.changed("labels", e.labels, labels, "labels cut to size")
        e.labels = labels
        headers = {
            one_line(str(k), HEADER_NAME): cut(clean(str(v)), HEADER_VALUE)
            for k, v in list(e.headers.items())[:HEADERS]
        }
        self.changed("headers", e.headers, headers, "headers cut to size")
        e.headers = headers
        e.refs = self.json("refs", e.refs)
        self.calendar()
        e.original, e.notes = self.original, self.notes

    def calendar(self) -> None:
        cal = self.event.calendar
        if cal is None:
            return
        tz: tzinfo | None = None
        for name in ("start", "end", "created", "updated", "previous_start"):
            value = getattr(cal, name)
            if value is not None and value.tzinfo is None and tz is None:
                tz = zone(local_zone_name())
            setattr(cal, name, self.instant(f"calendar.{name}", value, tz or zone(None)))
        cal.status = self.text("calendar.status", cal.status, 40)
        cal.location = self.text("calendar.location", cal.location, CALENDAR_TEXT)
        recurrence = [one_line(str(r), CALENDAR_TEXT) for r in cal.recurrence[:RECURRENCE]]
        self.changed("calendar.recurrence", cal.recurrence, recurrence, "recurrence cut to size")
        cal.recurrence = recurrence
        self.person("calendar.organizer", cal.organizer)
        attendees = [
            bounded_json(a, DEPTH) if isinstance(a, dict) else {} for a in cal.attendees[:ATTENDEES]
        ]
        self.changed("calendar.attendees", cal.attendees, attendees, "attendees cut to size")
        cal.attendees = attendees


def _cleaned(value: Any) -> Any:
    """A decoded JSON value as it can be stored: every string's lone surrogates replaced
    (the caller bounds its nesting)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(v) for v in value]
    return value


def cleaned(value: Any) -> Any:
    """``value`` (decoded JSON, nested at most MAX_INPUT_DEPTH deep) with every lone
    surrogate in its strings and keys replaced: what an event is validated from."""
    return _cleaned(value)


def bound_event(event: Event) -> Event:
    """Bound ``event`` in place (see the module's docstring) and return it."""
    _Bounder(event).run()
    return event
