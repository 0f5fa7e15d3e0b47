"""Loud, not silent: a lost or empty store is refused with the last backup offered, a damaged
one is caught at start, a full disk says so, a deleted write-ahead log is rescued, and crashes
do not use up an event's attempts."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from pathlib import Path

import peewee as pw
import pytest

from engine.errors import StoreError
from engine.store import db as store_db
from engine.store.backup import backups_dir, daily_backup
from engine.store.db import close_database, marker_path, open_database, rescue_deleted_wal
from engine.store.inbox import claim, ingest, recover_events, release
from engine.store.models import EventRecord
from engine.workspace import disk
from tests.factories import make_event
from tic_cli import cli


@pytest.fixture
def store(workspace) -> Path:
    """A store with history (and its marker), closed, plus one daily backup."""
    database = open_database(workspace.db_path)
    ingest([make_event() for _ in range(20)])
    daily_backup(database, workspace.db_path)
    close_database()
    return workspace.db_path


def one_line(message: str) -> str:
    assert "\n" not in message
    return message


def test_a_new_store_gets_its_marker_and_a_missing_one_is_created_then(workspace):
    assert not workspace.db_path.exists()
    open_database(workspace.db_path)
    close_database()
    assert marker_path(workspace.db_path).read_text().startswith("TIC's store tic.db was created")


@pytest.mark.parametrize("how", ["empty", "missing"])
def test_a_lost_store_is_refused_with_the_last_backup_offered(store, how):
    (backup,) = backups_dir(store).glob("*.db")
    if how == "empty":
        store.write_bytes(b"")
    else:
        store.unlink()
    with pytest.raises(StoreError) as info:
        open_database(store)
    message = one_line(str(info.value))
    assert ("is empty (0 bytes)" if how == "empty" else "is missing") in message
    assert f"restore the last backup with: cp {backup} {store}" in message
    assert "delete tic.db.created to start with an empty store" in message
    assert store.exists() == (how == "empty") and not (store.exists() and store.stat().st_size)


@pytest.mark.allow_log_warnings
def test_the_command_line_refuses_an_empty_store_in_one_line(store, capsys):
    store.write_bytes(b"")
    assert cli.main(["--home", str(store.parent), "history"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "is empty (0 bytes)" in err


def corrupt(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    start = rng.randrange(4096, len(data) - 64)  # past the header page
    for i in range(start, min(len(data), start + rng.choice([16, 512, 4096]))):
        data[i] = rng.randrange(256)
    path.write_bytes(bytes(data))


def test_a_damaged_store_is_caught_at_start_with_the_backup_to_restore(store):
    (backup,) = backups_dir(store).glob("*.db")
    data = bytearray(store.read_bytes())
    data[4096 * 3 : 4096 * 4] = bytes(range(256)) * 16  # one page of a table: garbage
    store.write_bytes(bytes(data))
    with pytest.raises(StoreError) as info:
        open_database(store)
    message = one_line(str(info.value))
    assert "damaged" in message and f"cp {backup} {store}" in message


@pytest.mark.allow_log_warnings
def test_history_on_corrupted_stores_is_one_line_never_a_traceback(workspace, capsys):
    """The issue's probe: random corruptions of a store with history, then `tic history`."""
    database = open_database(workspace.db_path)
    ingest([make_event() for _ in range(200)])
    close_database()
    del database
    pristine = workspace.db_path.read_bytes()
    rng = random.Random(7)
    for _trial in range(30):
        workspace.db_path.write_bytes(pristine)
        corrupt(workspace.db_path, rng)
        status = cli.main(["--home", str(workspace.root), "history", "--json", "--limit", "5"])
        out, err = capsys.readouterr()
        assert status in (0, 1)
        assert "Traceback" not in out + err
        assert len(err.splitlines()) == (1 if status else 0), err
        assert "unexpected error" not in err


