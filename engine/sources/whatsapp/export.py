"""WhatsApp "Export chat" files as canonical events, and a source that watches a folder of them.

An export is a ``.txt`` file, or a ``.zip`` holding it (``_chat.txt`` or ``WhatsApp Chat with
X.txt``) plus media. Every message starts on a line with its date and time:

- Android: ``12/03/24, 14:05 - Marco: text`` (24 h) or ``3/12/24, 2:05 PM - Marco: text``;
  Finnish phones write ``13.6.2018 klo 21.25.15 - Mika: text``;
- iOS: ``[12/03/2024, 14:05:22] Marco: text``.

Both put invisible marks (U+200E, U+FEFF, ...) anywhere, even inside the ``[`` of a header,
and a narrow no-break space (U+202F) before AM/PM; some write "00:10 AM" or "23:59 PM", read
as 24-hour times. Lines without a header continue the previous message.

What WhatsApp writes in its own words is data, in the ``[whatsapp]`` table of the language files
(``engine/triage/language/*.toml``): media left out of the export ("<Media omitted>",
"(Datei angehängt)"), system lines (the encryption notice, "X added Y", deleted messages) and
the prefixes of file names ("WhatsApp Chat mit X.txt"); the matchers here are built from it.
System lines are skipped; media messages are kept as ``[image]``, ``[video]``, ... followed by
their caption.

The date order (day-first, month-first, year-first) is decided per file: from the values, then
from the messages' sequence; when every date fits both orders and the sequence does not tell,
from the dates in attachment names, the export's language, the phone's date style, and last the
computer's locale. A guess is said in the parsed chat's ``notes``. A line or message that
cannot be read loses (or damages) only itself, and the chat's ``errors`` say which; the folder
source logs both.

Times are local wall-clock times, converted with the given zone. The user's own messages are not
events (the user wrote them).

Event ids hash the chat name, the wall-clock time, the sender, the text and the occurrence index
of identical messages, so re-exporting a chat only adds the messages that are new.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import locale
import logging
import os
import re
import time
import unicodedata
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.clock import local_zone_name, zone
from engine.events import Chat, Event, Person
from engine.sources.base import Batch, Source, SourceError
from engine.tasks import one_line
from engine.triage.language import raw_table

log = logging.getLogger(__name__)

MAX_CHAT_TEXT_BYTES = 256 * 1024 * 1024  # a chat text larger than this is not an export
EXPORT_SUFFIXES = (".txt", ".zip")
MAX_LEADING_LINES = 20
"""Lines a file may have before its first message and still be read as an export."""


VIEW_ONCE = "[view-once media]"
"""What a view-once photo or video leaves in an export: the message is kept, as this."""


class ExportError(SourceError):
    """A file is not a readable WhatsApp chat export; the message says why, in one line."""


# --- text clean-up -------------------------------------------------------------------------

# Invisible direction marks WhatsApp sprinkles around names, phone numbers and system lines.
_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_MARK_SET = frozenset(_MARKS)
_STRIP_MARKS = str.maketrans(dict.fromkeys(_MARKS, None))
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2007": " "})


def _clean(text: str) -> str:
    return text.translate(_STRIP_MARKS).translate(_SPACES)


def _norm(text: str) -> str:
    """A line as WhatsApp's own words are matched against: marks off, plain spaces, composed
    accents (exports made on a Mac may spell "ä" as "a" + U+0308)."""
    return unicodedata.normalize("NFC", _clean(text)).strip()


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


_PHONE = re.compile(r"^\+?[\d\s\-().]{6,}$")


def phone_of(name: str) -> str | None:
    """``"+39 333 123 4567"`` → ``"+393331234567"``; None when the name is not a phone number."""
    name = name.strip()
    if not _PHONE.match(name) or len(_digits(name)) < 7:
        return None
    return ("+" if name.startswith("+") else "") + _digits(name)


def _lines_phrase(numbers: list[int]) -> str:
    """``[3]`` → "line 3"; ``[3, 9, 12, 40, 41]`` → "lines 3, 9, 12 and 2 more"."""
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    shown = ", ".join(str(n) for n in numbers[:3])
    if len(numbers) <= 3:
        head, _, last = shown.rpartition(", ")
        return f"lines {head} and {last}"
    return f"lines {shown} and {len(numbers) - 3} more"


# --- WhatsApp's own words, from the language files -----------------------------------------

_OMITTED_KINDS = ("media", "image", "video", "audio", "sticker", "gif", "document", "contact")
_LINE_KEYS = (
    "attached",
    "location",
    "live_location",
    "poll",
    "deleted",
    "notices",
    "group_notices",
    "events",
    "group_events",
)
"""The keys of the ``[whatsapp]`` table whose phrases are whole lines WhatsApp writes."""
_NEVER = re.compile(r"(?!)")


@dataclass(frozen=True)
class _Language:
    """The ``[whatsapp]`` table of one language (or of one of en.toml's ``other`` languages)."""

    code: str
    name: str  # in English, for notes
    day_first: bool  # its exports are day-first wherever it is spoken
    words: Mapping[str, Any]

    def phrases(self, key: str) -> list[str]:
        return [str(p) for p in self.words.get(key, [])]

    def omitted(self, kind: str) -> list[str]:
        return [str(p) for p in self.words.get("omitted", {}).get(kind, [])]

    def phrase_keys(self) -> list[str]:
        """Every phrase of this language that is a whole line WhatsApp wrote."""
        return [p for k in _LINE_KEYS for p in self.phrases(k)] + [
            p for kind in _OMITTED_KINDS for p in self.omitted(kind)
        ]


def _language(code: str, words: Mapping[str, Any]) -> _Language:
    return _Language(code, str(words["name_in_english"]), bool(words["day_first"]), words)


@cache
def _languages() -> tuple[_Language, ...]:
    found = []
    for code, words in raw_table("whatsapp").items():
        found.append(_language(code, words))
        found.extend(_language(other, w) for other, w in words.get("other", {}).items())
    return tuple(found)


_TOKEN = re.compile(r"(\{\}|\s+|['’])")


def _phrase_regex(phrase: str, hole: str = ".*?") -> str:
    """One phrase of the data as a regular expression: "{}" is any text (``hole``), a run of
    spaces any run of spaces, an apostrophe either kind."""
    out = []
    for token in _TOKEN.split(unicodedata.normalize("NFC", phrase.strip())):
        if token == "{}":
            out.append(hole)
        elif token.isspace():
            out.append(r"\s+")
        elif token in ("'", "’"):
            out.append("['’]")
        elif token:
            out.append(re.escape(token))
    return "".join(out)


def _alternatives(phrases: Iterable[str], hole: str = ".*?") -> str:
    return "|".join(sorted({_phrase_regex(p, hole) for p in phrases}, key=lambda r: (-len(r), r)))


def _whole_lines(phrases: Iterable[str], hole: str = ".*?") -> re.Pattern[str]:
    """A pattern for a whole line that is one of ``phrases`` (a final full stop aside)."""
    alternatives = _alternatives(phrases, hole)
    if not alternatives:
        return _NEVER
    return re.compile(rf"^(?:{alternatives})\.?$", re.IGNORECASE)


def _omitted_pattern(languages: Iterable[_Language]) -> re.Pattern[str]:
    """Media left out, one named group per kind: ``match(line).lastgroup`` is the kind."""
    languages = list(languages)
    groups = []
    for kind in _OMITTED_KINDS:
        alternatives = _alternatives(p for lang in languages for p in lang.omitted(kind))
        if alternatives:
            groups.append(f"(?P<{kind}>{alternatives})")
    return re.compile(rf"^(?:{'|'.join(groups)})\.?$", re.IGNORECASE)


def _chat_name_pattern(prefixes: Iterable[str]) -> re.Pattern[str]:
    """``<prefix> <name>``, ``<prefix> - <name>``; a prefix's spaces may be hyphens or
    underscores ("WhatsApp-Chat mit", "WhatsApp_Chat_with"). Longer prefixes are tried first."""
    joined = {r"[\s_-]+".join(map(re.escape, re.split(r"[\s_-]+", p.strip()))) for p in prefixes}
    alternatives = "|".join(sorted(joined, key=lambda r: (-len(r), r)))
    return re.compile(rf"^(?:{alternatives})(?:\s*[-–—:]\s*|[\s_]+)(?P<name>.+)$", re.IGNORECASE)


def _detector(lang: _Language) -> re.Pattern[str]:
    """Any whole line in this language's words, or a line ending with its "edited" tag."""
    parts = []
    whole = _alternatives(lang.phrase_keys())
    if whole:
        parts.append(rf"^(?:{whole})\.?$")
    edited = _alternatives(lang.phrases("edited"))
    if edited:
        parts.append(rf"(?:{edited})\s*$")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else _NEVER


@dataclass(frozen=True)
class _Vocabulary:
    """Every language's words as matchers (built once)."""

    chat_name: re.Pattern[str]
    time_words: tuple[str, ...]
    omitted: re.Pattern[str]
    attached: re.Pattern[str]  # one group per alternative: the file name
    location: re.Pattern[str]  # one group per alternative: the link
    live_location: re.Pattern[str]
    poll: re.Pattern[str]
    edited: re.Pattern[str]
    deleted: re.Pattern[str]
    notices: re.Pattern[str]
    group_notices: re.Pattern[str]
    events: re.Pattern[str]
    group_events: re.Pattern[str]
    month_first_regions: frozenset[str]
    detectors: tuple[tuple[_Language, re.Pattern[str]], ...]


@cache
def _vocabulary() -> _Vocabulary:
    langs = _languages()

    def every(key: str) -> list[str]:
        return [p for lang in langs for p in lang.phrases(key)]

    edited = _alternatives(every("edited"))
    return _Vocabulary(
        chat_name=_chat_name_pattern(every("chat_prefixes")),
        time_words=tuple(sorted({w.casefold() for w in every("time_words")})),
        omitted=_omitted_pattern(langs),
        attached=_whole_lines(every("attached"), hole="(.*?)"),
        location=_whole_lines(every("location"), hole="(.*?)"),
        live_location=_whole_lines(every("live_location")),
        poll=_whole_lines(every("poll")),
        edited=re.compile(rf"\s*(?:{edited})\s*$", re.IGNORECASE) if edited else _NEVER,
        deleted=_whole_lines(every("deleted")),
        notices=_whole_lines(every("notices")),
        group_notices=_whole_lines(every("group_notices")),
        events=_whole_lines(every("events")),
        group_events=_whole_lines(every("group_events")),
        month_first_regions=frozenset(r.upper() for r in every("month_first_regions")),
        detectors=tuple((lang, _detector(lang)) for lang in langs),
    )


def _first_group(m: re.Match[str]) -> str:
    return next((g for g in m.groups() if g is not None), "")


# --- reading the file ----------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")


def _looks_binary(head: bytes) -> bool:
    """NUL bytes, more than a stray one or two: a chat text (UTF-8) has none."""
    nuls = head.count(b"\x00")
    return nuls >= 2 and nuls * 1000 >= len(head)


def _decode_lines(raw: bytes) -> tuple[str, list[int]]:
    """UTF-8 line by line: a line that is not valid keeps what it can (U+FFFD for the rest),
    so one damaged line costs only itself. Returns the text and the damaged lines."""
    lines, bad = [], []
    for number, chunk in enumerate(_LINE_BREAK_BYTES.split(raw), start=1):
        try:
            line = chunk.decode("utf-8")
        except UnicodeDecodeError:
            line = chunk.decode("utf-8", errors="replace")
            bad.append(number)
        if "\x00" in line:
            line = line.replace("\x00", "\ufffd")
            bad.append(number)
        lines.append(line)
    return "\n".join(lines).removeprefix("\ufeff"), sorted(set(bad))


def _decode(raw: bytes, where: str) -> tuple[str, list[str]]:
    """The text of a chat file, and what in it could not be read (one line each)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), []
        except UnicodeDecodeError:
            text = raw.decode("utf-16", errors="replace")
            return text, ["parts are not valid UTF-16 text (unreadable bytes replaced)"]
    if _looks_binary(raw[:8192]):
        raise ExportError(f"{where}: binary data, not a WhatsApp chat export")
    if b"\x00" not in raw:
        try:
            return raw.decode("utf-8-sig"), []
        except UnicodeDecodeError:
            pass
    text, bad = _decode_lines(raw)
    return text, [f"{_lines_phrase(bad)}: not UTF-8 text (unreadable bytes replaced)"]


def _chat_member(names: list[str]) -> str | None:
    texts = [n for n in names if n.lower().endswith(".txt") and not n.endswith("/")]
    for name in texts:
        if Path(name).name == "_chat.txt":
            return name
    for name in texts:
        if _name_from_stem(Path(name).stem) is not None:
            return name
    return texts[0] if len(texts) == 1 else None


def _read_zip(path: Path, where: str) -> tuple[bytes, str]:
    with zipfile.ZipFile(path) as archive:
        member = _chat_member(archive.namelist())
        if member is None:
            raise ExportError(f"{where}: the zip holds no chat text (_chat.txt)")
        if archive.getinfo(member).file_size > MAX_CHAT_TEXT_BYTES:
            raise ExportError(f"{where}: {member} is too large for a chat export")
        return archive.read(member), member


def read_export_text(path: Path) -> tuple[str, str | None, list[str]]:
    """The chat text of a ``.txt`` or ``.zip`` export, the zip member it came from, and what
    in it could not be decoded (one line each; the rest of the text is still there)."""
    path = Path(path)
    where = path.name
    try:
        if path.suffix.lower() != ".zip":
            if path.stat().st_size > MAX_CHAT_TEXT_BYTES:
                raise ExportError(f"{where}: too large for a chat export")
            text, problems = _decode(path.read_bytes(), where)
            return text, None, problems
        raw, member = _read_zip(path, where)
        text, problems = _decode(raw, f"{where}/{member}")
        return text, member, problems
    except zipfile.BadZipFile:
        raise ExportError(f"{where}: not a valid zip archive") from None
    except (zlib.error, EOFError, NotImplementedError) as exc:
        raise ExportError(f"{where}: the zip is damaged ({one_line(exc)})") from None
    except RuntimeError as exc:  # zipfile: encrypted member
        raise ExportError(f"{where}: cannot open the zip ({exc})") from None
    except OSError as exc:
        raise ExportError(f"{where}: cannot read ({exc.strerror or exc})") from None


# --- the chat name -------------------------------------------------------------------------

_COPY_SUFFIX = re.compile(r"\s*\(\d+\)$")  # "Marco (1)" from a second download


def _name_from_stem(stem: str) -> str | None:
    stem = _COPY_SUFFIX.sub("", _norm(stem))
    m = _vocabulary().chat_name.match(stem)
    return (m.group("name").strip() or None) if m else None


def chat_name_from_filename(path: Path | str, member: str | None = None) -> str:
    """``WhatsApp Chat with Marco.txt`` → ``Marco``; ``WhatsApp Chat - Book club.zip`` →
    ``Book club``; ``WhatsApp Chat mit Jonas.txt`` → ``Jonas`` (the prefixes of every language
    file); otherwise the zip member's name, else the file's own stem."""
    path = Path(path)
    for stem in (path.stem, Path(member).stem if member else ""):
        name = _name_from_stem(stem) if stem else None
        if name:
            return name
    stem = _COPY_SUFFIX.sub("", _clean(path.stem).strip())
    if stem == "_chat" and path.parent.name:
        return _name_from_stem(path.parent.name) or path.parent.name
    return stem or path.name


# --- splitting the text into records -------------------------------------------------------

_S = "[ \u00a0\u202f\t]"
_DATE = r"(?P<date>\d{1,4}[./-]\d{1,2}[./-]\d{1,4})"
_TIME = r"(?P<time>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)"
_AMPM = rf"(?:{_S}*(?P<ampm>[ap]\.?{_S}?m\.?))?"
_DATE_TIME_GAP = rf"(?:,{_S}*|{_S}+)"


@cache
def _headers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(iOS, Android) header patterns, matched against a line with its marks removed."""
    words = "|".join(re.escape(w) for w in _vocabulary().time_words)
    word = rf"(?:(?P<word>{words}){_S}+)?" if words else ""
    moment = rf"{_DATE}{_DATE_TIME_GAP}{word}{_TIME}{_AMPM}"
    ios = re.compile(rf"^\[{moment}{_S}*\]{_S}?(?P<body>.*)$", re.IGNORECASE)
    android = re.compile(
        rf"^{moment}(?:{_S}+[-–—](?:{_S}|$)|:{_S})(?P<body>.*)$",
        re.IGNORECASE,
    )
    return ios, android


@dataclass
class _Record:
    line: int
    date: tuple[str, str, str]
    clock: str
    ampm: str | None
    separator: str  # of the date: "/", "." or "-"
    word: str | None  # between date and time ("klo")
    raw: str  # the header line as written
    lines: list[str]  # the text after the header (marks kept), then its continuation lines


def _raw_tail(raw: str, start: int) -> str:
    """What follows the first ``start`` characters of ``raw`` that are not marks: the raw
    text after a header matched on the line with its marks removed."""
    seen = 0
    for i, ch in enumerate(raw):
        if seen == start:
            return raw[i:]
        if ch not in _MARK_SET:
            seen += 1
    return ""


def _record(number: int, m: re.Match[str], raw: str) -> _Record:
    date_text = m["date"]
    a, b, c = re.split(r"[./-]", date_text)
    sep = re.sub(r"\d", "", date_text)[:1]
    word = m.groupdict().get("word")
    body = _raw_tail(raw, m.start("body"))
    return _Record(number, (a, b, c), m["time"], m["ampm"], sep, word, raw, [body])


def _split_records(text: str, where: str) -> tuple[str, list[_Record], list[str]]:
    """(platform, records, notes). The first header found decides the platform; up to
    ``MAX_LEADING_LINES`` lines before it are skipped (and said in a note)."""
    header: re.Pattern[str] | None = None
    records: list[_Record] = []
    leading = 0
    for number, raw in enumerate(_LINE_BREAK.split(text), start=1):
        bare = raw.translate(_STRIP_MARKS)
        if header is None:
            if not bare.strip():
                continue
            header = next((h for h in _headers() if h.match(bare)), None)
            if header is None:
                leading = number
                if number >= MAX_LEADING_LINES:
                    break
                continue
        m = header.match(bare)
        if m:
            records.append(_record(number, m, raw))
        elif records:
            records[-1].lines.append(raw)
    if header is None:
        if leading:
            raise ExportError(
                f"{where}: not a WhatsApp chat export (no message date and time in its first "
                f"{leading} lines)"
            )
        raise ExportError(f"{where}: empty file, not a WhatsApp chat export")
    before = "line 1 comes" if leading == 1 else f"lines 1–{leading} come"
    notes = [f"{before} before the first message; skipped"] if leading else []
    return ("ios" if header is _headers()[0] else "android"), records, notes


# --- dates and times -----------------------------------------------------------------------

_YEARS = range(2009, 2101)  # WhatsApp exists since 2009: any other year is not a timestamp
_ORDER_NAMES = {"dmy": "day-first", "mdy": "month-first", "ymd": "year-first"}


def _date_of(rec: _Record, order: str) -> date | None:
    first, second, third = rec.date
    if (order == "ymd") != (len(first) == 4):
        return None
    a, b, c = int(first), int(second), int(third)
    y, mo, d = (a, b, c) if order == "ymd" else (c, b, a) if order == "dmy" else (c, a, b)
    if y < 100:
        y += 2000
    if y not in _YEARS:
        return None
    try:
        return date(y, mo, d)
    except ValueError:
        return None


def _clock_of(rec: _Record) -> tuple[int, int, int] | None:
    """24-hour (hour, minute, second). With AM/PM, hour 0 AM and 13–23 PM (written by some
    phones) are read as the 24-hour hours they are."""
    parts = [int(p) for p in re.split(r"[:.]", rec.clock)]
    hour, minute, second = parts[0], parts[1], parts[2] if len(parts) > 2 else 0
    if minute > 59 or second > 59:
        return None
    if rec.ampm:
        pm = rec.ampm.lower().startswith("p")
        if 1 <= hour <= 12:
            hour = hour % 12 + (12 if pm else 0)
        elif not ((hour == 0 and not pm) or (13 <= hour <= 23 and pm)):
            return None
    elif hour > 23:
        return None
    return hour, minute, second


def _wall_clock(rec: _Record, order: str) -> datetime | None:
    day, clock = _date_of(rec, order), _clock_of(rec)
    if day is None or clock is None:
        return None
    return datetime(day.year, day.month, day.day, *clock)


def _inversions(times: list[datetime | None]) -> int:
    valid = [t for t in times if t is not None]
    return sum(1 for a, b in pairwise(valid) if b < a)


_Evidence = tuple[str, str]  # (order, what told it)


def _date_order(
    records: list[_Record], where: str, user_locale: str | None
) -> tuple[str, str | None]:
    """The order the file's dates are written in, and why when its values alone cannot tell
    (for the chat's note). Most records must fit the order; the others are damaged."""
    if sum(len(r.date[0]) == 4 for r in records) * 2 > len(records):
        return "ymd", None
    fits = {o: sum(_date_of(r, o) is not None for r in records) for o in ("dmy", "mdy")}
    if fits["dmy"] != fits["mdy"]:
        return ("dmy" if fits["dmy"] > fits["mdy"] else "mdy"), None
    if not fits["dmy"]:
        raise ExportError(f"{where}: dates are neither day/month/year nor month/day/year")
    order, why = _order_from_sequence(records) or _order_from_evidence(records, user_locale)
    if all(int(r.date[0]) == int(r.date[1]) for r in records):
        return order, None  # every day is its month's number: either order reads the same
    return order, why


def _order_from_sequence(records: list[_Record]) -> _Evidence | None:
    """Messages are chronological: the order that keeps them so (strong evidence)."""
    dmy = _inversions([_wall_clock(r, "dmy") for r in records])
    mdy = _inversions([_wall_clock(r, "mdy") for r in records])
    if dmy == mdy:
        return None
    order = "dmy" if dmy < mdy else "mdy"
    return order, f"every date fits both orders; only {_ORDER_NAMES[order]} keeps them in sequence"


def _order_from_evidence(records: list[_Record], user_locale: str | None) -> _Evidence:
    """When the file's values cannot tell: its other clues, then the computer's locale."""
    clues: tuple[Callable[[list[_Record]], _Evidence | None], ...] = (
        _order_from_attachment_names,
        _order_from_language,
        _order_from_date_style,
    )
    for clue in clues:
        found = clue(records)
        if found:
            return found[0], f"the file could not tell; from {found[1]}"
    found = _order_from_locale(_user_locale() if user_locale is None else user_locale)
    if found:
        return found[0], f"the file could not tell; from {found[1]}"
    return "dmy", "the file could not tell, nor could this computer's locale; as most of the world"


_NAME_DATE = re.compile(
    r"\b(?:IMG|VID|AUD|PTT|DOC|STK|PHOTO|VIDEO|AUDIO|GIF|STICKER)-(20\d\d)-?(\d\d)-?(\d\d)"
)


def _order_from_attachment_names(records: list[_Record]) -> _Evidence | None:
    """Android names media by the day it came ("IMG-20241207-WA0005.jpg"), iOS too
    ("00000012-PHOTO-2024-12-07-...")."""
    votes: Counter[str] = Counter()
    for rec in records:
        m = _NAME_DATE.search(_clean(rec.lines[0]))
        if not m:
            continue
        try:
            named = date(*(int(x) for x in m.groups()))
        except ValueError:
            continue
        votes.update(o for o in ("dmy", "mdy") if _date_of(rec, o) == named)
    if votes["dmy"] == votes["mdy"]:
        return None
    return ("dmy" if votes["dmy"] > votes["mdy"] else "mdy"), "the dates in attachment names"


def _order_from_language(records: list[_Record]) -> _Evidence | None:
    """The language WhatsApp wrote the export in (its system lines, media markers, the word
    between date and time), when that language is day-first wherever it is spoken."""
    hits: Counter[str] = Counter()
    vocabulary = _vocabulary()
    words = {lang.code: {w.casefold() for w in lang.phrases("time_words")} for lang in _languages()}
    for rec in records:
        line = _norm(_split_sender(rec.lines[0])[1])
        word = (rec.word or "").casefold()
        for lang, detector in vocabulary.detectors:
            if word in words[lang.code] or (line and detector.search(line)):
                hits[lang.code] += 1
    if not hits:
        return None
    top = max(hits.values())
    leaders = [lang for lang, _ in vocabulary.detectors if hits[lang.code] == top]
    if not all(lang.day_first for lang in leaders):
        return None
    return "dmy", f"the chat's language: {leaders[0].name}"


def _order_from_date_style(records: list[_Record]) -> _Evidence | None:
    """How the phone writes dates. Month-first phones (US) write ``3/9/24`` with slashes and no
    leading zeros; a 12-hour English clock alone says nothing (UK, India, Australia use it)."""
    if any(r.separator in ".-" for r in records):
        return "dmy", "its dotted or dashed dates, which month-first phones do not write"
    if any(r.ampm and "." in r.ampm for r in records):
        return "dmy", 'its clock ("p. m."), as day-first phones write it'
    fields = [f for r in records for f in r.date[:2]]
    if any(len(f) == 2 and f.startswith("0") for f in fields):
        return "dmy", "its zero-padded dates, which month-first (US) phones do not write"
    us_style = all(len(r.date[2]) == 2 and r.ampm for r in records)
    if us_style and any(len(f) == 1 for f in fields):
        return "mdy", "its US-style dates and clock (3/9/24, 8:15 PM)"
    return None


_LOCALE = re.compile(r"^(?P<lang>[A-Za-z]{2,3})(?:[_-](?P<region>[A-Za-z]{2}))?(?![A-Za-z])")


def _user_locale() -> str:
    """The computer's locale for dates (``LC_ALL``, ``LC_TIME``, ``LANG``); "" when unset."""
    for var in ("LC_ALL", "LC_TIME", "LANG"):
        value = os.environ.get(var, "")
        if value and not value.startswith(("C.", "POSIX")) and value != "C":
            return value
    try:
        return locale.getlocale(locale.LC_TIME)[0] or ""
    except ValueError:
        return ""


def _order_from_locale(name: str) -> _Evidence | None:
    m = _LOCALE.match(name or "")
    if not m:
        return None
    shown = m.group(0)
    region = (m["region"] or "").upper()
    if region:
        month_first = region in _vocabulary().month_first_regions
        return ("mdy" if month_first else "dmy"), f"this computer's locale: {shown}"
    lang = next((x for x in _languages() if x.code == m["lang"].lower()), None)
    if lang is not None and lang.day_first:
        return "dmy", f"this computer's locale: {shown}"
    return None


# --- messages ------------------------------------------------------------------------------

_SENDER = re.compile(r"^(?P<name>[^:\n]{1,120}?):(?P<rest>.*)$", re.S)
_QUOTES = re.compile('["“”„«»‹›]')  # a quoted group name: a system line, not a sender
_KIND_BY_PREFIX = {
    "IMG": "image",
    "PHOTO": "image",
    "VID": "video",
    "VIDEO": "video",
    "PTT": "voice message",
    "AUD": "audio",
    "AUDIO": "audio",
    "STK": "sticker",
    "STICKER": "sticker",
    "GIF": "gif",
}
_KIND_BY_EXT = {
    "jpg": "image",
    "jpeg": "image",
    "png": "image",
    "heic": "image",
    "webp": "sticker",
    "mp4": "video",
    "mov": "video",
    "3gp": "video",
    "opus": "audio",
    "ogg": "audio",
    "m4a": "audio",
    "mp3": "audio",
    "aac": "audio",
    "vcf": "contact",
}


def _attachment_tag(file_name: str) -> str:
    name = re.sub(r"^\d{8}-", "", file_name.strip())  # iOS: 00000012-PHOTO-2024-...jpg
    prefix = re.split(r"[-_]", name, maxsplit=1)[0].upper()
    kind = _KIND_BY_PREFIX.get(prefix) or _KIND_BY_EXT.get(name.rsplit(".", 1)[-1].lower())
    return f"[{kind}]" if kind else f"[document: {name}]"


def _media_tag(line: str) -> str | None:
    """What replaces the first line of a media message ("[image]", "[location] <url>", ...);
    None when it is plain text. ``line`` is normalised (:func:`_norm`); the message's further
    lines are its caption."""
    vocabulary = _vocabulary()
    if m := vocabulary.omitted.match(line):
        return f"[{m.lastgroup}]"
    if vocabulary.poll.match(line):
        return "[poll]"
    if m := vocabulary.location.match(line):
        link = _first_group(m).strip()
        return f"[location] {link}" if link else "[location]"
    if vocabulary.live_location.match(line):
        return "[location]"
    if m := vocabulary.attached.match(line):
        return _attachment_tag(_first_group(m))
    return None


def _split_sender(first: str) -> tuple[str | None, str, bool]:
    """(sender or None for a system line, the first line's text, WhatsApp marked the text as
    its own with a direction mark before it)."""
    m = _SENDER.match(first)
    if m:
        name = _clean(m["name"]).strip()
        rest = m["rest"]
        after = rest.lstrip(_MARKS)
        if name and not _QUOTES.search(name) and after[:1] in ("", " ", "\u00a0"):
            text = after[1:]
            return name, text, len(after) < len(rest) or text[:1] in _MARK_SET
    return None, first, False


def _system_kind(line: str, *, sender: bool, marked: bool) -> str | None:
    """ "group" or "chat" when a line (normalised) is one of WhatsApp's own, else None. Lines
    with a sender are WhatsApp's for phrases nobody types (notices), or for events ("X added
    Y") only when WhatsApp marked them so."""
    vocabulary = _vocabulary()
    if vocabulary.group_notices.match(line):
        return "group"
    if vocabulary.notices.match(line):
        return "chat"
    if sender and not marked:
        return None
    if vocabulary.group_events.match(line):
        return "group"
    return "chat" if vocabulary.events.match(line) or not sender else None


@dataclass(frozen=True)
class ExportMessage:
    time: datetime  # local wall-clock time, naive, as written in the export
    sender: str
    text: str
    is_media: bool
    line: int


@dataclass
class ParsedChat:
    name: str
    platform: str  # "android" | "ios"
    date_order: str  # "dmy" | "mdy" | "ymd"
    messages: list[ExportMessage] = field(default_factory=list)
    senders: list[str] = field(default_factory=list)  # distinct, in order of appearance
    group_system_lines: bool = False  # "X created group", "X added Y", "Y left", ...
    notes: list[str] = field(default_factory=list)
    """How the file was read, one line each ("dates read day-first (…)")."""
    errors: list[str] = field(default_factory=list)
    """What could not be read, one line each ("line 12: not UTF-8 text (…)")."""

    @property
    def looks_like_group(self) -> bool:
        return len(self.senders) > 2 or self.group_system_lines


def _read_record(chat: ParsedChat, rec: _Record, when: datetime) -> None:
    """Add the message of one record to ``chat``, or note its system line."""
    sender, text, marked = _split_sender(rec.lines[0])
    rest = rec.lines[1:]
    line = _norm(text)
    kind = _system_kind(line, sender=sender is not None, marked=marked)
    if kind or sender is None:
        chat.group_system_lines = chat.group_system_lines or kind == "group"
        return
    vocabulary = _vocabulary()
    if vocabulary.deleted.match(line):
        return
    media = _media_tag(line)
    body = "\n".join(rest if media is not None else [text, *rest])
    clean = vocabulary.edited.sub("", _clean(body)).strip()
    if media is not None:
        clean = f"{media} {clean}" if clean else media
    if not clean or clean == "null":  # view-once media: an empty line, or "null" (Android)
        clean, media = VIEW_ONCE, VIEW_ONCE
    if sender not in chat.senders:
        chat.senders.append(sender)
    chat.messages.append(ExportMessage(when, sender, clean, media is not None, rec.line))


def _timed(records: list[_Record], order: str, chat: ParsedChat) -> list[tuple[_Record, datetime]]:
    """The records with their time. A header with an impossible date or time is a line of the
    message before after all (a quoted message, or a damaged header)."""
    kept: list[tuple[_Record, datetime]] = []
    merged: list[int] = []
    for rec in records:
        when = _wall_clock(rec, order)
        if when is not None:
            kept.append((rec, when))
        elif kept:
            kept[-1][0].lines.extend([rec.raw, *rec.lines[1:]])
            merged.append(rec.line)
        else:
            chat.errors.append(f"line {rec.line}: its date or time is impossible; skipped")
    if merged:
        chat.notes.append(
            f"{_lines_phrase(merged)}: the date or time is impossible; kept as text of the "
            "message before"
        )
    return kept


def parse_chat(
    text: str, *, chat_name: str, where: str = "chat", user_locale: str | None = None
) -> ParsedChat:
    """Parse the text of an export. Raises ExportError when it is not one. ``user_locale``
    ("en_GB") is the last clue to an ambiguous date order; None reads the computer's, ""
    means none."""
    platform, records, notes = _split_records(text, where)
    order, why = _date_order(records, where, user_locale)
    chat = ParsedChat(name=chat_name, platform=platform, date_order=order, notes=notes)
    if why:
        chat.notes.append(f"dates read {_ORDER_NAMES[order]} ({why})")
    for rec, when in _timed(records, order, chat):
        try:
            _read_record(chat, rec, when)
        except Exception as exc:  # one message that cannot be read loses only itself
            chat.errors.append(f"line {rec.line}: could not be read ({one_line(exc)})")
    return chat


# --- events --------------------------------------------------------------------------------


def resolve_zone(tz: tzinfo | str | None) -> tzinfo:
    """A zone object from a zone, an IANA name, or None (the machine's zone)."""
    if isinstance(tz, tzinfo):
        return tz
    if tz is None:
        return zone(local_zone_name())
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise SourceError(f"unknown time zone {tz!r}") from None


def chat_id_for(chat: ParsedChat) -> str:
    """An exported chat's id: its name with its first message (when and who), which every
    later export of the same chat repeats and another chat of the same name does not: two
    groups called "Family" are two chats, and muting one leaves the other alone."""
    first = min(chat.messages, key=lambda m: m.time, default=None)
    opening = f"{first.time.isoformat()}\x1f{first.sender}" if first else ""
    key = f"{chat.name}\x1f{opening}"
    return "whatsapp-export-chat:" + hashlib.sha1(key.encode()).hexdigest()[:16]


def message_id(chat_name: str, msg: ExportMessage, occurrence: int) -> str:
    key = "\x1f".join([chat_name, msg.time.isoformat(), msg.sender, msg.text, str(occurrence)])
    return "whatsapp-export:" + hashlib.sha1(key.encode()).hexdigest()


def _same_person(sender: str, user_name: str | None, user_phone: str | None) -> bool:
    if user_name and sender.casefold() == _clean(user_name).strip().casefold():
        return True
    phone = phone_of(sender)
    return bool(phone and user_phone and _digits(phone) == _digits(user_phone))


def mentions(text: str, user_name: str | None, user_phone: str | None) -> bool:
    """``@<user name>`` (whole name) or ``@<user phone>`` (same digits) appears in ``text``."""
    text = _clean(text)
    if user_name:
        name = re.escape(_clean(user_name).strip())
        if re.search(rf"@{name}(?!\w)", text, re.IGNORECASE):
            return True
    if user_phone and len(_digits(user_phone)) >= 7:
        mine = _digits(user_phone)
        for m in re.finditer(r"@(\+?\d[\d \-]{5,}\d)", text):
            theirs = _digits(m.group(1))
            if theirs == mine or (len(theirs) >= 8 and mine.endswith(theirs)):
                return True
            if len(mine) >= 8 and theirs.endswith(mine):
                return True
    return False


def chat_events(
    chat: ParsedChat,
    *,
    export_file: str,
    user_name: str | None = None,
    user_phone: str | None = None,
    tz: tzinfo | str | None = None,
    is_group: bool | None = None,
) -> list[Event]:
    """The canonical events of a parsed chat (the user's own messages left out). A message
    that cannot become an event is left out and said in ``chat.errors``."""
    zone_ = resolve_zone(tz)
    group = chat.looks_like_group if is_group is None else is_group
    chat_ref = Chat(id=chat_id_for(chat), name=chat.name, is_group=group)
    seen: Counter[tuple[datetime, str, str]] = Counter()
    events = []
    for msg in chat.messages:
        key = (msg.time, msg.sender, msg.text)
        occurrence = seen[key]
        seen[key] += 1
        if _same_person(msg.sender, user_name, user_phone):
            continue
        try:
            events.append(
                Event(
                    id=message_id(chat.name, msg, occurrence),
                    source="whatsapp",
                    event_type="whatsapp.message",
                    time=msg.time.replace(tzinfo=zone_),
                    sender=Person(name=msg.sender, address=phone_of(msg.sender)),
                    text=msg.text,
                    chat=chat_ref,
                    mentions_me=mentions(msg.text, user_name, user_phone),
                    refs={"chat": chat.name, "export_file": export_file},
                )
            )
        except Exception as exc:  # one message that cannot be mapped loses only itself
            chat.errors.append(f"line {msg.line}: could not become an event ({one_line(exc)})")
    return events


def load_export(path: Path | str, *, user_locale: str | None = None) -> ParsedChat:
    """Read and parse one export file (``.txt`` or ``.zip``); see :func:`parse_chat`."""
    path = Path(path)
    text, member, problems = read_export_text(path)
    where = f"{path.name}/{member}" if member else path.name
    name = chat_name_from_filename(path, member)
    chat = parse_chat(text, chat_name=name, where=where, user_locale=user_locale)
    chat.errors[:0] = problems
    return chat


def export_events(
    path: Path | str,
    *,
    user_name: str | None = None,
    user_phone: str | None = None,
    tz: tzinfo | str | None = None,
    is_group: bool | None = None,
    user_locale: str | None = None,
) -> list[Event]:
    """The events of one export file; raises ExportError when it cannot be read."""
    chat = load_export(path, user_locale=user_locale)
    return chat_events(
        chat,
        export_file=str(Path(path).resolve()),
        user_name=user_name,
        user_phone=user_phone,
        tz=tz,
        is_group=is_group,
    )


# --- the folder source ---------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _load_cursor(cursor: str | None) -> dict[str, list[Any]]:
    if not cursor:
        return {}
    try:
        data = json.loads(cursor)
    except json.JSONDecodeError:
        log.info("whatsapp-export: unreadable cursor; rescanning the folder")
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == 3}


