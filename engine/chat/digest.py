"""What did I miss? A digest of what arrived in a stretch of time, gathered from the store:
the messages TIC notified, each with who wrote and what they asked, then the rest counted
by kind ("5 newsletters", the classifier's kinds) and by sender ("2 from GitHub"), and what
TIC has not checked yet.

``digest_request`` reads the question in any supported language ("what did I miss?",
"summarise my unread mail", "anything important today?", "¿qué me perdí desde el
lunes?"); ``gather`` turns the stored events into a ``Digest``, the ``digest`` tool's result
(``engine.agent.tools.digest``), which ``engine.chat.digest_answer`` words. Every line of
the answer comes from the events' own fields."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from engine.chat.days import Period, digest_period, read_days
from engine.chat.facts import ASKS
from engine.chat.reading import Reading
from engine.events import Event
from engine.store.recent import StoredEvent
from engine.triage.classifier import Classification, classify
from engine.triage.classifier.text import domain_of, registrable

TOLD_LISTED = 20  # notified messages a digest lists (the rest are counted)
QUESTION_CHARS = 160
SENTENCE = re.compile(r"[¿¡]?[^.!?¿¡\n]+[.!?]*")

# The kinds a message not notified is counted as, the first it has winning: what says most
# about it first. A person writing directly is counted by who they are, not by kind; code
# hosting, trackers and monitoring by the service that sent it ("2 from GitHub").
COUNTED_KINDS = (
    "phishing",
    "billing_problem",
    "security",
    "login_code",
    "newsletter",
    "mailing_list",
    "promotion",
    "receipt",
    "shipping",
    "travel",
    "booking",
    "calendar_reply",
    "social",
    "product_update",
    "event_invite",
    "hiring",
    "sales",
    "auto_reply",
    "account",
)
BY_SERVICE = frozenset({"dev", "tracker", "monitoring", "incident"})


@dataclass(frozen=True)
class DigestRequest:
    """A question about what arrived: its language, the period it names (None: since the
    user last looked) and the source it is about ("any", "email", "whatsapp")."""

    language: str
    period: Period | None = None
    source: str = "any"

    def arguments(self) -> dict[str, str]:
        """The ``digest`` tool's arguments for it."""
        args = {"source": self.source}
        if self.period is not None:
            args["since"] = self.period.start.isoformat()
            args["until"] = self.period.end.isoformat()
        return args


def digest_request(message: str, now: datetime) -> DigestRequest | None:
    """The digest ``message`` asks for, or None when it asks for none (every word must be
    read: "what did I miss at the dentist?" is not one)."""
    if len(message) > 300:
        return None
    reading = Reading(message)
    if not reading.take("digest.asks"):
        return None
    narrowed = {k.removeprefix("digest.") for k in reading.take("digest.email", "digest.whatsapp")}
    reading.take("digest.about")
    when = read_days(reading)
    if when is None or not reading.all_read():
        return None
    period = None
    if when.named or when.part is not None:
        period = digest_period(when, now)
        if period is None:  # a day still to come: no digest of it
            return None
    source = narrowed.pop() if len(narrowed) == 1 else "any"
    return DigestRequest(reading.language(), period, source)


# --- the digest ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """A message TIC notified, as the digest lists it."""

    source: str
    time: str
    who: str
    chat: str | None = None
    subject: str | None = None
    asks: str | None = None  # the sentence that asks something, as written
    text: str = ""
    start: str | None = None  # a calendar event's start


@dataclass(frozen=True)
class Group:
    """Messages not notified, counted together: by ``kind``, by ``who`` sent them, or by the
    group ``chat`` they were written in."""

    count: int
    kind: str | None = None
    who: str | None = None
    chat: str | None = None


