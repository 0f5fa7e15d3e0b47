"""Checking a notification reply against the facts.

A reply must name the who and the what of every notification in its batch, and may not state
a time, date, weekday, number, email address, link or capitalised name that the facts (the
notifications, their events, the turn's tool results) do not hold. Times are compared as
clock times whatever the writing ("3pm", "15:00", "3:00 p.m."), in the user's zone, the
event's own offset or UTC; "today"/"tomorrow" against the facts' days. Numbers written as
words are not checked."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo

from engine.chat.facts import NoteFacts, fold
from engine.clock import clamp_instant

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3}
_DAY_ABBR |= {"fri": 4, "sat": 5, "sun": 6}
# Weekday names a sender may write, so a reply may translate them: de, es, fr, it, pt.
FOREIGN_WEEKDAYS = {
    0: ("montag", "lunes", "lundi", "lunedi", "segunda"),
    1: ("dienstag", "martes", "mardi", "martedi", "terca"),
    2: ("mittwoch", "miercoles", "mercredi", "mercoledi", "quarta"),
    3: ("donnerstag", "jueves", "jeudi", "giovedi", "quinta"),
    4: ("freitag", "viernes", "vendredi", "venerdi", "sexta"),
    5: ("samstag", "sonnabend", "sabado", "samedi", "sabato"),
    6: ("sonntag", "domingo", "dimanche", "domenica"),
}
RELATIVE_DAYS = {
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "tomorrow": 1,
    "yesterday": -1,
    "day after tomorrow": 2,
}
# The same days in the sender's words: a reply may translate them.
FOREIGN_RELATIVE = {
    0: ("heute", "hoy", "aujourd'hui", "oggi", "hoje", "tonight", "heute abend", "esta noche"),
    1: ("morgen", "manana", "demain", "domani", "amanha"),
    -1: ("gestern", "ayer", "hier", "ieri", "ontem"),
}

_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_SUFFIX = r"(a\.m\.|p\.m\.|am|pm)(?![a-z])"
ISO = re.compile(
    r"\b(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?",
    re.IGNORECASE,
)
TIME = re.compile(rf"\b(\d{{1,2}})[:h](\d{{2}})\b(?:\s*{_SUFFIX})?", re.IGNORECASE)
TIME_SUFFIX = re.compile(rf"\b(\d{{1,2}})(?:\.(\d{{2}}))?\s*{_SUFFIX}", re.IGNORECASE)
NOON = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
BARE_HOUR = re.compile(
    r"\b(?:at|by|around|until|till|from|before|after|um|à|a las|alle|às)\s+(\d{1,2})\b",
    re.IGNORECASE,
)
DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
MONTH_DAY = re.compile(
    rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
DOT_DATE = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})?")
WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.I)
WEEKDAY_ABBR = re.compile(r"\b(Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?")
RELATIVE = re.compile(
    r"\b(day after tomorrow|tomorrow|yesterday|today|tonight|this (?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
URL = re.compile(r"\b(?:https?://|www\.)[^\s<>()\u201c\u201d\"']+", re.IGNORECASE)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_OPENERS = " \t\"'\u201c\u2018([*_>#•-\u2013\u2014"


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Capitalised words that are no claim of fact: the frame's words and sentence openers.
FRAME_WORDS = _wordset(
    """i i'm i'll i've i'd ok okay tic whatsapp email e-mail calendar reminder reminders
    notification notifications message messages event events settings model new important
    urgent also next note reply call join video subject from re fwd fw summary heads update
    mr mrs ms dr am pm utc gmt cet cest a an the and but or so you your he she they it we this
    that there here please hi hello dear google gmail outlook sender meanwhile nothing someone
    someone's tomorrow today yesterday tonight he's she's they're it's you're there's"""
)
# After a sentence's first word, these suggest that word was a name ("Carla wrote...").
NAME_VERBS = _wordset(
    """wrote writes sent sends emailed messaged asked asks says said wants wanted needs called
    invited moved cancelled canceled added mentioned replied is has will would can could"""
)
STOPWORDS = _wordset(
    """about above after again against also been before being below between both could does
    doing down during each from further have having here into itself just more most once only
    other ours over same should some such than that their theirs them then there these they
    this those through under until very were what when where which while whom with would your
    yours will shall please thanks thank hello dear sent wrote email emails message messages
    today tomorrow yesterday tonight number reminder event calendar whatsapp"""
)
CANCEL_WORDS = re.compile(r"cancel|called off|\boff\b|annul|dropped", re.IGNORECASE)
MOVE_WORDS = re.compile(
    r"\bmov|resched|postpon|shift|chang|push|brought forward|instead|\bnow\b", re.IGNORECASE
)


