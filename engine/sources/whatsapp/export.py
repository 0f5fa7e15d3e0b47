"""WhatsApp "Export chat" files as canonical events, and a source that watches a folder of them.

An export is a ``.txt`` file, or a ``.zip`` holding it (``_chat.txt`` or ``WhatsApp Chat with
X.txt``) plus media. Every message starts on a line with its date and time:

- Android: ``12/03/24, 14:05 - Marco: text`` (24 h) or ``3/12/24, 2:05 PM - Marco: text``;
- iOS: ``[12/03/2024, 14:05:22] Marco: text``, often with U+200E marks and a narrow no-break
  space (U+202F) before AM/PM.

Lines without such a header continue the previous message. The date order (day-first,
month-first, year-first) is decided per file from the values seen. System lines (encryption
notice, "X added Y", deleted messages) are skipped; media messages are kept as ``[image]``,
``[video]``, ... followed by their caption. Times are local wall-clock times, converted with the
given zone. The user's own messages are not events (the user wrote them).

Event ids hash the chat name, the wall-clock time, the sender, the text and the occurrence index
of identical messages, so re-exporting a chat only adds the messages that are new.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
import zipfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from itertools import pairwise
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.clock import local_zone_name, zone
from engine.events import Chat, Event, Person
from engine.sources.base import Batch, Source, SourceError

log = logging.getLogger(__name__)

MAX_CHAT_TEXT_BYTES = 256 * 1024 * 1024  # a chat text larger than this is not an export
EXPORT_SUFFIXES = (".txt", ".zip")


class ExportError(SourceError):
    """A file is not a readable WhatsApp chat export; the message says why, in one line."""


# --- text clean-up -------------------------------------------------------------------------

# Invisible direction marks WhatsApp sprinkles around names, phone numbers and system lines.
_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_STRIP_MARKS = str.maketrans(dict.fromkeys(_MARKS, None))
_LEADING_MARKS = re.compile(f"^[{_MARKS}]+")
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2007": " "})


def _clean(text: str) -> str:
    return text.translate(_STRIP_MARKS).translate(_SPACES)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


_PHONE = re.compile(r"^\+?[\d\s\-().]{6,}$")


def phone_of(name: str) -> str | None:
    """``"+39 333 123 4567"`` → ``"+393331234567"``; None when the name is not a phone number."""
    name = name.strip()
    if not _PHONE.match(name) or len(_digits(name)) < 7:
        return None
    return ("+" if name.startswith("+") else "") + _digits(name)


# --- reading the file ----------------------------------------------------------------------


def _decode(raw: bytes, where: str) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise ExportError(f"{where}: not valid UTF-16 text") from None
    if b"\x00" in raw[:8192]:
        raise ExportError(f"{where}: binary data, not a WhatsApp chat export")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ExportError(f"{where}: line {line} is not UTF-8 text") from None


def _chat_member(names: list[str]) -> str | None:
    texts = [n for n in names if n.lower().endswith(".txt") and not n.endswith("/")]
    for name in texts:
        if Path(name).name == "_chat.txt":
            return name
    for name in texts:
        if _name_from_stem(Path(name).stem) is not None:
            return name
    return texts[0] if len(texts) == 1 else None


def read_export_text(path: Path) -> tuple[str, str | None]:
    """The chat text of a ``.txt`` or ``.zip`` export, and the zip member it came from."""
    path = Path(path)
    where = path.name
    try:
        if path.suffix.lower() != ".zip":
            if path.stat().st_size > MAX_CHAT_TEXT_BYTES:
                raise ExportError(f"{where}: too large for a chat export")
            return _decode(path.read_bytes(), where), None
        with zipfile.ZipFile(path) as archive:
            member = _chat_member(archive.namelist())
            if member is None:
                raise ExportError(f"{where}: the zip holds no chat text (_chat.txt)")
            if archive.getinfo(member).file_size > MAX_CHAT_TEXT_BYTES:
                raise ExportError(f"{where}: {member} is too large for a chat export")
            raw = archive.read(member)
        return _decode(raw, f"{where}/{member}"), member
    except zipfile.BadZipFile:
        raise ExportError(f"{where}: not a valid zip archive") from None
    except RuntimeError as exc:  # zipfile: encrypted member
        raise ExportError(f"{where}: cannot open the zip ({exc})") from None
    except OSError as exc:
        raise ExportError(f"{where}: cannot read ({exc.strerror or exc})") from None


# --- the chat name -------------------------------------------------------------------------

_NAME_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^WhatsApp Chat with (?P<name>.+)$",
        r"^WhatsApp Chat\s*[-–—:]\s*(?P<name>.+)$",
        r"^WhatsApp-Chat mit (?P<name>.+)$",
        r"^Chat de WhatsApp con (?P<name>.+)$",
        r"^Chat WhatsApp con (?P<name>.+)$",
        r"^Conversa do WhatsApp com (?P<name>.+)$",
        r"^Discussion WhatsApp avec (?P<name>.+)$",
        r"^WhatsApp-chat met (?P<name>.+)$",
    )
]
_COPY_SUFFIX = re.compile(r"\s*\(\d+\)$")  # "Marco (1)" from a second download


def _name_from_stem(stem: str) -> str | None:
    stem = _COPY_SUFFIX.sub("", _clean(stem).strip())
    for pattern in _NAME_PATTERNS:
        m = pattern.match(stem)
        if m:
            return m.group("name").strip() or None
    return None


def chat_name_from_filename(path: Path | str, member: str | None = None) -> str:
    """``WhatsApp Chat with Marco.txt`` → ``Marco``; ``WhatsApp Chat - Book club.zip`` →
    ``Book club``; otherwise the zip member's name, else the file's own stem."""
    path = Path(path)
    for stem in (path.stem, Path(member).stem if member else ""):
        name = _name_from_stem(stem) if stem else None
        if name:
            return name
    stem = _COPY_SUFFIX.sub("", _clean(path.stem).strip())
    if stem == "_chat" and path.parent.name:
        return _name_from_stem(path.parent.name) or path.parent.name
    return stem or path.name


# --- parsing -------------------------------------------------------------------------------

_DATE = r"(?P<date>\d{1,4}[./-]\d{1,2}[./-]\d{1,4})"
_TIME = r"(?P<time>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)"
_AMPM = r"(?:[ \u00a0\u202f]*(?P<ampm>[ap]\.?[ \u00a0\u202f]?m\.?))?"
_IOS_HEADER = re.compile(
    rf"^\[{_DATE},?[ \u00a0\u202f]+{_TIME}{_AMPM}\][ \u00a0]?(?P<body>.*)$", re.I
)
_ANDROID_HEADER = re.compile(
    rf"^{_DATE},?[ \u00a0\u202f]+{_TIME}{_AMPM}[ \u00a0\u202f]+[-–—][ \u00a0\u202f](?P<body>.*)$",
    re.I,
)
_SENDER = re.compile(r"^(?P<name>[^:\n]{1,120}?):(?:[ \u00a0](?P<text>.*))?$", re.S)
_SYSTEM_IN_NAME = re.compile(
    r"[\"“”«»]| (changed (the|this|their|your)|created group|added|removed|joined using) "
)
_GROUP_SYSTEM = re.compile(
    r"\b(created group|added|removed|left|changed the subject|changed this group|"
    r"changed the group|joined using this group|this group)\b",
    re.IGNORECASE,
)
_ENCRYPTION_NOTICE = re.compile(
    r"^(messages and calls are end-to-end encrypted|messages to this group are now secured|"
    r"your security code with .* changed)",
    re.IGNORECASE,
)
_DELETED = {
    "this message was deleted",
    "this message was deleted.",
    "you deleted this message",
    "you deleted this message.",
    "message deleted",
    "null",  # Android: view-once media
}
_EDITED = re.compile(r"\s*<This message was edited>\s*$", re.IGNORECASE)
_OMITTED = {
    "<media omitted>": "[media]",
    "<medien ausgelassen>": "[media]",
    "<media omessi>": "[media]",
    "<multimedia omitido>": "[media]",
    "<médias omis>": "[media]",
    "<mídia oculta>": "[media]",
    "<media weggelaten>": "[media]",
    "image omitted": "[image]",
    "photo omitted": "[image]",
    "video omitted": "[video]",
    "audio omitted": "[audio]",
    "sticker omitted": "[sticker]",
    "gif omitted": "[gif]",
    "document omitted": "[document]",
    "contact card omitted": "[contact]",
}
_ATTACHED_IOS = re.compile(r"^(?:.*?)<attached: (?P<file>[^>]+)>$")
_ATTACHED_ANDROID = re.compile(r"^(?P<file>[^\n]+?\.\w{2,5}) \(file attached\)$")
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


def _media_tag(first_line: str) -> str | None:
    """What replaces the first line of a media message ("[image]", "[location] <url>", ...);
    None when it is plain text. The message's further lines are its caption."""
    line = _clean(first_line).strip()
    low = line.lower()
    if low in _OMITTED:
        return _OMITTED[low]
    if low == "poll:":
        return "[poll]"
    if low.startswith(("location: ", "live location shared")):
        return "[location] " + line.split(": ", 1)[-1] if ": " in line else "[location]"
    m = _ATTACHED_IOS.match(line) or _ATTACHED_ANDROID.match(line)
    return _attachment_tag(m.group("file")) if m else None


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

    @property
    def looks_like_group(self) -> bool:
        return len(self.senders) > 2 or self.group_system_lines


