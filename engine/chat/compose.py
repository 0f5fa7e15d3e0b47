"""Notification replies composed in code from the facts, for models that cannot be trusted to
write them (and to stand in for a capable model's reply that fails its check).

Every line says who, what and when, in the user's time zone, and a next step where the event
makes it plain. The frame is English; the sender's own words are quoted as they wrote them.
Several notifications at once get a heading line and come most important first."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta, tzinfo

from engine.chat.facts import ASKS, CALL_ME, SOURCE_NOUNS, URGENT, NoteFacts, batch_facts
from engine.chat.wording import SOURCE_LABELS
from engine.events import Event
from engine.sources.mail.text import attachment_summary
from engine.store.models import Notification

DAY_ABBR = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
QUOTE_LIMIT = 160
QUOTE_LIMIT_MANY = 90
TITLE_LIMIT = 100
SOON = timedelta(hours=24)
WEEK = 6  # days ahead that a weekday name alone names unambiguously

# Markdown that would format or link the sender's words; escaped so they show as written.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>#~|])")
_ENDS_SENTENCE = re.compile(r"[.!?…]([\u201d\"')]*)$")


# -- words for times -----------------------------------------------------------------------


def _local(moment: datetime, tz: tzinfo) -> datetime:
    return moment.astimezone(tz)


def _date_words(day: date, today: date) -> str:
    delta = (day - today).days
    if delta == 0:
        return "today"
    if delta == 1:
        return "tomorrow"
    if delta == -1:
        return "yesterday"
    name = DAY_ABBR[day.weekday()]
    if 1 < delta <= WEEK:
        return name
    year = f" {day.year}" if day.year != today.year else ""
    return f"{name} {day.day} {MONTH_ABBR[day.month - 1]}{year}"


def clock(moment: datetime, tz: tzinfo) -> str:
    return f"{_local(moment, tz):%H:%M}"


def when(moment: datetime, now: datetime, tz: tzinfo) -> str:
    """ "today 17:00", "tomorrow 15:00", "Wed 11:00", "Wed 25 Nov 11:00"."""
    local = _local(moment, tz)
    return f"{_date_words(local.date(), _local(now, tz).date())} {local:%H:%M}"


def at(moment: datetime, now: datetime, tz: tzinfo) -> str:
    """When something happens or happened: "at 08:01", "yesterday at 22:10", "on Wed at
    11:00", "on Mon 9 Nov at 08:01"."""
    local = _local(moment, tz)
    day = _date_words(local.date(), _local(now, tz).date())
    if day == "today":
        return f"at {local:%H:%M}"
    if day in ("yesterday", "tomorrow"):
        return f"{day} at {local:%H:%M}"
    return f"on {day} at {local:%H:%M}"


def _all_day(start: datetime, end: datetime, tz: tzinfo) -> bool:
    local = _local(start, tz)
    return (
        (local.hour, local.minute) == (0, 0)
        and (end - start) >= timedelta(days=1)
        and (end - start) % timedelta(days=1) == timedelta(0)
    )


def span(start: datetime, end: datetime | None, now: datetime, tz: tzinfo) -> str:
    """ "today 17:00–17:30", "tomorrow (all day)", "today 22:00 – tomorrow 02:00"."""
    today = _local(now, tz).date()
    if end is not None and _all_day(start, end, tz):
        first_day, last_day = _local(start, tz).date(), _local(end, tz).date() - timedelta(days=1)
        days = _date_words(first_day, today)
        if last_day != first_day:
            days += f" \u2013 {_date_words(last_day, today)}"
        return f"{days} (all day)"
    first = when(start, now, tz)
    if end is None or end <= start:
        return first
    if _local(end, tz).date() == _local(start, tz).date():
        return f"{first}\u2013{clock(end, tz)}"
    return f"{first} \u2013 {when(end, now, tz)}"


# -- words for content ---------------------------------------------------------------------


