"""Storage faults named right, on a real store: a full disk is said as one ("the disk is full
(32 KB free)") with nothing suggested that loses data, a disk that fails is not called a
damaged store, a store TIC may not write is read read-only, and rows that pass SQLite's
integrity check but cannot be read name their table, once.

The faults are injected where they arise: SQLite's own error (its message and its extended
code, as SQLite raises it at 32 KB free) and the operating system's ENOSPC; what is free is
measured through ``engine.workspace.disk.disk_usage``, which the tests replace. The real thing
(a tiny disk, a read-only mount) is in ``test_real_mounts.py``."""

from __future__ import annotations

import errno
import shutil
import sqlite3
import time
from pathlib import Path

import peewee as pw
import pytest

from engine.bus import TurnFailed
from engine.chat import delivery
from engine.engine import Engine
from engine.errors import StoreDamaged, StoreError
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store import chat
from engine.store import db as store_db
from engine.store.backup import backups_dir, daily_backup
from engine.store.db import close_database, describe_store_error, open_database
from engine.store.inbox import ingest
from engine.store.models import EventRecord
from engine.workspace import disk
from tests.deliveries import ANNA_RULES
from tests.factories import make_event, reply
from tic_cli import cli

SQLITE_IOERR_SHMSIZE = 4874  # what SQLite raises when it cannot grow tic.db-shm


def free_space(kilobytes: int):
    return lambda _path: disk.Usage(10**9, 10**9, kilobytes * 1024)


def io_error() -> sqlite3.OperationalError:
    """SQLite's error at 32 KB free, as the sqlite3 module raises it."""
    exc = sqlite3.OperationalError("disk I/O error")
    exc.sqlite_errorcode = SQLITE_IOERR_SHMSIZE
    exc.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"
    return exc


@pytest.fixture
def store(workspace) -> Path:
    """A store with history (and its marker), closed, plus one daily backup."""
    database = open_database(workspace.db_path)
    ingest([make_event() for _ in range(20)])
    daily_backup(database, workspace.db_path)
    close_database()
    return workspace.db_path


@pytest.fixture
def failing_connect(monkeypatch):
    def connect(_path, _on_disk):
        raise io_error()

    monkeypatch.setattr(store_db, "_connect", connect)


def test_a_disk_io_error_at_32_kb_free_is_a_full_disk_and_no_backup_is_offered(
    store, failing_connect, monkeypatch
):
    """The issue's case: every command said "disk I/O error; restore the last backup with:
    cp …", and following it threw away everything since the backup."""
    monkeypatch.setattr(disk, "disk_usage", free_space(32))
    before = store.read_bytes()
    with pytest.raises(StoreError) as info:
        open_database(store)
    assert str(info.value) == (
        f"the store {store} cannot be written: the disk is full (32 KB free); "
        "free some space, then try again"
    )
    assert store.read_bytes() == before  # and nothing was done to it


def test_a_disk_io_error_with_room_left_says_the_disk_failed_not_the_store(
    store, failing_connect, monkeypatch
):
    monkeypatch.setattr(disk, "disk_usage", free_space(50 * 1024 * 1024))
    with pytest.raises(StoreError) as info:
        open_database(store)
    message = str(info.value)
    assert message.startswith(f"the store {store} could not be read or written: disk I/O error")
    assert "cp " not in message and "restore" not in message


@pytest.mark.allow_log_warnings
def test_every_command_says_the_disk_is_full_in_one_line(
    store, failing_connect, monkeypatch, capsys
):
    monkeypatch.setattr(disk, "disk_usage", free_space(32))
    for command in (["history"], ["rules"]):
        assert cli.main(["--home", str(store.parent), *command]) == 1
        assert capsys.readouterr().err.splitlines() == [
            f"tic-desktop: error: the store {store} cannot be written: the disk is full "
            "(32 KB free); free some space, then try again"
        ]


