"""Compiling rule lines of ``data/notifications.md`` into conditions code can apply.

A rule's words are read against a vocabulary: sources (email, WhatsApp, calendar), who
(names, quoted names, organisations, domains, addresses, categories such as newsletters or
automated tools), where (a named group, group vs direct), @-mentions, subject phrases and
topics, calendar conditions (added today, starts within, recurring, cancelled, moved, in
person vs video) and time windows (hours, weekdays, weekends). "Only ... if ...", "... unless
...", "nothing except ..." rules become a scope and a condition. A rule whose words yield no
condition is left to the model (``understood`` False).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from functools import lru_cache

from engine.clock import CLOCK, DAY_NAMES, in_window, rule_clock_time
from engine.events import Event
from engine.triage.classifier import (
    address_parts,
    categories,
    fold,
    is_in_person,
    is_video_call,
    words,
)
from engine.triage.rules.parse import ALWAYS, NEVER, Rule, parse_rules
from engine.triage.rules.vocab import (
    CATEGORY_WORDS,
    MONTHS,
    NUMBER_WORDS,
    ROLE_WORDS,
    SOURCE_WORDS,
    STOP,
)

QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]{1,80})[\"“”„«»]|(?<![\w])'([^']{1,80})'(?![\w])")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
DOMAIN = re.compile(r"(?<![\w.@-])@?((?:[a-z0-9][a-z0-9-]*\.)+[a-z]{2,})(?![\w-])", re.I)
PARENS = re.compile(r"\(([^()]*)\)")
WINDOW = re.compile(rf"\b(?:between|from)\s+{CLOCK}\s*(?:and|to|until|till|-|–)\s*{CLOCK}", re.I)
AFTER = re.compile(rf"\bafter\s+{CLOCK}(?!\s*(?:minutes|hours|days))", re.I)
BEFORE = re.compile(rf"\bbefore\s+{CLOCK}(?!\s*(?:minutes|hours|days))", re.I)
NIGHT = re.compile(r"\b(at night|overnight|during the night|at nighttime)\b", re.I)
DURATION = re.compile(
    r"\b(?:in|within|during)\s+(?:the\s+)?(?:next\s+)?(?:less than\s+|under\s+)?"
    r"(\d+|an?|one|two|three|four|five|six|seven|twelve)\s*"
    r"(minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b",
    re.I,
)
WEEKEND = re.compile(r"\b(?:on\s+)?(?:the\s+)?weekends?\b", re.I)
WEEKDAYS = re.compile(r"\b(?:on\s+)?(?:weekdays|work ?days|working days)\b", re.I)

_VOCAB = {
    w
    for vocab in (*SOURCE_WORDS.values(), *CATEGORY_WORDS.values())
    for p in vocab
    for w in p.split()
}
_NAME_TOKEN = re.compile(r"[\w'’.&-]*[A-ZÀ-Þ][\w'’.&-]*")
_NAME_JOINERS = {
    "&",
    "de",
    "del",
    "da",
    "das",
    "do",
    "dos",
    "van",
    "von",
    "der",
    "den",
    "of",
    "la",
    "le",
    "al",
    "el",
    "bin",
    "ibn",
    "y",
}


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
        if any(address == fold(a) for a in self.addresses):
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
            cal.start is None or not (now <= cal.start <= now + self.starts_within)
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


def find_window(text: str) -> tuple[str, Window | None]:
    """Take a time window out of ``text``: hours, night, weekends, weekdays, named days."""
    days: frozenset[int] | None = None
    if WEEKEND.search(text):
        days, text = frozenset({5, 6}), WEEKEND.sub(" ", text)
    elif WEEKDAYS.search(text):
        days, text = frozenset(range(5)), WEEKDAYS.sub(" ", text)
    else:
        unquoted = QUOTED.sub(" ", text)
        day = rf"(?:{'|'.join(DAY_NAMES)})"
        named = re.findall(rf"\bon\s+({day})s?\b|\b({day})s\b", unquoted, re.I)
        if named and not re.search(r"\b(start|starts|starting)\b", text, re.I):
            days = frozenset(DAY_NAMES.index((a or b).lower()) for a, b in named)
            text = re.sub(rf"\bon\s+{day}s?\b|\b{day}s\b", " ", text, flags=re.I)
    text = re.sub(r"\(\s*(?:and|,|\s)*\)", " ", text)
    start = end = None
    m = WINDOW.search(text)
    if m:
        start, end = rule_clock_time(*m.group(1, 2, 3)), rule_clock_time(*m.group(4, 5, 6))
        text = text[: m.start()] + " " + text[m.end() :]
    elif (m := AFTER.search(text)) and not re.search(r"\bstart", text[: m.start()], re.I):
        start, end = rule_clock_time(*m.group(1, 2, 3)), time(0, 0)
        text = text[: m.start()] + " " + text[m.end() :]
    elif (m := BEFORE.search(text)) and not re.search(r"\bstart", text[: m.start()], re.I):
        start, end = time(0, 0), rule_clock_time(*m.group(1, 2, 3))
        text = text[: m.start()] + " " + text[m.end() :]
    elif NIGHT.search(text):
        start, end = time(22, 0), time(7, 0)
        text = NIGHT.sub(" ", text)
    if start is None and days is None:
        return text, None
    if start is None:
        return text, Window(days=days or frozenset(range(7)))
    if start == end:
        end = time((start.hour + 23) % 24, 59)
    return text, Window(start, end, days if days is not None else frozenset(range(7)))


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text) for p in phrases)


def _is_name_token(token: str) -> bool:
    core = token.strip(".'’-")
    low = fold(core)
    if not core or low in STOP or low in _VOCAB or low in MONTHS:
        return False
    if low in DAY_NAMES or low.rstrip("s") in DAY_NAMES:
        return False
    return any(c.isupper() for c in core)


def name_list(text: str) -> list[str]:
    """Capitalised names in ``text``, split on commas, and/or, slashes: "Facebook and
    Instagram" → two names; "Herrera & Lutz", "Colégio Santa Cruz" → one each."""
    names: list[str] = []
    for chunk in re.split(r",|;|:|/|\bor\b|\band\b|\bnor\b|\bplus\b|\.\s|\.\.\.|…", text):
        tokens = re.findall(r"[\w'’.&-]+|&", chunk)
        current: list[str] = []
        pending: list[str] = []
        for token in tokens:
            if _is_name_token(token):
                current += [*pending, token]
                pending = []
            elif current and fold(token) in _NAME_JOINERS:
                pending.append(token)
            else:
                if current:
                    names.append(" ".join(current))
                current, pending = [], []
        if current:
            names.append(" ".join(current))
    return [n.strip(" .") for n in names if n.strip(" .")]