class WhatsAppExportSource(Source):
    """Watches a folder for chat exports; each fetch reads the files new or changed since the
    cursor (``{relative path: [mtime, size, sha256]}``). A file that cannot be read is
    reported once (WARNING) and skipped, and read again when it changes; so are the lines of
    a file that could not be read. How a file was read (a guessed date order, ...) is logged
    (INFO) and kept in ``notes``, by relative path."""

    kind = "whatsapp-export"
    poll_seconds = 60.0

    def __init__(
        self,
        folder: Path | str,
        *,
        user_name: str | None = None,
        user_phone: str | None = None,
        tz: tzinfo | str | None = None,
        group_hints: Mapping[str, bool] | None = None,
        settle_seconds: float = 5.0,
        max_events: int = 5000,
        user_locale: str | None = None,
    ):
        super().__init__(str(Path(folder).expanduser()))
        self.folder = Path(self.account)
        self.user_name = user_name
        self.user_phone = user_phone
        self.zone = resolve_zone(tz)
        self.group_hints = dict(group_hints or {})
        self.settle_seconds = settle_seconds  # a file written this recently may be half-copied
        self.max_events = max_events
        self.user_locale = user_locale  # None: the computer's (see parse_chat)
        self.notes: dict[str, list[str]] = {}
        self._reported: set[tuple[str, str]] = set()

    async def fetch(self, cursor: str | None) -> Batch:
        return await asyncio.to_thread(self._scan, cursor)

    def _candidates(self) -> list[Path]:
        if not self.folder.is_dir():
            raise SourceError(f"WhatsApp export folder {self.folder} does not exist")
        found = []
        for path in self.folder.rglob("*"):
            rel = path.relative_to(self.folder)
            if any(part.startswith(".") for part in rel.parts):
                continue
            if path.suffix.lower() in EXPORT_SUFFIXES and path.is_file():
                found.append(path)
        return sorted(found)

    def _scan(self, cursor: str | None) -> Batch:
        known = _load_cursor(cursor)
        state: dict[str, list[Any]] = {}
        events: list[Event] = []
        more = False
        now = time.time()
        for path in self._candidates():
            rel = path.relative_to(self.folder).as_posix()
            old = known.get(rel)
            try:
                st = path.stat()
            except OSError:
                continue
            if old is not None and old[0] == st.st_mtime and old[1] == st.st_size:
                state[rel] = old
                continue
            if 0 <= now - st.st_mtime < self.settle_seconds or len(events) >= self.max_events:
                more = more or len(events) >= self.max_events
                if old is not None:
                    state[rel] = old  # not read yet: keep the old entry so it stays "changed"
                continue
            try:
                digest = _sha256(path)
            except OSError as exc:
                version = f"{st.st_mtime}:{st.st_size}"
                reason = f"{rel}: cannot read ({exc.strerror or exc})"
                self._report(rel, version, f"WhatsApp export skipped: {reason}")
                continue
            state[rel] = [st.st_mtime, st.st_size, digest]
            if old is not None and old[2] == digest:
                continue  # touched, not changed
            events.extend(self._read(path, rel, digest))
        return Batch(events=events, cursor=json.dumps(state, sort_keys=True), more=more)

    def _read(self, path: Path, rel: str, digest: str) -> list[Event]:
        try:
            chat = load_export(path, user_locale=self.user_locale)
            events = chat_events(
                chat,
                export_file=str(path),
                user_name=self.user_name,
                user_phone=self.user_phone,
                tz=self.zone,
                is_group=self.group_hints.get(chat.name),
            )
        except ExportError as exc:
            self._report(rel, digest, f"WhatsApp export skipped: {exc}")
            return []
        except Exception as exc:  # one file this code cannot read must not stop the others
            reason = f"{rel}: could not be read ({one_line(exc)})"
            self._report(rel, digest, f"WhatsApp export skipped: {reason}")
            return []
        self.notes[rel] = [*chat.notes, *chat.errors]
        for note in chat.notes:
            log.info("whatsapp-export: %s: %s", rel, note)
        if chat.errors:
            shown = "; ".join(chat.errors[:3])
            more = f"; and {len(chat.errors) - 3} more" if len(chat.errors) > 3 else ""
            self._report(rel, digest, f"WhatsApp export {rel}: {shown}{more}")
        log.info("whatsapp-export: %s: %d messages from %s", rel, len(events), chat.name)
        return events

    def _report(self, rel: str, version: str, message: str) -> None:
        """Log ``message`` (WARNING) once per version of a file."""
        if (rel, version) in self._reported:
            return
        self._reported.add((rel, version))
        log.warning("%s", message)
