"""The words of the answers the chat composes in code, in each supported language: the
``[replies]`` table of ``engine/triage/language/<code>.toml``, used as written. Every
sentence of a digest or a calendar answer is one of its templates; code only fills in the
``{fields}`` from the store, and says days, dates and times the same way everywhere."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any

from engine.triage.language import LANGUAGES, raw_table

WEEK = 6  # days around today that a weekday's name alone names


@dataclass(frozen=True)
class Words:
    """One language's reply words."""

    code: str
    table: Mapping[str, Any]

    def text(self, key: str, **fields: object) -> str:
        return str(self.table[key]).format(**fields)

    def pair(self, key: str) -> tuple[str, str]:
        first, second = self.table[key]
        return str(first), str(second)

    def heading(self, key: str, **fields: object) -> str:
        """The first of a [heading, within a sentence] pair."""
        return self.pair(key)[0].format(**fields)

    def inline(self, key: str, **fields: object) -> str:
        return self.pair(key)[1].format(**fields)

    def counted(self, key: str, count: int, **fields: object) -> str:
        """A [one, several] pair of templates, chosen by ``count`` and filled with it."""
        return self.pair(key)[0 if count == 1 else 1].format(count=count, **fields)

    def number(self, key: str, count: int) -> str:
        """ "1 message", "5 messages": a [one, several] pair of nouns with its count."""
        return f"{count} {self.pair(key)[0 if count == 1 else 1]}"

    def kind(self, kind: str, count: int) -> str:
        one, several = self.table["kinds"][kind]
        return f"{count} {one if count == 1 else several}"

    def kinds(self) -> frozenset[str]:
        return frozenset(self.table["kinds"])

    def source(self, source: str) -> str:
        return str(self.table["sources"].get(source, source))

    def quote(self, text: str) -> str:
        return self.text("quote", text=text)

    def join(self, items: Sequence[str]) -> str:
        """ "a, b and c" in this language."""
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.table['and']} {items[-1]}"

    def weekday(self, day: date) -> str:
        return str(self.table["weekdays"][day.weekday()])

    def full_date(self, day: date) -> str:
        """ "Wednesday 12 November", "miércoles 12 de noviembre"."""
        return self.text(
            "date",
            weekday=self.weekday(day),
            day=day.day,
            month=self.table["months"][day.month - 1],
        )

    def short_date(self, day: date) -> str:
        """ "Wed 12 Nov", "mié 12 nov"."""
        return self.text(
            "short_date",
            weekday=self.table["weekdays_short"][day.weekday()],
            day=day.day,
            month=self.table["months_short"][day.month - 1],
        )

    def day_name(self, day: date, today: date) -> str:
        """A day within a sentence: "today", "tomorrow", "yesterday", "Wednesday" in the
        week around today, else "Wed 12 Nov"."""
        delta = (day - today).days
        if delta in (0, 1, -1):
            return self.inline({0: "today", 1: "tomorrow", -1: "yesterday"}[delta])
        if abs(delta) <= WEEK:
            return self.weekday(day)
        return self.short_date(day)

    def moment(self, moment: datetime, now: datetime) -> str:
        """When something happened, briefly: "07:01", "yesterday 07:01", "Tue 07:01",
        "3 Mar 07:01" (a list line's time)."""
        local, today = moment.astimezone(now.tzinfo), now.date()
        clock = f"{local:%H:%M}"
        delta = (local.date() - today).days
        if delta == 0:
            return clock
        if delta == -1:
            return f"{self.inline('yesterday')} {clock}"
        if -WEEK <= delta < 0:
            return f"{self.table['weekdays_short'][local.weekday()]} {clock}"
        return f"{self.short_date(local.date())} {clock}"

    def since(self, moment: datetime, now: datetime) -> str:
        """ "Since 08:10", "Since yesterday at 21:10", "Since Monday at 09:00"."""
        local, today = moment.astimezone(now.tzinfo), now.date()
        clock = f"{local:%H:%M}"
        delta = (today - local.date()).days
        if delta == 0:
            return self.text("since_time", time=clock)
        if delta == 1:
            return self.text("since_yesterday", time=clock)
        if delta <= WEEK:
            return self.text("since_weekday", weekday=self.weekday(local.date()), time=clock)
        return self.text("since_date", date=self.full_date(local.date()), time=clock)


@cache
def words(code: str) -> Words:
    """The reply words of a supported language (``LANGUAGES``); a KeyError for any other.
    A word a language's file lacks is said in English (a test checks none is lacking)."""
    if code not in LANGUAGES:
        raise KeyError(code)
    tables = raw_table("replies")
    return Words(code, ChainMap(tables[code], tables["en"]))


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
