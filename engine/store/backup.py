"""Backups of the store: one a day (the newest few kept, in ``backups/`` beside the store),
plus the copy each schema migration makes first (``tic.db.vN.<time>.bak``). Whatever refuses
a lost or damaged store names the newest of them to restore from."""

from __future__ import annotations

import logging
import sqlite3
from datetime import timedelta
from pathlib import Path

import peewee as pw

from engine.clock import utcnow

log = logging.getLogger(__name__)

BACKUPS_DIR = "backups"
DAILY_KEEP = 3
DAILY_EVERY = timedelta(days=1)


def backups_dir(path: Path) -> Path:
    return path.parent / BACKUPS_DIR


def all_backups(path: Path) -> list[Path]:
    """Every backup of the store at ``path``, oldest first."""
    found = [*path.parent.glob(f"{path.name}.v*.bak"), *backups_dir(path).glob("*.db")]
    return sorted((p for p in found if p.is_file()), key=lambda p: p.stat().st_mtime)


def latest_backup(path: Path) -> Path | None:
    found = all_backups(path)
    return found[-1] if found else None


def restore_hint(path: Path) -> str:
    """How to get the store back, naming the newest backup (or saying there is none)."""
    backup = latest_backup(path)
    if backup is None:
        return "no backup of it was found"
    return f"restore the last backup with: cp {backup} {path} (while TIC is not running)"


def copy_store(db: pw.SqliteDatabase, dest: Path) -> Path:
    """Copy the live database (WAL included) with SQLite's online backup API."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    target = sqlite3.connect(dest)
    try:
        db.connection().backup(target)  # type: ignore[no-untyped-call]  # untyped in the stubs
    finally:
        target.close()
    return dest


def daily_backup(db: pw.SqliteDatabase, path: Path) -> Path | None:
    """Back the store up when the newest daily backup is a day old (keeping the newest
    ``DAILY_KEEP``); returns the new backup, if one was made."""
    folder = backups_dir(path)
    daily = sorted(folder.glob("*.db")) if folder.is_dir() else []
    now = utcnow()
    if daily:
        newest = daily[-1].stat().st_mtime
        if now.timestamp() - newest < DAILY_EVERY.total_seconds():
            return None
    dest = copy_store(db, folder / f"{path.stem}-{now.strftime('%Y%m%dT%H%M%S')}.db")
    for old in sorted(folder.glob("*.db"))[:-DAILY_KEEP]:
        old.unlink(missing_ok=True)
    log.info("backed up the store to %s", dest)
    return dest
