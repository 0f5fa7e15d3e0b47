"""Reading one clause of a rule into a ``Match``, one small extractor per aspect.

An extractor takes the text still to read and returns what it found and the text it leaves
for the next. ``parse_fragment`` runs them in three passes:

1. literals are taken out: quoted phrases, addresses, domains, asides in parentheses (the
   asides are read last, once it is known what else the clause names);
2. keywords are read from what is left, folded to lower case. They take nothing out: "Zoom"
   is a kind of call and may also be read as a name later;
3. phrases are taken out in turn: a subject in capitals, a named chat, topics, names.

Last, ``settle`` adds what the conditions imply (a named chat is on WhatsApp, a calendar
condition is about the calendar) and drops duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, replace
from datetime import timedelta
from typing import Any

from engine.triage.classifier import fold, words
from engine.triage.rules.match import Match
from engine.triage.rules.names import VOCAB, example_list, name_list
from engine.triage.rules.vocab import CATEGORY_WORDS, NUMBER_WORDS, ROLE_WORDS, SOURCE_WORDS, STOP

Extracted = tuple[Match, str]
"""(the conditions an extractor found, the text it leaves for the next)"""

NOTHING = Match()

QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]{1,80})[\"“”„«»]|(?<![\w])'([^']{1,80})'(?![\w])")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
DOMAIN = re.compile(r"(?<![\w.@-])@?((?:[a-z0-9][a-z0-9-]*\.)+[a-z]{2,})(?![\w-])", re.I)
PARENS = re.compile(r"\(([^()]*)\)")
MAX_COUNT = 1_000_000
MAX_WITHIN = timedelta(days=36_525)
"""A rule's "within N days" is held to a century: any longer means the same, and a date that
far off could not be computed."""

DURATION = re.compile(
    r"\b(?:in|within|during)\s+(?:the\s+)?(?:next\s+)?(?:less than\s+|under\s+)?"
    r"(\d+|an?|one|two|three|four|five|six|seven|twelve)\s*"
    r"(minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b",
    re.I,
)
ABOUT = re.compile(
    r"\b(?:about|regarding|concerning|related to|on the topic of)\s+(.+?)"
    r"(?=$|[.;:!?]|\bonly\b|\bif\b|\bwhen\b|\bunless\b|\bfrom\b|\bnot\b|,\s*"
    r"(?:always|never|tell|notify|whoever|even))",
    re.I,
)


def combine(found: Match, more: Match) -> Match:
    """Conditions of two extractors together: sets are joined, lists appended, and a value
    ``more`` sets (a flag, a number) replaces ``found``'s default."""
    changes: dict[str, Any] = {}
    for f in fields(Match):
        mine, theirs = getattr(found, f.name), getattr(more, f.name)
        if isinstance(mine, frozenset):
            changes[f.name] = mine | theirs
        elif isinstance(mine, tuple):
            changes[f.name] = mine + theirs
        elif theirs != f.default:
            changes[f.name] = theirs
    return replace(found, **changes)


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text) for p in phrases)


def _topic_words(text: str, *, keep_roles: bool = True) -> tuple[str, ...]:
    """The words of ``text`` that can carry a topic (role words such as "boss" too, unless
    ``keep_roles`` is False)."""
    return tuple(
        w
        for w in words(text)
        if w not in STOP and w not in VOCAB and (keep_roles or w not in ROLE_WORDS) and len(w) > 2
    )


# 1. literals --------------------------------------------------------------------------------


def quoted(text: str) -> Extracted:
    """Phrases in quotes: a subject phrase when "subject" or "title" is near, a chat when
    "group", "chat" or "channel" is, else a name. An address in quotes stays for
    ``addresses``."""
    low = fold(text)
    subject_phrases: list[str] = []
    chats: list[str] = []
    names: list[str] = []
    for q1, q2 in QUOTED.findall(text):
        q = q1 or q2
        at = low.find(fold(q))
        after, before = low[at + len(q) :][:40], low[:at][-30:]
        if re.search(r"\b(subject|title)\b", after + " " + before):
            subject_phrases.append(q)
        elif re.search(r"\b(group|chat|channel)\b", after[:25] + " " + before[-12:]):
            chats.append(q)
        else:
            names.append(q)
    found = Match(names=tuple(names), chats=tuple(chats), subject_phrases=tuple(subject_phrases))
    return found, QUOTED.sub(_addresses_in_quotes, text)