def unescape(text: str) -> str:
    """Markdown backslash escapes removed (composed replies escape the sender's words)."""
    return _ESCAPE.sub(r"\1", text)


def _hour24(hour: int, suffix: str | None) -> int:
    s = (suffix or "").replace(".", "").lower()
    if s == "pm" and hour < 12:
        return hour + 12
    if s == "am" and hour == 12:
        return 0
    return hour


def _number(token: str) -> str:
    """A number as compared: thousands separators and leading zeros gone."""
    token = re.sub(r"[.,](?=\d{3}\b)", "", token)
    token = token.replace(",", ".")
    whole, dot, frac = token.partition(".")
    return (whole.lstrip("0") or "0") + (dot + frac if frac.strip("0") else "")


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for token in WORD.findall(text):
        folded = fold(re.sub(r"['\u2019]s?$", "", token))
        out.add(folded)
        out.update(p for p in re.split(r"[-'\u2019]", folded) if p)
    return out


@dataclass
class Known:
    """What the facts allow a reply to state."""

    times: set[tuple[int, int]] = field(default_factory=set)
    dates: set[tuple[int, int]] = field(default_factory=set)  # (month, day)
    years: set[int] = field(default_factory=set)
    weekdays: set[int] = field(default_factory=set)
    days: set[int] = field(default_factory=lambda: {0})  # days from today: "today" always
    numbers: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    text: str = ""  # all the facts' text, folded, for addresses and links

    def add_moment(self, moment: datetime, now: datetime, tz: tzinfo) -> None:
        own = moment.tzinfo or UTC
        for local in (moment.astimezone(tz), moment.astimezone(own), moment.astimezone(UTC)):
            self.times.add((local.hour, local.minute))
            self.dates.add((local.month, local.day))
            self.years.add(local.year)
            self.weekdays.add(local.weekday())
            hour12 = local.hour % 12 or 12
            for n in (local.day, local.month, local.year, local.hour, hour12, local.minute):
                self.numbers.add(str(n))
        self.days.add((moment.astimezone(tz).date() - now.astimezone(tz).date()).days)

    def add_span(self, start: datetime, end: datetime | None, now: datetime, tz: tzinfo) -> None:
        """The days something lasts (at most a fortnight), how long and how far off it is."""
        if end is not None:
            day, last = start.astimezone(tz).date(), end.astimezone(tz).date()
            while day <= last and (day - start.astimezone(tz).date()).days <= 14:
                self.dates.add((day.month, day.day))
                self.weekdays.add(day.weekday())
                self.numbers.add(str(day.day))
                self.days.add((day - now.astimezone(tz).date()).days)
                day += timedelta(days=1)
        for delta in (end - start if end else None, start - now):
            if delta is None or delta <= timedelta(0):
                continue
            minutes = round(delta.total_seconds() / 60)
            self.numbers.update({str(minutes), str(round(minutes / 60)), str(minutes // 60)})

    def add_text(self, text: str, now: datetime, tz: tzinfo) -> None:
        self.text += "\n" + fold(text)
        self.words |= _words(text)
        for m in ISO.finditer(text):
            year, month, day = (int(g) for g in m.group(1, 2, 3))
            self.years.add(year)
            self.dates.add((month, day))
            if m.group(4) is not None and m.group(6):
                stamp = m.group(0).replace(" ", "T").upper().replace("Z", "+00:00")
                try:
                    self.add_moment(clamp_instant(datetime.fromisoformat(stamp)), now, tz)
                except ValueError:
                    pass
        for hour, minute, suffix in TIME.findall(text) + TIME_SUFFIX.findall(text):
            h, mi = int(hour), int(minute or 0)
            self.times.add((_hour24(h, suffix), mi))
            if not suffix and h < 12:
                self.times.add((h + 12, mi))
        for hour in BARE_HOUR.findall(text):
            h = int(hour)
            self.times.update({(h % 24, 0), ((h + 12) % 24, 0)})
        self.numbers.update(_number(n) for n in NUMBER.findall(text))
        for day, month, _year in DAY_MONTH.findall(text):
            self.dates.add((MONTHS[month.lower()], int(day)))
        for month, day, _year in MONTH_DAY.findall(text):
            self.dates.add((MONTHS[month.lower()], int(day)))
        folded = fold(text)
        for number, name in enumerate(WEEKDAYS):
            if name in folded or any(f in folded for f in FOREIGN_WEEKDAYS[number]):
                self.weekdays.add(number)
        for offset, names in FOREIGN_RELATIVE.items():
            if any(re.search(rf"\b{re.escape(n)}\b", folded) for n in names):
                self.days.add(offset)
        for phrase, offset in RELATIVE_DAYS.items():
            if phrase in folded:
                self.days.add(offset)


def known_from(
    facts: Sequence[NoteFacts], extra: Iterable[str], now: datetime, tz: tzinfo
) -> Known:
    known = Known()
    known.add_moment(now, now, tz)
    known.times.discard((now.astimezone(tz).hour, now.astimezone(tz).minute))
    for f in facts:
        for moment in f.moments():
            known.add_moment(moment, now, tz)
        if f.start is not None:
            known.add_span(f.start, f.end, now, tz)
        for text in f.texts():
            known.add_text(text, now, tz)
    for text in extra:
        known.add_text(text, now, tz)
    counts: dict[str, int] = {}
    for f in facts:
        counts[f.source] = counts.get(f.source, 0) + 1
    known.numbers.update(str(n) for n in (len(facts), *counts.values()))
    return known


# -- what the reply states ------------------------------------------------------------------


def _cut(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _links(text: str, known: Known, problems: list[str]) -> str:
    for m in URL.finditer(text):
        url = fold(m.group(0).rstrip(".,;:!?"))
        if url.split("://", 1)[-1] not in known.text:
            problems.append(f"invented link {m.group(0)}")
    return URL.sub(_cut, text)


def _addresses(text: str, known: Known, problems: list[str]) -> str:
    for m in EMAIL.finditer(text):
        if fold(m.group(0)) not in known.text:
            problems.append(f"invented address {m.group(0)}")
    return EMAIL.sub(_cut, text)


def _iso_instants(text: str, known: Known, problems: list[str]) -> str:
    for m in ISO.finditer(text):
        year, month, day = (int(g) for g in m.group(1, 2, 3))
        if year not in known.years or (month, day) not in known.dates:
            problems.append(f"invented date {m.group(1)}-{m.group(2)}-{m.group(3)}")
        if m.group(4) is not None and (int(m.group(4)), int(m.group(5))) not in known.times:
            problems.append(f"invented time {m.group(4)}:{m.group(5)}")
    return ISO.sub(_cut, text)


def _clock_times(text: str, known: Known, problems: list[str]) -> str:
    for pattern in (TIME, TIME_SUFFIX):
        for m in pattern.finditer(text):
            h, minute, suffix = int(m.group(1)), int(m.group(2) or 0), m.group(3)
            options = {(_hour24(h, suffix), minute)}
            if not suffix and h <= 12:
                options.add(((h + 12) % 24, minute))
            if not options & known.times:
                problems.append(f"invented time {m.group(0).strip()}")
        text = pattern.sub(_cut, text)
    return text


def _noon_and_midnight(text: str, known: Known, problems: list[str]) -> str:
    for m in NOON.finditer(text):
        if (0 if m.group(1).lower() == "midnight" else 12, 0) not in known.times:
            problems.append(f"invented time {m.group(0)}")
    return text


def _dates_in_words(text: str, known: Known, problems: list[str]) -> str:
    for pattern, order in ((DAY_MONTH, (2, 1)), (MONTH_DAY, (1, 2))):
        for m in pattern.finditer(text):
            month, day = MONTHS[m.group(order[0]).lower()], int(m.group(order[1]))
            written_year = m.group(3)
            if (month, day) not in known.dates or (
                written_year and int(written_year) not in known.years
            ):
                problems.append(f"invented date {m.group(0).strip().rstrip('.')}")
        text = pattern.sub(_cut, text)
    return text


def _dates_in_numbers(text: str, known: Known, problems: list[str]) -> str:
    for pattern in (SLASH_DATE, DOT_DATE):
        for m in pattern.finditer(text):
            a, b = int(m.group(1)), int(m.group(2))
            if not {(a, b), (b, a)} & known.dates:
                problems.append(f"invented date {m.group(0).strip()}")
        text = pattern.sub(_cut, text)
    return text


def _weekdays(text: str, known: Known, problems: list[str]) -> str:
    for m in WEEKDAY.finditer(text):
        if WEEKDAYS.index(m.group(1).lower()) not in known.weekdays:
            problems.append(f"invented weekday {m.group(0)}")
    for m in WEEKDAY_ABBR.finditer(text):
        if _DAY_ABBR[m.group(1).lower()] not in known.weekdays:
            problems.append(f"invented weekday {m.group(1)}")
    return text


def _relative_days(text: str, known: Known, problems: list[str]) -> str:
    for m in RELATIVE.finditer(text):
        if RELATIVE_DAYS[m.group(1).lower()] not in known.days:
            problems.append(f"invented day \u201c{m.group(1)}\u201d")
    return text


def _numbers(text: str, known: Known, problems: list[str]) -> str:
    for m in NUMBER.finditer(text):
        if _number(m.group(0)) not in known.numbers:
            problems.append(f"invented number {m.group(0)}")
    return text


# Each check adds what the text says that ``known`` does not, and returns the text with what
# it read blanked out where later checks would read it again (a link's or a date's digits as
# a time or a number). The order matters.
_CHECKS: tuple[Callable[[str, Known, list[str]], str], ...] = (
    _links,
    _addresses,
    _iso_instants,
    _clock_times,
    _noon_and_midnight,
    _dates_in_words,
    _dates_in_numbers,
    _weekdays,
    _relative_days,
    _numbers,
)


def _invented(text: str, known: Known) -> list[str]:
    problems: list[str] = []
    for check in _CHECKS:
        text = check(text, known, problems)
    return problems + _invented_names(text, known)


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip(_OPENERS)
    return not before or before[-1] in ".!?:;\n"


def _invented_names(text: str, known: Known) -> list[str]:
    problems: list[str] = []
    tokens = list(WORD.finditer(text))
    for i, m in enumerate(tokens):
        token = m.group(0).rstrip("-'\u2019")
        if not token[:1].isupper():
            continue
        bare = fold(re.sub(r"['\u2019]s$", "", token))
        if bare in known.words or bare in FRAME_WORDS or bare in MONTHS or bare in WEEKDAYS:
            continue
        if bare in _DAY_ABBR:
            continue
        if _sentence_initial(text, m.start()):
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            adjacent = after is not None and not text[m.end() : after.start()].strip()
            following = after.group(0) if after is not None and adjacent else ""
            looks_named = (
                following[:1].isupper()
                or fold(following) in NAME_VERBS
                or re.search(r"['\u2019]s$", token) is not None
            )
            if not looks_named:
                continue
        problems.append(f"invented name {token}")
    return problems


# -- what the reply must say ----------------------------------------------------------------


def _who_keys(f: NoteFacts) -> set[str]:
    names = [n for n in (f.who, f.chat) if n]
    if not names and f.event is None and f.source != "cron":
        # No event to read: the summary's leading capitalised words ("Anna Berg sent ...").
        for token in WORD.findall(f.summary)[:3]:
            if not token[:1].isupper():
                break
            names.append(token)
    keys = set()
    for name in names:
        keys |= {w for w in _words(name.split("@")[0]) if len(w) > 1 and w not in FRAME_WORDS}
    return keys


def _what_keys(f: NoteFacts, who: set[str]) -> set[str]:
    if f.event is None:
        sources = [re.sub(r"^\s*reminder:\s*", "", f.summary, flags=re.IGNORECASE)]
    elif f.is_calendar:
        sources = [f.title or ""]
    else:
        sources = [f.title or "", f.text[:200]]
    keys = set()
    for source in sources:
        keys |= {w for w in _words(source) if len(w) >= 4 and w not in STOPWORDS}
    return keys - who


def _mentions(keys: set[str], said: set[str]) -> bool:
    for key in keys:
        for word in said:
            if word == key or (len(key) >= 5 and len(word) >= 5 and word[:5] == key[:5]):
                return True
    return False


def _missing(text: str, facts: Sequence[NoteFacts]) -> list[str]:
    said = _words(text)
    problems: list[str] = []
    for f in facts:
        who = _who_keys(f)
        if who and not who & said:
            problems.append(f"missing who: {f.who or f.chat or ' '.join(sorted(who))}")
        what = _what_keys(f, who)
        if what and not _mentions(what, said):
            problems.append(f"missing what: {f.title or f.summary}")
        if f.is_calendar and f.cancelled and not CANCEL_WORDS.search(text):
            problems.append(f"missing what: {f.title or 'the event'} was cancelled")
        elif f.is_calendar and f.moved and not MOVE_WORDS.search(text):
            problems.append(f"missing what: {f.title or 'the event'} was moved")
    return problems


def check_reply(
    text: str,
    facts: Sequence[NoteFacts],
    *,
    now: datetime,
    tz: tzinfo,
    extra: Iterable[str] = (),
) -> list[str]:
    """What is wrong with a notification reply: each missing who/what and each invented
    fact, in one short phrase. Empty when the reply may stand."""
    plain = unescape(text)
    known = known_from(facts, extra, now, tz)
    return _missing(plain, facts) + _invented(plain, known)
