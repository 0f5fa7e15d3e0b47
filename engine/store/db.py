"""Database handle. Models bind to a proxy so tests and the app inject their own database.

Opening the store is loud, never silent: a missing or empty ``tic.db`` where a store existed
(its marker file says so) is refused with the last backup offered, not replaced by an empty
one; a damaged store (SQLite's integrity check) is refused with the backup to restore; and
SQLite's own errors (a full disk, a damaged page) become one line that says what to do."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import peewee as pw

from engine.errors import StoreError
from engine.store.backup import latest_backup, restore_hint

log = logging.getLogger(__name__)


PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "busy_timeout": 10_000,
}
FULL_CHECK_UP_TO = 512 * 1024 * 1024  # bytes; a bigger store gets the quicker quick_check
MARKER_SUFFIX = ".created"
MARKER_TEXT = (
    "TIC's store {name} was created in this folder on {date}.\n"
    "While this file exists TIC refuses to start with {name} missing or empty, so that a lost\n"
    "store is restored from a backup rather than silently replaced. Delete this file to start\n"
    "afresh with an empty store.\n"
)


class StoreDatabase(pw.SqliteDatabase):
    """SQLite rolls a transaction back by itself on some errors (a full disk, I/O errors);
    peewee's rollback then fails with "cannot rollback - no transaction is active" (or "no
    such savepoint") and hides the real error. Here a rollback with nothing left to undo is
    skipped, so the real error shows."""

    def rollback(self) -> None:
        if not self.is_closed() and not sqlite_connection(self).in_transaction:
            return
        super().rollback()

    def savepoint(self, sid: str | None = None) -> pw._savepoint:
        return _Savepoint(self, sid)


class _Savepoint(pw._savepoint):
    def rollback(self, begin: bool = True) -> None:
        connection: sqlite3.Connection = self.db.connection()
        if connection.in_transaction:
            super().rollback(begin)


class StoreProxy(pw.DatabaseProxy):
    """The models' database; its nested ``atomic()`` blocks use the savepoint above."""

    def savepoint(self) -> pw._savepoint:
        return _Savepoint(self)


database = StoreProxy()


def sqlite_connection(db: pw.SqliteDatabase) -> sqlite3.Connection:
    """The open connection as the sqlite3 module's type (the peewee stubs leave it untyped)."""
    connection: sqlite3.Connection = db.connection()  # type: ignore[no-untyped-call]
    return connection


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def open_database(path: Path | str) -> pw.SqliteDatabase:
    """Open the SQLite store at ``path``, check it, bind the models to it and migrate it to
    the current schema (backing the file up first when an existing schema changes)."""
    from engine.store.migrations import migrate

    on_disk = Path(path) if str(path) != ":memory:" else None
    if on_disk is not None:
        _refuse_lost_store(on_disk)
    db = StoreDatabase(str(path), pragmas=PRAGMAS, check_same_thread=False)
    try:
        db.connect(reuse_if_open=True)
    except (pw.DatabaseError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the store {path}: {exc}{_hint(on_disk)}") from None
    database.initialize(db)
    try:
        if on_disk is not None:
            _check_integrity(db, on_disk)
        migrate(db, on_disk)
    except (pw.DatabaseError, sqlite3.DatabaseError) as exc:
        db.close()
        raise StoreError(
            f"the store {path} is damaged or not a TIC database: {exc}{_hint(on_disk)}"
        ) from None
    except StoreError:
        db.close()
        raise
    if on_disk is not None and not marker_path(on_disk).exists():
        _write_marker(on_disk)
    return db


def rescue_deleted_wal(path: Path) -> bool:
    """If the store's write-ahead log (``tic.db-wal``) was deleted while the store is open,
    its committed content lives only in this process's open handle, and a crash would lose
    it: copy it into ``tic.db`` now (a checkpoint) and reopen, so SQLite starts a new log.
    Returns True when it had to. (Between two checks a kill -9 still loses what the
    deleted log held: this narrows the window, it cannot close it.)"""
    db = database.obj
    if not isinstance(db, pw.SqliteDatabase) or db.is_closed():
        return False
    wal = path.with_name(path.name + "-wal")
    connection = sqlite_connection(db)
    if wal.exists() or connection.in_transaction:
        return False
    mode = connection.execute("PRAGMA journal_mode").fetchone()
    if not mode or str(mode[0]).lower() != "wal":
        return False
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    db.close()
    db.connect()
    log.warning(
        "the store's write-ahead log %s was deleted while TIC ran; what it held was saved into %s",
        wal,
        path,
    )
    return True


def close_database() -> None:
    obj = database.obj
    if obj is not None and not obj.is_closed():
        obj.close()


def _refuse_lost_store(path: Path) -> None:
    """A store existed here (its marker says so) but the file is gone or empty."""
    if not marker_path(path).exists():
        return
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        state = "is missing"
    else:
        if size > 0:
            return
        state = "is empty (0 bytes)"
    raise StoreError(
        f"the store {path} {state} but this workspace had one: "
        f"{restore_hint(path)}, or delete {marker_path(path).name} to start with an empty store"
    )


def _check_integrity(db: pw.SqliteDatabase, path: Path) -> None:
    """SQLite's integrity check (its quick form on a big store) before anything is read."""
    big = path.exists() and path.stat().st_size > FULL_CHECK_UP_TO
    pragma = "quick_check" if big else "integrity_check"
    rows = sqlite_connection(db).execute(f"PRAGMA {pragma}(1)").fetchall()
    problem = " ".join(str(rows[0][0]).split()) if rows else "ok"
    if problem != "ok":
        raise StoreError(f"the store {path} is damaged ({problem}){_hint(path)}")


def _write_marker(path: Path) -> None:
    from engine.store.fields import utcnow

    text = MARKER_TEXT.format(name=path.name, date=utcnow().date().isoformat())
    try:
        marker_path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s: %s", marker_path(path), exc)


def _hint(path: Path | None) -> str:
    return f"; {restore_hint(path)}" if path is not None else ""


def describe_store_error(exc: BaseException, path: Path | None = None) -> str:
    """One line for an error SQLite raised, saying what it means for the user."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = f"the store {path}" if path is not None else "the store"
    lowered = text.lower()
    if "disk is full" in lowered or "disk i/o error" in lowered:
        return f"{where} cannot be written: {text} (free some disk space, then try again)"
    if "malformed" in lowered or "not a database" in lowered or "decode" in lowered:
        backup = latest_backup(path) if path is not None else None
        hint = f"; restore the last backup {backup}" if backup is not None else ""
        return f"{where} is damaged: {text}{hint}"
    if "locked" in lowered or "busy" in lowered:
        return f"{where} is busy: {text} (another program holds it; try again)"
    return f"{where}: {text}"
