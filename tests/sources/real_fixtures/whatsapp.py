"""WhatsApp exports through ``WhatsAppExportSource``: each file alone in its own export folder,
synced with ``sync_once`` into its own store, and compared with an independent, generous
reading of the file (which lines begin a message, which of those are system lines) and with
the fixture project's own expected parse where one sits next to the file."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from engine.events import Event
from engine.sources.sync import sync_once
from engine.sources.whatsapp.export import WhatsAppExportSource
from tests.sources.real_fixtures.report import EngineLog, Section, short, stored_events, temp_store

MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
SP = r"[ \t\u00a0\u202f\u2007]"
HEADER = re.compile(
    rf"^[{MARKS}\s]*(?P<open>\[)?[{MARKS}]*"
    r"(?P<date>\d{1,4}(?P<sep>[./-])\d{1,2}(?P=sep)\d{1,4})"
    rf",?{SP}+(?:klo{SP}+)?"
    r"(?P<time>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)"
    rf"(?:{SP}*(?P<ampm>[aApP]\.?{SP}?[mM]\.?))?"
    r"(?(open)\])"
    rf"{SP}*(?:[-–—]{SP}+|:{SP}+)?"
    r"(?P<body>.*)$"
)
"""A line that begins a message, in any locale seen: / . - dates in any order, optional
brackets, 12/24 h, "klo", AM/PM with or without dots and spaces, leading marks or BOM."""
SENDER = re.compile(rf"^(?P<name>[^:\n]{{1,120}}?):(?:{SP}(?P<text>.*)|$)", re.S)
SYSTEM_NOTICE = re.compile(
    r"end-to-end|ende-zu-ende|de extremo a extremo|de bout en bout|secure service from meta"
    r"|created group|hat die gruppe .*erstellt|creó el grupo|a créé le groupe"
    r"|^(this message was deleted|you deleted this message|diese nachricht wurde gelöscht"
    r"|du hast diese nachricht gelöscht|se eliminó este mensaje|eliminaste este mensaje"
    r"|ce message a été supprimé|vous avez supprimé ce message|message deleted|null)\.?$",
    re.IGNORECASE,
)
"""System lines written as if someone sent them ("Alice: Messages and calls are end-to-end
encrypted", "System: Jane hat die Gruppe erstellt", deleted-message placeholders)."""
RAW_MEDIA = re.compile(
    r"<\s*(?:media|medien|médias|mídia|multimedia|archivo|メディア)[^>]*>"
    r"|‹[^›>]*[›>]"
    r"|\((?:file attached|datei angehängt|archivo adjunto|fichier joint|arquivo anexado"
    r"|file allegato|ファイル添付)\)"
    r"|<(?:attached|adjunto|anexo|allegato|pièce jointe): [^>]+>"
    r"|\b(?:image|video|audio|sticker|gif|document|photo|contact card) omitted\b",
    re.IGNORECASE,
)
NAME_PREFIX = re.compile(
    r"^(?:WhatsApp[- ]?Chat|Chat de WhatsApp|Chat WhatsApp|Conversa do WhatsApp"
    r"|Discussion WhatsApp)\b",
    re.IGNORECASE,
)
ORDERS = ("dmy", "mdy", "ymd")
COLUMNS = [
    "file",
    "result",
    "headers",
    "system",
    "expected",
    "stored",
    "missing",
    "raw media",
    "glued",
    "misdated",
    "judged by",
    "read as",
    "evident",
    "backwards tic/file",
    "chat name",
]


@dataclass
class Line:
    number: int
    date: tuple[str, str, str]
    clock: str
    ampm: str | None
    sender: str | None  # None: a system line
    text: str

    def when(self, order: str) -> datetime | None:
        a, b, c = (int(x) for x in self.date)
        y, mo, d = (a, b, c) if order == "ymd" else (c, b, a) if order == "dmy" else (c, a, b)
        y += 2000 if y < 100 else 0
        parts = [int(p) for p in re.split(r"[:.]", self.clock)]
        hour = parts[0]
        if self.ampm:
            hour = hour % 12 + (12 if self.ampm.lower().startswith("p") else 0)
        try:
            return datetime(y, mo, d, hour, parts[1], parts[2] if len(parts) > 2 else 0)
        except ValueError:
            return None


def clean(text: str) -> str:
    text = text.translate({ord(m): None for m in MARKS})
    return " ".join(text.replace("\u00a0", " ").replace("\u202f", " ").split())


def read_lines(text: str) -> list[Line]:
    lines: list[Line] = []
    for number, raw in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        m = HEADER.match(raw)
        if not m:
            continue
        date = tuple(re.split(r"[./-]", m["date"]))
        body = m["body"]
        s = SENDER.match(body)
        name = clean(s["name"]) if s else ""
        sender: str | None = name
        said = clean(s["text"] or "") if s else ""
        if not s or re.search(r"[\"“”«»]| changed ", name) or SYSTEM_NOTICE.search(said):
            sender, said = None, clean(body)
        lines.append(Line(number, (date[0], date[1], date[2]), m["time"], m["ampm"], sender, said))
    return lines


def evident_order(lines: list[Line]) -> str | None:
    """The date order the values themselves prove; None when every value fits both."""
    if any(len(x.date[0]) == 4 for x in lines):
        return "ymd"
    if any(int(x.date[0]) > 12 for x in lines):
        return "dmy"
    if any(int(x.date[1]) > 12 for x in lines):
        return "mdy"
    return None


def plausible_order(lines: list[Line]) -> str | None:
    """For dates that fit day- and month-first alike: the reading under which the chat's days
    follow each other closely (read the wrong way, a chat jumps a month at every new day); None
    when neither is clearly closer (or the chat has a single day)."""
    gaps: dict[str, float] = {}
    for order in ("dmy", "mdy"):
        days = sorted({t.date() for x in lines if (t := x.when(order)) is not None})
        if len(days) < 2:
            return None
        gaps[order] = sum((b - a).days for a, b in pairwise(days)) / (len(days) - 1)
    near, far = sorted(gaps, key=lambda o: gaps[o])
    return near if gaps[far] >= 4 * max(gaps[near], 1.0) else None


def backwards(times: list[datetime | None]) -> int:
    valid = [t for t in times if t is not None]
    return sum(1 for a, b in pairwise(valid) if b < a)


def align(messages: list[Line], events: list[Event]) -> list[tuple[Line, Event]]:
    """Each event with the message line it came from (same sender, text alike), in order."""
    pairs: list[tuple[Line, Event]] = []
    start = 0
    for event in events:
        sender = clean(event.sender.name or "") if event.sender else ""
        text = clean(event.text.split("\n", 1)[0]).lower()[:20]
        window = [k for k in range(start, len(messages)) if messages[k].sender == sender]
        alike = [k for k in window if messages[k].text.lower()[:20] == text]
        if not window:
            continue
        chosen = (alike or window)[0]
        pairs.append((messages[chosen], event))
        start = chosen + 1
    return pairs


def expected_parses(folder: Path) -> list[dict[str, Any]]:
    """A fixture project's expected parse next to the file (chat-miner's target.json: a list of
    {timestamp, author, message})."""
    found: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, list) and all(
            isinstance(d, dict) and {"timestamp", "author", "message"} <= set(d) for d in data
        ):
            found += data
    return found