def test_a_full_disk_says_so_not_cannot_rollback(workspace):
    db = open_database(workspace.db_path)
    pages = db.execute_sql("PRAGMA page_count").fetchone()[0]
    db.execute_sql(f"PRAGMA max_page_count = {pages + 2}")  # the disk fills up meanwhile
    with pytest.raises(pw.OperationalError, match="database or disk is full"):
        ingest([make_event(text="x" * 5000) for _ in range(50)])
    full = pytest.raises(pw.OperationalError, match="database or disk is full")
    with full, db.atomic(), db.atomic():  # savepoints inside the transaction
        ingest([make_event(text="x" * 5000) for _ in range(50)])
    close_database()
    message = store_db.describe_store_error(pw.OperationalError("database or disk is full"))
    assert message == (
        "the store cannot be written: database or disk is full "
        "(free some disk space, then try again)"
    )


@pytest.mark.allow_log_warnings
def test_the_command_line_says_the_disk_is_full_in_one_line(
    workspace, tmp_path, monkeypatch, capsys
):
    open_database(workspace.db_path)
    pages = store_db.database.obj.execute_sql("PRAGMA page_count").fetchone()[0]
    close_database()
    monkeypatch.setitem(store_db.PRAGMAS, "max_page_count", pages + 2)
    from tests.cli_helpers import write_jsonl
    from tests.factories import event_dict

    events = write_jsonl(tmp_path / "e.jsonl", [event_dict(text="x" * 5000) for _ in range(50)])
    assert cli.main(["--home", str(workspace.root), "ingest", str(events)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [  # SQLite says full, yet this disk has room: its words stay
        f"tic-desktop: error: the store {workspace.db_path} cannot be written: database or "
        "disk is full (free some disk space, then try again)"
    ]
    monkeypatch.setattr(disk, "disk_usage", lambda _path: disk.Usage(10**9, 10**9, 32 * 1024))
    assert cli.main(["--home", str(workspace.root), "ingest", str(events)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"tic-desktop: error: the store {workspace.db_path} cannot be written: the disk is "
        "full (32 KB free); free some space, then try again"
    ]


@pytest.mark.allow_log_warnings
def test_a_deleted_write_ahead_log_is_saved_into_the_store(workspace, tmp_path, caplog):
    open_database(workspace.db_path)
    ingest([make_event() for _ in range(5)])  # committed, in the write-ahead log for now
    wal = workspace.db_path.with_name("tic.db-wal")
    wal.unlink()
    assert rescue_deleted_wal(workspace.db_path)
    assert "write-ahead log" in caplog.text
    # a crash now (the store copied as it is on disk, no log) keeps the five events
    crashed = tmp_path / "crashed.db"
    shutil.copyfile(workspace.db_path, crashed)
    con = sqlite3.connect(crashed)
    try:
        assert con.execute("SELECT COUNT(*) FROM events").fetchone() == (5,)
    finally:
        con.close()
    ingest([make_event()])  # and the store goes on, with a new log
    assert wal.exists() and EventRecord.select().count() == 6
    assert not rescue_deleted_wal(workspace.db_path)
    close_database()


def test_crashes_do_not_use_up_an_events_attempts(db):
    ingest([make_event()])
    for _crash in range(5):  # claimed, then the process dies; the next start recovers
        assert len(claim(10)) == 1
        assert recover_events() == 1
    batch = claim(10)
    assert release([r.id for r in batch], "model failed", max_attempts=3) == 0
    record = EventRecord.get()
    assert (record.status, record.attempts, record.last_error) == ("pending", 1, "model failed")
    for _failure in range(2):
        release([r.id for r in claim(10)], "model failed", max_attempts=3)
    assert (EventRecord.get().status, EventRecord.get().attempts) == ("failed", 3)


async def test_the_engine_backs_the_store_up_once_a_day_keeping_three(engine, workspace):
    folder = backups_dir(workspace.db_path)
    assert len(list(folder.glob("*.db"))) == 1  # the engine's start made today's
    assert daily_backup(engine.db, workspace.db_path) is None  # not again the same day
    for day in range(4):
        old = folder / f"tic-2020010{day}T000000.db"
        old.write_bytes(b"old")
        os.utime(old, (0, 0))
    newest = max(folder.glob("*.db"), key=lambda p: p.name)
    os.utime(newest, (0, 0))  # pretend today's is a day old
    assert daily_backup(engine.db, workspace.db_path) is not None
    assert len(list(folder.glob("*.db"))) == 3