def escape(text: str) -> str:
    """Event text shown as written: markdown characters are escaped."""
    return _MARKDOWN.sub(r"\\\1", text)


def short(text: str, limit: int) -> str:
    """One line, at most ``limit`` characters, cut on a word boundary with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-\u2013\u2014") + "\u2026"


def quote(text: str, limit: int) -> str:
    return f"\u201c{escape(short(text, limit))}\u201d"


def sentence(text: str) -> str:
    """``text`` ending a sentence: a full stop unless it already ends with one (or ?/!)."""
    text = text.rstrip()
    return text if _ENDS_SENTENCE.search(text) else f"{text}."


def first_name(who: str) -> str:
    """What to call someone in "Call Marco back": a name's first word, an address as is."""
    if "@" in who or who.lstrip("+").replace(" ", "").isdigit():
        return who
    return who.split()[0]


def _phone(address: str | None) -> str | None:
    if address and re.fullmatch(r"\+?[\d ()-]{6,}", address):
        return address
    return None


# -- one notification ----------------------------------------------------------------------


def _next_step(f: NoteFacts) -> str | None:
    """A next step the event makes plain: a call back, a reply, joining a video call."""
    if f.source in ("email", "whatsapp"):
        said = f"{f.title or ''} {f.text}"
        if f.who and CALL_ME.search(said):
            phone = _phone(f.address)
            return f"Call {first_name(f.who)} back" + (f" ({phone})." if phone else ".")
        if ASKS.search(said):
            if f.source == "email":
                return "Reply by email."
            return f"Reply in \u201c{escape(f.chat)}\u201d." if f.chat else "Reply on WhatsApp."
        return None
    if f.is_calendar and f.video and not f.cancelled:
        return "It's a video call: the join link is in the invitation."
    return None


def _place(f: NoteFacts) -> str:
    """Where it happens (a video call is said by the next step)."""
    return f" in {escape(short(f.location, 80))}" if f.location else ""


def _message_line(f: NoteFacts, now: datetime, tz: tzinfo, limit: int) -> str:
    who = escape(f.who) if f.who else "Someone"
    arrived = f" {at(f.received, now, tz)}" if f.received else ""
    if f.source == "email":
        names = _attachments(f)
        only = f.event is not None and f.event.text == attachment_summary(names)
        text = "" if names and only else f.text
        what = quote(f.title, TITLE_LIMIT) if f.title else None
        said = quote(text, limit) if text else None
        sent = _sent(names) if names else None
        content = " \u2014 ".join(p for p in (what, said, sent) if p)
        return f"{who} emailed you{arrived}" + (f": {content}" if content else "")
    said = f": {quote(f.text, limit)}" if f.text else ""
    if f.chat:
        group = f"\u201c{escape(f.chat)}\u201d"
        verb = "mentioned you in" if f.mentions_me else "wrote in"
        return f"{who} {verb} {group} on WhatsApp{arrived}{said}"
    return f"{who} wrote on WhatsApp{arrived}{said}"


SHOWN_ATTACHMENTS = 3


def _attachments(f: NoteFacts) -> list[str]:
    """The file names an email came with, as its source kept them (``refs["attachments"]``)."""
    names = f.event.refs.get("attachments") if f.event is not None else None
    return [n for n in names if isinstance(n, str) and n] if isinstance(names, list) else []


def _sent(names: Sequence[str]) -> str:
    """ "sent 2 attachments: invoice.pdf, photo.jpg" (the first few names, then how many more)."""
    shown = ", ".join(escape(n) for n in names[:SHOWN_ATTACHMENTS])
    more = len(names) - SHOWN_ATTACHMENTS
    if more > 0:
        shown += f" and {more} more"
    noun = "attachment" if len(names) == 1 else "attachments"
    return f"sent {len(names)} {noun}: {shown}"


