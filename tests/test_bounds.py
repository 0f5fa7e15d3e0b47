"""Bounding what an outside sender controls (engine.events.bounds): cut on ingest, the
original kept, and the inputs that used to crash ``tic ingest`` refused in one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest

from engine.agent.draft import NOTIFICATION_SCHEMA, NotificationDraft
from engine.clock import EARLIEST, LATEST, add_clamped, clamp_instant
from engine.errors import InputError
from engine.events import Event, bounds, parse_event, read_events
from engine.store.inbox import ingest, stored_event
from engine.triage.summary import summarize
from tests.factories import event_dict, make_event

LONG_NAME = "Tomas Herrera " + "x" * 5000


def test_every_field_a_sender_controls_is_cut_and_the_original_kept() -> None:
    event = make_event(
        id="gmail:" + "i" * 400,
        event_type="email." + "e" * 100,
        sender={"name": LONG_NAME, "address": "a" * 400 + "@example.org"},
        subject="s" * 1000,
        text="t" * 50_000,
        labels=[f"L{i}" * 80 for i in range(200)],
        headers={f"X-{i}": "v" * 5000 for i in range(100)},
        refs={"thread": {"a": {"b": {"c": {"d": {"e": 1}}}}}, "blob": "z" * 9000},
    )
    assert len(event.id) == bounds.ID
    assert len(event.event_type) == bounds.EVENT_TYPE
    assert event.sender is not None and event.sender.name is not None
    assert len(event.sender.name) == bounds.NAME
    assert event.sender.name.startswith("Tomas Herrera")
    assert len(event.sender.address or "") == bounds.ADDRESS
    assert len(event.subject or "") == bounds.SUBJECT
    assert len(event.text) == bounds.TEXT
    assert len(event.labels) == bounds.LABELS
    assert all(len(label) <= bounds.LABEL for label in event.labels)
    assert len(event.headers) == bounds.HEADERS
    assert all(len(v) <= bounds.HEADER_VALUE for v in event.headers.values())
    assert event.refs["thread"] == {"a": {"b": {"c": "\u2026"}}}
    assert len(event.refs["blob"]) == bounds.REF_STRING
    # the full original of each cut field, for "why?"
    assert event.original["sender.name"] == LONG_NAME
    assert event.original["text"] == "t" * 50_000
    assert event.original["refs"]["blob"] == "z" * 9000
    assert "sender.name cut to 80 of 5014 characters" in event.notes


def test_distinct_long_ids_stay_distinct() -> None:
    a = make_event(id="x" * 300 + "a")
    b = make_event(id="x" * 300 + "b")
    assert a.id != b.id and len(a.id) == len(b.id) == bounds.ID


def test_bounding_twice_changes_nothing_more() -> None:
    event = make_event(sender={"name": LONG_NAME, "address": "t@example.org"})
    again = Event.model_validate_json(event.to_json())
    assert again == event
    assert again.notes == event.notes == ["sender.name cut to 80 of 5014 characters"]


def test_control_characters_leave_one_line_fields_and_a_lone_surrogate_is_replaced() -> None:
    event = make_event(
        sender={"name": "Tomas\nHerrera\x00", "address": "t@example.org"},
        subject="Re:\r\nBcc: x",
        text="line one\nline two \ud800 end",
    )
    assert event.sender is not None and event.sender.name == "Tomas Herrera"
    assert event.subject == "Re: Bcc: x"
    assert event.text == "line one\nline two \ufffd end"
    assert event.original["text"] == "line one\nline two \ufffd end"  # storable too


def test_a_lone_surrogate_is_stored_and_read_back(db: object) -> None:
    event = parse_event(
        json.loads(
            '{"id": "gmail:s", "source": "email", "event_type": "e", '
            '"time": "2026-11-10T07:00:00+00:00", "text": "a\\ud800b", '
            '"sender": {"name": "\\udfff"}}'
        )
    )
    assert ingest([event]) == 1
    stored = stored_event("gmail:s")
    assert stored is not None and stored.text == "a\ufffdb"
    assert stored.sender is not None and stored.sender.name == "\ufffd"


def test_a_calendar_start_without_offset_is_read_in_the_users_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    event = make_event(
        source="calendar",
        event_type="calendar.created",
        calendar={"start": "2026-11-12T10:00:00", "end": "2026-11-12T11:00:00-05:00"},
    )
    assert event.calendar is not None and event.calendar.start is not None
    assert event.calendar.start.isoformat() == "2026-11-12T10:00:00-05:00"
    assert event.notes == ["calendar.start had no UTC offset; read in America/New_York time"]


@pytest.mark.parametrize(
    "moment",
    ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59+00:00"],
)
def test_instants_at_the_ends_of_the_calendar_are_brought_within_range(
    moment: str, db: object
) -> None:
    event = make_event(
        id=f"gcal:{moment}",
        source="calendar",
        event_type="calendar.cancelled",
        time=moment,
        calendar={"start": moment, "end": moment, "previous_start": moment, "status": "cancelled"},
    )
    assert event.calendar is not None and event.calendar.start in (EARLIEST, LATEST)
    assert EARLIEST <= event.time <= LATEST
    assert ingest([event]) == 1  # the store's UTC columns take it
    summary = summarize(event)  # shown in a zone far from UTC: no overflow
    assert summary
    assert event.original["calendar.start"] == moment


def test_clock_helpers_never_overflow() -> None:
    assert clamp_instant(datetime(2026, 1, 1, tzinfo=UTC)) == datetime(2026, 1, 1, tzinfo=UTC)
    big = add_clamped(datetime(2026, 1, 1, tzinfo=UTC), datetime.max - datetime.min)
    assert big.year == 9999


def test_the_store_takes_any_aware_instant(db: object) -> None:
    from engine.store.fields import UtcDateTimeField

    field = UtcDateTimeField()
    from datetime import timedelta, timezone

    edge = datetime.max.replace(tzinfo=timezone(timedelta(hours=-5)))
    assert field.db_value(edge) == "9999-12-31T23:59:59.999999+00:00"
    low = datetime.min.replace(tzinfo=timezone(timedelta(hours=5)))
    assert field.db_value(low) == "0001-01-01T00:00:00.000000+00:00"


def test_the_summary_and_notify_arguments_always_fit_the_schema() -> None:
    hostile = [
        make_event(sender={"name": LONG_NAME, "address": "x" * 300 + "@spam.example"}),
        make_event(sender={"name": None, "address": "x" * 300 + "@spam.example"}),
        make_event(
            source="whatsapp",
            event_type="whatsapp." + "m" * 100,
            sender={"name": "G" * 500},
            chat={"id": "g", "name": "Group " * 100, "is_group": True},
            text="t" * 5000,
        ),
        make_event(
            source="calendar",
            event_type="calendar.updated",
            subject="S" * 2000,
            sender={"name": LONG_NAME},
            calendar={"start": "2026-11-12T10:00:00", "previous_start": "2026-11-11T10:00:00"},
        ),
        make_event(source="cron", event_type="cron.reminder", text="r" * 9000),
    ]
    validator = jsonschema.Draft202012Validator(NOTIFICATION_SCHEMA)
    for event in hostile:  # TIC's drafts are not checked again: they fit as made
        draft = NotificationDraft.for_event(event, summarize(event), reason="r", rule=None)
        args = {
            "source": draft.source,
            "event_type": draft.event_type,
            "summary": draft.summary,
            "event_time": draft.event_time.isoformat() if draft.event_time else None,
            "refs": draft.refs,
        }
        invalid = [e.message for e in validator.iter_errors(args)]
        assert invalid == [], (event.event_type, invalid)


# tic ingest: one line for what cannot be an event ---------------------------------------


def _write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _nested(depth: int) -> str:
    refs = "[" * depth + "]" * depth
    good = event_dict()
    return json.dumps(good)[:-1] + f', "refs": {{"deep": {refs}}}}}'


@pytest.mark.parametrize("depth", [70, 260, 990, 5000, 100_000])
def test_deep_nesting_is_one_line_naming_the_line(tmp_path: Path, depth: int) -> None:
    path = _write(tmp_path / "e.jsonl", json.dumps(event_dict()), _nested(depth))
    with pytest.raises(InputError) as info:
        read_events(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: ")
    assert "nested more than 64 levels deep" in message
    assert "\n" not in message


def test_moderate_nesting_is_cut_not_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.jsonl", _nested(40))
    [event] = read_events(path)
    assert event.refs["deep"] == [[["\u2026"]]]
    assert "refs" in event.original


def test_a_number_too_long_to_read_is_one_line(tmp_path: Path) -> None:
    line = json.dumps(event_dict())[:-1] + ', "refs": {"n": ' + "9" * 5000 + "}}"
    path = _write(tmp_path / "e.jsonl", line)
    with pytest.raises(InputError) as info:
        read_events(path)
    assert str(info.value).startswith(f"{path}:1: invalid JSON (")


def test_lone_surrogates_anywhere_in_a_line_are_replaced_before_validation() -> None:
    line = (
        '{"id": "gmail:\\ud800", "source": "email", "event_type": "e\\udfff", '
        '"time": "2026-11-10T07:00:00+00:00", "refs": {"\\ud800": ["\\udc00"]}, '
        '"original": {"x": "\\ud800"}, "notes": ["\\ud800"]}'
    )
    event = parse_event(json.loads(line))
    assert event.id == "gmail:\ufffd" and event.event_type == "e\ufffd"
    assert event.refs == {"\ufffd": ["\ufffd"]}
    assert event.to_json()  # storable: no surrogate left anywhere
    assert "\ud800" not in json.dumps(event.original) + json.dumps(event.notes)


def test_the_facts_a_reply_is_checked_against_leave_the_original_out(db: object) -> None:
    from engine.chat.facts import facts_of
    from engine.store.models import Notification

    event = make_event(text="t" * 50_000)
    note = Notification(id=1, source="email", event_type="e", summary="s", event_id=event.id)
    texts = facts_of(note, event).texts()
    assert max(len(t) for t in texts) < 30_000  # the 20 000 of the working copy, not 50 000


async def test_why_and_tic_history_say_what_was_cut_on_arrival(engine, model, capsys) -> None:
    from tic_cli.cli import cmd_history

    model.default = {"action": "reply", "text": "ok"}
    # a name cut to size reads as no person's: a rule on the address makes it notified
    engine.workspace.rules_file.write_text("## Always notify\n- Emails from t@spam.example\n")
    engine.ingest([make_event(sender={"name": LONG_NAME, "address": "t@spam.example"})])
    await engine.check_now(timeout=5)
    (note,) = [r for r in engine.history(10) if r["kind"] == "notification" and r["content"]]
    assert note["why"][0]["notes"] == ["sender.name cut to 80 of 5014 characters"]
    await cmd_history(engine.workspace, as_json=False, limit=10)
    assert "    on arrival: sender.name cut to 80 of 5014 characters\n" in capsys.readouterr().out
