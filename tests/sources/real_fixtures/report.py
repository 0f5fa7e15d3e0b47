"""The report: per source, named figures, an optional per-file table and a list of problems,
printed as text or as JSON; and the helpers every part shares (a throw-away store, captured
engine warnings, fixture labels from SOURCES.md)."""

from __future__ import annotations

import contextlib
import logging
import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.events import Event
from engine.store.db import close_database, open_database
from engine.store.models import EventRecord
from engine.tasks import one_line

Value = int | float | str | bool | None

HTML_TAG = re.compile(r"<[a-zA-Z/!][^>]*>")
HTML_ELEMENT = re.compile(
    r"<(?:!--|!doctype\b|/?(?:a|abbr|b|big|blockquote|body|br|center|div|em|font|h[1-6]|head"
    r"|hr|html|i|img|li|meta|ol|p|pre|small|span|strong|style|script|table|tbody|td|th|title"
    r"|tr|u|ul)(?=[\s/>]))[^>]*>",
    re.IGNORECASE,
)
"""An HTML element's tag: not ``<user@host>`` or ``<http://…>``, which plain text has too."""
MOJIBAKE = re.compile(r"[ÃÐÑÂ][\u0080-\u00bf]|â€")  # UTF-8 bytes read as Latin-1 / cp1252


@dataclass
class Figure:
    key: str
    label: str
    value: Value


@dataclass
class Section:
    key: str
    title: str
    how: str  # which path the data went through
    figures: list[Figure] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[list[Value]] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # file, issue, detail
    notes: list[str] = field(default_factory=list)

    def add(self, key: str, label: str, value: Value) -> None:
        self.figures.append(Figure(key, label, value))

    def problem(self, file: str, issue: str, detail: str = "") -> None:
        self.problems.append((file, issue, detail))

    def failed(self, file: str, exc: BaseException) -> None:
        """The harness itself could not handle this file: reported, and the run goes on."""
        self.problem(file, "harness error", f"{type(exc).__name__}: {one_line(exc)}")

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "how": self.how,
            "figures": {f.key: f.value for f in self.figures},
            "files": [dict(zip(self.columns, row, strict=True)) for row in self.rows],
            "problems": [{"file": f, "issue": i, "detail": d} for f, i, d in self.problems],
            "notes": self.notes,
        }

    def render(self) -> list[str]:
        out = [f"== {self.title} ==", f"   ({self.how})"]
        width = max((len(f.label) for f in self.figures), default=0)
        out += [f"  {f.label.ljust(width)}  {_show(f.value)}" for f in self.figures]
        out += [f"  note: {n}" for n in self.notes]
        if self.rows:
            out += ["", "  per file:", *table(self.columns, self.rows, indent=4)]
        if self.problems:
            out += ["", f"  problems ({len(self.problems)}):"]
            out += table(["file", "issue", "detail"], [list(p) for p in self.problems], indent=4)
        return [*out, ""]


@dataclass
class Report:
    root: str
    code: str = ""  # which TIC code was measured
    sections: list[Section] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        head = {"fixtures": self.root, "code": self.code}
        return {**head, **{s.key: s.to_json() for s in self.sections}}

    def render(self) -> str:
        lines = [f"Real fixtures through TIC: {self.root}", f"code: {self.code}", ""]
        for section in self.sections:
            lines += section.render()
        return "\n".join(lines)


def code_version(repo: Path) -> str:
    """The commit measured, and whether engine/ has changes not committed (read-only git)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--", "engine"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return head + (f" + uncommitted changes in {len(changed)} engine/ files" if changed else "")


def _show(value: Value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1%}"
    return "-" if value is None else str(value)


def table(columns: Sequence[str], rows: Sequence[Sequence[Value]], indent: int = 0) -> list[str]:
    """A plain text table; long cells are cut so a row stays readable."""
    cells = [[_cut(_show(v)) for v in row] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    pad = " " * indent

    def line(values: Sequence[str]) -> str:
        return pad + "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    return [line(columns), line(["-" * w for w in widths]), *(line(r) for r in cells)]


def _cut(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(text: str | None, limit: int = 60) -> str:
    return _cut(repr(text or "")[1:-1], limit)


# --- shared helpers ------------------------------------------------------------------------


@contextlib.contextmanager
def temp_store(path: Path) -> Iterator[None]:
    """A fresh TIC store at ``path`` for one run of a source (the engine's own schema)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    open_database(path)
    try:
        yield
    finally:
        close_database()


def stored_events(after: int = 0) -> list[tuple[int, Event]]:
    """The events in the open store with a row id above ``after``, in the order stored."""
    rows = EventRecord.select().where(EventRecord.id > after).order_by(EventRecord.id)
    return [(r.id, Event.model_validate_json(r.payload)) for r in rows]


def last_row_id() -> int:
    row = EventRecord.select(EventRecord.id).order_by(EventRecord.id.desc()).first()
    return int(row.id) if row is not None else 0


class EngineLog(logging.Handler):
    """Collects what the engine logs at WARNING and above (a skipped export, a failed sync),
    instead of letting it reach stderr."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("engine"):
            self.records.append(record)

    def take(self) -> list[str]:
        return [r.getMessage() for r in self.take_records()]

    def take_records(self) -> list[logging.LogRecord]:
        taken, self.records = self.records, []
        return taken

    def report_to(self, section: Section) -> None:
        """What the engine logged during a part, as figures and problems of its section."""
        records = self.take_records()
        traced = [r for r in records if r.exc_info]
        section.add("logged", "warnings/errors the engine logged", len(records))
        section.add("logged_tracebacks", "  of them with a traceback", len(traced))
        for record in records[:30]:
            kind = "engine error (traceback)" if record.exc_info else "engine warning"
            section.problem("(log)", kind, record.getMessage())


@contextlib.contextmanager
def captured_log() -> Iterator[EngineLog]:
    handler = EngineLog()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


LABEL_WORDS = {"spam", "phishing", "phishy", "scam"}


@dataclass(frozen=True)
class Origin:
    repository: str
    upstream_path: str
    what: str

    @property
    def labelled_spam(self) -> bool:
        """The upstream project filed it as spam / phishing (a folder or a word of its name)."""
        words = set(re.split(r"[^a-z0-9]+", self.upstream_path.lower()))
        return bool(words & LABEL_WORDS)


def read_origins(root: Path) -> dict[str, Origin]:
    """SOURCES.md rows by fixture path (relative to the fixtures folder)."""
    origins: dict[str, Origin] = {}
    try:
        text = (root / "SOURCES.md").read_text(encoding="utf-8")
    except OSError:
        return origins
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 7 or not cells[4].startswith("`"):
            continue
        origins[cells[4].strip("`")] = Origin(cells[1], cells[3].strip("`"), cells[6])
    return origins


def origin_of(origins: dict[str, Origin], rel: str) -> Origin:
    """The SOURCES.md row of a fixture, else one guessed from its path."""
    return origins.get(rel) or Origin("?", rel.replace("__", "/"), "")
