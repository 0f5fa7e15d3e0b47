"""The conditions a rule clause compiles to, and how they are tested against an event."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from engine.clock import add_clamped, in_window
from engine.events import Event
from engine.triage.classifier import (
    address_parts,
    categories,
    fold,
    is_in_person,
    is_video_call,
    words,
)
from engine.triage.rules.vocab import STOP


@dataclass(frozen=True)
class Window:
    """A time-of-day window (may wrap midnight) on some days of the week (0 = Monday)."""

    start: time = time(0, 0)
    end: time = time(0, 0)
    days: frozenset[int] = frozenset(range(7))

    def contains(self, moment: datetime) -> bool:
        t = moment.time().replace(second=0, microsecond=0)
        day = moment.weekday()
        if self.start == self.end:
            return day in self.days
        if not in_window(t, self.start, self.end):
            return False
        # the hours after midnight of a wrapping window belong to the day it started
        after_midnight = self.start > self.end and t < self.end
        return ((day - 1) % 7 if after_midnight else day) in self.days


@dataclass(frozen=True)
class Match:
    """A conjunction of conditions; ``who`` entries are alternatives (any may match)."""

    sources: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()  # people, organisations, chats (token match)
    domains: tuple[str, ...] = ()
    addresses: tuple[str, ...] = ()
    categories: frozenset[str] = frozenset()
    chats: tuple[str, ...] = ()  # a named WhatsApp chat or group
    group: bool | None = None
    mentions_me: bool | None = None
    subject_phrases: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    topic_min: int = 2
    event_types: frozenset[str] = frozenset()
    added_today: bool = False
    starts_within: timedelta | None = None
    calendar_change: bool = False  # cancelled or moved
    recurring: bool | None = None
    in_person: bool | None = None
    video: bool | None = None
    within: Window | None = None  # the tick's time is inside this window
    anything: bool = False

    @property
    def empty(self) -> bool:
        return self == Match()

    @property
    def says_something(self) -> bool:
        return self.anything or not self.empty

    def has_who(self) -> bool:
        return bool(self.names or self.domains or self.addresses or self.categories or self.chats)

    def matches(self, e: Event, now: datetime) -> bool:
        if self.sources and e.source not in self.sources:
            return False
        if self.event_types and e.event_type not in self.event_types:
            return False
        if self.has_who() and not self._who(e):
            return False
        if self.group is not None and (
            e.source != "whatsapp" or e.chat is None or e.chat.is_group != self.group
        ):
            return False
        if self.mentions_me is not None and e.mentions_me != self.mentions_me:
            return False
        subject = fold(e.subject)
        if any(fold(p) not in subject for p in self.subject_phrases):
            return False
        if self.topics and not _topic_hit(self.topics, self.topic_min, e):
            return False
        if self.within is not None and not self.within.contains(now.astimezone(e.time.tzinfo)):
            return False
        return self._calendar(e, now)

    def _who(self, e: Event) -> bool:
        sender_name = e.sender.name if e.sender else None
        address = fold(e.sender.address if e.sender else "")
        _, domain = address_parts(address)
        chat_name = e.chat.name if e.chat else None
        for name in self.names:
            if _name_hit(name, sender_name) or _name_hit(name, chat_name) or _org_hit(name, domain):
                return True
        if any(chat_name and fold(chat) == fold(chat_name) for chat in self.chats):
            return True
        chat_id = fold(e.chat.id if e.chat else "")  # a chat's id stands for its address
        if any(fold(a) in (address, chat_id) for a in self.addresses):
            return True
        domain_text = ".".join(domain)
        if any(domain_text == d or domain_text.endswith("." + d) for d in self.domains):
            return True
        return bool(self.categories & categories(e))

    def _calendar(self, e: Event, now: datetime) -> bool:
        needs = (
            self.added_today
            or self.starts_within is not None
            or self.calendar_change
            or self.recurring is not None
            or self.in_person is not None
            or self.video is not None
        )
        if not needs:
            return True
        cal = e.calendar
        if cal is None:
            return False
        local_now = now.astimezone(e.time.tzinfo)
        if self.added_today and (
            cal.created is None
            or cal.created.astimezone(local_now.tzinfo).date() != local_now.date()
        ):
            return False
        if self.starts_within is not None and (
            cal.start is None or not (now <= cal.start <= add_clamped(now, self.starts_within))
        ):
            return False
        if self.calendar_change and not (
            e.event_type == "calendar.cancelled"
            or (cal.status or "") == "cancelled"
            or (cal.previous_start is not None and cal.previous_start != cal.start)
        ):
            return False
        if self.recurring is not None and cal.recurring != self.recurring:
            return False
        if self.in_person is not None and is_in_person(e) != self.in_person:
            return False
        return self.video is None or is_video_call(e) == self.video


def _name_hit(rule_name: str, value: str | None) -> bool:
    want = set(words(rule_name)) - STOP
    have = set(words(value))
    return bool(want) and want <= have


def _org_hit(rule_name: str, domain: tuple[str, ...]) -> bool:
    """ "Herrera & Lutz" ~ herrera-lutz.es; "Acme" ~ acme.com; "Sentry" ~ getsentry.com."""
    want = [w for w in words(rule_name) if w not in STOP]
    if not want or not domain:
        return False
    labels = domain[:-1] if len(domain) > 1 else domain
    if all(any(w == label for label in labels) for w in want):
        return True
    joined = "".join(want)
    return len(joined) >= 5 and any(joined in label for label in labels)


def _stem(word: str) -> str:
    for suffix in ("ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _topic_hit(topics: tuple[str, ...], minimum: int, e: Event) -> bool:
    have = {_stem(w) for w in words(f"{e.subject or ''} {e.text}")}
    want = {_stem(t) for t in topics}
    hits = sum(1 for w in want if w in have)
    return hits >= min(minimum, len(want))
