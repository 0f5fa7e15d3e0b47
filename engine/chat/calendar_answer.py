"""Calendar questions by any day, in every supported language ("what do I have on
Wednesday?", "¿qué tengo el 14?", "Termine nächste Woche?", "when is my next meeting?"),
and their answers composed from ``upcoming_calendar``'s result in the question's language.

A question is read only when all its words are: a calendar word or question ([calendar]),
one day or period (``engine.chat.days``) and function words; anything else is left to the
rest of the chat. With no calendar connected the answer says so, and how to connect one."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.chat.answers import local_moment
from engine.chat.compose import escape, short
from engine.chat.days import Period, calendar_period, read_days
from engine.chat.reading import Reading
from engine.chat.replies import Words, upper_first, words

MAX_HOURS = 24 * 366  # upcoming_calendar's furthest look ahead
TITLE_CHARS = 80
PLACE_CHARS = 60


@dataclass(frozen=True)
class CalendarQuestion:
    language: str
    period: Period

    def hours(self, now: datetime) -> int:
        """How far ahead ``upcoming_calendar`` must look to see the whole period."""
        ahead = (self.period.end - now).total_seconds() / 3600
        return max(1, min(MAX_HOURS, math.ceil(ahead)))


def calendar_question(message: str, now: datetime) -> CalendarQuestion | None:
    """The calendar question ``message`` asks, or None when it asks none (or names a day
    that has passed, which the calendar look-up cannot see)."""
    if len(message) > 300:
        return None
    reading = Reading(message)
    asked = reading.take("calendar.next_event", "calendar.asks")
    if not asked:
        return None
    when = read_days(reading)
    if when is None or not reading.all_read():
        return None
    period = calendar_period(when, now, next_event="calendar.next_event" in asked)
    if period is None:
        return None
    return CalendarQuestion(reading.language(), period)


def no_calendar(language: str) -> str:
    """No calendar account and no calendar event in the store: said, with how to connect."""
    return words(language).text("no_calendar")


def span_words(w: Words, period: Period, *, heading: bool) -> str:
    """How an answer names the period: as its heading ("Wednesday 12 November") or within a
    sentence ("on Wednesday 12 November", "tomorrow afternoon")."""
    pick = w.heading if heading else w.inline
    if period.name in ("date", "tomorrow", "day_after_tomorrow") and period.part is not None:
        day = w.full_date(period.day) if period.name == "date" and period.day else pick(period.name)
        if period.name == "date" and not heading:
            day = w.inline("on_date", date=day)
        part = w.table["parts"][("morning", "afternoon", "evening").index(period.part)]
        return w.text("with_part", day=day, part=part)
    if period.name == "date" and period.day is not None:
        return pick("on_date", date=w.full_date(period.day))
    return pick(period.name)


def _title(w: Words, event: dict[str, Any]) -> str:
    title = escape(short(str(event.get("subject") or ""), TITLE_CHARS)) or "…"
    place = escape(short(str(event.get("location") or ""), PLACE_CHARS))
    return f"{title} ({place})" if place else title


def calendar_answer(question: CalendarQuestion, events: list[dict[str, Any]], now: datetime) -> str:
    """The events of the period, in the question's language: "Tomorrow: 15:00 Roof
    inspection." or "Nothing on your calendar on Wednesday 12 November."."""
    w, period = words(question.language), question.period
    inside = []
    for event in events:
        moment = local_moment(event.get("start"), now)
        if moment is not None and period.start <= moment < period.end:
            inside.append((moment, event))
    inside.sort(key=lambda pair: pair[0])
    if period.name == "next":
        inside = inside[:1]
    if not inside:
        return w.text("nothing_on_calendar", span=span_words(w, period, heading=False))
    one_day = period.day is not None or period.name in ("today", "tomorrow")
    lines = []
    for moment, event in inside:
        day = "" if one_day else f"{upper_first(w.day_name(moment.date(), now.date()))} "
        lines.append(f"{day}{moment:%H:%M} {_title(w, event)}")
    heading = upper_first(span_words(w, period, heading=True))
    if len(lines) == 1:
        line = lines[0]
        return f"{heading}: {line}" + ("" if line.endswith((".", "!", "?", "…")) else ".")
    return f"{heading}:\n" + "\n".join(f"- {line}" for line in lines)


def calendar_reply(question: CalendarQuestion, status: str, result: str, now: datetime) -> str:
    """The answer from ``upcoming_calendar``'s outcome (a failure said as it is)."""
    if status != "done":
        return f"I couldn't look at your calendar: {result}"
    try:
        found = json.loads(result)
    except ValueError:
        found = None
    if not isinstance(found, list):
        return f"I couldn't read what the calendar look-up returned: {short(result, 200)}"
    return calendar_answer(question, [e for e in found if isinstance(e, dict)], now)
