"""The conditions a rule clause compiles to, and how they are tested against an event and its
kinds (``engine.triage.classifier``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from functools import cache

from engine.clock import add_clamped, in_window
from engine.events import Event
from engine.triage.classifier import (
    Classification,
    address_parts,
    fold,
    is_in_person,
    is_video_call,
    words,
)
from engine.triage.classifier.amounts import amounts_in
from engine.triage.classifier.text import domain_of, language
from engine.triage.rules.vocab import FAMILY_NAMES, STOP


def _same_chat(said: str, name: str) -> bool:
    """A chat as a line names it and as WhatsApp names it: the same words, whatever emoji or
    punctuation decorate it ("Cobalt BLR Fun" is "Cobalt BLR Fun 🎉"); a name of two words or
    more may leave out the year or number the chat's name adds after it ("Class of 98"
    is "Class of 98 2024 🎉"), not a word ("Book Club Organisers" is another group)."""
    if fold(said) == fold(name):
        return True
    want, have = words(said), words(name)
    if not want:
        return False
    extra = have[len(want) :]
    return want == have or (
        len(want) >= 2 and have[: len(want)] == want and all(w.isdigit() for w in extra)
    )


def digits(text: str) -> str:
    return re.sub(r"\D", "", text)


CALENDAR_KEY = "calendar:"
"""How a calendar event's id stands among a rule's addresses: ``calendar:<id>``."""


def calendar_keys(e: Event) -> set[str]:
    """A calendar event's identities as rule addresses: its own id and its series' id."""
    ids = (e.refs.get("event_id"), e.refs.get("recurring_event_id"))
    return {CALENDAR_KEY + i for i in ids if isinstance(i, str) and i}


def _address_hit(wanted: str, address: str, chat_id: str) -> bool:
    """An e-mail address is the sender's or the chat's id; a phone number ("+49171…") is
    the sender's number however it is written, or the number of a direct chat's id."""
    if not wanted.startswith("+"):
        return fold(wanted) in (address, chat_id)
    number = wanted[1:]
    if "@" not in address and digits(address) == number:
        return True
    return chat_id.endswith("@s.whatsapp.net") and digits(chat_id.split("@")[0]) == number


MonthDay = tuple[int, int]
"""A date of every year: (month, day)."""


@dataclass(frozen=True)
class Window:
    """A time-of-day window (may wrap midnight) on some days of the week (0 = Monday), and
    on some dates of the year when ``dates`` says which ("el 8 de diciembre")."""

    start: time = time(0, 0)
    end: time = time(0, 0)
    days: frozenset[int] = frozenset(range(7))
    dates: frozenset[MonthDay] | None = None
    or_days: frozenset[int] = frozenset()
    """Days on which the line holds all day besides its hours ("after 8pm and at the
    weekend": the hours, or any time on Saturday and Sunday)."""

    def contains(self, moment: datetime) -> bool:
        if moment.weekday() in self.or_days:
            return True
        t = moment.time().replace(second=0, microsecond=0)
        if self.start == self.end:
            return self._on(moment)
        if not in_window(t, self.start, self.end):
            return False
        # the hours after midnight of a wrapping window belong to the day it started
        after_midnight = self.start > self.end and t < self.end
        return self._on(moment - timedelta(days=1) if after_midnight else moment)

    def _on(self, moment: datetime) -> bool:
        """On its days; with dates too, on its dates, or on its days when the line names
        both ("el fin de semana, ni el 8 de diciembre": either)."""
        on_day = moment.weekday() in self.days
        if self.dates is None:
            return on_day
        on_date = (moment.month, moment.day) in self.dates
        return on_date or (on_day and self.days != frozenset(range(7)))


@dataclass(frozen=True)
class Match:
    """A conjunction of conditions. *Who* (names, domains, addresses, chats, roles and
    ``sender_kinds``) are alternatives: any may match. ``kinds`` (what the event is) are
    alternatives too. ``examples`` are names given as examples of the kinds: shown, not
    matched."""

    sources: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()  # people, organisations, chats (token match)
    domains: tuple[str, ...] = ()
    addresses: tuple[str, ...] = ()
    kinds: frozenset[str] = frozenset()  # what the event is (any of)
    sender_kinds: frozenset[str] = frozenset()  # who sent it, as a kind (any of, like names)
    roles: tuple[str, ...] = ()  # "mother": a contact saved as Mum, Mamá, Mamma...
    examples: tuple[str, ...] = ()
    chats: tuple[str, ...] = ()  # a named WhatsApp chat or group
    group: bool | None = None
    mentions_me: bool | None = None
    addressed: bool | None = None  # a direct message, or a mention in a group
    direct: bool | None = None  # a person wrote it themselves (no service, no list)
    automated: bool | None = None  # sent by a system ("automated notices from ZAP")
    asks: bool | None = None  # asks the user something (or is time-sensitive: ``urgent``)
    urgent: bool | None = None
    subject_phrases: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    topic_min: int = 2
    topic_language: str | None = None  # topics are checked only in the language they are in
    event_types: frozenset[str] = frozenset()
    added_today: bool = False
    starts_within: timedelta | None = None
    starts_after: timedelta | None = None  # "more than a week away"
    calendar_change: bool = False  # cancelled or moved
    recurring: bool | None = None
    in_person: bool | None = None
    video: bool | None = None
    min_people: int | None = None
    min_amount: int | None = None  # names an amount of money over this ("over 300 €")
    max_amount: int | None = None  # names one, and none over this ("under 50 €")
    max_people: int | None = None
    within: Window | None = None  # the tick's time is inside this window
    anything: bool = False
    any_of: tuple[Match, ...] = ()  # alternatives: "flight changes and messages from Nina"
    described: tuple[str, ...] = ()
    """Words that say what a named sender is ("the dry cleaner «Nácar»", "Kita
    „Sonnenkäfer""): accounted for, not matched (the name is)."""
    unread: tuple[str, ...] = ()
    """Words of the clause the reader did not account for (as written, folded): a reading
    that leaves any is not claimed (``compile``), it is flagged with them."""

    @property
    def empty(self) -> bool:
        return self.read_part == Match()

    @property
    def says_something(self) -> bool:
        return self.anything or not (self.empty or self.only_examples)

    @property
    def only_examples(self) -> bool:
        return Match(examples=self.examples) == self.read_part

    @property
    def read_part(self) -> Match:
        """The conditions alone, without what was left unread."""
        return replace(self, unread=(), described=()) if self.unread or self.described else self

    def all_unread(self) -> tuple[str, ...]:
        """What this clause and its alternatives left unread, each word once."""
        found = list(self.unread)
        for m in self.any_of:
            found += m.all_unread()
        return tuple(dict.fromkeys(found))

    def has_who(self) -> bool:
        return bool(
            self.names
            or self.domains
            or self.addresses
            or self.sender_kinds
            or self.chats
            or self.roles
        )

    def has_identity(self) -> bool:
        """Names someone in particular (not only a kind of sender)."""
        own = bool(self.names or self.domains or self.addresses or self.chats or self.roles)
        return own or any(m.has_identity() for m in self.any_of)

    def named_kinds(self) -> frozenset[str]:
        """Every kind the conditions name, what and who, alternatives included."""
        found = self.kinds | self.sender_kinds
        for m in self.any_of:
            found |= m.named_kinds()
        return found

    def hit_kinds(self, e: Event, now: datetime, kinds: Classification) -> frozenset[str]:
        """The kinds through which the event matches (of the alternatives that match)."""
        own = (self.kinds | self.sender_kinds) & kinds.names
        for m in self.any_of:
            if m.matches(e, now, kinds):
                own |= m.hit_kinds(e, now, kinds)
        return own

    def identity_hit(self, e: Event, now: datetime, kinds: Classification) -> bool:
        """It matches because it names the sender or chat, not only a kind."""
        bare = Match(
            names=self.names,
            domains=self.domains,
            addresses=self.addresses,
            chats=self.chats,
            roles=self.roles,
        )
        if bare.has_who() and bare._who(e, kinds):
            return True
        return any(m.matches(e, now, kinds) and m.identity_hit(e, now, kinds) for m in self.any_of)

    def matches(self, e: Event, now: datetime, kinds: Classification) -> bool:
        if self.any_of and not any(m.matches(e, now, kinds) for m in self.any_of):
            return False
        if self.sources and e.source not in self.sources:
            return False
        if self.event_types and e.event_type not in self.event_types:
            return False
        if self.has_who() and not self._who(e, kinds):
            return False
        if self.kinds and not any(kinds.has(k) for k in self.kinds):
            return False
        if not self._people(e, kinds):
            return False
        subject = fold(e.subject)
        if any(fold(p) not in subject for p in self.subject_phrases):
            return False
        if self.topics and not _topic_hit(self.topics, self.topic_min, e, self.topic_language):
            return False
        if self.min_people is not None and (kinds.party_size or 0) < self.min_people:
            return False
        if self.max_people is not None and (
            kinds.party_size is None or kinds.party_size > self.max_people
        ):
            return False
        if not self._amount(e):
            return False
        if self.within is not None and not self.within.contains(now):
            return False
        return self._calendar(e, now)

    def _amount(self, e: Event) -> bool:
        if self.min_amount is None and self.max_amount is None:
            return True
        said = amounts_in(fold(f"{e.subject or ''}\n{e.text}"))
        if self.min_amount is not None and not any(a > self.min_amount for a in said):
            return False
        return self.max_amount is None or (bool(said) and max(said) < self.max_amount)

    def _people(self, e: Event, kinds: Classification) -> bool:
        """Group or direct chat, mentions, a person writing directly, asking something."""
        if self.group is not None and (
            e.source != "whatsapp" or e.chat is None or e.chat.is_group != self.group
        ):
            return False
        if self.mentions_me is not None and e.mentions_me != self.mentions_me:
            return False
        if self.addressed is not None and _addressed(e) != self.addressed:
            return False
        if self.direct is not None and _direct(kinds) != self.direct:
            return False
        if self.automated is not None and kinds.has("automated") != self.automated:
            return False
        if self.asks is False and not kinds.has("person"):
            return False  # "emails that need no reply": a person's FYI, not a system's notice
        if (self.asks is not None or self.urgent is not None) and kinds.has("person"):
            # only a person's message is read for questions; a system's is taken as it is
            wanted = [k for k, on in (("asks", self.asks), ("urgent", self.urgent)) if on]
            if wanted and not any(kinds.has(k) for k in wanted):
                return False
            if self.asks is False and kinds.has("asks"):
                return False
        return True

    def _who(self, e: Event, kinds: Classification) -> bool:
        sender_name = e.sender.name if e.sender else None
        address = fold(e.sender.address if e.sender else "")
        _, domain = address_parts(address)
        chat_name = e.chat.name if e.chat else None
        for name in self.names:
            if _name_hit(name, sender_name) or _name_hit(name, chat_name) or _org_hit(name, domain):
                return True
        for role in self.roles:
            if any(
                _name_hit(n, sender_name) or _name_hit(n, chat_name) for n in FAMILY_NAMES[role]
            ):
                return True
        if chat_name and any(_same_chat(chat, chat_name) for chat in self.chats):
            return True
        chat_id = fold(e.chat.id if e.chat else "")  # a chat's id stands for its address
        if any(_address_hit(a, address, chat_id) for a in self.addresses):
            return True
        if e.source == "calendar" and self.addresses:
            own = calendar_keys(e)
            if any(a in own for a in self.addresses):
                return True
        domain_text = domain_of(address)
        if any(domain_text == d or domain_text.endswith("." + d) for d in self.domains):
            return True
        return any(kinds.has(k) for k in self.sender_kinds)

    def _calendar(self, e: Event, now: datetime) -> bool:
        needs = (
            self.added_today
            or self.starts_within is not None
            or self.starts_after is not None
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
        local_now = now  # the user's time zone is the one the tick's time is written in
        if self.added_today and (
            cal.created is None
            or cal.created.astimezone(local_now.tzinfo).date() != local_now.date()
        ):
            return False
        if self.starts_within is not None and (
            cal.start is None or not (now <= cal.start <= add_clamped(now, self.starts_within))
        ):
            return False
        if self.starts_after is not None and (
            cal.start is None or cal.start <= now + self.starts_after
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


def _addressed(e: Event) -> bool:
    if e.source == "whatsapp" and e.chat is not None and e.chat.is_group:
        return e.mentions_me
    return True


def _direct(kinds: Classification) -> bool:
    """A person wrote to the user themselves: not through a service or a list, and not to
    a group without naming the user."""
    return kinds.has("person") and not (
        kinds.has("automated")
        or kinds.has("mailing_list")
        or kinds.has("bulk")
        or kinds.has("group_chatter")
    )


@cache
def _titles() -> frozenset[str]:
    from engine.triage.language import phrases  # the data folds with this package's fold

    return frozenset(phrases("words.titles"))


def _name_hit(rule_name: str, value: str | None) -> bool:
    """Every word of the name is in the value; a title before a surname ("Mr Okafor",
    "Frau Okonkwo") need not be: "Chidi Okafor" is Mr Okafor."""
    want = set(words(rule_name)) - STOP - {"s"}  # "Inés Varela's emails": her name
    have = set(words(value))
    if want and want <= have:
        return True
    named = want - _titles()
    if bool(named) and named != want and named <= have:
        return True
    return _short_first_name(named, have)


def _short_first_name(named: set[str], have: set[str]) -> bool:
    """ "Fede Lucero" is Federico Lucero: a first name said short, the start of the
    sender's (three letters at least), beside a surname said in full."""
    missing = named - have
    if len(named) < 2 or len(missing) != 1:
        return False
    (short,) = missing
    return len(short) >= 3 and any(h.startswith(short) and h != short for h in have - named)


def _org_hit(rule_name: str, domain: tuple[str, ...]) -> bool:
    """ "Vogt & Roux" ~ vogt-roux.example; "Globex" ~ globex.example; "Sentry" ~ getsentry.com."""
    want = [w for w in words(rule_name) if w not in STOP]
    if not want or not domain:
        return False
    labels = domain[:-1] if len(domain) > 1 else domain
    if all(any(w == label for label in labels) for w in want):
        return True
    joined = "".join(want)
    return len(joined) >= 5 and any(
        joined in label and len(label) - len(joined) <= _AFFIX for label in labels
    )


_AFFIX = 4
"""How much more a domain label may hold than the name it stands for ("getsentry" is
Sentry's; "studionotarileferri" is a notary's office, not everyone called Ferri)."""


def _stem(word: str) -> str:
    for suffix in ("ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _topic_hit(topics: tuple[str, ...], minimum: int, e: Event, lang: str | None) -> bool:
    """Enough topic words are in the event; a topic written in one language is not looked
    for in an event written in another (it cannot be, word for word)."""
    text = f"{e.subject or ''} {e.text}"
    if lang is not None:
        theirs = language(text)
        if theirs is not None and theirs != lang:
            return True
    have = {_stem(w) for w in words(text)}
    want = {_stem(t) for t in topics}
    hits = sum(1 for w in want if w in have)
    needed = min(minimum, len(want))
    if hits >= needed:
        return True
    by_start: dict[str, list[str]] = {}  # only when a topic is not there as written
    for w in have:
        if len(w) >= _SHARED_START:
            by_start.setdefault(w[:_SHARED_START], []).append(w)
    hits += sum(1 for w in want if w not in have and _inflected(w, by_start))
    return hits >= needed


_SHARED_START = 5
_ENDING = 3


def _inflected(word: str, by_start: dict[str, list[str]]) -> bool:
    """``word`` is in the text with another ending, in any language: "Verspätungen" ~
    "Verspätung", "annullate" ~ "annullato", "retrasa" ~ "retraso". Both share their start
    (at least five letters) and differ only in the last three at most."""
    if len(word) < _SHARED_START:
        return False
    for other in by_start.get(word[:_SHARED_START], ()):
        shared = next(
            (i for i, (a, b) in enumerate(zip(word, other, strict=False)) if a != b), None
        )
        shared = min(len(word), len(other)) if shared is None else shared
        if len(word) - shared <= _ENDING and len(other) - shared <= _ENDING:
            return True
    return False
