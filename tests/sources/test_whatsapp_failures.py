"""A message fails alone: a line that cannot be decoded, read or mapped loses (or flags) only
itself, one unreadable file in the export folder is reported and skipped while the others
import, and no damage to a valid export lets an exception escape (seeded fuzzing)."""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from engine.sources.whatsapp import export
from engine.sources.whatsapp.export import (
    ExportError,
    WhatsAppExportSource,
    chat_events,
    load_export,
    parse_chat,
)
from tests.sources import whatsapp_samples as samples

BASE = samples.FUZZ_BASE.encode("utf-8")
MARKS = ("\u200e", "\ufeff", "\u200f", "\u2068", "\u2069")


def _messages(path: Path) -> list[tuple[datetime, str, str]]:
    return [(m.time, m.sender, m.text) for m in load_export(path, user_locale="").messages]


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# --- one line, one message -------------------------------------------------------------------


def test_a_line_that_is_not_utf8_flags_only_itself(tmp_path: Path) -> None:
    data = b"12/03/24, 09:16 - Marco: caf\xe9 au lait?\n13/03/24, 09:17 - Marco: Ci vediamo\n"
    chat = load_export(_write(tmp_path, "WhatsApp Chat with Marco.txt", data))
    assert [m.text for m in chat.messages] == ["caf\ufffd au lait?", "Ci vediamo"]
    assert chat.errors == ["line 1: not UTF-8 text (unreadable bytes replaced)"]


def test_a_stray_nul_byte_is_not_a_binary_file(tmp_path: Path) -> None:
    data = b"12/03/24, 09:16 - Marco: one\x00\n13/03/24, 09:17 - Marco: two\n"
    chat = load_export(_write(tmp_path, "WhatsApp Chat with Marco.txt", data))
    assert [m.text for m in chat.messages] == ["one\ufffd", "two"]
    assert chat.errors == ["line 1: not UTF-8 text (unreadable bytes replaced)"]


def test_lines_before_the_first_message_are_skipped_and_said() -> None:
    text = samples.lines("Chat exported by hand", "", "13/03/24, 09:17 - Marco: hello")
    chat = parse_chat(text, chat_name="Marco")
    assert [m.text for m in chat.messages] == ["hello"]
    assert chat.notes[0] == "line 1 comes before the first message; skipped"


def test_a_message_that_cannot_be_read_loses_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    media_tag = export._media_tag

    def failing(line: str) -> str | None:
        if "second" in line:
            raise ValueError("cannot read this one")
        return media_tag(line)

    monkeypatch.setattr(export, "_media_tag", failing)
    text = samples.lines(
        "13/03/24, 09:16 - Marco: first",
        "13/03/24, 09:17 - Marco: second",
        "14/03/24, 09:18 - Marco: third",
    )
    chat = parse_chat(text, chat_name="Marco")
    assert [m.text for m in chat.messages] == ["first", "third"]
    assert chat.errors == ["line 2: could not be read (cannot read this one)"]


def test_a_message_that_cannot_become_an_event_loses_only_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mentions = export.mentions

    def failing(text: str, name: str | None, phone: str | None) -> bool:
        if text == "second":
            raise RuntimeError("mapping failed")
        return mentions(text, name, phone)

    monkeypatch.setattr(export, "mentions", failing)
    text = samples.lines(
        "13/03/24, 09:16 - Marco: first",
        "13/03/24, 09:17 - Marco: second",
        "14/03/24, 09:18 - Marco: third",
    )
    chat = parse_chat(text, chat_name="Marco")
    events = chat_events(chat, export_file="x.txt", tz="Europe/Rome")
    assert [e.text for e in events] == ["first", "third"]
    assert chat.errors == ["line 2: could not become an event (mapping failed)"]


# --- one file of the folder ------------------------------------------------------------------


