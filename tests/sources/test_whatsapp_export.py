"""engine.sources.whatsapp_export: every export format, system lines, media, mentions, stable
ids across re-exports, corrupt files, and the folder source through the runner."""

from __future__ import annotations

import json
import logging
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from engine.sources.base import Batch, SourceError
from engine.sources.sync import load_cursor, sync_once
from engine.sources.whatsapp.export import (
    ExportError,
    WhatsAppExportSource,
    chat_events,
    chat_name_from_filename,
    export_events,
    load_export,
    mentions,
    parse_chat,
)
from engine.store.models import EventRecord
from tests.sources import whatsapp_samples as samples

ROME = "Europe/Rome"


def _events(path: Path, **kw):
    kw.setdefault("tz", ROME)
    return export_events(path, **kw)


def _offset_hours(dt: datetime) -> float:
    offset = dt.utcoffset()
    assert offset is not None
    return offset / timedelta(hours=1)


# --- formats -------------------------------------------------------------------------------


def test_android_24h_day_first_with_multiline_media_and_deleted(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    chat = load_export(path)
    assert (chat.platform, chat.date_order, chat.name) == ("android", "dmy", "Marco Rossi")

    events = _events(path, user_name="Anna")

    assert [e.text for e in events] == [
        "Ciao! Are we still on for Friday?",
        "Great.\nSee you there\nand bring the book",
        "[media]",
        "Running late, 10 min",
    ]  # encryption notice and the deleted message skipped; Anna's own reply is no event
    first = events[0]
    assert first.time.isoformat() == "2024-03-12T09:16:00+01:00"
    assert events[-1].time.isoformat() == "2024-03-25T07:45:00+01:00"
    assert (first.source, first.event_type) == ("whatsapp", "whatsapp.message")
    assert first.sender is not None
    assert (first.sender.name, first.sender.address) == ("Marco Rossi", None)
    assert first.chat is not None
    assert (first.chat.name, first.chat.is_group) == ("Marco Rossi", False)
    assert first.chat.id and first.chat.id.startswith("whatsapp-export-chat:")
    assert first.refs == {"chat": "Marco Rossi", "export_file": str(path.resolve())}
    assert first.id.startswith("whatsapp-export:") and len(first.id) == len("whatsapp-export:") + 40
    assert not any(e.mentions_me for e in events)


def test_android_12h_month_first_and_phone_sender(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.ANDROID_12H_MDY)
    chat = load_export(path)
    assert (chat.platform, chat.date_order, chat.name) == ("android", "mdy", "+1 555 010 2030")

    events = _events(path, user_name="Anna")

    assert [e.time.isoformat() for e in events] == [
        "2024-03-12T09:05:00+01:00",
        "2024-03-13T00:05:00+01:00",  # 12:05 AM is just after midnight
        "2024-03-28T13:15:00+01:00",
    ]
    sender = events[0].sender
    assert sender is not None
    assert (sender.name, sender.address) == ("+1 (555) 010-2030", "+15550102030")


def test_ios_24h_brackets_and_direction_marks(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.IOS_24H)
    chat = load_export(path)
    assert (chat.platform, chat.date_order, chat.name) == ("ios", "dmy", "Giulia")

    events = _events(path, user_name="Anna Bianchi")

    assert [(e.time.isoformat(), e.text) for e in events] == [
        ("2024-03-12T14:06:01+01:00", "Did you see the email from the school?"),
        ("2024-03-13T08:00:10+01:00", "[image]"),
        ("2024-03-13T08:01:00+01:00", "The meeting moved to Thursday"),  # "edited" tag dropped
    ]
    for event in events:
        assert "\u200e" not in event.text
        assert event.sender is not None and event.sender.name == "Giulia"


def test_ios_12h_narrow_no_break_space_and_ambiguous_dates(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.IOS_12H)
    chat = load_export(path)
    # 3/9 and 3/10 fit both orders and stay chronological either way: a 12-hour clock
    # suggests month-first.
    assert (chat.platform, chat.date_order) == ("ios", "mdy")

    events = _events(path, user_name="Anna", tz="America/New_York")

    assert [(e.time.isoformat(), e.text) for e in events] == [
        ("2024-03-09T20:15:03-05:00", "Call me when you land"),
        ("2024-03-10T00:00:30-05:00", "👍"),
        ("2024-03-10T10:00:00-04:00", "Lunch?"),  # after the DST change; missed call skipped
    ]


def test_year_first_dates(tmp_path: Path) -> None:
    text = samples.lines(
        "2024-03-12, 14:05 - Marco: Year first",
        "2024-03-13, 09:00 - Marco: Still year first",
    )
    chat = parse_chat(text, chat_name="Marco")
    assert chat.date_order == "ymd"
    assert [m.time for m in chat.messages] == [
        datetime(2024, 3, 12, 14, 5),
        datetime(2024, 3, 13, 9, 0),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("3/12/24, 9:05\u202fPM - Marco: x", datetime(2024, 3, 12, 21, 5)),  # newer Android
        ("12/3/24, 9:05 p. m. - Marco: x", datetime(2024, 3, 12, 21, 5)),  # Spanish clock
        ("12/3/24, 12:05 a. m. - Marco: x", datetime(2024, 3, 12, 0, 5)),
        ("12.03.24, 14:05 - Marco: x", datetime(2024, 3, 12, 14, 5)),  # German dots
        ("12/03/2024 14:05 - Marco: x", datetime(2024, 3, 12, 14, 5)),  # no comma
        ("[2024-03-12, 14:05:22] Marco: x", datetime(2024, 3, 12, 14, 5, 22)),
        ("[12.03.24, 2:05:09\u202fPM] Marco: x", datetime(2024, 3, 12, 14, 5, 9)),
    ],
)
def test_header_variants(line: str, expected: datetime) -> None:
    chat = parse_chat(line + "\n", chat_name="Marco")
    assert [(m.time, m.sender, m.text) for m in chat.messages] == [(expected, "Marco", "x")]


