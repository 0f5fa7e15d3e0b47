"""The issue's measurements, for real: commands on a workspace on a tiny disk filled to 32,
192 and 300 KB free, and on a workspace mounted read-only (``tests.mounts``: a user and mount
namespace of the command's own, no root needed).

A full disk is said in one line as what it is ("the disk is full (N KB free)"), with no
backup offered, no traceback and no "--- Logging error ---", and the store is left as it was.
On a read-only workspace what only reads works, and what writes says so in one line."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from engine.store import chat
from engine.store.backup import daily_backup
from engine.store.db import close_database, open_database
from engine.store.inbox import ingest
from tests.cli_helpers import write_jsonl
from tests.deliveries import new_workspace
from tests.factories import event_dict, make_event
from tests.mounts import full_disk_setup, needs_mounts, read_only_setup, tic_in_namespace

pytestmark = needs_mounts

PENDING = 200  # events waiting in the store: a tick's decisions and replies need room
FULL_LINE = re.compile(
    r"tic-desktop: error: .* the disk is full \(\d+ KB free\); free some space, then try again"
)


@pytest.fixture
def used(tmp_path) -> Path:
    """A workspace with a store (events pending, a chat, a backup), its logs and a file of
    new events."""
    home = new_workspace(tmp_path / "home")
    db = open_database(home / "tic.db")
    ingest([make_event() for _ in range(PENDING)])
    session = chat.default_session()
    chat.add_message(session.id, "user", "Anything from Anna?")
    chat.add_message(session.id, "assistant", "Anna wrote twice.", meta={"kind": "user"})
    daily_backup(db, home / "tic.db")
    close_database()
    (home / "logs").mkdir()
    big = [event_dict(text="x" * 5000) for _ in range(100)]
    write_jsonl(home / "new.jsonl", big)
    return home


def counts(store: Path) -> tuple[str, int, int]:
    con = sqlite3.connect(store)
    try:
        check = con.execute("PRAGMA integrity_check").fetchone()[0]
        events = con.execute("SELECT count(*) FROM events").fetchone()[0]
        done = con.execute("SELECT count(*) FROM events WHERE status = 'done'").fetchone()[0]
        return check, events, done
    finally:
        con.close()


@pytest.mark.allow_log_warnings
@pytest.mark.parametrize("free_kb", [32, 192, 300])
@pytest.mark.parametrize("command", ["ingest", "tick"])
def test_a_full_disk_is_said_as_one_in_one_line_and_the_store_is_kept(
    used, tmp_path, free_kb, command
):
    mount, keep = tmp_path / "disk", tmp_path / "kept"
    args = ["ingest", str(mount / "home" / "new.jsonl")] if command == "ingest" else ["tick"]
    ran = tic_in_namespace(
        full_disk_setup(used, mount, free_kb, keep), str(mount / "home"), args, tmp_path / "out"
    )
    assert ran.returncode == 1, ran
    assert FULL_LINE.fullmatch(ran.err_lines[-1]), ran.err
    assert "Traceback" not in ran.err and "Logging error" not in ran.err
    assert "restore" not in ran.err and "cp " not in ran.err
    assert "unexpected error" not in ran.err
    check, events, _done = counts(keep / "tic.db")
    assert check == "ok" and events == PENDING  # nothing half-written, nothing lost


@pytest.mark.allow_log_warnings
def test_at_32_kb_free_even_reading_says_the_disk_is_full_not_restore(used, tmp_path):
    """SQLite cannot make its 32 KB shared-memory file: "disk I/O error", which TIC used to
    answer with "restore the last backup with: cp …"."""
    mount, keep = tmp_path / "disk", tmp_path / "kept"
    ran = tic_in_namespace(
        full_disk_setup(used, mount, 32, keep), str(mount / "home"), ["history"], tmp_path / "out"
    )
    assert ran.returncode == 1 and len(ran.err_lines) == 1, ran
    assert FULL_LINE.fullmatch(ran.err_lines[0]) and "cp " not in ran.err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["history"], "Anna wrote twice."),
        (["rules"], "Always notify: emails from Anna Berg"),
        (
            ["triage", "--rules", "{home}/data/notifications.md", "--events", "{home}/new.jsonl"],
            '"notify": true',
        ),
        (["model", "list"], "recommended for this computer"),
    ],
)
def test_on_a_read_only_workspace_what_only_reads_works(used, tmp_path, args, says):
    args = [a.format(home=used) for a in args]
    before = sorted((p, p.stat().st_mtime_ns) for p in used.rglob("*"))
    ran = tic_in_namespace(read_only_setup(used), str(used), args, tmp_path / "out")
    assert ran.returncode == 0, ran
    assert says in ran.out
    assert ran.err == ""
    assert sorted((p, p.stat().st_mtime_ns) for p in used.rglob("*")) == before


@pytest.mark.parametrize(
    "args",
    [["ingest", "{home}/new.jsonl"], ["tick"], ["chat"], ["rules", "--confirm", "3"]],
)
def test_on_a_read_only_workspace_what_writes_says_so_in_one_line(used, tmp_path, args):
    """The issue's case: every command, even history, answered "unexpected error"."""
    args = [a.format(home=used) for a in args]
    ran = tic_in_namespace(read_only_setup(used), str(used), args, tmp_path / "out")
    assert ran.returncode == 1
    assert ran.err_lines == [
        f"tic-desktop: error: the workspace {used} is read-only: tic-desktop {args[0]} writes "
        "to it (make it writable)"
    ]