@dataclass
class _Record:
    line: int
    date: tuple[str, str, str]
    clock: str
    ampm: str | None
    separator: str  # of the date: "/", "." or "-"
    raw: str  # the header line as written
    lines: list[str]  # the text after the header, then its continuation lines


def _split_records(text: str, where: str) -> tuple[str, list[_Record]]:
    lines = re.split(r"\r\n|\r|\n", text)
    header: re.Pattern[str] | None = None
    records: list[_Record] = []
    for number, raw in enumerate(lines, start=1):
        bare = _LEADING_MARKS.sub("", raw)
        if header is None:
            if not bare.strip():
                continue
            header = next((h for h in (_IOS_HEADER, _ANDROID_HEADER) if h.match(bare)), None)
            if header is None:
                raise ExportError(
                    f"{where}: not a WhatsApp chat export (line {number} has no message date "
                    "and time)"
                )
        m = header.match(bare)
        if m:
            date = m["date"]
            a, b, c = re.split(r"[./-]", date)
            sep = re.sub(r"\d", "", date)[:1]
            records.append(_Record(number, (a, b, c), m["time"], m["ampm"], sep, raw, [m["body"]]))
        elif records:
            records[-1].lines.append(raw)
    if header is None:
        raise ExportError(f"{where}: empty file, not a WhatsApp chat export")
    return ("ios" if header is _IOS_HEADER else "android"), records


