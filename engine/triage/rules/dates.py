"""Dates a rules line holds on, as the user says them: "el 8 de diciembre", "du 24 décembre
au 2 janvier", "vom 24. bis 26. Dezember", "1 e 8 de dezembro", "December 24th", "am
21.12.", "Christmas Day". Month names are the language data's ([replies] months, the same the
chat reads days with); the feast days are [dates] christmas_eve, christmas_day,
boxing_day, new_years_eve, new_years_day. A date is a month and a day, every year."""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import cache

from engine.triage.classifier.text import fold_with_map
from engine.triage.language import LANGUAGES, phrase_pattern, raw_table
from engine.triage.rules.extract import QUOTED
from engine.triage.rules.match import MonthDay

FEASTS = {
    "christmas_eve": ((12, 24),),
    "christmas_day": ((12, 25),),
    "boxing_day": ((12, 26),),
    "new_years_eve": ((12, 31),),
    "new_years_day": ((1, 1),),
}
"""The feast days a line may name by name, and their dates."""

_LEAP = 2024
"""A leap year, to count the days of a range that takes in 29 February."""


def _fold_keep(text: str) -> str:
    from engine.triage.rules.windows import fold_keep

    return fold_keep(text).lower()


@cache
def _months() -> dict[str, int]:
    """Every language's month names, and their short forms of three letters or more,
    folded: → month."""
    out: dict[str, int] = {}
    for code in LANGUAGES:
        table = raw_table("replies")[code]
        for names in (table["months"], table["months_short"]):
            for number, name in enumerate(names, start=1):
                said = _fold_keep(name).rstrip(".")
                if len(said) >= 3:
                    out.setdefault(said, number)
    return out


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    months = "|".join(re.escape(m) for m in sorted(_months(), key=lambda m: (-len(m), m)))
    month = rf"(?P<{{n}}>{months})\.?"
    day = r"(?P<{n}>[0-3]?\d)(?:st|nd|rd|th|er|eme|º|o|\.)?"
    to = r"\s*(?:-|–|—|to|till|until|through|al|a|au|bis|zum|ao|à|as|tot|t/m|fino al|\'til)\s*"
    of = r"\s*(?:de\s+|di\s+|of\s+|del\s+)?"
    art = r"(?:(?:el|le|il|o|den|am|the|de|la)\s+)?"
    the_from = r"(?:(?:from|del|dal|vom|du|de|desde|van|entre|between)\s+)?"
    joined = r"\s*(?:,|y|e|et|und|and|en|&|ed)\s*"
    return (
        re.compile(  # "du 24 décembre au 2 janvier", "vom 24. bis 26. Dezember"
            rf"\b{the_from}{art}{day.format(n='d1')}(?:{of}{month.format(n='m1')})?{to}"
            rf"{art}{day.format(n='d2')}{of}{month.format(n='m2')}(?![\w])"
        ),
        re.compile(  # "from December 30th to January 1st"
            rf"\b{the_from}{month.format(n='m1')}\s+{day.format(n='d1')}{to}"
            rf"{month.format(n='m2')}\s+{day.format(n='d2')}(?![\w])"
        ),
        re.compile(  # "December 24 to 26", "Dec 24th"
            rf"\b{month.format(n='m2')}\s+{day.format(n='d1')}(?:{to}{day.format(n='d2')})?"
            r"(?![\w])"
        ),
        re.compile(  # "el 8 de diciembre", "1 e 8 de dezembro", "am 24., 25. und 26. Dezember"
            rf"\b{art}(?P<days>[0-3]?\d(?:st|nd|rd|th|er|º|o|\.)?(?:{joined}[0-3]?\d"
            rf"(?:st|nd|rd|th|er|º|o|\.)?)*){of}{month.format(n='m2')}(?![\w])"
        ),
        re.compile(  # "am 21.12.", "no dia 21/12", "le 24/12"
            r"\b(?:on|el|le|il|am|op|dia|no dia|em|o)\s+(?P<d1>[0-3]?\d)[/.](?P<m2n>[01]?\d)"
            r"\.?(?![\d/.])"
        ),
    )


