"""Damage SQLite's integrity check cannot see, named with its table.

The integrity check reads every page and index, but not what a row's text says: a stretch
of garbage inside a text column passes it, and only fails when the row is read ("Could not
decode to UTF-8 column 'meta'"), or when its JSON or timestamp is parsed. Such a failure
comes back every time the row is read, so it is raised as :class:`StoreDamaged`, naming the
table and the backup to restore, for whoever reads it to report once rather than retry."""

from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path
from typing import Any

import peewee as pw

from engine.errors import StoreDamaged
from engine.store.backup import restore_hint

SQLITE_CORRUPT = 11
_NOT_TEXT = re.compile(r"Could not decode to UTF-8 column '([^']*)'")
_TABLE = re.compile(r'\b(?:FROM|INTO|UPDATE)\s+["`\[]?(\w+)', re.IGNORECASE)


def damaged(table: str, detail: str, path: Path | None) -> StoreDamaged:
    hint = f"; {restore_hint(path)}" if path is not None else ""
    return StoreDamaged(f"the store's table {table} is damaged: {detail}{hint}", table)


def read_damage(exc: sqlite3.Error, sql: str, path: Path | None) -> StoreDamaged | None:
    """The damage a failed read reveals (text that is not UTF-8, a malformed page), or None
    when ``exc`` says something else (a full disk, a lock, a bad query)."""
    text = str(exc)
    not_text = _NOT_TEXT.search(text)
    if not_text is not None:
        detail = f"its column {not_text.group(1)} holds bytes that are not text"
    elif (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == SQLITE_CORRUPT:
        detail = text.splitlines()[0] if text else "database disk image is malformed"
    else:
        return None
    found = _TABLE.search(sql)
    return damaged(found.group(1) if found else "(unknown)", detail, path)


def value_damage(field: pw.Field, value: object, exc: Exception) -> StoreDamaged:
    """A stored value its column type cannot read (JSON that does not parse, a timestamp that
    is not one)."""
    table = field.model._meta.table_name
    shown = repr(value)[:40]
    detail = f"its column {field.column_name} holds {shown}, not a {_kind(field)} ({exc})"
    return damaged(table, detail, _store_of(field))


def _store_of(field: pw.Field) -> Path | None:
    """The file of the store ``field``'s table is bound to (None in memory, or when none is)."""
    bound = field.model._meta.database
    db = bound.obj if isinstance(bound, pw.DatabaseProxy) else bound
    path = getattr(db, "store_path", None)  # engine.store.base.StoreDatabase's
    return path if isinstance(path, Path) else None


def _kind(field: pw.Field) -> str:
    name = type(field).__name__
    kinds = {"JsonField": "JSON object", "UtcDateTimeField": "timestamp", "EnumField": "known word"}
    return kinds.get(name, "value")


class CheckedCursor(sqlite3.Cursor):
    """The store's cursors: a read that fails on damaged rows raises StoreDamaged."""

    store: Path | None = None  # set on the subclass made for each store
    _sql = ""

    def execute(self, sql: str, parameters: Any = (), /) -> CheckedCursor:
        self._sql = sql
        try:
            super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size if size is not None else self.arraysize)
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            self._raise_damage(exc)
            raise

    def _raise_damage(self, exc: sqlite3.DatabaseError) -> None:
        damage = read_damage(exc, self._sql, self.store)
        if damage is not None:
            raise damage from None


@functools.cache
def cursor_class(path: Path | None) -> type[CheckedCursor]:
    """The cursor type of the store at ``path`` (it names the backup to restore)."""
    return type("StoreCursor", (CheckedCursor,), {"store": path})