@dataclass(frozen=True)
class Digest:
    since: str
    until: str
    looked: str  # where ``since`` came from: "digest", "message", "period" or "default"
    told: list[Told] = field(default_factory=list)
    told_total: int = 0
    rest: list[Group] = field(default_factory=list)
    rest_total: int = 0
    unchecked: int = 0

    @property
    def total(self) -> int:
        return self.told_total + self.rest_total + self.unchecked

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Digest:
        return cls(
            since=str(value["since"]),
            until=str(value["until"]),
            looked=str(value.get("looked", "default")),
            told=[Told(**t) for t in value.get("told", [])],
            told_total=int(value.get("told_total", 0)),
            rest=[Group(**g) for g in value.get("rest", [])],
            rest_total=int(value.get("rest_total", 0)),
            unchecked=int(value.get("unchecked", 0)),
        )


def gather(stored: Sequence[StoredEvent], since: datetime, until: datetime, looked: str) -> Digest:
    """The digest of ``stored`` (oldest first): what TIC notified, listed; the rest counted."""
    told: list[Told] = []
    told_total = unchecked = 0
    counts: Counter[tuple[str, str]] = Counter()
    names: dict[tuple[str, str], Counter[str]] = {}
    for item in stored:
        if item.notified is None:
            unchecked += 1
        elif item.notified:
            told_total += 1
            if len(told) < TOLD_LISTED:
                told.append(_told(item.event))
        else:
            key, name = _group_of(item.event, classify(item.event))
            counts[key] += 1
            names.setdefault(key, Counter())[name] += 1
    rest = [_group(key, count, names[key]) for key, count in counts.most_common()]
    return Digest(
        since=since.isoformat(),
        until=until.isoformat(),
        looked=looked,
        told=told,
        told_total=told_total,
        rest=rest,
        rest_total=sum(counts.values()),
        unchecked=unchecked,
    )


def _who(event: Event) -> str:
    person = event.calendar.organizer if event.calendar and event.calendar.organizer else None
    person = person or event.sender
    name = (person.name or person.address or "") if person else ""
    if not name and event.chat is not None:
        name = event.chat.name or ""
    return " ".join(name.split())


def asked(event: Event) -> str | None:
    """The sentence of a message that asks something: the first with a question mark, else
    the first that asks in words ("please …", "por favor …")."""
    sentences = [s.strip() for s in SENTENCE.findall(" ".join(event.text.split()))]
    for sentence in sentences:
        if "?" in sentence:
            return sentence[:QUESTION_CHARS]
    for sentence in sentences:
        if ASKS.search(sentence):
            return sentence[:QUESTION_CHARS]
    return None


def _told(event: Event) -> Told:
    chat = event.chat.name if event.chat is not None and event.chat.is_group else None
    start = event.calendar.start if event.calendar is not None else None
    return Told(
        source=event.source,
        time=event.time.isoformat(),
        who=_who(event),
        chat=chat,
        subject=" ".join((event.subject or "").split()) or None,
        asks=asked(event) if event.source != "calendar" else None,
        text=" ".join(event.text.split())[:QUESTION_CHARS],
        start=start.isoformat() if start is not None else None,
    )


def _group_of(event: Event, kinds: Classification) -> tuple[tuple[str, str], str]:
    """What a message not notified is counted as, and the name it is counted under."""
    if event.source == "whatsapp":
        if event.chat is not None and event.chat.is_group and event.chat.name:
            return ("chat", event.chat.name), event.chat.name
        who = _who(event)
        return ("who", who), who
    if event.source == "calendar":
        return ("kind", "calendar"), ""
    person = kinds.has("person") and not kinds.has("automated")
    if not person and not kinds.names & BY_SERVICE:
        kind = next((k for k in COUNTED_KINDS if kinds.has(k)), None)
        if kind is not None:
            return ("kind", kind), ""
    who = _who(event)
    address = event.sender.address if event.sender else None
    if person:
        return ("who", (address or who).casefold()), who
    service = registrable(domain_of(address)) or who.casefold()
    return ("service", service), who


def _group(key: tuple[str, str], count: int, names: Counter[str]) -> Group:
    how, value = key
    if how == "kind":
        return Group(count, kind=value)
    if how == "chat":
        return Group(count, chat=value)
    if how == "who":
        return Group(count, who=names.most_common(1)[0][0] or value)
    shown = [name for name in names if name]
    return Group(count, who=shown[0] if len(shown) == 1 else value)
