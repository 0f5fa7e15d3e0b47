"""A day or a period in the user's words, in every supported language: "on Wednesday", "on
the 14th", "14/12", "December 14", "next week", "this afternoon", "since Monday", "mañana
por la tarde". The words are the language data's (``[dates]``, ``[weekdays]`` and the month
names of ``[replies]``); what they mean is decided here, and so is the stretch of time they
name: ahead for the calendar, back for a digest of what arrived.

A message that names two days ("today and tomorrow") names none: it is not guessed at."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import cache

from engine.chat.reading import Reading
from engine.triage.classifier.text import fold
from engine.triage.language import LANGUAGES, language, raw_table

PARTS = ("morning", "afternoon", "evening")
PART_HOURS = {"morning": (0, 12), "afternoon": (12, 18), "evening": (18, 24)}
RELATIVE = {"today": 0, "tomorrow": 1, "yesterday": -1, "day_after_tomorrow": 2}
THIS_PART = {"this_morning": "morning", "this_afternoon": "afternoon", "this_evening": "evening"}
DAY_KEYS = (*RELATIVE, *THIS_PART, "this_week", "next_week", "weekend", *PARTS)
COMING_HOURS = 48  # a calendar question that names no day: the next two days
NEXT_DAYS = 14  # "when is my next meeting?": the first one in the next two weeks


@dataclass(frozen=True)
class When:
    """What the words said about a day: at most one day, and a part of it."""

    relative: int | None = None  # days from today
    weekday: int | None = None  # 0 = Monday
    next: bool = False  # "next Wednesday"
    day: int | None = None
    month: int | None = None
    year: int | None = None
    week: int | None = None  # 0 this week, 1 next week
    weekend: bool = False
    part: str | None = None  # one of PARTS
    since: bool = False  # "since Monday"

    @property
    def named(self) -> bool:
        """A day or a stretch of days was named (a part of the day alone is not one)."""
        return (
            self.relative is not None
            or self.weekday is not None
            or self.day is not None
            or self.week is not None
            or self.weekend
        )


@dataclass(frozen=True)
class Period:
    """A stretch of time a question names. ``name`` is a ``[replies]`` key ("today",
    "next_week", …), "date" for a day named by its date or weekday, "since" for "since
    Monday", "coming" or "next" for a calendar question naming none; ``day`` is the day of a
    "date" or "since" period; ``part`` one of PARTS."""

    start: datetime
    end: datetime
    name: str
    day: date | None = None
    part: str | None = None


# --- reading the words ----------------------------------------------------------------------


@cache
def _month_names() -> dict[str, tuple[int, tuple[str, ...]]]:
    """Every language's month names and their short forms, folded: → (month, languages)."""
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for code, table in raw_table("replies").items():
        for names in (table["months"], table["months_short"]):
            for number, name in enumerate(names, start=1):
                key = fold(name).rstrip(".")
                month, codes = out.get(key, (number, ()))
                out[key] = (month, codes if code in codes else (*codes, code))
    return out


@cache
def _weekday_names() -> dict[str, tuple[int, tuple[str, ...]]]:
    """Every language's weekday names ([weekdays]), folded: → (weekday, languages)."""
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for code in LANGUAGES:
        for name, number in language(code).weekdays.items():
            day, codes = out.get(name, (number, ()))
            out[name] = (day, (*codes, code))
    return out


def _alternation(names: Iterable[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))


ISO = re.compile(r"(?<![\d/.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d/])")
NUMERIC = re.compile(r"(?<![\d/.:])(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?\.?(?![\d/:])")
ORDINAL = r"(?:st|nd|rd|th|er|eme|e|o|\.)?"


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    months = _alternation(_month_names())
    day_month = re.compile(
        rf"(?<![\w.])(\d{{1,2}}){ORDINAL}\s*(?:de\s+|of\s+|di\s+)?({months})\.?(?![\w])"
        r"(?:,?\s+(?:de\s+)?(\d{4}))?"
    )
    month_day = re.compile(
        rf"(?<![\w])({months})\.?\s+(?:the\s+)?(\d{{1,2}}){ORDINAL}(?![\w:])(?:,?\s+(\d{{4}}))?"
    )
    weekdays = re.compile(rf"(?<![\w-])({_alternation(_weekday_names())})s?(?![\w-])")
    day_of_month = re.compile(
        r"(?<![\w])(?:on\s+the|the|el\s+dia|el|le|il|am|den|no\s+dia|dia|op\s+de)\s+"
        rf"(\d{{1,2}}){ORDINAL}(?![\w:])(?!\s*h\d)|(?<![\w])(\d{{1,2}})(?:st|nd|rd|th)(?![\w])"
    )
    return day_month, month_day, weekdays, day_of_month


