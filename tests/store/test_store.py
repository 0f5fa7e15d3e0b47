"""engine.store: schema creation and migration (with backup), refusal of foreign or newer
files, UTC timestamps, and event ingestion."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import peewee as pw
import pytest

from engine.errors import StoreError
from engine.events import Event
from engine.store import migrations
from engine.store.db import close_database, open_database
from engine.store.fields import UtcDateTimeField
from engine.store.inbox import ingest
from engine.store.models import EventRecord, Job, SchemaVersion, SourceCursor
from engine.workspace import Workspace
from tests.factories import make_event

MADRID = ZoneInfo("Europe/Madrid")


@pytest.fixture
def db_path(workspace: Workspace) -> Iterator[Path]:
    yield workspace.db_path
    close_database()


def versions() -> list[int]:
    return [row.version for row in SchemaVersion.select().order_by(SchemaVersion.version)]


def backups(db_file: Path) -> list[Path]:
    return sorted(db_file.parent.glob(f"{db_file.name}*.bak"))


def sqlite_rows(path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# schema and migrations ------------------------------------------------------------------


ALL_VERSIONS = [v for v, _ in migrations.MIGRATIONS]
NEXT = migrations.LATEST + 1


def test_new_database_has_every_schema_version_in_wal_mode(db_path: Path) -> None:
    db = open_database(db_path)

    assert db_path.is_file()
    assert versions() == ALL_VERSIONS
    assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    for table in ("events", "notifications", "jobs", "chat_history", "source_cursors"):
        assert db.table_exists(table), table


def test_reopening_a_current_database_is_a_no_op(db_path: Path) -> None:
    open_database(db_path)
    SourceCursor.create(source="gmail", value="h-42")
    close_database()

    open_database(db_path)

    assert versions() == ALL_VERSIONS
    assert SourceCursor.get(SourceCursor.source == "gmail").value == "h-42"
    assert backups(db_path) == []


def test_migrating_an_older_database_backs_it_up_first(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_database(db_path)
    SourceCursor.create(source="gmail", value="old-cursor")
    close_database()

    def v2_add_table(db: pw.Database) -> None:
        db.execute_sql("CREATE TABLE v2_extra (x INTEGER)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, (NEXT, v2_add_table)])
    monkeypatch.setattr(migrations, "LATEST", NEXT)

    db = open_database(db_path)

    assert versions() == [*ALL_VERSIONS, NEXT]
    assert db.table_exists("v2_extra")
    assert SourceCursor.get(SourceCursor.source == "gmail").value == "old-cursor"

    [bak] = backups(db_path)
    assert bak.parent == db_path.parent
    assert bak.name.startswith(f"tic.db.v{NEXT - 1}.")
    assert sqlite_rows(bak, "SELECT source, value FROM source_cursors") == [("gmail", "old-cursor")]
    assert sqlite_rows(bak, "SELECT MAX(version) FROM schema_version") == [(NEXT - 1,)]
    assert sqlite_rows(bak, "SELECT name FROM sqlite_master WHERE name = 'v2_extra'") == []


def test_a_failing_migration_step_leaves_the_old_schema_and_a_backup(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_database(db_path)
    close_database()

    def v2_broken(db: pw.Database) -> None:
        db.execute_sql("CREATE TABLE v2_half (x INTEGER)")
        db.execute_sql("THIS IS NOT SQL")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, (NEXT, v2_broken)])
    monkeypatch.setattr(migrations, "LATEST", NEXT)

    with pytest.raises(StoreError):
        open_database(db_path)

    assert len(backups(db_path)) == 1
    assert sqlite_rows(db_path, "SELECT MAX(version) FROM schema_version") == [(NEXT - 1,)]
    assert sqlite_rows(db_path, "SELECT name FROM sqlite_master WHERE name = 'v2_half'") == []


def test_a_version_1_store_migrates_to_the_current_schema(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
    monkeypatch.setattr(migrations, "LATEST", 1)
    open_database(db_path)
    SourceCursor.create(source="gmail", value="h-1")
    close_database()
    monkeypatch.undo()

    db = open_database(db_path)

    assert versions() == ALL_VERSIONS
    assert db.table_exists("source_status")
    assert SourceCursor.get(SourceCursor.source == "gmail").value == "h-1"
    [bak] = backups(db_path)
    assert bak.name.startswith("tic.db.v1.")


def test_a_database_from_a_newer_tic_is_refused(db_path: Path) -> None:
    open_database(db_path)
    SchemaVersion.create(version=migrations.LATEST + 1)
    close_database()

    with pytest.raises(StoreError, match="newer") as info:
        open_database(db_path)

    assert str(db_path) in str(info.value)
    assert backups(db_path) == []


def test_a_file_that_is_not_a_database_gives_one_clear_line(db_path: Path) -> None:
    db_path.write_bytes(b"these are my holiday notes, not a database\n" * 100)

    with pytest.raises(StoreError) as info:
        open_database(db_path)

    message = str(info.value)
    assert "\n" not in message
    assert str(db_path) in message
    assert "not a database" in message
    assert db_path.read_bytes().startswith(b"these are my holiday notes")


# UtcDateTimeField ---------------------------------------------------------------------


def test_utc_field_stores_aware_datetimes_as_utc_text() -> None:
    field = UtcDateTimeField()
    madrid_summer = datetime(2026, 7, 1, 9, 30, tzinfo=MADRID)

    stored = field.db_value(madrid_summer)

    assert stored == "2026-07-01T07:30:00.000000+00:00"
    back = field.python_value(stored)
    assert back == madrid_summer
    assert back.utcoffset() == timedelta(0)
    assert field.db_value(None) is None
    assert field.python_value(None) is None


def test_utc_field_rejects_naive_datetimes(db: object) -> None:
    with pytest.raises(ValueError, match="naive"):
        UtcDateTimeField().db_value(datetime(2026, 7, 1, 9, 30))
    with pytest.raises(ValueError, match="naive"):
        Job.create(text="call Anna", next_run_at=datetime(2026, 7, 1, 9, 30))
    assert Job.select().count() == 0


def test_utc_field_round_trips_through_the_database(db: object) -> None:
    when = datetime(2026, 3, 29, 3, 15, tzinfo=MADRID)  # just after the spring-forward change

    job = Job.create(text="call Anna", next_run_at=when, timezone="Europe/Madrid")
    loaded = Job.get_by_id(job.id)

    assert loaded.next_run_at == when
    assert loaded.next_run_at.utcoffset() == timedelta(0)
    assert loaded.next_run_at == datetime(2026, 3, 29, 1, 15, tzinfo=UTC)


def test_utc_field_orders_by_instant_whatever_the_input_offset(db: object) -> None:
    tokyo = timezone(timedelta(hours=9))
    new_york = timezone(timedelta(hours=-5))
    # 08:00 in Tokyo is 23:00 UTC the day before; 20:00 in New York is 01:00 UTC next day.
    Job.create(text="late", next_run_at=datetime(2026, 11, 10, 20, 0, tzinfo=new_york))
    Job.create(text="early", next_run_at=datetime(2026, 11, 10, 8, 0, tzinfo=tokyo))
    Job.create(text="middle", next_run_at=datetime(2026, 11, 10, 12, 0, tzinfo=UTC))

    ordered = [j.text for j in Job.select().order_by(Job.next_run_at)]

    assert ordered == ["early", "middle", "late"]


# ingest --------------------------------------------------------------------------------


def test_ingest_adds_each_event_once(db: object) -> None:
    first, second, third = make_event(), make_event(), make_event()

    assert ingest([first, second]) == 2
    assert ingest([second, first, third]) == 1
    assert ingest([]) == 0

    assert sorted(r.event_id for r in EventRecord.select()) == sorted(
        e.id for e in (first, second, third)
    )


def test_ingest_ignores_a_duplicate_id_within_one_batch(db: object) -> None:
    event = make_event()
    again = make_event(id=event.id, subject="a different subject")

    assert ingest([event, again]) == 1
    assert EventRecord.get(EventRecord.event_id == event.id).subject == event.subject


def test_ingest_stores_the_extracted_columns(db: object) -> None:
    event = make_event(
        id="wa:1",
        source="whatsapp",
        event_type="whatsapp.message",
        time="2026-11-10T08:05:00+01:00",
        sender={"name": "Mario Rossi", "address": "+34600000000"},
        subject=None,
        text="Are we still on for lunch?",
        chat={"id": "c1", "name": "Lunch club", "is_group": True},
    )

    ingest([event])
    rec = EventRecord.get(EventRecord.event_id == "wa:1")

    assert rec.source == "whatsapp"
    assert rec.event_type == "whatsapp.message"
    assert rec.time == datetime(2026, 11, 10, 7, 5, tzinfo=UTC)
    assert rec.time.utcoffset() == timedelta(0)
    assert rec.sender_name == "Mario Rossi"
    assert rec.sender_address == "+34600000000"
    assert rec.subject is None
    assert rec.text == "Are we still on for lunch?"
    assert rec.chat_name == "Lunch club"
    assert rec.calendar_start is None
    assert rec.status == "pending"
    assert rec.attempts == 0
    assert Event.model_validate_json(rec.payload) == event


def test_ingest_reads_a_calendar_start_without_offset_in_the_users_zone(
    db: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "Europe/Madrid")
    aware = make_event(
        id="cal:1",
        source="calendar",
        event_type="calendar.created",
        sender=None,
        calendar={"start": "2026-11-12T10:00:00+01:00", "end": "2026-11-12T11:00:00+01:00"},
    )
    floating = make_event(
        id="cal:2",
        source="calendar",
        event_type="calendar.created",
        calendar={"start": "2026-11-12T10:00:00"},
    )

    assert ingest([aware, floating]) == 2

    assert EventRecord.get(EventRecord.event_id == "cal:1").calendar_start == datetime(
        2026, 11, 12, 9, 0, tzinfo=UTC
    )
    stored = EventRecord.get(EventRecord.event_id == "cal:2")
    assert stored.calendar_start == datetime(2026, 11, 12, 9, 0, tzinfo=UTC)
    event = Event.model_validate_json(stored.payload)
    assert event.notes == ["calendar.start had no UTC offset; read in Europe/Madrid time"]
    assert event.original == {"calendar.start": "2026-11-12T10:00:00"}
    assert stored.sender_name == "Anna Berg"