def test_polls_and_locations_are_kept() -> None:
    lrm = samples.LRM
    text = samples.lines(
        f"[12/03/2024, 10:00:00] Luca: {lrm}POLL:",
        f"{lrm}Pizza or sushi?",
        f"{lrm}OPTION: Pizza (2 votes)",
        f"[13/03/2024, 10:00:00] Luca: {lrm}Location: https://maps.google.com/?q=45.46,9.19",
    )
    assert [m.text for m in parse_chat(text, chat_name="Luca").messages] == [
        "[poll] Pizza or sushi?\nOPTION: Pizza (2 votes)",
        "[location] https://maps.google.com/?q=45.46,9.19",
    ]


def test_a_date_like_line_inside_a_message_stays_in_it() -> None:
    text = samples.lines(
        "12/03/24, 09:00 - Marco: Copied from the old chat:",
        "31/02/24, 10:00 - Anna: this date does not exist",
        "13/03/24, 09:00 - Marco: next",
    )
    chat = parse_chat(text, chat_name="Marco")
    assert [m.text for m in chat.messages] == [
        "Copied from the old chat:\n31/02/24, 10:00 - Anna: this date does not exist",
        "next",
    ]


def test_ambiguous_dates_follow_chronological_order(tmp_path: Path) -> None:
    # 01/02, 02/02, 01/03: day-first is chronological, month-first would jump back to Jan 3.
    text = samples.lines(
        "01/02/24, 10:00 - Marco: one",
        "02/02/24, 10:00 - Marco: two",
        "01/03/24, 10:00 - Marco: three",
    )
    assert parse_chat(text, chat_name="Marco").date_order == "dmy"


def test_ios_zip_with_media(tmp_path: Path) -> None:
    path = samples.write_ios_zip(tmp_path)
    events = _events(path)
    assert events[0].chat is not None and events[0].chat.name == "Luca"
    assert [e.text for e in events] == [
        "[image]",
        "Look at this view!",
        "[document: Contract draft.pdf]",
        "[audio]",
        "[video]",
    ]
    assert events[0].refs["export_file"] == str(path.resolve())


def test_android_zip_with_media_and_captions(tmp_path: Path) -> None:
    path = samples.write_android_zip(tmp_path)
    events = _events(path, user_name="Anna")
    assert [e.text for e in events] == [
        "[image] The new kitchen!",
        "[voice message]",
        "[document: Budget.xlsx]",
    ]


