"""Compiling rule lines of ``data/notifications.md`` into conditions code can apply.

A rule's words are read against a vocabulary: sources (email, WhatsApp, calendar), who
(names, quoted names, organisations, domains, addresses, categories such as newsletters or
automated tools), where (a named group, group vs direct), @-mentions, subject phrases and
topics, calendar conditions (added today, starts within, recurring, cancelled, moved, in
person vs video) and time-of-day windows. "Only ... if ..." rules become a scope and a
condition. A rule whose words yield no condition is left to the model (``understood`` False).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from functools import lru_cache

from engine.categories import (
    address_parts,
    categories,
    fold,
    is_in_person,
    is_video_call,
    words,
)
from engine.events import Event
from engine.rules import ALWAYS, CUSTOM, NEVER, Rule

QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]{1,80})[\"“”„«»]|(?<![a-z])'([^']{1,80})'(?![a-z])", re.I)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
DOMAIN = re.compile(r"(?<![@\w])(?:@)?((?:[a-z0-9-]+\.)+[a-z]{2,})\b", re.I)
CLOCK = r"(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
WINDOW = re.compile(rf"\b(?:between|from)\s+{CLOCK}\s*(?:and|to|until|till|-|–)\s*{CLOCK}", re.I)
AFTER = re.compile(rf"\bafter\s+{CLOCK}", re.I)
BEFORE = re.compile(rf"\bbefore\s+{CLOCK}", re.I)
DURATION = re.compile(
    r"\b(?:in|within|during)\s+(?:the\s+)?(?:next\s+)?(?:less than\s+|under\s+)?"
    r"(\d+|an?|one|two|three|four|five|six|seven|twelve|24|48)\s*"
    r"(minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b",
    re.I,
)
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "twelve": 12,
}

SOURCE_WORDS = {
    "email": ("email", "emails", "e-mail", "e-mails", "mail", "mails", "inbox"),
    "whatsapp": ("whatsapp", "whatsapps", "chat", "chats", "texts"),
    "calendar": (
        "calendar",
        "event",
        "events",
        "meeting",
        "meetings",
        "invitation",
        "invitations",
        "invite",
        "invites",
        "appointment",
        "appointments",
        "reminder",
        "reminders",
        "standup",
        "standups",
    ),
}
CATEGORY_WORDS = {
    "newsletter": (
        "newsletter",
        "newsletters",
        "digest",
        "digests",
        "briefing",
        "briefings",
        "bulletin",
        "bulletins",
        "mailing list",
        "mailing lists",
    ),
    "promotion": (
        "promotional",
        "promotion",
        "promotions",
        "promo",
        "promos",
        "marketing",
        "advertising",
        "advertisement",
        "advertisements",
        "ads",
        "deals",
        "offers",
        "sales emails",
        "spammy",
    ),
    "social": ("social network", "social networks", "social media"),
    "automated": (
        "automated",
        "automatic",
        "bot",
        "bots",
        "ci",
        "ci systems",
        "monitoring",
        "system",
        "systems",
        "no-reply",
        "noreply",
        "machine",
        "machines",
    ),
    "shipping": (
        "shipping",
        "shipment",
        "shipments",
        "delivery",
        "deliveries",
        "package",
        "packages",
        "parcel",
        "parcels",
        "tracking",
        "courier",
    ),
    "receipt": (
        "receipt",
        "receipts",
        "invoice",
        "invoices",
        "order confirmation",
        "order confirmations",
        "purchase confirmations",
    ),
    "person": ("a person", "real person", "real people", "a human", "humans", "people"),
}
STOP = {
    "the",
    "a",
    "an",
    "my",
    "me",
    "i",
    "and",
    "or",
    "of",
    "to",
    "for",
    "from",
    "in",
    "on",
    "at",
    "about",
    "with",
    "that",
    "this",
    "these",
    "those",
    "any",
    "anyone",
    "anybody",
    "anything",
    "everything",
    "all",
    "every",
    "other",
    "someone",
    "somebody",
    "is",
    "are",
    "be",
    "been",
    "it",
    "its",
    "them",
    "they",
    "their",
    "there",
    "if",
    "when",
    "only",
    "always",
    "never",
    "notify",
    "notification",
    "notifications",
    "tell",
    "alert",
    "alerts",
    "show",
    "send",
    "message",
    "messages",
    "new",
    "no",
    "not",
    "do",
    "don",
    "t",
    "dont",
    "please",
    "ping",
    "let",
    "know",
    "us",
    "we",
    "our",
    "you",
    "your",
    "regardless",
    "sender",
    "senders",
    "who",
    "which",
    "what",
    "whatever",
    "by",
    "as",
    "via",
    "like",
    "such",
    "even",
    "also",
    "just",
    "but",
    "unless",
    "except",
    "happen",
    "happens",
    "take",
    "place",
    "one",
    "ones",
    "kind",
    "kinds",
    "type",
    "types",
    "sort",
    "stuff",
    "things",
    "thing",
    "wrote",
    "written",
    "write",
    "writes",
    "sent",
    "sends",
    "get",
    "gets",
    "got",
    "receive",
    "received",
    "saved",
    "contact",
    "contacts",
    "up",
    "come",
    "comes",
    "coming",
    "mention",
    "mentions",
    "mentioned",
    "tag",
    "tags",
    "tagged",
    "group",
    "groups",
    "direct",
    "private",
    "personal",
    "address",
    "addresses",
    "domain",
    "subject",
    "title",
    "line",
    "contains",
    "containing",
    "whose",
    "has",
    "have",
    "having",
    "after",
    "before",
    "between",
    "until",
    "within",
    "next",
    "less",
    "than",
    "hours",
    "hour",
    "minutes",
    "minute",
    "days",
    "day",
    "weeks",
    "week",
    "today",
    "added",
    "created",
    "start",
    "starts",
    "starting",
    "begin",
    "begins",
    "cancelled",
    "canceled",
    "cancellations",
    "cancellation",
    "rescheduled",
    "moved",
    "changed",
    "changes",
    "updated",
    "updates",
    "recurring",
    "repeating",
    "daily",
    "weekly",
    "in-person",
    "person",
    "physical",
    "video",
    "call",
    "calls",
    "online",
    "virtual",
    "zoom",
    "meet",
    "teams",
    "important",
    "anywhere",
    "everyone",
    "people",
    "someone's",
    "else",
    "apart",
}
SECTIONS = (ALWAYS, NEVER, CUSTOM)


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
    event_types: frozenset[str] = frozenset()
    added_today: bool = False
    starts_within: timedelta | None = None
    calendar_change: bool = False  # cancelled or moved
    recurring: bool | None = None
    in_person: bool | None = None
    video: bool | None = None
    anything: bool = False

    @property
    def empty(self) -> bool:
        return self == Match()

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
        if self.topics and not _topic_hit(self.topics, e):
            return False
        return self._calendar(e, now)

    def _who(self, e: Event) -> bool:
        sender_name = e.sender.name if e.sender else None
        address = fold(e.sender.address if e.sender else "")
        _, domain = address_parts(address)
        chat_name = e.chat.name if e.chat else None
        for name in self.names:
            if _name_hit(name, sender_name) or _name_hit(name, chat_name):
                return True
            if _org_hit(name, domain):
                return True
        for chat in self.chats:
            if chat_name and fold(chat) == fold(chat_name):
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
    for suffix in ("ings", "ing", "ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _topic_hit(topics: tuple[str, ...], e: Event) -> bool:
    have = {_stem(w) for w in words(f"{e.subject or ''} {e.text}")}
    want = {_stem(t) for t in topics}
    hits = sum(1 for w in want if w in have)
    return hits >= min(2, len(want))


def _clock(hour: str, minute: str | None, suffix: str | None) -> time:
    h, m = int(hour), int(minute or 0)
    s = (suffix or "").replace(".", "").lower()
    if s == "pm" and h < 12:
        h += 12
    if s == "am" and h == 12:
        h = 0
    return time(h % 24, min(m, 59))


@dataclass(frozen=True)
class Window:
    start: time
    end: time

    def contains(self, moment: datetime) -> bool:
        t = moment.time().replace(second=0, microsecond=0)
        if self.start <= self.end:
            return self.start <= t < self.end
        return t >= self.start or t < self.end


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
        local = now.astimezone(e.time.tzinfo)
        if self.window is not None and not self.window.contains(local):
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


def _strip_window(text: str) -> tuple[str, Window | None]:
    m = WINDOW.search(text)
    if m:
        window = Window(_clock(*m.group(1, 2, 3)), _clock(*m.group(4, 5, 6)))
        return text[: m.start()] + text[m.end() :], window
    m = AFTER.search(text)
    if m and not re.search(r"\bstart", text[: m.start()], re.I):
        return text[: m.start()] + text[m.end() :], Window(_clock(*m.group(1, 2, 3)), time(0, 0))
    m = BEFORE.search(text)
    if m and not re.search(r"\bstart", text[: m.start()], re.I):
        return text[: m.start()] + text[m.end() :], Window(time(0, 0), _clock(*m.group(1, 2, 3)))
    if re.search(r"\b(at night|overnight|during the night)\b", text, re.I):
        return re.sub(r"\b(at night|overnight|during the night)\b", " ", text, flags=re.I), Window(
            time(22, 0), time(7, 0)
        )
    return text, None


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text) for p in phrases)


def parse_fragment(raw: str) -> Match:
    """Read one clause of a rule into a Match."""
    text = raw.strip()
    low = fold(text)
    quoted = [q1 or q2 for q1, q2 in QUOTED.findall(text)]
    emails = EMAIL.findall(text)
    unquoted = QUOTED.sub(" ", text)
    domains = [d for d in DOMAIN.findall(EMAIL.sub(" ", unquoted))]
    sources: set[str] = set()
    for source, vocab in SOURCE_WORDS.items():
        if _has(low, vocab):
            sources.add(source)
    if re.search(r"\bwhatsapp\b", low):
        sources.discard("email") if "email" not in low and "mail" not in low else None
    cats = {c for c, vocab in CATEGORY_WORDS.items() if _has(low, vocab)}
    if "person" in cats and re.search(r"\bin[- ]person\b", low):
        cats.discard("person")
    m = Match()
    event_types: set[str] = set()
    if _has(low, ("reminder", "reminders")):
        event_types.add("calendar.reminder")
    if re.search(r"\b(invitations?|invites?|new (calendar )?events?|new meetings?)\b", low):
        event_types.add("calendar.created")
    subject_phrases: list[str] = []
    chats: list[str] = []
    names: list[str] = []
    for q in quoted:
        after = low[low.find(fold(q)) + len(q) :][:40]
        before = low[: low.find(fold(q))][-30:]
        if re.search(r"\b(subject|title)\b", after + " " + before):
            subject_phrases.append(q)
        elif re.search(r"\b(group|chat|channel)\b", after[:25] + " " + before[-12:]):
            chats.append(q)
        else:
            names.append(q)
    if re.search(r"\bin the subject\b|\bsubject (line )?(contains|with|says)\b", low) and not (
        subject_phrases
    ):
        m_subject = re.search(r"with ([A-Z][A-Z ]{2,}) in the subject", text)
        if m_subject:
            subject_phrases.append(m_subject.group(1).strip())
    capital_names, topics = _names_and_topics(unquoted, low)
    names += capital_names
    group: bool | None = None
    if re.search(r"\bgroups?\b|\bgroup (chats?|messages?)\b", low) and not chats:
        group = True
    if re.search(r"\b(direct|private|one[- ]on[- ]one|1:1) (messages?|chats?)\b", low):
        group = False
    if chats:
        sources.add("whatsapp")
    mentions = (
        True
        if re.search(r"\b(mentions? me|mentioned|@[- ]?mentions?|tags? me|tagged|@me)\b", low)
        else None
    )
    duration = DURATION.search(text)
    starts_within = None
    if duration and re.search(r"\b(start|starts|starting|begin|begins|happen|happens|in)\b", low):
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
            r"time changes?|changed)\b",
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
            r"offline)\b",
            low,
        )
        else None
    )
    video = (
        True
        if re.search(r"\b(video|zoom|google meet|teams|online|virtual|calls?)\b", low)
        and "calendar" in sources | ({"calendar"} if in_person else set())
        else None
    )
    if in_person or video:
        sources.add("calendar")
    if added_today or change or recurring:
        sources.add("calendar")
    anything = bool(re.search(r"\b(anything|everything|all (messages|notifications))\b", low))
    if group is not None or mentions is not None:
        sources.discard("email")
        sources.discard("calendar") if "calendar" not in low else None
        sources.add("whatsapp")
    return replace(
        m,
        sources=frozenset(sources),
        names=tuple(dict.fromkeys(names)),
        domains=tuple(fold(d) for d in domains),
        addresses=tuple(fold(e) for e in emails),
        categories=frozenset(cats),
        chats=tuple(chats),
        group=group,
        mentions_me=mentions,
        subject_phrases=tuple(subject_phrases),
        topics=tuple(topics),
        event_types=frozenset(event_types),
        added_today=added_today,
        starts_within=starts_within,
        calendar_change=change,
        recurring=recurring,
        in_person=in_person,
        video=video if not in_person else None,
        anything=anything,
    )


_VOCAB = {
    w
    for vocab in (*SOURCE_WORDS.values(), *CATEGORY_WORDS.values())
    for p in vocab
    for w in p.split()
}


def _names_and_topics(text: str, low: str) -> tuple[list[str], list[str]]:
    """Capitalised sequences after from/by/at are names; content words after about/regarding
    (or left over in a calendar rule) are topics."""
    names: list[str] = []
    for m in re.finditer(
        r"\b(?:from|by|at|with)\s+(.+?)(?=$|[.;:!?]|\bif\b|\bwhen\b|\bunless\b|"
        r"\bonly\b|\bbetween\b|\babout\b|\bregarding\b|\bin the\b|\bthat\b|"
        r"\bnot\b|\bexcept\b)",
        text,
        re.I,
    ):
        clause = re.sub(r"\([^)]*\)", " ", m.group(1))
        for part in re.split(r",|\bor\b|\band\b(?! ?&)", clause):
            part = part.strip(" .")
            tokens = re.findall(r"[A-Z][\w'’.-]*(?:\s*&\s*[A-Z][\w'’.-]*)?", part)
            proper = [t for t in tokens if fold(t) not in _VOCAB and fold(t) not in STOP]
            if proper and not EMAIL.search(part) and not DOMAIN.search(part):
                names.append(" ".join(proper))
    for m in re.finditer(
        r"(?<!\w)([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\s+(?:notifications|alerts|"
        r"emails|messages|updates)\b",
        text,
    ):
        candidate = m.group(1)
        proper = [w for w in candidate.split() if fold(w) not in _VOCAB and fold(w) not in STOP]
        if proper:
            names.append(" ".join(proper))
    for m in re.finditer(r"\b(\w[\w'’.-]*(?:\s+(?:and|&)\s+\w[\w'’.-]*)+)\s+notifications\b", text):
        for part in re.split(r"\s+(?:and|&)\s+", m.group(1)):
            if part[:1].isupper() and fold(part) not in _VOCAB:
                names.append(part)
    topics: list[str] = []
    about = re.search(
        r"\b(?:about|regarding|concerning|related to|on the topic of)\s+(.+?)"
        r"(?=$|[.;:!?,]|\bonly\b|\bif\b|\bwhen\b|\bunless\b|\bfrom\b|\bnot\b)",
        text,
        re.I,
    )
    if about:
        topics = [w for w in words(about.group(1)) if w not in STOP and len(w) > 2]
    elif re.search(
        r"\b(reminders?|meetings?|events?|invitations?) (for|about|of|called|titled)\b", low
    ):
        tail = re.split(r"\b(?:for|about|of|called|titled)\b", low, maxsplit=1)[1]
        topics = [w for w in words(tail) if w not in STOP and w not in _VOCAB and len(w) > 2]
        if not topics:
            topics = [w for w in words(tail) if w in ("standup", "standups")]
    return list(dict.fromkeys(names)), topics


_CONNECTOR = re.compile(r"\b(?:only\s+)?(?:if|when|unless|that|which|who|where|as long as)\b", re.I)
_NEGATION = re.compile(
    r"(?:,\s*|\s+)(?:but\s+)?not\s+(?:from\s+)?(?:for\s+)?(?:an?\s+|the\s+)?"
    r"(.+)$",
    re.I,
)


def compile_rule(rule: Rule) -> CompiledRule:
    text, window = _strip_window(rule.text)
    low = fold(text)
    section = rule.section
    restrictive = bool(re.search(r"\bonly\b", low)) or (
        section == CUSTOM and bool(re.search(r"\bunless\b", low))
    )
    if section == NEVER:
        action = "drop"
    elif section == ALWAYS:
        action = "notify"
    elif (
        re.search(
            r"\b(never|don'?t|do not|stop|mute|ignore|no)\s+(notify|tell|alert|"
            r"ping|show|bother)?",
            low,
        )
        and not restrictive
    ):
        action = "drop"
    else:
        action = "only" if restrictive else "notify"
    if action != "only":
        scope = parse_fragment(_drop_verbs(text))
        if scope.empty and not scope.anything:
            return CompiledRule(rule, scope, action, window=window, understood=False)
        return CompiledRule(rule, scope, action, window=window)
    scope_text, cond_text = _split_only(text)
    negated = Match()
    neg = _NEGATION.search(cond_text)
    if neg:
        negated = parse_fragment(neg.group(1))
        cond_text = cond_text[: neg.start()]
    scope = parse_fragment(_drop_verbs(scope_text))
    condition = parse_fragment(cond_text)
    if window is not None and scope.empty:
        scope = Match(anything=True)
    if re.search(r"\bunless\b", low) and not re.search(r"\bonly\b", low):
        negated, condition = condition, Match()
        if negated.empty:
            return CompiledRule(rule, scope, "drop", window=window, understood=False)
        return CompiledRule(rule, scope, "only", negated=negated, window=window)
    understood = not (scope.empty and not scope.anything) and not (
        condition.empty and negated.empty
    )
    return CompiledRule(rule, scope, "only", condition, negated, window, understood)


def _drop_verbs(text: str) -> str:
    return re.sub(
        r"^\s*(?:for\s+)?(?:always|never|please|only)?\s*(?:notify|tell|alert|ping|"
        r"show)?\s*(?:me)?\s*(?:about|of|for)?\s*",
        " ",
        text,
        flags=re.I,
    )


def _split_only(text: str) -> tuple[str, str]:
    """ "Only notify about X if Y" / "X only if Y" / "only tell me about X that Y" /
    "(in a window) only notify me about Y" → (scope X, condition Y)."""
    body = re.sub(r"^\s*,?\s*", "", text)
    m = re.match(
        r"^\s*only\s+(?:notify|tell|alert|ping|show)(?:\s+me)?\s+(?:about|of|for|"
        r"when|if)?\s*(.*)$",
        body,
        re.I,
    )
    if m:
        rest = m.group(1)
        c = _CONNECTOR.search(rest)
        if c:
            return rest[: c.start()], rest[c.end() :]
        return "", rest
    c = re.search(r"\bonly\s+(?:if|when|that|who|where)\b", body, re.I)
    if c:
        return body[: c.start()], body[c.end() :]
    c = re.search(r"\bonly\b", body, re.I)
    if c:
        return body[: c.start()], body[c.end() :]
    c = re.search(r"\bunless\b", body, re.I)
    if c:
        return body[: c.start()], body[c.end() :]
    return body, ""


@lru_cache(maxsize=256)
def _compile_cached(section: str, text: str, line: int) -> CompiledRule:
    return compile_rule(Rule(section, text, line))


def compile_rules(rules: list[Rule]) -> list[CompiledRule]:
    return [_compile_cached(r.section, r.text, r.line_number) for r in rules]