def _example_list(inner: str) -> bool:
    return bool(
        re.search(r",|\.\.\.|…|\betc\b|\be\.g\.|\blike\b|\bsuch as\b|\bor\b|\band\b", inner)
    ) and bool(name_list(inner))


def parse_fragment(raw: str) -> Match:
    """Read one clause of a rule into a Match."""
    text = raw.strip()
    quoted = [q1 or q2 for q1, q2 in QUOTED.findall(text)]
    emails = [fold(e) for e in EMAIL.findall(text)]
    no_quotes = QUOTED.sub(" ", text)
    no_addr = EMAIL.sub(" ", no_quotes)
    domains = [fold(d) for d in DOMAIN.findall(no_addr)]
    no_addr = DOMAIN.sub(" ", no_addr)
    parens = PARENS.findall(no_addr)
    core = PARENS.sub(" ", no_addr)
    low = fold(core)
    full_low = fold(text)

    sources = {s for s, vocab in SOURCE_WORDS.items() if _has(low, vocab)}
    cats = {c for c, vocab in CATEGORY_WORDS.items() if _has(low, vocab)}
    event_types: set[str] = set()
    if _has(low, ("reminder", "reminders")):
        event_types.add("calendar.reminder")
    if re.search(r"\b(invitations?|invites?|new (calendar )?events?|new meetings?)\b", low):
        event_types.add("calendar.created")

    subject_phrases: list[str] = []
    chats: list[str] = []
    names: list[str] = []
    for q in quoted:
        at = full_low.find(fold(q))
        after, before = full_low[at + len(q) :][:40], full_low[:at][-30:]
        if re.search(r"\b(subject|title)\b", after + " " + before):
            subject_phrases.append(q)
        elif re.search(r"\b(group|chat|channel)\b", after[:25] + " " + before[-12:]):
            chats.append(q)
        else:
            names.append(q)
    caps_subject = re.search(r"\bwith ([A-Z][A-Z0-9 !-]{1,40}?) in the (?:subject|title)", core)
    if caps_subject:
        subject_phrases.append(caps_subject.group(1).strip())
        core = core.replace(caps_subject.group(1), " ")
    unquoted_chat = re.search(
        r"\bin the ([A-Z][\w'’&. -]{1,60}?)\s+(?:whatsapp\s+)?(?:group|chat)\b", core, re.I
    )
    if unquoted_chat and any(c.isupper() for c in unquoted_chat.group(1)):
        chats.append(unquoted_chat.group(1).strip())
        core = core.replace(unquoted_chat.group(1), " ")

    about = re.search(
        r"\b(?:about|regarding|concerning|related to|on the topic of)\s+(.+?)"
        r"(?=$|[.;:!?]|\bonly\b|\bif\b|\bwhen\b|\bunless\b|\bfrom\b|\bnot\b|,\s*"
        r"(?:always|never|tell|notify|whoever|even))",
        core,
        re.I,
    )
    topics: list[str] = []
    topic_min = 2
    about_text = about.group(1) if about else ""
    about_names = name_list(about_text)
    if (
        about
        and about_names
        and not [
            w
            for w in words(about_text)
            if w not in STOP and w not in ROLE_WORDS and not any(w in words(n) for n in about_names)
        ]
    ):
        names += about_names  # "about Mãe, Pai or the school": a list of people
    elif about:
        topics = [w for w in words(about_text) if w not in STOP and w not in _VOCAB and len(w) > 2]
        core = core.replace(about_text, " ")
    head = re.match(r"^\s*(?:the\s+|any\s+|all\s+)?([a-z][a-z ]{2,40}?)\s+from\b", core, re.I)
    if head and not topics:
        head_words = [
            w
            for w in words(head.group(1))
            if w not in STOP and w not in _VOCAB and w not in ROLE_WORDS and len(w) > 2
        ]
        if head_words:
            topics, topic_min = head_words, 1
    if not topics and re.search(
        r"\b(reminders?|meetings?|events?|invitations?|invites?)\s+"
        r"(?:for|about|of|called|titled)\b",
        low,
    ):
        tail = re.split(r"\b(?:for|about|of|called|titled)\b", low, maxsplit=1)[1]
        topics = [
            w
            for w in words(tail)
            if w not in STOP and w not in _VOCAB and w not in ROLE_WORDS and len(w) > 2
        ]
    names += [
        n
        for n in name_list(core)
        if fold(n) not in {fold(p) for p in subject_phrases}
        and not any(fold(n) in fold(about_text) for _ in [0] if topics)
    ]
    for inner in parens:
        if _example_list(inner) and (cats or not (names or chats or domains or emails)):
            names += name_list(inner)
        saved = re.search(r"saved as\s+(\S+)", inner, re.I)
        if saved and not quoted:
            names.append(saved.group(1).strip(".,'\""))
    if cats & {"automated"} and re.search(r"\bbots?\b", low):
        names = [n for n in names if not re.search(r"bot\b", fold(n))]

    group: bool | None = None
    if re.search(r"\bgroups?\b|\bgroup (chats?|messages?)\b", low) and not chats:
        group = True
    if re.search(r"\b(direct|private|one[- ]on[- ]one|1:1) (messages?|chats?)\b", low):
        group = False
    if chats:
        sources.add("whatsapp")
    mentions = (
        True
        if re.search(
            r"(\bmentions? me\b|\bmentioned\b|@[- ]?mention|\btags? me\b|\btagged\b|@me\b)", low
        )
        else None
    )
    duration = DURATION.search(core)
    starts_within = None
    if duration and re.search(
        r"\b(start|starts|starting|begin|begins|happen|happens|in|within)\b", low
    ):
        n_raw, unit = duration.group(1).lower(), duration.group(2).lower()
        n = NUMBER_WORDS.get(n_raw) or int(n_raw)
        unit_delta = (
            timedelta(minutes=1)
            if unit.startswith("m")
            else timedelta(hours=1)
            if unit.startswith("h")
            else timedelta(weeks=1)
            if unit.startswith("w")
            else timedelta(days=1)
        )
        starts_within = n * unit_delta
        sources.add("calendar")
    added_today = bool(re.search(r"\b(added|created|scheduled|booked|new) today\b", low))
    change = bool(
        re.search(
            r"\b(cancel+ed|cancel+ations?|rescheduled|moved|postponed|"
            r"time changes?)\b",
            low,
        )
    )
    if re.search(r"\b(cancel+ed|cancel+ations?)\b", low) and not re.search(
        r"\b(rescheduled|moved|postponed|changed)\b", low
    ):
        event_types.add("calendar.cancelled")
    recurring = (
        True
        if re.search(r"\b(recurring|repeating|daily|weekly|regular)\b", low)
        and ("calendar" in sources)
        else None
    )
    in_person = (
        True
        if re.search(
            r"\b(in[- ]person|physical(ly)?|on[- ]site|face[- ]to[- ]face|"
            r"real location|a location)\b",
            low,
        )
        else None
    )
    video = True if re.search(r"\b(video|zoom|google meet|teams|online|virtual)\b", low) else None
    if in_person:
        video = None
    if in_person or video:
        sources.add("calendar")
    if added_today or change or recurring:
        sources.add("calendar")
    anything = bool(re.search(r"\b(anything|everything|all (messages|notifications))\b", low))
    if group is not None or mentions is not None:
        sources.discard("email")
        sources.add("whatsapp")
    return Match(
        sources=frozenset(sources),
        names=tuple(dict.fromkeys(n for n in names if n)),
        domains=tuple(dict.fromkeys(domains)),
        addresses=tuple(dict.fromkeys(emails)),
        categories=frozenset(cats),
        chats=tuple(chats),
        group=group,
        mentions_me=mentions,
        subject_phrases=tuple(subject_phrases),
        topics=tuple(dict.fromkeys(topics)),
        topic_min=topic_min,
        event_types=frozenset(event_types),
        added_today=added_today,
        starts_within=starts_within,
        calendar_change=change,
        recurring=recurring,
        in_person=in_person,
        video=video,
        anything=anything,
    )


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    scope: Match
    action: str  # "notify" | "drop" | "only" (notify iff condition, within scope)
    condition: Match = field(default_factory=Match)
    negated: Match = field(default_factory=Match)
    window: Window | None = None
    understood: bool = True

    def applies(self, e: Event, now: datetime) -> bool:
        if self.window is not None and not self.window.contains(now.astimezone(e.time.tzinfo)):
            return False
        return self.scope.matches(e, now)

    def verdict(self, e: Event, now: datetime) -> bool:
        """For a rule that applies: notify (True) or drop (False)."""
        if self.action == "notify":
            return True
        if self.action == "drop":
            return False
        ok = self.condition.empty or self.condition.matches(e, now)
        if not self.negated.empty and self.negated.matches(e, now):
            ok = False
        return ok


