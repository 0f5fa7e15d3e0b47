"""The models' database: the proxy the store's tables are bound to (the app and the tests bind
it to the database they open, ``engine.store.db.open_database``) and the SQLite database class
behind it. It sits below both the tables (``engine.store.models``) and the opening of the
store (``engine.store.db``, which migrates the tables), so neither needs the other."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import peewee as pw

from engine.store.damage import cursor_class


class StoreDatabase(pw.SqliteDatabase):
    """SQLite rolls a transaction back by itself on some errors (a full disk, I/O errors);
    peewee's rollback then fails with "cannot rollback - no transaction is active" (or "no
    such savepoint") and hides the real error. Here a rollback with nothing left to undo is
    skipped, so the real error shows. Its cursors name a damaged table (``CheckedCursor``)."""

    store_path: Path | None = None

    def cursor(self, named_cursor: object = None) -> sqlite3.Cursor:
        if self.is_closed():
            super().cursor(named_cursor)  # type: ignore[no-untyped-call]  # connects, as peewee does
        return sqlite_connection(self).cursor(cursor_class(self.store_path))

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