def _addresses_in_quotes(quote: re.Match[str]) -> str:
    inside = EMAIL.findall(quote.group(0))
    return f" {' '.join(inside)} " if inside else " "


def addresses(text: str) -> Extracted:
    """E-mail addresses: bob@example.com."""
    found = tuple(fold(a) for a in EMAIL.findall(text))
    return Match(addresses=found), EMAIL.sub(" ", text)


def domains(text: str) -> Extracted:
    """Domains: example.org, @example.org."""
    found = tuple(fold(d) for d in DOMAIN.findall(text))
    return Match(domains=found), DOMAIN.sub(" ", text)


def asides(text: str) -> tuple[tuple[str, ...], str]:
    """What is said in parentheses, taken out to be read last (``aside_names``)."""
    return tuple(PARENS.findall(text)), PARENS.sub(" ", text)


# 2. keywords (read from folded text, which they leave as it is) -----------------------------


def sources(low: str) -> Extracted:
    """Email, WhatsApp, calendar words."""
    return Match(sources=frozenset(s for s, v in SOURCE_WORDS.items() if _has(low, v))), low


def categories(low: str) -> Extracted:
    """Kinds of sender: newsletters, promotions, social networks, automated tools, people."""
    return Match(categories=frozenset(c for c, v in CATEGORY_WORDS.items() if _has(low, v))), low


def event_kinds(low: str) -> Extracted:
    """Reminders; invitations and new events."""
    kinds: set[str] = set()
    if _has(low, ("reminder", "reminders")):
        kinds.add("calendar.reminder")
    if re.search(r"\b(invitations?|invites?|new (calendar )?events?|new meetings?)\b", low):
        kinds.add("calendar.created")
    return Match(event_types=frozenset(kinds)), low


def group_or_direct(low: str) -> Extracted:
    """Group chats (True) or direct messages (False); a named chat is settled later."""
    group: bool | None = None
    if re.search(r"\bgroups?\b|\bgroup (chats?|messages?)\b", low):
        group = True
    if re.search(r"\b(direct|private|one[- ]on[- ]one|1:1) (messages?|chats?)\b", low):
        group = False
    return Match(group=group), low


def mentions(low: str) -> Extracted:
    """The user is @-mentioned or tagged."""
    said = re.search(
        r"(\bmentions? me\b|\bmentioned\b|@[- ]?mention|\btags? me\b|\btagged\b|@me\b)", low
    )
    return Match(mentions_me=True if said else None), low


def added_today(low: str) -> Extracted:
    """Calendar events added today."""
    said = re.search(r"\b(added|created|scheduled|booked|new) today\b", low)
    return Match(added_today=bool(said)), low


def calendar_changes(low: str) -> Extracted:
    """Cancelled or moved events; cancelled alone is also a kind of event."""
    change = bool(
        re.search(r"\b(cancel+ed|cancel+ations?|rescheduled|moved|postponed|time changes?)\b", low)
    )
    cancelled = re.search(r"\b(cancel+ed|cancel+ations?)\b", low) and not re.search(
        r"\b(rescheduled|moved|postponed|changed)\b", low
    )
    kinds = frozenset({"calendar.cancelled"}) if cancelled else frozenset()
    return Match(calendar_change=change, event_types=kinds), low


def recurring(low: str) -> Extracted:
    """Recurring events; kept by ``settle`` only when the clause is about the calendar."""
    said = re.search(r"\b(recurring|repeating|daily|weekly|regular)\b", low)
    return Match(recurring=True if said else None), low


def place(low: str) -> Extracted:
    """In-person events, or video calls (in person wins when both are said)."""
    in_person = re.search(
        r"\b(in[- ]person|physical(ly)?|on[- ]site|face[- ]to[- ]face|real location|a location)\b",
        low,
    )
    video = re.search(r"\b(video|zoom|google meet|teams|online|virtual)\b", low)
    if in_person:
        return Match(in_person=True), low
    return Match(video=True if video else None), low