def _ymd(date: tuple[str, str, str], order: str) -> tuple[int, int, int]:
    a, b, c = (int(x) for x in date)
    if order == "ymd":
        y, mo, d = a, b, c
    elif order == "dmy":
        d, mo, y = a, b, c
    else:
        mo, d, y = a, b, c
    if y < 100:
        y += 2000
    return y, mo, d


def _wall_clock(rec: _Record, order: str) -> datetime | None:
    parts = [int(p) for p in re.split(r"[:.]", rec.clock)]
    hour, minute, second = parts[0], parts[1], parts[2] if len(parts) > 2 else 0
    if rec.ampm:
        if hour < 1 or hour > 12:
            return None
        pm = rec.ampm.lower().startswith("p")
        hour = hour % 12 + (12 if pm else 0)
    try:
        return datetime(*_ymd(rec.date, order), hour, minute, second)
    except ValueError:
        return None


def _inversions(times: list[datetime | None]) -> int:
    valid = [t for t in times if t is not None]
    return sum(1 for a, b in pairwise(valid) if b < a)


def _date_order(records: list[_Record], where: str) -> str:
    dates = [r.date for r in records]
    if all(len(a) == 4 for a, _, _ in dates):
        return "ymd"
    if any(len(a) == 4 for a, _, _ in dates):
        raise ExportError(f"{where}: dates mix year-first and year-last orders")
    firsts = [int(a) for a, _, _ in dates]
    seconds = [int(b) for _, b, _ in dates]
    day_first = max(firsts) <= 31 and max(seconds) <= 12
    month_first = max(firsts) <= 12 and max(seconds) <= 31
    if day_first != month_first:
        return "dmy" if day_first else "mdy"
    if not day_first:
        raise ExportError(f"{where}: dates are neither day/month/year nor month/day/year")
    # Every value fits both orders: messages are chronological, so prefer the order that keeps
    # them so; on a tie, a US-style clock ("PM", not "p. m.") suggests month-first.
    dmy = _inversions([_wall_clock(r, "dmy") for r in records])
    mdy = _inversions([_wall_clock(r, "mdy") for r in records])
    if dmy != mdy:
        return "dmy" if dmy < mdy else "mdy"
    us_clock = any(r.ampm and "." not in r.ampm for r in records)
    dotted = all(r.separator == "." for r in records)  # "12.03.24" is European day-first
    return "mdy" if us_clock and not dotted else "dmy"