@pytest.mark.allow_log_warnings
def test_a_file_that_cannot_be_written_for_want_of_space_is_one_line(tmp_path, monkeypatch, capsys):
    """ENOSPC from the operating system (here: copying the rules template into a new
    workspace) is a full disk too, not an "unexpected error"."""

    def copy(_src, dest, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(dest))

    monkeypatch.setattr(shutil, "copyfile", copy)
    monkeypatch.setattr(disk, "disk_usage", free_space(32))
    home = tmp_path / "new"
    assert cli.main(["--home", str(home), "history"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"tic-desktop: error: cannot write {home / 'data' / 'notifications.md'}: the disk is "
        "full (32 KB free); free some space, then try again"
    ]


def test_sqlite_saying_full_on_a_full_disk_says_how_much_is_free(workspace, monkeypatch):
    db = open_database(workspace.db_path)
    pages = db.execute_sql("PRAGMA page_count").fetchone()[0]
    db.execute_sql(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(pw.OperationalError) as info:  # SQLite's own SQLITE_FULL
        ingest([make_event(text="x" * 5000) for _ in range(50)])
    close_database()
    monkeypatch.setattr(disk, "disk_usage", free_space(192))
    assert describe_store_error(info.value, workspace.db_path) == (
        f"the store {workspace.db_path} cannot be written: the disk is full (192 KB free); "
        "free some space, then try again"
    )


# a store TIC may not write -------------------------------------------------------------------


def test_a_store_opened_read_only_reads_and_refuses_writes_in_words(store):
    open_database(store, read_only=True)
    try:
        assert EventRecord.select().count() == 20
        with pytest.raises(pw.OperationalError) as info:
            ingest([make_event()])
        assert describe_store_error(info.value, store) == (
            f"the store {store} cannot be written: {store.parent} is read-only"
        )
    finally:
        close_database()


def test_a_read_only_store_left_with_no_write_ahead_log_is_still_read(store, monkeypatch):
    """A store closed cleanly has no tic.db-shm, which SQLite may not create in a read-only
    folder ("unable to open database file"): it is read as immutable then."""
    opened: list[str] = []
    real = store_db._open_uri

    def open_uri(path, mode):
        opened.append(mode)
        if mode == "mode=ro":  # what SQLite answers in a read-only folder without -shm
            raise sqlite3.OperationalError("unable to open database file")
        return real(path, mode)

    monkeypatch.setattr(store_db, "_open_uri", open_uri)
    open_database(store, read_only=True)
    try:
        assert EventRecord.select().count() == 20 and opened == ["mode=ro", "immutable=1"]
    finally:
        close_database()


# damage the integrity check cannot see -------------------------------------------------------


def damage(path: Path, sql: str) -> None:
    """Change rows behind TIC's back, then check that SQLite's integrity check passes."""
    con = sqlite3.connect(path)
    try:
        con.execute(sql)
        con.commit()
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        con.close()


def chat_store(workspace) -> Path:
    open_database(workspace.db_path)
    session = chat.default_session()
    for n in range(3):
        chat.add_message(session.id, "assistant", f"reply {n}", meta={"kind": "notification"})
    daily_backup(store_db.database.obj, workspace.db_path)
    close_database()
    return workspace.db_path


NOT_UTF8 = "UPDATE chat_history SET meta = CAST(X'7b226b696e64223a20ff' AS TEXT) WHERE id = 2"


@pytest.mark.allow_log_warnings
def test_text_that_is_not_utf8_names_its_table_and_the_backup_in_one_line(workspace, capsys):
    path = chat_store(workspace)
    (backup,) = backups_dir(path).glob("*.db")
    damage(path, NOT_UTF8)
    assert cli.main(["--home", str(workspace.root), "history"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "tic-desktop: error: the store's table chat_history is damaged: its column meta holds "
        f"bytes that are not text; restore the last backup with: cp {backup} {path} "
        "(while TIC is not running)"
    ]


def test_json_that_does_not_parse_names_its_table(workspace):
    path = chat_store(workspace)
    damage(path, """UPDATE chat_history SET meta = '{"kind": "noti' WHERE id = 3""")
    open_database(path)
    try:
        with pytest.raises(StoreDamaged) as info:
            chat.recent_messages(10)
    finally:
        close_database()
    assert info.value.table == "chat_history"
    assert str(info.value).startswith(
        "the store's table chat_history is damaged: its column meta holds "
        '\'{"kind": "noti\', not a JSON object'
    )


@pytest.mark.allow_log_warnings
async def test_a_damaged_table_is_reported_once_and_replies_are_not_retried(
    workspace, monkeypatch, caplog
):
    """The issue's case: stores that pass the integrity check made every capable reply fail,
    retried for 35 s and then sent plainly, tick after tick. Here the notification turn
    reads the session's history (as it did then), and a row of it is damaged: the damage is
    said once, naming the table, and each tick's notifications go out at once, in TIC's
    own words, with no retries (a retry would wait 5 s: past the drain's timeout)."""
    from engine.agent import transcript

    monkeypatch.setattr(
        delivery, "prompt_messages", lambda sid, _n: transcript.prompt_messages(sid, 50)
    )
    workspace.rules_file.write_text(ANNA_RULES)
    model = ScriptedModel(default=reply("Anna Berg wrote to you."), capability="capable")
    engine = Engine(workspace, Settings(), model)  # retries after 5 s, then 30 s
    failed: list[TurnFailed] = []
    engine.bus.subscribe(lambda m: failed.append(m) if isinstance(m, TurnFailed) else None)
    await engine.start(schedule=False)
    try:
        engine.ingest([make_event() for _ in range(2)])
        assert (await engine.check_now(timeout=10)).delivered
        damage(workspace.db_path, NOT_UTF8.replace("id = 2", "id = 1"))
        for _tick in range(2):
            engine.ingest([make_event() for _ in range(2)])
            started = time.monotonic()
            result = await engine.check_now(timeout=3)
            assert result.delivered and result.notified == 2
            assert time.monotonic() - started < 3
        plain = [row for row in chat.recent_messages(3) if (row[0].meta or {}).get("fallback")]
        assert len(plain) == 2
    finally:
        await engine.stop()
    said = [r for r in caplog.records if "table chat_history is damaged" in r.getMessage()]
    assert len(said) == 1 and len(failed) == 1
    assert failed[0].error.startswith("the store's table chat_history is damaged")