@dataclass
class _Named:
    """What a reading's words name, in the order read: the days, where each one's words
    begin (for "since") and the parts of a day."""

    days: list[When] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    def add(self, when: When, start: int) -> None:
        self.days.append(when)
        self.starts.append(start)


def read_days(reading: Reading) -> When | None:
    """What ``reading``'s text says about a day, its words taken out of it; None when it
    names two (nothing named is ``When()``)."""
    named = _Named()
    day_month, month_day, weekdays, day_of_month = _patterns()
    for m in reading.find(ISO):
        named.add(When(year=int(m.group(1)), month=int(m.group(2)), day=int(m.group(3))), m.start())
    for m in reading.find(NUMERIC):
        named.add(_numeric(m), m.start())
    for pattern, day_group, month_group in ((day_month, 1, 2), (month_day, 2, 1)):
        for m in reading.find(pattern):
            month, codes = _month_names()[m.group(month_group)]
            reading.vote(codes, len(m.group(month_group)))
            year = int(m.group(3)) if m.group(3) else None
            named.add(When(day=int(m.group(day_group)), month=month, year=year), m.start())
    _day_phrases(reading, named)
    for m in reading.find(weekdays):
        number, codes = _weekday_names()[m.group(1)]
        reading.vote(codes, len(m.group(1)))
        named.add(When(weekday=number), m.start())
    for m in reading.find(day_of_month):
        named.add(When(day=int(m.group(1) or m.group(2))), m.start())
    return _the_one_day(reading, named)


def _day_phrases(reading: Reading, named: _Named) -> None:
    """The language data's words for a day, a week or a part of a day ("tomorrow", "next
    week", "this afternoon"), taken out of ``reading``."""
    for phrase in reading.spans(*(f"dates.{k}" for k in DAY_KEYS)):
        reading.take_phrase(phrase)
        name = phrase.key.removeprefix("dates.")
        if name in PARTS:
            named.parts.append(name)
            continue
        if name in THIS_PART:
            named.add(When(relative=0), phrase.start)
            named.parts.append(THIS_PART[name])
        elif name in RELATIVE:
            named.add(When(relative=RELATIVE[name]), phrase.start)
        elif name == "weekend":
            named.add(When(weekend=True), phrase.start)
        else:
            named.add(When(week=0 if name == "this_week" else 1), phrase.start)


def _the_one_day(reading: Reading, named: _Named) -> When | None:
    """The one day ``named`` holds with its part of the day, "next" and "since" (taken out of
    ``reading``); None when it holds two days or two parts."""
    found = list(dict.fromkeys(named.days))
    if len(found) > 1 or len(set(named.parts)) > 1:
        return None
    when = found[0] if found else When()
    if named.parts:
        when = replace(when, part=named.parts[0])
    if when.weekday is not None and reading.take("dates.next"):
        when = replace(when, next=True)
    if named.starts and _since(reading, named.starts[0]):
        when = replace(when, since=True)
    return when


def _numeric(m: re.Match[str]) -> When:
    """ "14/12", "14.12.", "12/14/2026": day first, unless only the second number can be
    the day."""
    first, second = int(m.group(1)), int(m.group(2))
    if second > 12 >= first:
        first, second = second, first
    return When(day=first, month=second, year=_year(m.group(3)))


def _year(text: str | None) -> int | None:
    if not text:
        return None
    number = int(text)
    return number + 2000 if number < 100 else number


BETWEEN = re.compile(r"\s+(?:[^\W\d_]{1,3}\s+)?")  # "since Monday", "desde el lunes"


def _since(reading: Reading, day_start: int) -> bool:
    """A "since" phrase just before the day's words (at most a short word between) is
    taken, and makes the day where the period starts."""
    for phrase in reading.spans("dates.since"):
        if BETWEEN.fullmatch(reading.folded[phrase.end : day_start]):
            reading.take_phrase(phrase)
            return True
    return False


# --- the stretch of time ----------------------------------------------------------------


def _midnight(day: date, now: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=now.tzinfo)


def _one_day(day: date, now: datetime, part: str | None) -> tuple[datetime, datetime]:
    start = _midnight(day, now)
    if part is None:
        return start, start + timedelta(days=1)
    first, last = PART_HOURS[part]
    return start + timedelta(hours=first), start + timedelta(hours=last)