def _body(rec: _Record) -> tuple[str | None, str, bool]:
    """(sender or None for a system line, text, text began with a U+200E mark)."""
    first, rest = rec.lines[0], rec.lines[1:]
    m = _SENDER.match(first)
    if not m or _SYSTEM_IN_NAME.search(_clean(m["name"])):
        return None, "\n".join([first, *rest]), False
    text = m["text"] or ""
    marked = text.startswith("\u200e")
    return _clean(m["name"]).strip(), "\n".join([text, *rest]), marked


def parse_chat(text: str, *, chat_name: str, where: str = "chat") -> ParsedChat:
    """Parse the text of an export. Raises ExportError when it is not one."""
    platform, records = _split_records(text, where)
    order = _date_order(records, where)
    chat = ParsedChat(name=chat_name, platform=platform, date_order=order)
    kept: list[_Record] = []
    for rec in records:  # a header with an impossible date is a continuation line after all
        if _wall_clock(rec, order) is not None:
            kept.append(rec)
        elif kept:
            kept[-1].lines.extend([rec.raw, *rec.lines[1:]])
    for rec in kept:
        when = _wall_clock(rec, order)
        assert when is not None
        sender, body, marked = _body(rec)
        first, _, caption = body.partition("\n")
        media = _media_tag(first) if sender else None
        clean = _EDITED.sub("", _clean(body)).strip()
        if sender is None or (marked and media is None) or _ENCRYPTION_NOTICE.match(clean):
            if _GROUP_SYSTEM.search(clean):
                chat.group_system_lines = True
            continue
        if clean.lower() in _DELETED:
            continue
        if sender not in chat.senders:
            chat.senders.append(sender)
        if media is not None:
            caption = _EDITED.sub("", _clean(caption)).strip()
            clean = f"{media} {caption}" if caption else media
        chat.messages.append(ExportMessage(when, sender, clean, media is not None, rec.line))
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


def chat_id_for(name: str) -> str:
    return "whatsapp-export-chat:" + hashlib.sha1(name.encode()).hexdigest()[:16]


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
    """The canonical events of a parsed chat (the user's own messages left out)."""
    zone_ = resolve_zone(tz)
    group = chat.looks_like_group if is_group is None else is_group
    chat_ref = Chat(id=chat_id_for(chat.name), name=chat.name, is_group=group)
    seen: Counter[tuple[datetime, str, str]] = Counter()
    events = []
    for msg in chat.messages:
        key = (msg.time, msg.sender, msg.text)
        occurrence = seen[key]
        seen[key] += 1
        if _same_person(msg.sender, user_name, user_phone):
            continue
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
    return events


def load_export(path: Path | str) -> ParsedChat:
    """Read and parse one export file (``.txt`` or ``.zip``)."""
    path = Path(path)
    text, member = read_export_text(path)
    where = f"{path.name}/{member}" if member else path.name
    return parse_chat(text, chat_name=chat_name_from_filename(path, member), where=where)


def export_events(
    path: Path | str,
    *,
    user_name: str | None = None,
    user_phone: str | None = None,
    tz: tzinfo | str | None = None,
    is_group: bool | None = None,
) -> list[Event]:
    """The events of one export file; raises ExportError when it cannot be read."""
    chat = load_export(path)
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
    reported once (WARNING) and skipped, and read again when it changes."""

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
    ):
        super().__init__(str(Path(folder).expanduser()))
        self.folder = Path(self.account)
        self.user_name = user_name
        self.user_phone = user_phone
        self.zone = resolve_zone(tz)
        self.group_hints = dict(group_hints or {})
        self.settle_seconds = settle_seconds  # a file written this recently may be half-copied
        self.max_events = max_events
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
                self._report(rel, version, f"{rel}: cannot read ({exc.strerror or exc})")
                continue
            state[rel] = [st.st_mtime, st.st_size, digest]
            if old is not None and old[2] == digest:
                continue  # touched, not changed
            events.extend(self._read(path, rel, digest))
        return Batch(events=events, cursor=json.dumps(state, sort_keys=True), more=more)

    def _read(self, path: Path, rel: str, digest: str) -> list[Event]:
        try:
            chat = load_export(path)
        except ExportError as exc:
            self._report(rel, digest, str(exc))
            return []
        events = chat_events(
            chat,
            export_file=str(path),
            user_name=self.user_name,
            user_phone=self.user_phone,
            tz=self.zone,
            is_group=self.group_hints.get(chat.name),
        )
        log.info("whatsapp-export: %s: %d messages from %s", rel, len(events), chat.name)
        return events

    def _report(self, rel: str, version: str, reason: str) -> None:
        if (rel, version) in self._reported:
            return
        self._reported.add((rel, version))
        log.warning("WhatsApp export skipped: %s", reason)