def _naive(event: Event) -> datetime:
    return event.time.replace(tzinfo=None)


async def run_whatsapp(root: Path, work: Path, log: EngineLog, section: Section) -> None:
    folder = root / "whatsapp"
    files = sorted(
        p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in (".txt", ".zip")
    )
    totals: Counter[str] = Counter()
    section.columns = COLUMNS
    for index, path in enumerate(files):
        rel = path.relative_to(root).as_posix()
        try:
            row = await _one_file(path, rel, work / "whatsapp" / f"{index:03}", log, section)
        except Exception as exc:
            section.failed(rel, exc)
            continue
        section.rows.append([row.get(c) for c in COLUMNS])
        for key in ("headers", "system", "expected", "stored"):
            totals[key] += int(row[key] or 0)
        totals["missing"] += max(0, int(row["missing"] or 0))
        totals["missing_empty"] += min(
            max(0, int(row["missing"] or 0)), row.get("missing empty", 0)
        )
        totals["extra"] += max(0, -int(row["missing"] or 0))
        totals["refused"] += row["result"] != "ok"
        totals["raw_media"] += int(row["raw media"] or 0)
        totals["glued"] += int(row["glued"] or 0)
        totals["misdated"] += int(row["misdated"] or 0)
        totals[f"misdated:{row['judged by']}"] += int(row["misdated"] or 0)
        totals["not_found"] += int(row.get("not found", 0))
        totals["files_misdated"] += bool(row["misdated"])
        totals["prefixed"] += bool(NAME_PREFIX.match(str(row["chat name"] or "")))
        totals["backwards"] += "!" in str(row["backwards tic/file"])
        totals["ambiguous"] += row["judged by"] is None and bool(row["stored"])
    section.add("files", "export files (.txt/.zip)", len(files))
    section.add("refused", "files refused", totals["refused"])
    section.add("headers", "message-header lines in the files", totals["headers"])
    section.add("system", "  of them system lines recognised", totals["system"])
    section.add("expected", "  messages expected (headers - system)", totals["expected"])
    section.add("stored", "messages stored", totals["stored"])
    section.add("missing", "messages missing (expected - stored, per file)", totals["missing"])
    section.add(
        "missing_empty",
        '  of them messages with no text at all ("Name:" and nothing)',
        totals["missing_empty"],
    )
    section.add("extra", "messages stored beyond those expected (per file)", totals["extra"])
    section.add("raw_media", "messages whose text is a raw media marker", totals["raw_media"])
    section.add("glued", "messages with a message-header line inside their text", totals["glued"])
    section.add(
        "prefixed", 'chat names still carrying a "WhatsApp Chat …" prefix', totals["prefixed"]
    )
    section.add("misdated", "messages misdated", totals["misdated"])
    section.add(
        "misdated:target", "  against the project's expected parse", totals["misdated:target.json"]
    )
    section.add(
        "expected_not_found",
        "  expected messages (project's parse) not stored as written",
        totals["not_found"],
    )
    section.add(
        "misdated:values", "  against the order the values prove", totals["misdated:values"]
    )
    section.add(
        "misdated:closeness",
        "  against the order under which days fall closest (values fit both)",
        totals["misdated:closeness"],
    )
    section.add("files_misdated", "  files with misdated messages", totals["files_misdated"])
    section.add(
        "backwards", "files whose stored order goes back more than the file's", totals["backwards"]
    )
    section.add(
        "ambiguous", "files with messages whose dates could not be judged", totals["ambiguous"]
    )


