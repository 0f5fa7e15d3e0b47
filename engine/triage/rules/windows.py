"""When a rule line applies: hours of the day ("between 22:00 and 07:00", "after 8pm"),
the night, weekends, weekdays and named days, taken out of the line's words so the rest is
read as what it is about."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import time
from functools import cache

from engine.clock import CLOCK, rule_clock_time
from engine.triage.classifier import fold
from engine.triage.language import day_abbreviations, function_words, phrase_pattern
from engine.triage.rules.dates import find_dates
from engine.triage.rules.extract import JOIN_WORDS, QUOTED
from engine.triage.rules.match import Window
from engine.triage.rules.negation import NEGATION
from engine.triage.rules.vocab import DAY_ALIASES


def fold_keep(text: str) -> str:
    """Accents off, case and length kept, so the window patterns (written without accents)
    match "después", "à", "às" at the places they are written."""
    return "".join(c if len(f := unicodedata.normalize("NFKD", c)) == 1 else f[0] for c in text)


_AND = r"(?:and|to|until|till|y|a|as|und|bis|et|e|alle|en|tot|-|–)"
_ART = r"(?:las\s+|les\s+|le\s+|den\s+|as\s+|os\s+|la\s+|a\s+|l')?"
WINDOW = re.compile(
    rf"\b(?:between|from|entre|zwischen|von|de|das|dalle|tra|dalle ore|tussen|van)\s+{_ART}{CLOCK}"
    rf"\s*{_AND}\s*"
    rf"{_ART}{CLOCK}"
    r"|\b(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|h)?\s*(?:[-–]|\s(?:to|till|until|bis|a|tot)\s)\s*"
    r"(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|h)?"
    r"(?![\d%/-]|\.\d)(?!\s*(?:days?|weeks?|months?|times?|hours?|minutes?|people|persons|dias|"
    r"tage|jours|giorni|dagen|veces|vezes|mal|fois|volte|keer|personas|pessoas|personen))",
    re.I,
)
NIGHT_END = time(7, 0)
"""Where a night said without its end ends ("at night", "after 9pm"): the morning."""
EVENING = 17
"""An hour from which "after …" goes on through the night."""
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
    r"la nuit|de nuit|a noite|de noite|durante a noite|de madrugada|di notte|'s nachts|"
    r"in de nacht|'s avonds laat)\b",
    re.I,
)
WEEKEND = re.compile(
    r"\b(?:on\s+)?(?:the\s+)?(?:weekends?|fines? de semana|fim de semana|fins de semana|findes?|"
    r"wochenenden?|week-ends?|"
    r"(?:sat(?:urday)?|sa|sab|sam|za)s?\s*(?:/|&|\+)\s*(?:sun(?:day)?|so|dom|dim|zo)s?|"
    r"fins? de semana|fine settimana|in het weekend)\b",
    re.I,
)
WEEKDAYS = re.compile(
    r"\b(?:on\s+)?(?:weekdays|work ?days|working days|dias laborables|entre semana|werktags|"
    r"wochentags|en semaine|jours ouvres|dias uteis|dia util|giorni feriali|doordeweeks|"
    r"op werkdagen|unter der woche|during the week|in de week|durante la semana|"
    r"durante a semana|in settimana|durante la settimana)\b",
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


_PARTS_OF_DAY = (
    r"de la (?:noche|tarde|manana|madrugada)|da (?:noite|tarde|manha|madrugada)|"
    r"di (?:sera|notte|mattina|pomeriggio)|del (?:pomeriggio|mattino)|"
    r"du (?:soir|matin)|de l'apres-midi|abends|morgens|nachmittags|fruh|"
    r"'s (?:avonds|ochtends|middags|nachts)|in the (?:evening|morning|afternoon)|at night"
)
"""The part of the day an hour is said with ("7 de la mañana", "10 at night")."""
_TIME_OF_DAY = re.compile(
    rf"\b(\d{{1,2}})(?:[:.h](\d{{2}}))?\s*(?:h\s+|uhr\s+)?(?P<when>{_PARTS_OF_DAY})\b", re.I
)
"""An hour with the part of the day it is in ("10 de la noche", "7 du matin", "10 Uhr
abends"): an hour of the afternoon, evening or night is past noon."""
_LATE = ("noche", "tarde", "noite", "sera", "pomeriggio", "soir", "apres", "abend", "nachmit",
         "avond", "middag", "evening", "afternoon")  # fmt: skip


_A_PART_OF_DAY = re.compile(rf"(?<![\w'])(?:{_PARTS_OF_DAY})\b", re.I)


def _late_part(text: str) -> re.Match[str] | None:
    """The evening said apart from the hour it sets ("'s avonds na tienen")."""
    for m in _A_PART_OF_DAY.finditer(fold_keep(text)):
        if any(w in fold(m.group(0)) for w in _LATE):
            return m
    return None


def _said_with_part_of_day(text: str) -> str:
    def clock(m: re.Match[str]) -> str:
        hour, minute = int(m.group(1)), m.group(2) or "00"
        when = fold(m.group("when"))
        at_night = any(w in when for w in ("nacht", "notte", "night"))
        late = any(w in when for w in _LATE) or (at_night and hour >= 6)
        return f"{hour + 12 if late and hour < 12 else hour}:{minute}"

    out, last = [], 0
    for m in _TIME_OF_DAY.finditer(fold_keep(text)):  # the same length as ``text``
        out += [text[last : m.start()], clock(m)]
        last = m.end()
    return "".join(out) + text[last:]


def _day_pattern() -> str:
    named = {**DAY_ALIASES, **day_abbreviations()}
    return "|".join(sorted(map(re.escape, named), key=len, reverse=True))


_DAY_RANGE = re.compile(
    rf"\b(?:(?:from|de|von|du|dal|van)\s+)?({_day_pattern()})\.?\s*"
    rf"(?:-|–|to|through|thru|a|al|bis|au|a|ate|tot|t/m|al)\s*({_day_pattern()})\b\.?",
    re.I,
)
"""A range of days, by name or short name ("Mon-Fri", "lunes a viernes", "Mo–Fr")."""


def _day_range(text: str) -> tuple[str, frozenset[int] | None]:
    m = _DAY_RANGE.search(fold_keep(text))
    if m is None:
        return text, None
    named = {**DAY_ALIASES, **day_abbreviations()}
    first, last = named[m.group(1).lower()], named[m.group(2).lower()]
    days = frozenset((first + i) % 7 for i in range((last - first) % 7 + 1))
    return text[: m.start()] + " " + text[m.end() :], days


_WORKING_HOURS = re.compile(phrase_pattern("windows.working_hours"), re.I)
WORKING_DAY = (time(9, 0), time(18, 0))
"""The hours a line that says "during working hours" means when it says none."""


def _working_hours(text: str) -> tuple[str, Window | None]:
    """ "During work hours (9 to 6, Mon-Fri)", "En horario de oficina", "Wärend der
    Arbeitszeit (Mo–Fr 8–17 Uhr)": a window of its own, Monday to Friday 09:00–18:00
    unless the line says which hours or days; what it says of them is taken out with it."""
    m = _WORKING_HOURS.search(fold_keep(text))
    if m is None:
        return text, None
    text = text[: m.start()] + " " + text[m.end() :]
    text, days = _day_range(text)
    if days is None:
        text, weekdays = _cut(text, WEEKDAYS)
        days = frozenset(range(5)) if weekdays else None
    start, end = WORKING_DAY
    plain = fold_keep(text)
    hours = _BARE_HOURS.search(plain)
    if hours is not None:
        start = rule_clock_time(*hours.group(1, 2, 3))
        end = rule_clock_time(*hours.group(4, 5, 6))
        if end < start and end.hour < 12 and not hours.group(6):
            end = time(end.hour + 12, end.minute)  # "9 to 6": six in the evening
        text = text[: hours.start()] + " " + text[hours.end() :]
    text = re.sub(r"\(\s*(?:[,;]|\s)*\)", " ", text)
    return text, Window(start, end, days if days is not None else frozenset(range(5)))


_BARE_HOURS = re.compile(
    rf"\b(?:(?:from|de|von|du|dalle|van|entre|between)\s+)?{CLOCK}\s*"
    rf"(?:-|–|to|until|till|a|as|às|bis|alle|tot|e|et|and|und|y)\s*{_ART}{CLOCK}(?![\d%/])",
    re.I,
)
"""Hours said bare beside "working hours" ("9 to 6", "8–17 Uhr", "de 9 a 18", "9h às 18h")."""


def _said_plainly(text: str) -> str:
    """Midnight, hours in words and hours said with the part of the day, as clock times
    ("from ten at night to six in the morning", "de 8 h 30 à 17 h")."""
    text = _MIDNIGHT.sub("0:00", text) if _MIDNIGHT.search(fold_keep(text)) else text
    text = _SPACED_MINUTES.sub(r"\1:\2", text)
    text = _substituted(text, _half_hours(), lambda m: _half_hour_forms()[fold(m.group(0))])
    text = _substituted(text, _digits_and_a_half(), lambda m: f"{m.group(1)}:30")
    told_when = bool(_PART_OF_DAY.search(fold_keep(text)) or NIGHT.search(fold_keep(text)))
    text = _substituted(text, _hour_in_words(), lambda m: _hour_in_digits(m, told_when))
    text = _substituted(text, _hour_range_in_words(), _range_in_digits)
    return _said_with_part_of_day(text) if _TIME_OF_DAY.search(fold_keep(text)) else text


def _substituted(text: str, pattern: re.Pattern[str], by: Callable[[re.Match[str]], str]) -> str:
    """``pattern`` (written for text without accents) replaced in the text as written."""
    out, last = [], 0
    for m in pattern.finditer(fold_keep(text)):  # the same length as ``text``
        out += [text[last : m.start()], by(m)]
        last = m.end()
    return "".join(out) + text[last:]


_SPACED_MINUTES = re.compile(r"\b(\d{1,2})\s*h\s+(\d{2})\b", re.I)
"""“8 h 30”: an hour and its minutes, as French writes them."""
_PART_OF_DAY = re.compile(rf"(?<![\w'])(?:{_PARTS_OF_DAY}|o'?clock|[ap]\.?m\b|uhr|heures)", re.I)


@cache
def _hour_words() -> dict[str, int]:
    """Hours said in words ("eight", "acht", "huit"), with the endings a language adds to
    them ("na tienen"); not "one", which says too much else."""
    from engine.triage.language import LANGUAGES, language

    out: dict[str, int] = {}
    for code in LANGUAGES:
        data = language(code)
        said = {w: n for w, n in data.numbers.items() if 2 <= n <= 12 and " " not in w}
        out.update(said)
        for ending in data.phrases["windows.hour_endings"]:
            out.update({w + ending: n for w, n in said.items()})
    return {w: n for w, n in out.items() if len(w) >= 3}


@cache
def _half_hour_forms() -> dict[str, str]:
    """Half hours said in words, as each language says them: "half negen" and "halb neun"
    are 8:30, "half eight" and "ocho y media" are 8:30 too."""
    from engine.triage.language import LANGUAGES, language

    out: dict[str, str] = {}
    for code in LANGUAGES:
        data = language(code)
        said = {w: n for w, n in data.numbers.items() if 1 <= n <= 12 and " " not in w}
        for w, n in said.items():
            for half in data.phrases["windows.half_before"]:
                out[f"{half} {w}"] = f"{(n - 1) or 12}:30"
            for half in data.phrases["windows.half_after"]:
                out[f"{half} {w}"] = f"{n}:30"
            for half in data.phrases["windows.and_a_half"]:
                out[f"{w} {half}"] = f"{n}:30"
    return out


@cache
def _half_hours() -> re.Pattern[str]:
    from engine.triage.language import alternation

    return re.compile(rf"(?<![\w'-])(?:{alternation(_half_hour_forms())})(?![\w'-])", re.I)


@cache
def _digits_and_a_half() -> re.Pattern[str]:
    """ "8 y media", "8 heures et demie": an hour in digits and a half."""
    from engine.triage.language import phrase_pattern

    return re.compile(rf"\b(\d{{1,2}})\s*(?:{phrase_pattern('windows.and_a_half')})", re.I)


_SAID_BY = (
    r"from|to|until|till|after|before|between|and|at|von|bis|ab|nach|vor|um|de|a|hasta|desde|"
    r"entre|las|dalle|alle|tra|le|das|as|ate|tot|van|tussen|om|na|vanaf|apres|dopo|depois|"
    r"zwischen|du|et|e|en|und|y"
)
_CLOCK_ARTICLES = frozenset({"las", "as", "alle", "le", "om", "um", "at"})
"""Words an hour follows that say it is one ("a partir de las once", "om acht uur")."""
_HOUR_AFTER = (
    r"(?=\s*(?:$|[.,;:!?)—–-]|(?:uhr|uur|heures?|horas?|ore|o'?clock|h)\b|"
    r"(?:[a-z']+)(?![\w'])))"
)


@cache
def _hour_in_words() -> re.Pattern[str]:
    """An hour said in words after a word that says when ("to six in the morning")."""
    return re.compile(rf"\b({_SAID_BY})\s+({_said_hours()})\b{_HOUR_AFTER}", re.I)


def _an_hour_here(m: re.Match[str]) -> bool:
    """The word after an hour said in words is one an hour may be followed by: the end, a
    clock word, a part of the day, a word of no content ("after eight only …") — not a
    thing counted ("de las tres empresas", "after two weeks")."""
    after = fold_keep(m.string[m.end() :]).lower().lstrip()
    word = re.match(r"[a-z']+", after)
    if word is None:
        return True
    w = word.group(0).strip("'")
    return w in function_words() or w in _CLOCK_WORDS or bool(_PART_OF_DAY.match(after))


def _hour_in_digits(m: re.Match[str], told_when: bool) -> str:
    """The hour in digits when the line says it is an hour: said with a part of the day or
    the night, after a clock article, or as one end of a range of hours."""
    by, word = m.group(1), m.group(2)
    if not _an_hour_here(m):
        return m.group(0)
    if told_when or by.lower() in _CLOCK_ARTICLES or _hour_range_follows(m):
        return f"{by} {_hour_words()[fold_keep(word).lower()]}"
    return m.group(0)


def _hour_range_follows(m: re.Match[str]) -> bool:
    return bool(_range_goes_on().match(m.string[m.end() :]))


@cache
def _said_hours() -> str:
    return "|".join(sorted(map(re.escape, _hour_words()), key=len, reverse=True))


@cache
def _range_goes_on() -> re.Pattern[str]:
    """What goes on from an hour to the other end of its range ("… till half five")."""
    return re.compile(rf"\s*{_AND}\s+(?:\d{{1,2}}\b|(?:{_said_hours()})\b)", re.I)


@cache
def _hour_range_in_words() -> re.Pattern[str]:
    """Two hours with a range between them, one of them in words ("nine till 5:30",
    "8 bis sechs")."""
    hour = rf"(?:\d{{1,2}}(?::\d{{2}})?|{_said_hours()})"
    return re.compile(rf"\b({hour})(\s*{_AND}\s*)({hour})\b{_HOUR_AFTER}", re.I)


def _range_in_digits(m: re.Match[str]) -> str:
    first, joiner, second = m.group(1), m.group(2), m.group(3)
    if (first[0].isdigit() and second[0].isdigit()) or not _an_hour_here(m):
        return m.group(0)
    words = _hour_words()
    return "".join(
        (
            str(words[fold_keep(first).lower()]) if not first[0].isdigit() else first,
            joiner,
            str(words[fold_keep(second).lower()]) if not second[0].isdigit() else second,
        )
    )


_JOINED = re.compile(rf"\b(?:{JOIN_WORDS})\s+(?:[a-z]{{1,3}}\s+){{0,2}}$", re.I)
"""What joins the weekend to hours as one more time the line holds ("after 8pm and at the
weekend", "na half zeven en in het weekend", "nach 20 Uhr und am Wochenende")."""


_DAY_PREPOSITIONS = (
    r"(?:on|every|el|los|cada|am|jeden|le|les|du|chaque|no|nos|do|ao|aos|il|la|del|ogni|op|al)"
)


@cache
def _named_day() -> re.Pattern[str]:
    day = rf"(?:{'|'.join(DAY_ALIASES)})"
    return re.compile(rf"\b(?:{_DAY_PREPOSITIONS}\s+)?(?P<day>{day})s?\b", re.I)


def _days_besides(text: str) -> tuple[str, frozenset[int] | None]:
    """The weekend or a day joined to the hours before it by "and" ("after 8pm and at the
    weekend", "Dopo le 20 e la domenica"), taken out with its "and": the days on which
    the line holds all day besides those hours."""
    plain = fold_keep(text)
    said = WEEKEND.search(plain)
    days = frozenset({5, 6})
    if said is None:
        said = _named_day().search(plain)
        if said is None:
            return text, None
        days = frozenset({DAY_ALIASES[said.group("day").lower()]})
    joined = _JOINED.search(plain[: said.start()])
    if joined is None or not _says_hours(text[: joined.start()]):
        return text, None
    return text[: joined.start()] + " " + text[said.end() :], days


_BUT_NOT = rf"{phrase_pattern('clauses.contrasts')}\s+(?:{NEGATION}|niet|nooit)"
"""A window said after "but not" ("ja, maar niet tussen 22:00 en 7:00"): the line holds
at the other times. A bare "not" may be the line's decision ("X: never after 10pm")."""
_BUT_NOT_BEFORE = re.compile(rf"{_BUT_NOT}\s*$", re.I)


def _says_hours(text: str) -> bool:
    plain = fold_keep(text)
    return any(p.search(plain) for p in (WINDOW, AFTER, BEFORE, NIGHT))


def _days(text: str) -> tuple[str, frozenset[int] | None]:
    """Take the days a line names out of it: weekends, weekdays, a range, named days."""
    text, weekend = _cut(text, WEEKEND)
    if weekend:
        return text, frozenset({5, 6})
    text, weekdays = _cut(text, WEEKDAYS)
    if weekdays:
        return text, frozenset(range(5))
    text, days = _day_range(text)
    if days is not None:
        return text, days
    unquoted = QUOTED.sub(" ", text)
    day = rf"(?:{'|'.join(DAY_ALIASES)})"
    prep = _DAY_PREPOSITIONS
    named = re.findall(rf"\b{prep}\s+({day})s?\b|\b({day})s\b", fold(unquoted))
    if named and not re.search(r"\b(start|starts|starting)\b", text, re.I):
        days = frozenset(DAY_ALIASES[(a or b).lower()] for a, b in named)
        said = rf"\b{prep}\s+{day}s?\b|\b{day}s\b"
        text, negated = _cut(text, re.compile(rf"{_BUT_NOT}\s+(?:{said})", re.I))
        if negated:  # "ja, maar niet op zondag": the other days
            days = frozenset(range(7)) - days
        text, _ = _cut(text, re.compile(said, re.I))
    return text, days


def find_window(text: str) -> tuple[str, Window | None]:
    """Take a time window out of ``text``: hours, night, weekends, weekdays, named days. An
    aside that says more than a window is the user's talk ("(leio tudo à noite)": when
    they read, not when the line applies): no window is taken from it."""
    talk = [m.group(0) for m in _ASIDE.finditer(text) if _talk(m.group(1))]
    for i, aside in enumerate(talk):
        text = text.replace(aside, f"\x00{i}\x00", 1)
    text, window = _find_window(text)
    for i, aside in enumerate(talk):
        text = text.replace(f"\x00{i}\x00", aside, 1)
    return text, window


_ASIDE = re.compile(r"\(([^()]*)\)")


def _talk(aside: str) -> bool:
    """An aside with a window in it and words besides the window's."""
    rest, window = _find_window(aside)
    if window is None:
        return False
    said = re.findall(r"[a-z]+", fold_keep(rest).lower())
    return any(w not in function_words() and w not in _CLOCK_WORDS for w in said)


_CLOCK_WORDS = frozenset(
    {"uhr", "h", "hr", "hrs", "uur", "heures", "heure", "ore", "horas", "hours", "oclock"}
)
"""Words an hour is said with ("8–17 Uhr"): an aside of hours and these is a window."""


def _bare_hours(start: time, end: time) -> tuple[time, time]:
    """Two hours said without am/pm, the second before the first: "9 to 5" is the working
    day (09:00 to 17:00), "11 to 2" the middle of the day, "11 to 7" the night (23:00 to
    07:00)."""
    if start.hour <= 10 or end.hour <= 4:
        return start, time(end.hour + 12, end.minute)
    return time((start.hour + 12) % 24, start.minute), end


def _find_window(text: str) -> tuple[str, Window | None]:
    text, dates = find_dates(text)
    text, window = _find_hours(text)
    if dates is None:
        return text, window
    return text, replace(window or Window(), dates=dates)


def _after(text: str, m: re.Match[str]) -> tuple[str, time, time]:
    """ "after 9pm", "por la noche, a partir de las 11", "'s avonds na tienen", "Après 22 h
    et avant 6 h": from the hour said until the morning, or until the hour said before."""
    start, end = rule_clock_time(*m.group(1, 2, 3)), time(0, 0)
    text = text[: m.start()] + " " + text[m.end() :]
    text, night = _cut(text, NIGHT)
    if night:  # "por la noche, a partir de las 11": from 23:00 until the morning
        said = (m.group(3) or "").lower()
        if start.hour < 12 and not said.startswith(("a", "p")):
            start = time(start.hour + 12, start.minute)
        end = NIGHT_END
    elif start.hour < 12 and not m.group(3) and (late := _late_part(text)) is not None:
        start, end = time(start.hour + 12, start.minute), NIGHT_END  # "'s avonds na tienen"
        text = text[: late.start()] + " " + text[late.end() :]
    elif start.hour >= EVENING:
        end = NIGHT_END  # "after 9pm": through the night, not until midnight only
    if (until := BEFORE.search(fold_keep(text))) is not None:
        end = rule_clock_time(*until.group(1, 2, 3))  # "Après 22 h et avant 6 h"
        text = text[: until.start()] + " " + text[until.end() :]
    return text, start, end


def _find_hours(text: str) -> tuple[str, Window | None]:
    text, working = _working_hours(_said_plainly(text))
    if working is not None:
        return text, working
    said, besides = _days_besides(text)
    text, days = _days(said)
    text = re.sub(r"\(\s*(?:and|,|\s)*\)", " ", text)
    start = end = None
    plain = fold_keep(text)
    if (m := WINDOW.search(plain)) and _hours(m):
        groups = m.groups()[:6] if m.group(1) else m.groups()[6:]
        start, end = rule_clock_time(*groups[:3]), rule_clock_time(*groups[3:])
        if not (groups[2] or groups[5]) and end < start <= time(12, 0):
            start, end = _bare_hours(start, end)  # "9 to 5" is the working day
        cut = m.start()
        if (but_not := _BUT_NOT_BEFORE.search(plain[: m.start()])) is not None:
            start, end, cut = end, start, but_not.start()  # the other hours
        text = text[:cut] + " " + text[m.end() :]
        if end < start or start.hour < 6:
            text, _ = _cut(text, NIGHT)  # "at night, from 23 to 7": the hours say which
    elif (m := AFTER.search(plain)) and not re.search(r"\bstart", plain[: m.start()], re.I):
        text, start, end = _after(text, m)
    elif (m := BEFORE.search(plain)) and not re.search(r"\bstart", plain[: m.start()], re.I):
        start, end = time(0, 0), rule_clock_time(*m.group(1, 2, 3))
        text = text[: m.start()] + " " + text[m.end() :]
    elif NIGHT.search(plain):
        start, end = time(22, 0), NIGHT_END
        text, _ = _cut(text, NIGHT)
    if start is None and days is None:
        return text, None
    if start is None or end is None:
        return text, Window(days=days or frozenset(range(7)))
    if start == end:
        end = time((start.hour + 23) % 24, 59)
    if besides:  # the hours (on the days said with them), or those days all day
        return text, Window(start, end, days or frozenset(range(7)), or_days=besides)
    return text, Window(start, end, days if days is not None else frozenset(range(7)))