def test_group_chat_and_mentions(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.ANDROID_GROUP)
    events = _events(path, user_name="Anna", user_phone="+39 333 123 4567")

    assert all(e.chat is not None and e.chat.is_group for e in events)
    assert [(e.sender.name if e.sender else None, e.mentions_me) for e in events] == [
        ("Marco", False),
        ("Luca", True),  # @Anna
        ("Sara", False),
        ("Marco", True),  # @393331234567
        ("Luca", False),  # @Annalisa is someone else
    ]
    assert events[0].text == "Welcome everyone! First book: Dune"  # a colon inside the text


def test_group_from_system_lines_and_caller_hint(tmp_path: Path) -> None:
    two_people = samples.lines(
        "12/03/24, 09:00 - Marco added Anna",
        "12/03/24, 09:16 - Marco: Hi",
        "13/03/24, 09:17 - Anna: Hi!",
    )
    path = tmp_path / "WhatsApp Chat with Trip.txt"
    path.write_text(two_people, encoding="utf-8")
    assert load_export(path).looks_like_group  # only groups have "X added Y"

    direct = samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    assert _events(direct)[0].chat.is_group is False  # type: ignore[union-attr]
    assert _events(direct, is_group=True)[0].chat.is_group is True  # type: ignore[union-attr]


def test_system_message_heavy_ios_group(tmp_path: Path) -> None:
    path = samples.write_text(tmp_path, samples.IOS_SYSTEM_HEAVY)
    chat = load_export(path)
    assert chat.senders == ["Mum"]  # the group's name, used as sender of system lines, is not one
    events = _events(path)
    assert [e.text for e in events] == ["Dinner at 8 on Sunday"]
    assert events[0].chat is not None and events[0].chat.is_group


def test_own_messages_by_phone_are_skipped() -> None:
    text = samples.lines(
        "12/03/24, 09:16 - +39 333 123 4567: Mine, sent from an unsaved number",
        "13/03/24, 09:17 - Marco: Theirs",
    )
    chat = parse_chat(text, chat_name="Marco")
    events = chat_events(chat, export_file="x.txt", user_phone="+393331234567", tz=ROME)
    assert [e.text for e in events] == ["Theirs"]


def test_mentions_match_whole_names_and_phone_digits() -> None:
    assert mentions("hey @Anna!", "Anna", None)
    assert mentions("hey @anna", "Anna", None)
    assert mentions("cc @\u2068Anna Bianchi\u2069", "Anna Bianchi", None)
    assert not mentions("hey @Annalisa", "Anna", None)
    assert not mentions("Anna, hi", "Anna", None)
    assert mentions("ping @39 333 123 4567", None, "+393331234567")
    assert mentions("ping @3331234567", None, "+39 333 123 4567")
    assert not mentions("ping @3339999999", None, "+39 333 123 4567")


@pytest.mark.parametrize(
    ("file_name", "member", "expected"),
    [
        ("WhatsApp Chat with Marco.txt", None, "Marco"),
        ("WhatsApp Chat - Book club.zip", "_chat.txt", "Book club"),
        ("WhatsApp Chat with Marco (1).txt", None, "Marco"),
        ("export.zip", "WhatsApp Chat with Sara.txt", "Sara"),
        ("Chat de WhatsApp con Lucía.txt", None, "Lucía"),
        ("family notes.txt", None, "family notes"),
    ],
)
def test_chat_name_from_file_name(file_name: str, member: str | None, expected: str) -> None:
    assert chat_name_from_filename(Path(file_name), member) == expected


# --- corrupt files -------------------------------------------------------------------------


