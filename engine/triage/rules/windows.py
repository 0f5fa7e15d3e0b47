"""When a rule line applies: hours of the day ("between 22:00 and 07:00", "after 8pm"),
the night, weekends, weekdays and named days, taken out of the line's words so the rest is
read as what it is about."""

from __future__ import annotations

import re
import unicodedata
from datetime import time

from engine.clock import CLOCK, rule_clock_time
from engine.triage.classifier import fold
from engine.triage.rules.extract import QUOTED
from engine.triage.rules.match import Window
from engine.triage.rules.vocab import DAY_ALIASES


def fold_keep(text: str) -> str:
    """Accents off, case and length kept, so the window patterns (written without accents)
    match "después", "à", "às" at the places they are written."""
    return "".join(c if len(f := unicodedata.normalize("NFKD", c)) == 1 else f[0] for c in text)


_AND = r"(?:and|to|until|till|y|a|und|bis|et|e|alle|en|tot|-|–)"
_ART = r"(?:las\s+|les\s+|le\s+|den\s+|as\s+|os\s+|l')?"
WINDOW = re.compile(
    rf"\b(?:between|from|entre|zwischen|von|de|dalle|tra|dalle ore|tussen|van)\s+{_ART}{CLOCK}"
    rf"\s*{_AND}\s*"
    rf"{_ART}{CLOCK}"
    r"|\b(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|h)?\s*[-–]\s*(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|h)?"
    r"(?![\d%/.-])",
    re.I,
)
AFTER = re.compile(
    rf"\b(?:after|despues de|a partir de|nach|ab|apres|a partir d[ae]s?|"
    rf"depois d[ae]s?|dopo|dalle|dalle ore|na|vanaf)\s+{_ART}{CLOCK}"
    r"(?!\s*(?:minutes|hours|days|minutos|horas|stunden|heures|ore))",
    re.I,
)
BEFORE = re.compile(
    rf"\b(?:before|antes de|vor|avant|antes d[ae]s?|prima d[ei]l?l?e?|voor)\s+{_ART}{CLOCK}"
    r"(?!\s*(?:minutes|hours|days|minutos|horas|stunden|heures|ore))",
    re.I,
)
NIGHT = re.compile(
    r"\b(at night|overnight|during the night|at nighttime|por la noche|de noche|nachts|"
    r"la nuit|de nuit|a noite|de madrugada|di notte|'s nachts|in de nacht|'s avonds laat)\b",
    re.I,
)
WEEKEND = re.compile(
    r"\b(?:on\s+)?(?:the\s+)?(?:weekends?|fines? de semana|wochenenden?|week-ends?|"
    r"fins? de semana|fine settimana|in het weekend)\b",
    re.I,
)
WEEKDAYS = re.compile(
    r"\b(?:on\s+)?(?:weekdays|work ?days|working days|dias laborables|entre semana|werktags|"
    r"wochentags|en semaine|jours ouvres|dias uteis|giorni feriali|doordeweeks|op werkdagen)\b",
    re.I,
)


def _hours(m: re.Match[str]) -> bool:
    """ "9-17" is a range of hours only when both ends are hours of the day."""
    if m.group(1):
        return True
    return int(m.group(7)) <= 24 and int(m.group(10)) <= 24


def _cut(text: str, pattern: re.Pattern[str]) -> tuple[str, re.Match[str] | None]:
    """Remove every match of ``pattern`` (which reads the text without accents) from the
    text as written; also returns the first match."""
    first = None
    while True:
        m = pattern.search(fold_keep(text))
        if not m:
            return text, first
        first = first or m
        text = text[: m.start()] + " " + text[m.end() :]


_MIDNIGHT = re.compile(
    r"\b(?:midnight|medianoche|mitternacht|minuit|meia-noite|meia noite|mezzanotte|middernacht)\b",
    re.I,
)
"""Midnight said as a word ("de minuit à 7h"): the hour 0."""


def find_window(text: str) -> tuple[str, Window | None]:
    """Take a time window out of ``text``: hours, night, weekends, weekdays, named days."""
    text = _MIDNIGHT.sub("0:00", text) if _MIDNIGHT.search(fold_keep(text)) else text
    days: frozenset[int] | None = None
    text, weekend = _cut(text, WEEKEND)
    if weekend:
        days = frozenset({5, 6})
    else:
        text, weekdays = _cut(text, WEEKDAYS)
        if weekdays:
            days = frozenset(range(5))
    if days is None:
        unquoted = QUOTED.sub(" ", text)
        day = rf"(?:{'|'.join(DAY_ALIASES)})"
        prep = r"(?:on|every|el|los|cada|am|jeden|le|les|du|chaque|no|nos|do|il|del|ogni)"
        named = re.findall(rf"\b{prep}\s+({day})s?\b|\b({day})s\b", fold(unquoted))
        if named and not re.search(r"\b(start|starts|starting)\b", text, re.I):
            days = frozenset(DAY_ALIASES[(a or b).lower()] for a, b in named)
            text, _ = _cut(text, re.compile(rf"\b{prep}\s+{day}s?\b|\b{day}s\b", re.I))
    text = re.sub(r"\(\s*(?:and|,|\s)*\)", " ", text)
    start = end = None
    plain = fold_keep(text)
    if (m := WINDOW.search(plain)) and _hours(m):
        groups = m.groups()[:6] if m.group(1) else m.groups()[6:]
        start, end = rule_clock_time(*groups[:3]), rule_clock_time(*groups[3:])
        text = text[: m.start()] + " " + text[m.end() :]
        if end < start or start.hour < 6:
            text, _ = _cut(text, NIGHT)  # "at night, from 23 to 7": the hours say which
    elif (m := AFTER.search(plain)) and not re.search(r"\bstart", plain[: m.start()], re.I):
        start, end = rule_clock_time(*m.group(1, 2, 3)), time(0, 0)
        text = text[: m.start()] + " " + text[m.end() :]
        text, night = _cut(text, NIGHT)
        if night:  # "por la noche, a partir de las 11": from 23:00 until the morning
            said = (m.group(3) or "").lower()
            if start.hour < 12 and not said.startswith(("a", "p")):
                start = time(start.hour + 12, start.minute)
            end = time(7, 0)
    elif (m := BEFORE.search(plain)) and not re.search(r"\bstart", plain[: m.start()], re.I):
        start, end = time(0, 0), rule_clock_time(*m.group(1, 2, 3))
        text = text[: m.start()] + " " + text[m.end() :]
    elif NIGHT.search(plain):
        start, end = time(22, 0), time(7, 0)
        text, _ = _cut(text, NIGHT)
    if start is None and days is None:
        return text, None
    if start is None or end is None:
        return text, Window(days=days or frozenset(range(7)))
    if start == end:
        end = time((start.hour + 23) % 24, 59)
    return text, Window(start, end, days if days is not None else frozenset(range(7)))
