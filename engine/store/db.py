"""Opening the store: the database the models' proxy (``engine.store.base``) is bound to,
checked and migrated first.

Opening the store is loud, never silent: a missing or empty ``tic.db`` where a store existed
(its marker file says so) is refused with the last backup offered, not replaced by an empty
one; a damaged store (SQLite's integrity check) is refused with the backup to restore; and
SQLite's own errors become one line that says what to do. A full disk is said as one ("the
disk is full (32 KB free)"), with nothing suggested that would lose data: the store is
intact. A store in a folder TIC may not write is opened read-only, so what only reads
(``history``, ``rules``) still works. Rows that pass the integrity check but cannot be read
raise :class:`~engine.errors.StoreDamaged` naming their table (``engine.store.damage``)."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

import peewee as pw

from engine.errors import StoreError
from engine.store.backup import latest_backup, restore_hint
from engine.store.base import StoreDatabase, database, sqlite_connection
from engine.store.fields import utcnow
from engine.store.migrations import LATEST, current_version, migrate
from engine.workspace.disk import DiskUsage, full_disk, is_full_error, looks_full

log = logging.getLogger(__name__)


PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "busy_timeout": 10_000,
}
READ_ONLY_PRAGMAS = {"foreign_keys": 1, "busy_timeout": 10_000}  # none that writes
FULL_CHECK_UP_TO = 512 * 1024 * 1024  # bytes; a bigger store gets the quicker quick_check
SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL = 8, 10, 13  # SQLite's primary result codes
MARKER_SUFFIX = ".created"
MARKER_TEXT = (
    "TIC's store {name} was created in this folder on {date}.\n"
    "While this file exists TIC refuses to start with {name} missing or empty, so that a lost\n"
    "store is restored from a backup rather than silently replaced. Delete this file to start\n"
    "afresh with an empty store.\n"
)


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def open_database(path: Path | str, *, read_only: bool | None = None) -> pw.SqliteDatabase:
    """Open the SQLite store at ``path``, check it, bind the models to it and migrate it to
    the current schema (backing the file up first when an existing schema changes).

    ``read_only`` (by default: when TIC may not write the store or its folder) opens it for
    reading only: nothing is created, migrated or marked, and a write fails."""
    on_disk = Path(path) if str(path) != ":memory:" else None
    if on_disk is not None:
        _refuse_lost_store(on_disk)
    if read_only is None:
        read_only = on_disk is not None and not writable(on_disk)
    try:
        db = _connect_read_only(on_disk) if read_only and on_disk else _connect(path, on_disk)
    except (pw.DatabaseError, sqlite3.Error) as exc:
        raise StoreError(_open_failed(f"cannot open the store {path}", exc, on_disk)) from None
    database.initialize(db)
    try:
        if on_disk is not None:
            _check_integrity(db, on_disk)
        if read_only:
            _refuse_migration(db, on_disk)
        else:
            migrate(db, on_disk)
    except (pw.DatabaseError, sqlite3.DatabaseError) as exc:
        db.close()
        what = f"the store {path} is damaged or not a TIC database"
        raise StoreError(_open_failed(what, exc, on_disk)) from None
    except StoreError:
        db.close()
        raise
    if on_disk is not None and not read_only and not marker_path(on_disk).exists():
        _write_marker(on_disk)
    return db


def writable(path: Path) -> bool:
    """Whether TIC may write the store at ``path``: its folder (SQLite writes its journal
    beside it) and, when it exists, the file."""
    if not os.access(path.parent, os.W_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def _connect(path: Path | str, on_disk: Path | None) -> StoreDatabase:
    db = StoreDatabase(str(path), pragmas=PRAGMAS, check_same_thread=False)
    db.store_path = on_disk
    db.connect(reuse_if_open=True)
    return db


def _connect_read_only(path: Path) -> StoreDatabase:
    """The store for reading only. SQLite opens a store in WAL mode read-only when its
    ``-shm`` file exists (a TIC running elsewhere, or one that was killed) and otherwise
    cannot, since it may not create one; a store with no write-ahead log left to read is
    then opened as immutable (nothing can change it: its folder takes no writes)."""
    if not path.exists():
        raise StoreError(f"the store {path} does not exist, and {path.parent} is read-only")
    try:
        return _open_uri(path, "mode=ro")
    except (pw.DatabaseError, sqlite3.Error):
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise
    return _open_uri(path, "immutable=1")


def _open_uri(path: Path, mode: str) -> StoreDatabase:
    uri = f"file:{quote(str(path))}?{mode}"
    db = StoreDatabase(uri, uri=True, pragmas=READ_ONLY_PRAGMAS, check_same_thread=False)
    db.store_path = path
    db.connect()
    try:
        sqlite_connection(db).execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        db.close()
        raise
    return db


def _refuse_migration(db: pw.SqliteDatabase, path: Path | None) -> None:
    found = current_version(db)
    if found != LATEST:
        raise StoreError(
            f"the store {path} has schema version {found}, this TIC needs {LATEST}: "
            "it upgrades the store on its next start in a folder it may write"
        )


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
    text = MARKER_TEXT.format(name=path.name, date=utcnow().date().isoformat())
    try:
        marker_path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s: %s", marker_path(path), exc)


def _hint(path: Path | None) -> str:
    return f"; {restore_hint(path)}" if path is not None else ""


def _open_failed(what: str, exc: BaseException, path: Path | None) -> str:
    """Why the store could not be opened. The backup is offered only for damage: a full
    disk, a disk that failed to read or a folder TIC may not write leave the store intact,
    and restoring would throw away everything since the backup."""
    if _storage_fault(exc) is not None:
        return describe_store_error(exc, path)
    return f"{what}: {exc}{_hint(path)}"


def _sqlite_code(exc: BaseException) -> int | None:
    """SQLite's primary result code behind ``exc`` (peewee wraps sqlite3's errors)."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return None
        code = getattr(seen, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF
        inner = seen.args[0] if seen.args and isinstance(seen.args[0], BaseException) else None
        seen = inner or seen.__cause__ or seen.__context__
    return None


def _storage_fault(exc: BaseException) -> str | None:
    """ "full", "io" or "read-only" when ``exc`` is a fault of where the store is kept, not
    of the store."""
    if is_full_error(exc):
        return "full"
    code = _sqlite_code(exc)
    text = str(exc).lower()
    if code == SQLITE_FULL or "disk is full" in text:
        return "full"
    if code == SQLITE_IOERR or "disk i/o error" in text:
        return "io"
    if code == SQLITE_READONLY or "readonly database" in text:
        return "read-only"
    return None


def describe_store_error(
    exc: BaseException, path: Path | None = None, *, usage: DiskUsage | None = None
) -> str:
    """One line for an error SQLite raised, saying what it means for the user. A disk I/O
    error on a disk with almost no space left (SQLite's words when it cannot grow its
    shared-memory file) is a full disk; ``usage`` measures it (``engine.workspace.disk``)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = f"the store {path}" if path is not None else "the store"
    lowered = text.lower()
    fault = _storage_fault(exc)
    if fault == "io" and path is not None and looks_full(path.parent, usage):
        fault = "full"
    if fault == "full":
        if path is not None and (is_full_error(exc) or looks_full(path.parent, usage)):
            disk = full_disk(path.parent, usage)
            return f"{where} cannot be written: {disk}; free some space, then try again"
        return f"{where} cannot be written: {text} (free some disk space, then try again)"
    if fault == "io":
        return (
            f"{where} could not be read or written: {text} (the disk failed; the store "
            "itself may be intact: check the disk, then try again)"
        )
    if fault == "read-only":
        folder = path.parent if path is not None else "its folder"
        return f"{where} cannot be written: {folder} is read-only"
    if "malformed" in lowered or "not a database" in lowered or "decode" in lowered:
        backup = latest_backup(path) if path is not None else None
        hint = f"; restore the last backup {backup}" if backup is not None else ""
        return f"{where} is damaged: {text}{hint}"
    if "locked" in lowered or "busy" in lowered:
        return f"{where} is busy: {text} (another program holds it; try again)"
    return f"{where}: {text}"