def _write_bytes(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("WhatsApp Chat with X.txt", samples.BINARY, "binary data"),
        ("notes.txt", samples.NOT_AN_EXPORT.encode(), "not a WhatsApp chat export"),
        ("empty.txt", b"\n\n", "empty file"),
        ("WhatsApp Chat - Broken.zip", b"PK\x03\x04 truncated", "not a valid zip"),
    ],
)
def test_corrupt_files_raise_a_clear_one_line_error(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = _write_bytes(tmp_path, name, data)
    with pytest.raises(ExportError) as info:
        export_events(path)
    message = str(info.value)
    assert reason in message and name in message
    assert "\n" not in message


def test_zip_without_chat_text(tmp_path: Path) -> None:
    path = samples.write_zip_without_chat(tmp_path)
    with pytest.raises(ExportError, match="no chat text"):
        export_events(path)


# --- stable ids ----------------------------------------------------------------------------


def test_identical_messages_stay_distinct_and_ids_survive_a_re_export(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Marco.txt"
    path.write_text(samples.REPEATS_V1, encoding="utf-8")
    first = _events(path, user_name="Anna")
    assert [e.text for e in first] == ["ok", "ok"]
    assert len({e.id for e in first}) == 2

    path.write_text(samples.REPEATS_V2, encoding="utf-8")
    second = _events(path, user_name="Anna", tz="Asia/Tokyo")  # ids ignore the zone setting
    assert [e.id for e in second][:2] == [e.id for e in first]
    assert len({e.id for e in second}) == 5


def test_default_zone_is_the_machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    path = samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    events = export_events(path)
    assert _offset_hours(events[0].time) == 9


# --- the folder source ---------------------------------------------------------------------


def _source(folder: Path, **kw) -> WhatsAppExportSource:
    kw.setdefault("user_name", "Anna")
    kw.setdefault("tz", ROME)
    kw.setdefault("settle_seconds", 0)
    return WhatsAppExportSource(folder, **kw)


def _fill(folder: Path) -> None:
    for sample in (
        samples.ANDROID_24H_DMY,
        samples.ANDROID_12H_MDY,
        samples.IOS_24H,
        samples.IOS_12H,
        samples.ANDROID_GROUP,
        samples.IOS_SYSTEM_HEAVY,
    ):
        samples.write_text(folder, sample)
    samples.write_ios_zip(folder)
    samples.write_android_zip(folder)


EXPECTED_TOTAL = 4 + 3 + 4 + 3 + 5 + 1 + 5 + 3  # Giulia's export: Anna is not "Anna Bianchi"


def test_source_identity(tmp_path: Path) -> None:
    source = _source(tmp_path)
    assert (source.kind, source.account, source.poll_seconds) == (
        "whatsapp-export",
        str(tmp_path),
        60.0,
    )
    assert source.key == f"whatsapp-export:{tmp_path}"


async def test_sync_stores_each_message_once(db: object, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    _fill(folder)
    source = _source(folder)

    assert await sync_once(source) == EXPECTED_TOTAL
    assert EventRecord.select().count() == EXPECTED_TOTAL
    assert await sync_once(source) == 0  # nothing changed

    cursor = json.loads(load_cursor(source.key) or "{}")
    entry = cursor["WhatsApp Chat - Luca.zip"]
    assert entry[1] == (folder / "WhatsApp Chat - Luca.zip").stat().st_size
    assert len(entry[2]) == 64  # sha256

    # A fresh source (an app restart) with the stored cursor reads nothing again.
    assert await sync_once(_source(folder)) == 0

    # A second download of the same export adds nothing; a fresh source without the cursor
    # would read everything again and still store nothing twice.
    (folder / "copy").mkdir()
    samples.write_text(folder / "copy", samples.ANDROID_GROUP)
    assert await sync_once(source) == 0
    assert EventRecord.select().count() == EXPECTED_TOTAL


async def test_re_export_adds_only_new_messages(db: object, tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Marco.txt"
    path.write_text(samples.REPEATS_V1, encoding="utf-8")
    source = _source(tmp_path)
    assert await sync_once(source) == 2

    path.write_text(samples.REPEATS_V2, encoding="utf-8")
    assert await sync_once(source) == 3
    texts = [r.text for r in EventRecord.select().order_by(EventRecord.time, EventRecord.id)]
    assert texts == ["ok", "ok", "ok", "ok", "Second export: new message"]


@pytest.mark.allow_log_warnings
async def test_corrupt_file_is_reported_once_and_retried_when_changed(
    db: object, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    broken = _write_bytes(tmp_path, "WhatsApp Chat with Sara.zip", b"PK\x03\x04 half a download")
    source = _source(tmp_path)

    assert await sync_once(source) == 4  # the good file is not lost
    assert await sync_once(source) == 0
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].getMessage() == (
        "WhatsApp export skipped: WhatsApp Chat with Sara.zip: not a valid zip archive"
    )

    broken.unlink()
    samples.write_android_zip(tmp_path)  # the download finished
    assert await sync_once(source) == 3
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


async def test_files_still_being_written_wait_for_the_next_poll(db: object, tmp_path: Path) -> None:
    samples.write_text(tmp_path, samples.ANDROID_24H_DMY)
    source = _source(tmp_path, settle_seconds=3600)
    assert await sync_once(source) == 0
    assert json.loads(load_cursor(source.key) or "{}") == {}
    assert await sync_once(_source(tmp_path)) == 4


async def test_large_folders_are_read_in_pages(
    db: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(tmp_path)  # 8 files
    source = _source(tmp_path, max_events=1)  # a file is never split: one file per page
    pages: list[int] = []
    fetch = source.fetch

    async def counting_fetch(cursor: str | None) -> Batch:
        batch = await fetch(cursor)
        pages.append(len(batch.events))
        return batch

    monkeypatch.setattr(source, "fetch", counting_fetch)
    assert await sync_once(source) == EXPECTED_TOTAL
    assert len(pages) == 8 and all(pages)
    assert EventRecord.select().count() == EXPECTED_TOTAL


async def test_hidden_and_other_files_are_ignored(db: object, tmp_path: Path) -> None:
    (tmp_path / ".hidden").mkdir()
    samples.write_text(tmp_path / ".hidden", samples.ANDROID_GROUP)
    (tmp_path / "photo.jpg").write_bytes(samples.BINARY)
    with zipfile.ZipFile(tmp_path / ".partial.zip", "w") as archive:
        archive.writestr("_chat.txt", samples.ANDROID_ZIP_CHAT)
    assert await sync_once(_source(tmp_path)) == 0


async def test_missing_folder_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        await _source(tmp_path / "nope").fetch(None)


def test_unknown_zone_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown time zone"):
        _source(tmp_path, tz="Mars/Olympus")


def test_two_chats_of_the_same_name_are_two_chats_and_a_re_export_is_the_same(
    tmp_path: Path,
) -> None:
    """A chat's id comes from its name and its first message, not its name alone: muting
    one group called "Family" leaves another "Family" alone (issue 20)."""
    from engine.triage.feedback import never_rule_for, would_silence

    ours = "12/03/24, 09:00 - Lia: Sunday lunch?\n12/03/24, 09:05 - Teo: Yes!\n"
    theirs = "02/01/23, 18:00 - Bruno: Welcome to the family group\n02/01/23, 18:02 - Ada: Hi\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _events(_write_bytes(tmp_path / "a", "WhatsApp Chat with Family.txt", ours.encode()))
    other = _events(_write_bytes(tmp_path / "b", "WhatsApp Chat with Family.txt", theirs.encode()))
    later = ours + "13/03/24, 10:00 - Lia: See you at 1\n"
    copy = _write_bytes(tmp_path / "b", "WhatsApp Chat with Family (2).txt", later.encode())
    again = _events(copy)
    assert first[0].chat and other[0].chat and again[0].chat
    assert first[0].chat.id != other[0].chat.id
    assert again[0].chat.id == first[0].chat.id
    rule = never_rule_for(first[0])
    assert rule is not None
    now = datetime(2024, 3, 14, 9, 0).astimezone()
    silenced = would_silence([rule], [*first, *other, *again], now)
    assert {e.id for e in silenced} == {e.id for e in [*first, *again]}


def test_a_view_once_photo_is_a_message_not_a_gap() -> None:
    """An export writes view-once media as an empty message (iOS) or "null" (Android):
    someone sent something, so the message is kept."""
    text = (
        "1/29/18, 23:59 - Bob: can you post a self-deleting photo?\n"
        "1/29/18, 23:59 - Carol:\n"
        "1/30/18, 00:01 - Carol: null\n"
        "1/30/18, 00:02 - Bob: got it\n"
    )
    chat = parse_chat(text, chat_name="Friends")
    assert [(m.sender, m.text) for m in chat.messages] == [
        ("Bob", "can you post a self-deleting photo?"),
        ("Carol", "[view-once media]"),
        ("Carol", "[view-once media]"),
        ("Bob", "got it"),
    ]
