"""The canonical event (``tests/triage/dev/README.md``) and JSON Lines reading.

Every source normalises what it reads into :class:`Event`. Unknown extra fields are ignored
and missing optional fields are empty. Every event is cut to a working size as it is built
(:mod:`engine.events.bounds`); what that changed is kept in ``original`` and ``notes``.
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from engine.clock import clamp_instant, local_zone_name, zone
from engine.errors import InputError
from engine.events import bounds
from engine.events.bounds import MAX_INPUT_DEPTH, cleaned, cut, nesting

Source = Literal["email", "whatsapp", "calendar", "cron"]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Person(_Lenient):
    name: str | None = None
    address: str | None = None

    def display(self) -> str:
        if self.name and self.address:
            return f"{self.name} <{self.address}>"
        return self.name or self.address or "unknown"


class Chat(_Lenient):
    id: str | None = None
    name: str | None = None
    is_group: bool = False


class CalendarInfo(_Lenient):
    start: datetime | None = None
    end: datetime | None = None
    created: datetime | None = None
    updated: datetime | None = None
    recurring: bool = False
    recurrence: list[str] = Field(default_factory=list)
    status: str | None = None
    organizer: Person | None = None
    attendees: list[dict[str, Any]] = Field(default_factory=list)
    location: str | None = None
    previous_start: datetime | None = None


class Event(_Lenient):
    id: str = Field(min_length=1)
    source: Source
    event_type: str = Field(min_length=1)
    time: datetime
    sender: Person | None = None
    subject: str | None = None
    text: str = ""
    chat: Chat | None = None
    mentions_me: bool = False
    labels: list[str] = Field(default_factory=list)
    headers: dict[str, str] = Field(default_factory=dict)
    calendar: CalendarInfo | None = None
    refs: dict[str, Any] = Field(default_factory=dict)
    original: dict[str, Any] = Field(default_factory=dict)
    """The full value of each field that bounding changed, by its path ("sender.name")."""
    notes: list[str] = Field(default_factory=list)
    """What bounding changed, one line each ("subject cut to 300 of 5000 characters")."""

    @field_validator("text", mode="before")
    @classmethod
    def _none_text(cls, v: Any) -> Any:
        return "" if v is None else v

    @field_validator("labels", mode="before")
    @classmethod
    def _none_list(cls, v: Any) -> Any:
        return [] if v is None else v

    @field_validator("headers", "refs", mode="before")
    @classmethod
    def _none_dict(cls, v: Any) -> Any:
        return {} if v is None else v

    @field_validator("time")
    @classmethod
    def _aware(cls, v: datetime) -> datetime:
        if v.tzinfo is None:
            raise ValueError("time needs a UTC offset, e.g. 2026-11-10T07:01:00+00:00")
        return v

    @model_validator(mode="after")
    def _bounded(self) -> Event:
        return bound_event(self)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=False)


class _Bounder:
    """Bounds one event in place, recording each change."""

    def __init__(self, event: Event):
        self.event = event
        self.original: dict[str, Any] = bounds.cleaned(event.original)
        self.notes: list[str] = [bounds.one_line(str(n), 300) for n in event.notes[: bounds.NOTES]]

    def changed(self, path: str, before: Any, after: Any, note: str) -> None:
        if before == after:
            return
        if path not in self.original:
            keep = before.isoformat() if isinstance(before, datetime) else before
            if bounds.nesting(keep) <= bounds.MAX_INPUT_DEPTH:
                self.original[path] = bounds.cleaned(keep)
        self.notes.append(note)

    def text(self, path: str, value: str | None, limit: int, *, single: bool = True) -> Any:
        if value is None:
            return None
        after = bounds.one_line(value, limit) if single else bounds.cut(bounds.clean(value), limit)
        if len(value) > limit:
            note = f"{path} cut to {limit} of {len(value)} characters"
        else:
            note = f"{path}: control or invalid characters replaced"
        self.changed(path, value, after, note)
        return after

    def json(self, path: str, value: Any, depth: int = bounds.DEPTH) -> Any:
        after = bounds.bounded_json(value, depth)
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
        person.name = self.text(f"{path}.name", person.name, bounds.NAME)
        person.address = self.text(f"{path}.address", person.address, bounds.ADDRESS)

    def run(self) -> None:
        e = self.event
        if len(e.id) > bounds.ID or bounds.has_surrogate(e.id):
            short = bounds.short_id(e.id)
            self.changed("id", e.id, short, f"id cut to {bounds.ID} characters")
            e.id = short
        e.event_type = self.text("event_type", e.event_type, bounds.EVENT_TYPE) or "unknown"
        e.time = self.instant("time", e.time, zone(local_zone_name())) or e.time
        self.person("sender", e.sender)
        e.subject = self.text("subject", e.subject, bounds.SUBJECT)
        e.text = self.text("text", e.text, bounds.TEXT, single=False)
        if e.chat is not None:
            e.chat.id = self.text("chat.id", e.chat.id, bounds.CHAT_ID)
            e.chat.name = self.text("chat.name", e.chat.name, bounds.NAME)
        labels = [bounds.one_line(str(label), bounds.LABEL) for label in e.labels[: bounds.LABELS]]
        self.changed("labels", e.labels, labels, "labels cut to size")
        e.labels = labels
        headers = {
            bounds.one_line(str(k), bounds.HEADER_NAME): bounds.cut(
                bounds.clean(str(v)), bounds.HEADER_VALUE
            )
            for k, v in list(e.headers.items())[: bounds.HEADERS]
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
        cal.location = self.text("calendar.location", cal.location, bounds.CALENDAR_TEXT)
        recurrence = [
            bounds.one_line(str(r), bounds.CALENDAR_TEXT)
            for r in cal.recurrence[: bounds.RECURRENCE]
        ]
        self.changed("calendar.recurrence", cal.recurrence, recurrence, "recurrence cut to size")
        cal.recurrence = recurrence
        self.person("calendar.organizer", cal.organizer)
        attendees = [
            bounds.bounded_json(a, bounds.DEPTH) if isinstance(a, dict) else {}
            for a in cal.attendees[: bounds.ATTENDEES]
        ]
        self.changed("calendar.attendees", cal.attendees, attendees, "attendees cut to size")
        cal.attendees = attendees


def bound_event(event: Event) -> Event:
    """Bound ``event`` in place (see :mod:`engine.events.bounds`) and return it."""
    _Bounder(event).run()
    return event


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "event"
    return cut(f"{where}: {err.get('msg', 'invalid')}", 200)


def parse_event(obj: Any) -> Event:
    """Validate one decoded JSON object as an event; raises ValueError with a short reason."""
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    if nesting(obj) > MAX_INPUT_DEPTH:
        raise ValueError(f"nested more than {MAX_INPUT_DEPTH} levels deep")
    try:
        return Event.model_validate(cleaned(obj))
    except ValidationError as exc:
        raise ValueError(_first_error(exc)) from None


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """Decode every non-blank line of a JSON Lines file: ``[(line_number, object), ...]``.

    Raises InputError naming the file and line of the first undecodable line.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        lineno = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{lineno}: not valid UTF-8") from None
    out: list[tuple[int, Any]] = []
    # Split on \n only: str.splitlines() also splits on U+2028/U+2029/U+0085, which JSON
    # allows raw inside strings (and which editors do not count as line breaks).
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        except ValueError as exc:  # e.g. a number of more than 4300 digits
            raise InputError(f"{path}:{number}: invalid JSON ({cut(str(exc), 120)})") from None
        except RecursionError:
            raise InputError(
                f"{path}:{number}: invalid JSON (nested more than {MAX_INPUT_DEPTH} levels deep)"
            ) from None
    return out


def read_events(path: Path) -> list[Event]:
    """Read a whole events file; any invalid line fails the whole file (nothing half-read)."""
    events = []
    for number, obj in read_jsonl(path):
        try:
            events.append(parse_event(obj))
        except ValueError as exc:
            raise InputError(f"{path}:{number}: invalid event ({exc})") from None
    return events
