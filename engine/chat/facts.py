"""The facts of a notification, read from the notification and the event it came from: who,
what, when, where. Composed replies are written from these, and a model's reply is checked
against them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.events import Event
from engine.store.inbox import stored_events
from engine.store.models import Notification
from engine.triage.classifier import is_video_call

SOURCE_NOUNS = {
    "email": ("email", "emails"),
    "whatsapp": ("WhatsApp message", "WhatsApp messages"),
    "calendar": ("calendar change", "calendar changes"),
    "cron": ("reminder", "reminders"),
}
ALWAYS_REASON = "matches the Always rule"
VIDEO_REFS = ("hangout_link", "conference_uri", "video_link")

# Words that make a message plainly time-sensitive, in the languages the sources see most.
URGENT = re.compile(
    r"\b(asap|urgent\w*|emergency|immediately|right away|dringend|sofort|notfall|"
    r"inmediatamente|enseguida|tout de suite|imm[ée]diatement|subito|emerg[eê]ncia)\b",
    re.IGNORECASE,
)
# "Call me (back)" in those languages: the next step is a phone call.
CALL_ME = re.compile(
    r"\b(call me|call back|ring me|give me a call|call you back|ruf mich|rufe? .{0,12}an\b|"
    r"zur[üu]ckrufen|anrufen|ll[áa]mame|ap?pelle[- ]moi|rappelle|chiamami|richiamami|"
    r"me liga|liga[- ]me)",
    re.IGNORECASE,
)
# A plain request for an answer: a question, or "please / let me know" and the like.
ASKS = re.compile(
    r"\?|\b(please|let me know|can you|could you|would you|bitte|por favor|s'il (te|vous) pla[iî]t|"
    r"per favore|pode[s]? )",
    re.IGNORECASE,
)


def fold(text: str | None) -> str:
    """Lower case without accents, for comparing words."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@dataclass(frozen=True)
class NoteFacts:
    """One notification as facts. ``who`` is the person or organiser (None for the user's own
    reminders); ``title`` the subject or calendar title; ``text`` the message's words."""

    id: int | None
    source: str
    event_type: str
    summary: str
    who: str | None
    address: str | None
    chat: str | None  # the group's name, for group messages
    mentions_me: bool
    title: str | None
    text: str
    received: datetime | None
    start: datetime | None
    end: datetime | None
    previous_start: datetime | None
    location: str | None
    video: bool
    always: bool
    event: Event | None
    why: str = ""  # why TIC notified it, and the user's rule that decided, in their words

    @property
    def is_calendar(self) -> bool:
        return self.source == "calendar" and self.event is not None

    @property
    def cancelled(self) -> bool:
        cal = self.event.calendar if self.event else None
        return self.event_type == "calendar.cancelled" or (
            cal is not None and cal.status == "cancelled"
        )

    @property
    def moved(self) -> bool:
        return (
            self.previous_start is not None
            and self.start is not None
            and self.previous_start != self.start
        )

    def moments(self) -> list[datetime]:
        """Every instant the facts hold (received, start, end, the old start, created...)."""
        found = [self.received, self.start, self.end, self.previous_start]
        cal = self.event.calendar if self.event else None
        if cal is not None:
            found += [cal.created, cal.updated]
        if self.event is not None:
            found.append(self.event.time)
        return [m for m in found if m is not None and m.tzinfo is not None]

    def texts(self) -> list[str]:
        """Every piece of text the facts hold, for looking words up."""
        out = [self.summary, self.why, self.who or "", self.address or "", self.chat or ""]
        out += [self.title or "", self.text, self.location or ""]
        if self.event is not None:  # the working copy: an original cut on ingest stays out
            out.append(self.event.model_dump_json(exclude={"original", "notes"}))
        return out


def facts_of(note: Notification, event: Event | None) -> NoteFacts:
    reason = note.reason or ""
    why = f"{reason}\n{note.rule or ''}"
    received = note.event_time
    if event is None:
        return NoteFacts(
            id=note.id,
            source=note.source,
            event_type=note.event_type,
            summary=note.summary,
            who=None,
            address=None,
            chat=None,
            mentions_me=False,
            title=None,
            text="",
            received=received,
            start=None,
            end=None,
            previous_start=None,
            location=None,
            video=False,
            always=reason.startswith(ALWAYS_REASON),
            event=None,
            why=why,
        )
    cal = event.calendar
    person = (cal.organizer if cal and cal.organizer else None) or event.sender
    who = (person.name or person.address) if person else None
    chat = event.chat
    if who is None and chat is not None and not chat.is_group:
        who = chat.name
    location = (cal.location or "").strip() if cal else ""
    video = is_video_call(event) or any(k in event.refs for k in VIDEO_REFS)
    return NoteFacts(
        id=note.id,
        source=event.source,
        event_type=event.event_type,
        summary=note.summary,
        who=who.strip() if who else None,
        address=person.address if person else None,
        chat=chat.name if chat is not None and chat.is_group and chat.name else None,
        mentions_me=event.mentions_me,
        title=(event.subject or "").strip() or None,
        text=" ".join(event.text.split()),
        received=event.time,
        start=cal.start if cal else None,
        end=cal.end if cal else None,
        previous_start=cal.previous_start if cal else None,
        location=location if location and not (video and "://" in location) else None,
        video=video,
        always=reason.startswith(ALWAYS_REASON),
        event=event,
        why=why,
    )


def events_of(batch: Sequence[Notification]) -> dict[str, Event]:
    """The stored events the notifications came from (scheduled jobs have none)."""
    return stored_events(n.event_id for n in batch if n.event_id is not None)


def batch_facts(batch: Sequence[Notification], events: Mapping[str, Event]) -> list[NoteFacts]:
    return [facts_of(n, events.get(n.event_id) if n.event_id is not None else None) for n in batch]