@cache
def _feasts() -> tuple[tuple[re.Pattern[str], tuple[MonthDay, ...]], ...]:
    return tuple((re.compile(phrase_pattern(f"dates.{key}")), days) for key, days in FEASTS.items())


def find_dates(text: str) -> tuple[str, frozenset[MonthDay] | None]:
    """Take the dates a line names out of ``text``: the text without them, and the dates
    (None when it names none)."""
    found: set[MonthDay] = set()
    for pattern in _patterns():
        start = 0
        while (m := pattern.search(_fold_keep(text), start)) is not None:
            said = _read(m)
            if not said or _of_a_journey(_fold_keep(text)[: m.start()]) or _named(text, m):
                start = m.end()  # "mon vol du 19 décembre": the flight's date, not the line's
                continue
            found |= said
            begin = m.start()
            if holiday := _holidays_last().search(_fold_keep(text)[:begin]):
                begin = holiday.start()  # "Nos feriados de 1 e 8 de dezembro"
            text = f"{text[:begin]} {text[m.end() :]}"
    for pattern, days in _feasts():
        low, where = fold_with_map(text)
        if (m := pattern.search(low)) is not None:
            found |= set(days)
            text = f"{text[: where[m.start()]]} {text[where[m.end() - 1] + 1 :]}"
    return (" ".join(text.split()), frozenset(found)) if found else (text, None)


@cache
def _journeys() -> re.Pattern[str]:
    return re.compile(rf"{phrase_pattern('kinds.travel_nouns')}(?:\s+\S+){{0,4}}\s*$")


def _of_a_journey(before: str) -> bool:
    """The date follows a journey ("my flight to Oslo on 21/12"): it is when the
    journey is, what the line is about, not when the line holds."""
    return bool(_journeys().search(before))


@cache
def _holidays_last() -> re.Pattern[str]:
    return re.compile(rf"{phrase_pattern('dates.holidays')}[\s,(:]*(?:de\s+|del\s+)?$")


def _named(text: str, m: re.Match[str]) -> bool:
    """The date is part of a name: in quotes ("Liceo 25 de Mayo 1998"), or after a
    capitalised word inside the line ("Avenida 5 de Mayo")."""
    if any(q.start() <= m.start() < q.end() for q in QUOTED.finditer(text)):
        return True
    if not m.group(0)[:1].isdigit():
        return False  # "am 24. Dezember", "el 8 de diciembre": said as a date
    before = text[: m.start()].split()
    return len(before) > 1 and before[-1][:1].isupper() and before[-1][-1:].isalpha()


def _read(m: re.Match[str]) -> set[MonthDay]:
    groups = m.groupdict()
    months = _months()
    if groups.get("m2n"):
        month = int(groups["m2n"])
        day = int(groups["d1"])
        return {(month, day)} if _valid(month, day) else set()
    end_month = months[groups["m2"].rstrip(".")]
    if groups.get("days"):
        days = [int(d) for d in re.findall(r"\d+", groups["days"])]
        return {(end_month, d) for d in days if _valid(end_month, d)}
    first = int(groups["d1"])
    if not groups.get("d2"):
        return {(end_month, first)} if _valid(end_month, first) else set()
    last = int(groups["d2"])
    start_month = months[groups["m1"].rstrip(".")] if groups.get("m1") else end_month
    if not (_valid(start_month, first) and _valid(end_month, last)):
        return set()
    start = date(_LEAP, start_month, first)
    end = date(_LEAP + (1 if (end_month, last) < (start_month, first) else 0), end_month, last)
    out: set[MonthDay] = set()
    while start <= end and len(out) < 366:
        out.add((start.month, start.day))
        start += timedelta(days=1)
    return out


def _valid(month: int, day: int) -> bool:
    try:
        date(_LEAP, month, day)
    except ValueError:
        return False
    return True