_NEGATIVE = re.compile(r"\b(never|don'?t|do not|stop|mute|ignore|skip|silence|no)\b", re.I)
_ONLY_VERB = (
    r"(?:notify|tell|alert|ping|show|let|send|bother|interrupt)(?:\s+me)?"
    r"(?:\s+know)?"
)


def _drop_verbs(text: str) -> str:
    return re.sub(
        rf"^\s*(?:for\s+)?(?:always\s+|never\s+|please\s+|only\s+)?(?:{_ONLY_VERB}\b)?\s*"
        r"(?:about\b|of\b|for\b)?\s*",
        " ",
        text,
        flags=re.I,
    )


def _condition(text: str) -> tuple[Match, Match]:
    """A condition clause and what it excludes: "in person, not video calls"; extra
    sentences that ignore something ("Ignore video calls.") are exclusions too."""
    sentences = [s for s in re.split(r"(?<=[.;!])\s+", text.strip()) if s.strip()]
    first, rest = (sentences[0], sentences[1:]) if sentences else ("", [])
    negated = Match()
    neg = re.search(
        r"(?:,\s*|\s+|\()(?:but\s+)?not\s+(?:from\s+|for\s+|when\s+|about\s+)?"
        r"(?:it'?s\s+)?(?:an?\s+|the\s+)?(.+)$",
        first,
        re.I,
    )
    if neg:
        negated = parse_fragment(neg.group(1))
        first = first[: neg.start()]
    for sentence in rest:
        if re.match(r"^\s*(ignore|skip|not|never|no|don'?t|exclude)\b", sentence, re.I):
            extra = parse_fragment(re.sub(r"^\s*\w+'?\w*\s+", "", sentence))
            if negated.empty:
                negated = extra
    return parse_fragment(first), negated