def anything(low: str) -> Extracted:
    """ "Anything", "everything", "all messages"."""
    said = re.search(r"\b(anything|everything|all (messages|notifications))\b", low)
    return Match(anything=bool(said)), low


KEYWORDS: tuple[Callable[[str], Extracted], ...] = (
    sources,
    categories,
    event_kinds,
    group_or_direct,
    mentions,
    added_today,
    calendar_changes,
    recurring,
    place,
    anything,
)


# 3. phrases ---------------------------------------------------------------------------------


def subject_in_capitals(text: str) -> Extracted:
    """ "with URGENT in the subject"."""
    m = re.search(r"\bwith ([A-Z][A-Z0-9 !-]{1,40}?) in the (?:subject|title)", text)
    if not m:
        return Match(), text
    return Match(subject_phrases=(m.group(1).strip(),)), text.replace(m.group(1), " ")


def named_chat(text: str) -> Extracted:
    """ "in the Book Club group", "in the Family WhatsApp chat"."""
    m = re.search(
        r"\bin the ([A-Z][\w'’&. -]{1,60}?)\s+(?:whatsapp\s+)?(?:group|chat)\b", text, re.I
    )
    if not m or not any(c.isupper() for c in m.group(1)):
        return Match(), text
    return Match(chats=(m.group(1).strip(),)), text.replace(m.group(1), " ")


def about_phrase(text: str) -> str:
    """What follows "about" (or "regarding", ...) up to the next clause, or ""."""
    m = ABOUT.search(text)
    return m.group(1) if m else ""


def about(text: str) -> Extracted:
    """ "about X": a list of people ("about Mãe, Pai or the school") is names and stays in
    the text; anything else is topics and is taken out."""
    phrase = about_phrase(text)
    if not phrase:
        return Match(), text
    people = name_list(phrase)
    other = [
        w
        for w in words(phrase)
        if w not in STOP and w not in ROLE_WORDS and not any(w in words(n) for n in people)
    ]
    if people and not other:
        return Match(names=tuple(people)), text
    return Match(topics=_topic_words(phrase)), text.replace(phrase, " ")


def topic_at_head(text: str, found: Match = NOTHING) -> Extracted:
    """ "Invoices from ...": the words before "from" are a topic, and one of them is enough.
    Only when no topic was found yet."""
    head = re.match(r"^\s*(?:the\s+|any\s+|all\s+)?([a-z][a-z ]{2,40}?)\s+from\b", text, re.I)
    if found.topics or not head:
        return Match(), text
    topics = _topic_words(head.group(1), keep_roles=False)
    return (Match(topics=topics, topic_min=1) if topics else Match()), text


def topic_of_events(low: str, found: Match = NOTHING) -> Extracted:
    """ "Reminders for the dentist", "meetings called Sprint Planning": the words after the
    connector are a topic. Reads folded text; only when no topic was found yet."""
    connector = r"\b(?:for|about|of|called|titled)\b"
    events = r"\b(reminders?|meetings?|events?|invitations?|invites?)\s+"
    if found.topics or not re.search(events + connector, low):
        return Match(), low
    tail = re.split(connector, low, maxsplit=1)[1]
    return Match(topics=_topic_words(tail, keep_roles=False)), low


def starts_within(text: str, low: str) -> Extracted:
    """ "starts within 2 hours", "in the next 30 minutes": ``text`` gives the duration, and the
    whole clause (folded, ``low``) must say it is about a start. Leaves the text as it is:
    the words around the duration are still read for names."""
    m = DURATION.search(text)
    verb = r"\b(start|starts|starting|begin|begins|happen|happens|in|within)\b"
    if not m or not re.search(verb, low):
        return Match(), text
    count, unit = m.group(1).lower(), m.group(2).lower()
    n = NUMBER_WORDS.get(count) or min(int(count[:9]), MAX_COUNT)  # no overflow, however long
    if unit.startswith("m"):
        step = timedelta(minutes=1)
    elif unit.startswith("h"):
        step = timedelta(hours=1)
    elif unit.startswith("w"):
        step = timedelta(weeks=1)
    else:
        step = timedelta(days=1)
    return Match(starts_within=min(n * step, MAX_WITHIN)), text