@pytest.mark.allow_log_warnings
async def test_one_file_this_code_cannot_read_is_reported_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    parse = export.parse_chat

    def failing(text: str, **kw: object) -> export.ParsedChat:
        if kw["chat_name"] == "Sara":
            raise RecursionError("maximum recursion depth exceeded")
        return parse(text, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(export, "parse_chat", failing)
    samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    samples.write_android_zip(tmp_path)  # Sara's
    _write(tmp_path, "WhatsApp Chat with Luca.txt", b"12/03/24, 09:16 - Luca: caf\xe9\n")
    source = WhatsAppExportSource(tmp_path, user_name="Anna", tz="Europe/Rome", settle_seconds=0)

    batch = await source.fetch(None)

    marco = ["Ciao! Are we still on for Friday?", "Great.\nSee you there\nand bring the book"]
    assert sorted(e.text for e in batch.events) == sorted(
        [*marco, "[media]", "Running late, 10 min", "caf\ufffd"]
    )
    warnings = sorted(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert warnings == [
        "WhatsApp export WhatsApp Chat with Luca.txt: line 1: not UTF-8 text (unreadable bytes "
        "replaced)",
        "WhatsApp export skipped: WhatsApp Chat with Sara.zip: could not be read (maximum "
        "recursion depth exceeded)",
    ]
    assert source.notes["WhatsApp Chat with Luca.txt"] == [
        "dates read day-first (the file could not tell; from its zero-padded dates, which "
        "month-first (US) phones do not write)",
        "line 1: not UTF-8 text (unreadable bytes replaced)",
    ]


async def test_the_source_keeps_and_logs_how_a_file_was_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = samples.lines("3/9/24, 14:05 - Ravi: one", "3/9/24, 14:06 - Ravi: two")
    (tmp_path / "WhatsApp Chat with Ravi.txt").write_text(text, encoding="utf-8")
    source = WhatsAppExportSource(tmp_path, tz="UTC", settle_seconds=0, user_locale="en_US")
    batch = await source.fetch(None)
    assert [e.time.isoformat() for e in batch.events] == [
        "2024-03-09T14:05:00+00:00",
        "2024-03-09T14:06:00+00:00",
    ]
    note = "dates read month-first (the file could not tell; from this computer's locale: en_US)"
    assert source.notes == {"WhatsApp Chat with Ravi.txt": [note]}
    assert f"whatsapp-export: WhatsApp Chat with Ravi.txt: {note}" in caplog.messages


# --- fuzzing ---------------------------------------------------------------------------------

Mutation = tuple[bytes, set[int]]  # the damaged export, and the lines (1-based) it touched


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _flip(rng: random.Random, data: bytes) -> Mutation:
    i = rng.randrange(len(data))
    touched = {_line_of(data, i)} | ({_line_of(data, i) + 1} if data[i : i + 1] == b"\n" else set())
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :], touched


def _truncate(rng: random.Random, data: bytes) -> Mutation:
    i = rng.randrange(1, len(data))
    return data[:i], set(range(_line_of(data, i), data.count(b"\n") + 2))


def _drop_line(rng: random.Random, data: bytes) -> Mutation:
    rows = data.split(b"\n")
    k = rng.randrange(len(rows) - 1)
    return b"\n".join(rows[:k] + rows[k + 1 :]), {k + 1}


def _double_line(rng: random.Random, data: bytes) -> Mutation:
    rows = data.split(b"\n")
    k = rng.randrange(len(rows) - 1)
    return b"\n".join(rows[: k + 1] + rows[k:]), {k + 1}


def _insert_marks(rng: random.Random, data: bytes) -> Mutation:
    """Invisible marks at character boundaries change nothing a person reads."""
    text = data.decode("utf-8")
    for _ in range(rng.randrange(1, 6)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(MARKS) + text[i:]
    return text.encode("utf-8"), set()


MUTATIONS: list[Callable[[random.Random, bytes], Mutation]] = [
    _flip,
    _flip,
    _truncate,
    _drop_line,
    _double_line,
    _insert_marks,
]


def _unaffected(touched: set[int]) -> set[tuple[datetime, str, str]]:
    """The base's messages none of whose lines, nor the next header, were touched."""
    rows = samples.FUZZ_BASE.split("\n")
    headers = [n for n, row in enumerate(rows, 1) if re.match(samples.FUZZ_HEADER, row)]
    chat = parse_chat(samples.FUZZ_BASE, chat_name="Allotment", user_locale="")
    ends = {h: nxt for h, nxt in zip(headers, [*headers[1:], len(rows) + 1], strict=True)}
    return {
        (m.time, m.sender, m.text)
        for m in chat.messages
        if not touched & set(range(m.line, ends[m.line] + 1))
    }


def _mutations(count: int, seed: int) -> list[Mutation]:
    rng = random.Random(seed)
    return [rng.choice(MUTATIONS)(rng, BASE) for _ in range(count)]


def test_the_fuzz_base_reads_whole(tmp_path: Path) -> None:
    read = _messages(_write(tmp_path, "WhatsApp Chat with Allotment.txt", BASE))
    assert len(read) == 17 and set(read) == _unaffected(set())
    beetplan = "[document: Beetplan.pdf] Beetplan für März"
    assert read[4] == (datetime(2024, 3, 16, 7, 45), "Tomasz", beetplan)


@pytest.mark.parametrize("seed", range(4))
def test_damaged_exports_lose_only_the_damaged_messages(tmp_path: Path, seed: int) -> None:
    for n, (data, touched) in enumerate(_mutations(100, seed)):
        path = _write(tmp_path, f"WhatsApp Chat with Allotment {n}.txt", data)
        try:
            read = set(_messages(path))
        except ExportError:
            assert b"\n" not in data, f"seed {seed} #{n}: refused a file with whole lines"
            continue
        missing = _unaffected(touched) - read
        assert not missing, f"seed {seed} #{n} (lines {sorted(touched)}): lost {missing}"


def test_marks_inserted_anywhere_change_nothing() -> None:
    rng = random.Random(7)
    whole = _unaffected(set())
    for _ in range(100):
        data, _ = _insert_marks(rng, BASE)
        chat = parse_chat(data.decode("utf-8"), chat_name="Allotment", user_locale="")
        assert {(m.time, m.sender, m.text) for m in chat.messages} == whole
        assert chat.errors == []


def test_random_text_never_raises_anything_but_export_error() -> None:
    rng = random.Random(11)
    alphabet = "0123456789/.-:, []APMapm\u200e\u202f\ufeff\n\r<>()Ünè🌱"
    outcomes = {"read": 0, "refused": 0}  # any other exception fails the test
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(200)))
        try:
            parse_chat(samples.FUZZ_BASE[: rng.randrange(400)] + text, chat_name="x")
        except ExportError:
            outcomes["refused"] += 1
        else:
            outcomes["read"] += 1
    assert sum(outcomes.values()) == 300 and all(outcomes.values()), outcomes


@pytest.mark.allow_log_warnings
async def test_the_source_survives_damaged_exports(tmp_path: Path) -> None:
    good = samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    source = WhatsAppExportSource(tmp_path, user_name="Anna", tz="Europe/Rome", settle_seconds=0)
    intact = {e.id for e in (await source.fetch(None)).events}
    assert len(intact) == 4
    for n, (data, _) in enumerate(_mutations(60, 99)):
        damaged = _write(tmp_path, "WhatsApp Chat with Allotment.txt", data)
        batch = await source.fetch(None)
        assert intact <= {e.id for e in batch.events}, f"#{n}: the intact file lost messages"
        damaged.unlink()
    assert good.exists()