def _split_restrictive(text: str) -> tuple[str, str, bool] | None:
    """(scope, condition, condition_is_exclusion) for only/unless/except rules."""
    body = text.strip(" ,")
    m = re.match(rf"^(.*?)\bonly\s+{_ONLY_VERB}\s*(?:about|of|for|when|if)?\s*(.*)$", body, re.I)
    if m:
        before, rest = m.group(1), m.group(2)
        c = re.search(r"\b(?:if|when|that|which|who|where|as long as)\b", rest, re.I)
        if c and not before.strip(" ,:"):
            return rest[: c.start()], rest[c.end() :], False
        return before, rest, False
    m = re.search(r"\bonly\s+(?:if|when|that|who|where|as long as)\b", body, re.I)
    if m:
        return body[: m.start()], body[m.end() :], False
    m = re.search(
        r"\b(?:nothing|no notifications?|none)\s+(?:except|but|other than)\b|"
        r"\bexcept(?:\s+for)?\b",
        body,
        re.I,
    )
    if m:
        return body[: m.start()], body[m.end() :], False
    m = re.search(r"\bunless\b", body, re.I)
    if m:
        scope = body[: m.start()]
        # "ignore X unless Y" keeps X only when Y; "tell me about X unless Y" drops X when Y
        return scope, body[m.end() :], not _NEGATIVE.search(scope)
    m = re.search(r"\bonly\b", body, re.I)
    if m:
        return body[: m.start()], body[m.end() :], False
    return None