def names(text: str, found: Match = NOTHING, topic_phrase: str = "") -> Extracted:
    """Capitalised names left in the text, but not a subject phrase already found nor, when
    the clause has topics, anything inside its topic phrase (``topic_phrase``)."""
    subjects = {fold(p) for p in found.subject_phrases}
    topic = fold(topic_phrase) if found.topics else None
    kept = tuple(
        n
        for n in name_list(text)
        if fold(n) not in subjects and not (topic is not None and fold(n) in topic)
    )
    for n in kept:
        pattern = r"\s+".join(re.escape(t) for t in n.split())
        text = re.sub(rf"(?<![\w'’&-]){pattern}(?![\w'’&-])", " ", text)
    return Match(names=kept), text


def aside_names(notes: tuple[str, ...], found: Match, *, quoted: bool) -> Match:
    """Names in asides: a list of examples when the clause names a category or no one else
    ("Newsletters (Substack, Morning Brew, etc.)"), and "saved as X" when nothing is quoted."""
    found_names: list[str] = []
    for inner in notes:
        named_else = found.names or found_names or found.chats or found.domains or found.addresses
        if example_list(inner) and (found.categories or not named_else):
            found_names += name_list(inner)
        saved = re.search(r"saved as\s+(\S+)", inner, re.I)
        if saved and not quoted:
            found_names.append(saved.group(1).strip(".,'\""))
    return Match(names=tuple(found_names))


def settle(found: Match, low: str) -> Match:
    """What the conditions imply, once all are read. A named chat is more than "a group";
    "weekly" is a recurring event only in a clause about the calendar; a named chat, a group
    or a mention is on WhatsApp, a calendar condition on the calendar; a name ending in "bot"
    is the bot category when the clause speaks of bots. Duplicates are dropped."""
    names = found.names
    if "automated" in found.categories and re.search(r"\bbots?\b", low):
        names = tuple(n for n in names if not re.search(r"bot\b", fold(n)))
    group = None if found.group and found.chats else found.group
    calendar = "calendar" in found.sources or found.starts_within is not None
    is_recurring = found.recurring if calendar else None
    kept = set(found.sources)
    if found.chats:
        kept.add("whatsapp")
    if calendar or found.added_today or found.calendar_change or is_recurring:
        kept.add("calendar")
    if found.in_person or found.video:
        kept.add("calendar")
    if group is not None or found.mentions_me is not None:
        kept.discard("email")
        kept.add("whatsapp")
    return replace(
        found,
        sources=frozenset(kept),
        names=tuple(dict.fromkeys(n for n in names if n)),
        domains=tuple(dict.fromkeys(found.domains)),
        addresses=tuple(dict.fromkeys(found.addresses)),
        topics=tuple(dict.fromkeys(found.topics)),
        group=group,
        recurring=is_recurring,
    )


def _step(found: Match, extracted: Extracted) -> Extracted:
    more, text = extracted
    return combine(found, more), text


def parse_fragment(raw: str) -> Match:
    """Read one clause of a rule into a Match, running the extractors in the order above.
    Besides the text left, two things are passed on: the folded text after the literals
    (``low``), which keywords, event topics and the start window read whole, and the topic
    phrase, whose words are not taken for senders' names."""
    whole = raw.strip()
    found, text = Match(), whole
    for literal in (quoted, addresses, domains):
        found, text = _step(found, literal(text))
    notes, text = asides(text)
    low = fold(text)
    for keyword in KEYWORDS:
        found, _ = _step(found, keyword(low))
    for phrase in (subject_in_capitals, named_chat):
        found, text = _step(found, phrase(text))
    topic_phrase = about_phrase(text)
    found, text = _step(found, about(text))
    found, text = _step(found, topic_at_head(text, found))
    found, _ = _step(found, topic_of_events(low, found))
    found, _ = _step(found, starts_within(text, low))
    found, _ = _step(found, names(text, found, topic_phrase))
    found = combine(found, aside_names(notes, found, quoted=QUOTED.search(whole) is not None))
    return settle(found, low)