async def _one_file(
    path: Path, rel: str, folder: Path, log: EngineLog, section: Section
) -> dict[str, Any]:
    target = folder / (path.parent.name if path.name == "_chat.txt" else "") / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, target)  # its own export folder, as a user drops an export
    log.take()
    with temp_store(folder.with_suffix(".db")):
        source = WhatsAppExportSource(folder, tz="UTC", settle_seconds=0)
        try:
            await sync_once(source)
        finally:
            await source.close()
        events = [e for _, e in stored_events()]
    refusals = [m for m in log.take() if "skipped" in m]
    try:
        text = _file_text(path)
    except (OSError, ValueError, zipfile.BadZipFile):  # not readable here either
        text = ""
    lines = read_lines(text)
    messages = [x for x in lines if x.sender is not None]
    row: dict[str, Any] = {
        "file": rel,
        "result": "ok" if not refusals else "refused",
        "headers": len(lines),
        "system": len(lines) - len(messages),
        "expected": len(messages),
        "stored": len(events),
        "missing": len(messages) - len(events),
        "chat name": events[0].chat.name if events and events[0].chat else None,
    }
    for message in refusals:
        section.problem(rel, "refused", message.removeprefix("WhatsApp export skipped: "))
    raw = [e for e in events if RAW_MEDIA.search(e.text)]
    row["raw media"] = len(raw)
    for event in raw[:3]:
        section.problem(rel, "raw media marker", short(event.text))
    glued = [e for e in events if any(HEADER.match(x) for x in e.text.splitlines()[1:])]
    row["glued"] = len(glued)
    for event in glued[:3]:
        section.problem(rel, "a message-header line inside a message's text", short(event.text))
    if row["chat name"] and NAME_PREFIX.match(row["chat name"]):
        section.problem(rel, "chat name keeps the export prefix", row["chat name"])
    pairs = align(messages, events)
    paired = {id(line) for line, _ in pairs} | {id(e) for _, e in pairs}
    unmatched = [x for x in messages if id(x) not in paired]
    row["missing empty"] = sum(1 for x in unmatched if not x.text)
    if row["missing"] > 0:
        lost = "; ".join(f"line {x.number} {x.sender}: {x.text[:25]!r}" for x in unmatched[:3])
        detail = f"{len(messages)} expected, {len(events)} stored" + (f"; {lost}" if lost else "")
        section.problem(rel, "messages missing", detail)
    elif row["missing"] < 0:
        extra = [e for e in events if id(e) not in paired][:3]
        more = "; ".join(f"{e.sender.name if e.sender else '?'}: {e.text[:30]!r}" for e in extra)
        detail = f"{len(messages)} expected, {len(events)} stored; {more}"
        section.problem(rel, "messages beyond those expected", detail)
    _dates(row, lines, messages, pairs, events, path, section)
    return row