_RESTATED_DEFAULT = re.compile(
    r"[;,.]\s*(?:all\s+|any\s+)?(?:other|the other|the rest|everything else|anything else)\b"
    r"[^;.]*\b(?:skip|ignore|ignored|drop|mute|don'?t|not needed|no need)\b[^;.]*",
    re.I,
)


def compile_rule(rule: Rule) -> CompiledRule:
    section = rule.section
    # "...; other group messages are fine to skip" restates what not matching means
    text = _RESTATED_DEFAULT.sub("", rule.text).strip() or rule.text
    if section in (NEVER, ALWAYS):
        rest, window = find_window(text)
        scope = parse_fragment(_drop_verbs(rest))
        action = "drop" if section == NEVER else "notify"
        return CompiledRule(rule, scope, action, window=window, understood=scope.says_something)
    split = _split_restrictive(text)
    if split is None:
        rest, window = find_window(text)
        action = "drop" if _NEGATIVE.search(rest) else "notify"
        scope = parse_fragment(_drop_verbs(re.sub(_NEGATIVE, " ", rest)))
        return CompiledRule(rule, scope, action, window=window, understood=scope.says_something)
    scope_text, cond_text, exclusion = split
    scope_text, window = find_window(scope_text)
    cond_text, cond_window = find_window(cond_text)
    scope = parse_fragment(_drop_verbs(re.sub(_NEGATIVE, " ", scope_text)))
    condition, negated = _condition(_drop_verbs(cond_text))
    if cond_window is not None:
        condition = Match(**{**condition.__dict__, "within": cond_window})
    if exclusion:
        condition, negated = Match(), condition
    if not scope.says_something:
        scope = Match(anything=True)
    understood = condition.says_something or negated.says_something
    return CompiledRule(rule, scope, "only", condition, negated, window, understood)


@lru_cache(maxsize=512)
def _compile_cached(section: str, text: str, line: int) -> CompiledRule:
    return compile_rule(Rule(section, text, line))


def compile_rules(rules: list[Rule]) -> list[CompiledRule]:
    """Compiled once per distinct rule line, so an edited file costs only its new lines."""
    return [_compile_cached(r.section, r.text, r.line_number) for r in rules]


@lru_cache(maxsize=32)
def _compile_text(digest: str, text: str) -> tuple[CompiledRule, ...]:
    return tuple(compile_rules(parse_rules(text).rules))


def compile_rules_text(text: str) -> list[CompiledRule]:
    """The compiled rules of a whole rules file, cached by its content hash: an unchanged
    file is not parsed again, an edited one takes effect on the next tick."""
    return list(_compile_text(hashlib.sha256(text.encode("utf-8")).hexdigest(), text))
