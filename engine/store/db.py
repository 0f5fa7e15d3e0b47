"""Database handle. Models bind to a proxy so tests and the app inject their own database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import peewee as pw

from engine.errors import StoreError

database = pw.DatabaseProxy()

PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "busy_timeout": 10_000,
}


def open_database(path: Path | str) -> pw.SqliteDatabase:
    """Open the SQLite store at ``path``, bind the models to it and migrate it to the
    current schema (backing the file up first when an existing schema changes)."""
    from engine.store.migrations import migrate

    db = pw.SqliteDatabase(str(path), pragmas=PRAGMAS, check_same_thread=False)
    try:
        db.connect(reuse_if_open=True)
    except (pw.DatabaseError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from None
    database.initialize(db)
    try:
        migrate(db, Path(path) if str(path) != ":memory:" else None)
    except (pw.DatabaseError, sqlite3.DatabaseError) as exc:
        db.close()
        raise StoreError(f"the store {path} is damaged or not a TIC database: {exc}") from None
    return db


def close_database() -> None:
    obj = database.obj
    if obj is not None and not obj.is_closed():
        obj.close()
