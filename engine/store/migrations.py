"""Versioned schema migrations. An existing database is backed up before it is changed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import peewee as pw

from engine.store.backup import copy_store
from engine.store.fields import utcnow
from engine.store.models import ALL_MODELS, SchemaVersion, SourceStatus

log = logging.getLogger(__name__)


V1_TABLES = [m for m in ALL_MODELS if m is not SourceStatus]


def _v1_initial(db: pw.Database) -> None:
    db.create_tables(V1_TABLES)


def _v2_source_status(db: pw.Database) -> None:
    db.create_tables([SourceStatus])


def _v3_tick_indexes(db: pw.Database) -> None:
    """What each batch of a tick looks up, indexed: the oldest pending events (each claim
    sorted every pending event) and the first address each sender name was seen with (each
    batch read every stored email), so a tick's cost per event no longer grows with the
    store."""
    for statement in (
        "CREATE INDEX IF NOT EXISTS events_pending_in_order ON events (status, time, id)",
        "CREATE INDEX IF NOT EXISTS events_sender_name ON events (sender_name, id)",
    ):
        db.execute_sql(statement)  # type: ignore[no-untyped-call]  # untyped in the stubs


MIGRATIONS: list[tuple[int, Callable[[pw.Database], None]]] = [
    (1, _v1_initial),
    (2, _v2_source_status),
    (3, _v3_tick_indexes),
]

LATEST = MIGRATIONS[-1][0]


def current_version(db: pw.Database) -> int:
    if not db.table_exists(SchemaVersion._meta.table_name):
        return 0
    row = SchemaVersion.select(pw.fn.MAX(SchemaVersion.version)).scalar()
    return int(row or 0)


def backup(db: pw.SqliteDatabase, path: Path, version: int) -> Path:
    """Copy the live database (WAL included) before migrating it."""
    stamp = utcnow().strftime("%Y%m%dT%H%M%S")
    return copy_store(db, path.with_name(f"{path.name}.v{version}.{stamp}.bak"))


def migrate(db: pw.SqliteDatabase, path: Path | None) -> int:
    """Bring the schema to LATEST; returns the version found before migrating."""
    found = current_version(db)
    if found > LATEST:
        raise pw.DatabaseError(
            f"schema version {found} is newer than this TIC ({LATEST}); upgrade TIC"
        )
    if found == LATEST:
        return found
    if found > 0 and path is not None:
        log.info("backed up the store to %s before migrating", backup(db, path, found))
    for version, step in MIGRATIONS:
        if version <= found:
            continue
        with db.atomic():
            step(db)
            SchemaVersion.create(version=version)
        log.info("store migrated to schema version %d", version)
    return found