def _dated(when: When, now: datetime, *, ahead: bool) -> date | None:
    """The day a date names: this year's, or the next one ahead (the last one back) when it
    has passed (is still to come); None for a date that is none (31/02)."""
    today = now.date()
    month = when.month if when.month is not None else today.month
    year = when.year if when.year is not None else today.year
    try:
        day = date(year, month, when.day or 1)
    except ValueError:
        return None
    step = 1 if ahead else -1
    if when.year is None and (day < today if ahead else day > today):
        return _shift(day, years=step) if when.month is not None else _shift(day, months=step)
    return day


def _shift(day: date, *, years: int = 0, months: int = 0) -> date | None:
    index = day.year * 12 + day.month - 1 + years * 12 + months
    try:
        return date(index // 12, index % 12 + 1, day.day)
    except ValueError:
        return None


def _named_day(day: date, today: date, when: When) -> str:
    """Today, tomorrow and yesterday by those names, the day after tomorrow only when the
    user called it that; any other day by its date ("Thursday 12 November")."""
    delta = (day - today).days
    if delta == 2 and when.relative == 2:
        return "day_after_tomorrow"
    return {0: "today", 1: "tomorrow", -1: "yesterday"}.get(delta, "date")


def calendar_period(when: When, now: datetime, *, next_event: bool = False) -> Period | None:
    """The stretch of the calendar a question asks about, from now on (None: a day that
    has passed, or a date that is none)."""
    today = now.date()
    if next_event and not when.named:
        return Period(now, now + timedelta(days=NEXT_DAYS), "next")
    if not when.named:
        if when.part is not None:
            when = replace(when, relative=0)
        else:
            return Period(now, now + timedelta(hours=COMING_HOURS), "coming")
    if when.week is not None:
        monday = _midnight(today - timedelta(days=today.weekday()), now)
        if when.week == 0:
            return Period(now, monday + timedelta(days=7), "this_week")
        return Period(monday + timedelta(days=7), monday + timedelta(days=14), "next_week")
    if when.weekend:
        saturday = _midnight(today + timedelta(days=5 - today.weekday()), now)
        if today.weekday() == 6:
            saturday -= timedelta(days=7)
        return Period(max(now, saturday), saturday + timedelta(days=2), "weekend")
    day = _day_ahead(when, now)
    if day is None or day < today:
        return None
    start, end = _one_day(day, now, when.part)
    if end <= now:
        return None
    name = _named_day(day, today, when)
    if name == "today" and when.part is not None:
        name = f"this_{when.part}"
    return Period(max(start, now), end, name, day, when.part)


def _day_ahead(when: When, now: datetime) -> date | None:
    today = now.date()
    if when.relative is not None:
        return today + timedelta(days=when.relative)
    if when.weekday is not None and when.next:  # "next Wednesday": next week's
        return today + timedelta(days=7 - today.weekday() + when.weekday)
    if when.weekday is not None:
        return today + timedelta(days=(when.weekday - today.weekday()) % 7)
    return _dated(when, now, ahead=True)


def digest_period(when: When, now: datetime) -> Period | None:
    """The stretch of the past a question about what arrived names ("today", "since Monday",
    "this week", "yesterday"); None when it names a day still to come."""
    today = now.date()
    if not when.named and when.part is not None:
        when = replace(when, relative=0)
    if when.week is not None:
        if when.week != 0:
            return None
        monday = _midnight(today - timedelta(days=today.weekday()), now)
        return Period(monday, now, "this_week")
    if when.weekend:
        saturday = _midnight(today - timedelta(days=(today.weekday() - 5) % 7), now)
        return Period(saturday, min(now, saturday + timedelta(days=2)), "weekend")
    day = _day_back(when, now)
    if day is None or day > today:
        return None
    if when.since:
        return Period(_midnight(day, now), now, "since", day)
    start, end = _one_day(day, now, when.part)
    if start >= now:
        return None
    name = _named_day(day, today, when)
    if name == "today" and when.part is not None:
        name = f"this_{when.part}"
    return Period(start, min(end, now), name, day, when.part)


def _day_back(when: When, now: datetime) -> date | None:
    today = now.date()
    if when.relative is not None:
        return today + timedelta(days=when.relative)
    if when.weekday is not None:
        return today - timedelta(days=(today.weekday() - when.weekday) % 7)
    return _dated(when, now, ahead=False)