def _file_text(path: Path) -> str:
    if path.suffix.lower() == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.lower().endswith(".txt")]
            raw = archive.read(names[0]) if names else b""
    else:
        raw = path.read_bytes()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    return raw.decode("utf-8-sig", errors="replace")


def _dates(
    row: dict[str, Any],
    lines: list[Line],
    messages: list[Line],
    pairs: list[tuple[Line, Event]],
    events: list[Event],
    path: Path,
    section: Section,
) -> None:
    rel = row["file"]
    evident = evident_order(lines)
    plausible = None if evident else plausible_order(lines)
    row["evident"] = evident or (f"{plausible}?" if plausible else "?")
    votes = {o: sum(1 for line, e in pairs if line.when(o) == _naive(e)) for o in ORDERS}
    read_as = max(ORDERS, key=lambda o: votes[o]) if pairs and any(votes.values()) else None
    row["read as"] = read_as or ("-" if not events else "none")
    expected = expected_parses(path.parent) if path.suffix == ".txt" else []
    misdated = 0
    if expected:  # the project's own parse: each expected message's time
        for want in expected:
            when = datetime.fromisoformat(str(want["timestamp"]))
            same = [
                e
                for e in events
                if e.sender
                and e.sender.name == want["author"]
                and clean(e.text) == clean(str(want["message"]))
            ]
            if not same:
                row["not found"] = row.get("not found", 0) + 1
                section.problem(
                    rel, "expected message (target.json) not stored", short(want["message"])
                )
            elif all(_naive(e) != when for e in same):
                misdated += 1
                section.problem(rel, "misdated (vs target.json)", f"{_naive(same[0])} ≠ {when}")
    elif judge := evident or plausible:
        for line, event in pairs:
            if line.when(judge) != _naive(event):
                misdated += 1
        if misdated:
            proof = f"dates prove {evident}" if evident else f"days fall closer as {plausible}"
            detail = f"{misdated} of {len(pairs)}; {proof}, read as {read_as}"
            section.problem(rel, "misdated", detail)
    row["misdated"] = misdated
    row["judged by"] = (
        "target.json" if expected else "values" if evident else ("closeness" if plausible else None)
    )
    order = evident or plausible or read_as or "dmy"
    tic = backwards([_naive(e) for e in events])
    own = backwards([x.when(order) for x in messages])
    row["backwards tic/file"] = f"{tic}/{own}" + ("!" if tic > own else "")
    if tic > own:
        section.problem(rel, "stored order goes backwards", f"{tic} steps back, the file {own}")