def _calendar_line(f: NoteFacts, now: datetime, tz: tzinfo) -> str:
    title = quote(f.title, TITLE_LIMIT) if f.title else "an event"
    who = escape(f.who) if f.who else None
    start, place = f.start, _place(f)
    times = span(start, f.end, now, tz) if start else ""
    if f.cancelled:
        detail = f" ({times})" if times else ""
        return f"{who} cancelled {title}{detail}" if who else f"{title}{detail} was cancelled"
    if f.event_type == "calendar.reminder":
        begins = f" {at(start, now, tz)}" if start is not None else " soon"
        by = f" (organised by {who})" if who else ""
        return f"Reminder: {title} starts{begins}{place}{by}"
    if f.moved and f.previous_start is not None and start is not None:
        change = f"from {when(f.previous_start, now, tz)} to {when(start, now, tz)}"
        return f"{who} moved {title} {change}{place}" if who else f"{title} moved {change}{place}"
    detail = f": {times}{place}" if times else place
    if f.event_type == "calendar.created":
        lead = f"{who} added {title} to your calendar" if who else f"New in your calendar: {title}"
        return f"{lead}{detail}"
    return f"{who} changed {title}{detail}" if who else f"{title} changed{detail}"


def _cron_line(f: NoteFacts, now: datetime, tz: tzinfo) -> str:
    text = f.summary.strip()
    due = f" (set for {when(f.received, now, tz)})" if f.received else ""
    if text.lower().startswith("reminder:"):
        return f"Reminder: {escape(text.split(':', 1)[1].strip())}{due}"
    return f"{escape(text)}{due}"


def line(f: NoteFacts, now: datetime, tz: tzinfo, *, limit: int = QUOTE_LIMIT) -> str:
    """One notification in one sentence or two: who, what, when, and a next step."""
    if f.event is None and f.source == "cron":
        body = _cron_line(f, now, tz)
    elif f.event is None:
        body = f"{SOURCE_LABELS.get(f.source, f.source.capitalize())}: {escape(f.summary)}"
    elif f.is_calendar:
        body = _calendar_line(f, now, tz)
    else:
        body = _message_line(f, now, tz, limit)
    step = _next_step(f)
    return " ".join(p for p in (sentence(body), step) if p)


# -- several -------------------------------------------------------------------------------


def time_sensitive(f: NoteFacts, now: datetime) -> bool:
    """Something is about to happen (an event within a day, a reminder) or the sender says
    it is urgent."""
    if f.source == "cron" or f.event_type == "calendar.reminder":
        return True
    soon = [m for m in (f.start, f.previous_start) if m is not None]
    if f.is_calendar and any(now - timedelta(hours=1) <= m <= now + SOON for m in soon):
        return True
    return bool(URGENT.search(f"{f.title or ''} {f.text}"))


def importance(f: NoteFacts, now: datetime) -> int:
    """0 for what the user asked to always hear about or what cannot wait, else 1."""
    return 0 if f.always or time_sensitive(f, now) else 1


def heading(facts: Sequence[NoteFacts]) -> str:
    counts: dict[str, int] = {}
    for f in facts:
        counts[f.source] = counts.get(f.source, 0) + 1
    parts = []
    for source, n in counts.items():
        one, many = SOURCE_NOUNS.get(source, (source, source))
        parts.append(f"{n} {one if n == 1 else many}")
    return f"{len(facts)} new: {', '.join(parts)}."


def compose_facts(facts: Sequence[NoteFacts], now: datetime, tz: tzinfo) -> str:
    if len(facts) == 1:
        return line(facts[0], now, tz)
    ordered = sorted(facts, key=lambda f: importance(f, now))  # stable: arrival order kept
    lines = [f"- {line(f, now, tz, limit=QUOTE_LIMIT_MANY)}" for f in ordered]
    return "\n".join([heading(facts), "", *lines])


def compose(
    batch: Sequence[Notification], events: Mapping[str, Event], now: datetime, tz: tzinfo
) -> str:
    """The reply for a batch of notifications, written from the notifications and the
    stored events they came from (``events``: event id → event)."""
    return compose_facts(batch_facts(batch, events), now, tz)
