"""Runs sources: each on its own interval, cursor and events committed together, transient
failures retried with exponential backoff, revoked credentials shown as "needs sign-in"."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from engine.clock import utcnow
from engine.sources.base import NeedsSignIn, Source, SourceError, TransientError
from engine.store.db import database
from engine.store.models import SourceCursor, SourceStatus
from engine.triage.runner import ingest

log = logging.getLogger(__name__)

MAX_PAGES = 10_000


def load_cursor(key: str) -> str | None:
    row = SourceCursor.get_or_none(SourceCursor.source == key)
    return row.value if row is not None else None


def _save_cursor(key: str, value: str | None) -> None:
    if value is None:
        SourceCursor.delete().where(SourceCursor.source == key).execute()
        return
    (
        SourceCursor.insert(source=key, value=value, updated_at=utcnow())
        .on_conflict(
            conflict_target=[SourceCursor.source],
            update={SourceCursor.value: value, SourceCursor.updated_at: utcnow()},
        )
        .execute()
    )


def _set_status(source: Source, state: str, error: str | None, synced: bool) -> None:
    now = utcnow()
    values = {
        "kind": source.kind,
        "account": source.account,
        "state": state,
        "last_error": error,
        "updated_at": now,
    }
    if synced:
        values["last_sync_at"] = now
    update = {getattr(SourceStatus, k): v for k, v in values.items()}
    SourceStatus.insert(key=source.key, **values).on_conflict(
        conflict_target=[SourceStatus.key], update=update
    ).execute()


async def sync_once(source: Source) -> int:
    """Fetch every page that is new; returns how many new events were stored."""
    cursor = load_cursor(source.key)
    added = 0
    for _ in range(MAX_PAGES):
        batch = await source.fetch(cursor)
        with database.atomic():
            added += ingest(batch.events)
            _save_cursor(source.key, batch.cursor)
        cursor = batch.cursor
        if not batch.more:
            break
    return added


class SourceRunner:
    def __init__(
        self,
        *,
        backoff_base: float = 5.0,
        backoff_max: float = 15 * 60.0,
        on_new_events: Callable[[int], None] | None = None,
        clock: Callable[[], datetime] = utcnow,
    ):
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.on_new_events = on_new_events
        self.clock = clock
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._sources: dict[str, Source] = {}
        self._kicks: dict[str, asyncio.Event] = {}

    def add(self, source: Source) -> None:
        """Start polling ``source`` (replacing one with the same key)."""
        self._sources[source.key] = source
        old = self._tasks.pop(source.key, None)
        if old is not None:
            old.cancel()
        self._kicks[source.key] = asyncio.Event()
        self._tasks[source.key] = asyncio.create_task(
            self._poll(source), name=f"source:{source.key}"
        )

    async def remove(self, key: str) -> None:
        task = self._tasks.pop(key, None)
        source = self._sources.pop(key, None)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if source is not None:
            await source.close()

    def active_keys(self) -> list[str]:
        return list(self._sources)

    def sync_now(self, key: str | None = None) -> None:
        for k, kick in self._kicks.items():
            if key is None or k == key:
                kick.set()

    async def run_once(self, source: Source) -> int:
        """One sync with status bookkeeping; raises nothing but CancelledError."""
        try:
            added = await sync_once(source)
        except NeedsSignIn as exc:
            _set_status(source, "needs_sign_in", str(exc), synced=False)
            raise
        except TransientError as exc:
            _set_status(source, "retrying", str(exc), synced=False)
            raise
        except Exception as exc:
            _set_status(
                source,
                "error",
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                synced=False,
            )
            raise
        _set_status(source, "ok", None, synced=True)
        if added and self.on_new_events is not None:
            self.on_new_events(added)
        return added

    async def _poll(self, source: Source) -> None:
        failures = 0
        while True:
            delay = source.poll_seconds
            try:
                await self.run_once(source)
                failures = 0
            except asyncio.CancelledError:
                raise
            except NeedsSignIn as exc:
                log.warning("%s needs sign-in: %s", source.key, exc)
                delay = self.backoff_max
            except TransientError as exc:
                failures += 1
                delay = min(self.backoff_max, self.backoff_base * 2 ** (failures - 1))
                log.info("%s: %s; retrying in %.0f s", source.key, exc, delay)
            except SourceError as exc:
                failures += 1
                delay = min(self.backoff_max, self.backoff_base * 2 ** (failures - 1))
                log.warning("%s: %s; retrying in %.0f s", source.key, exc, delay)
            except Exception:
                failures += 1
                delay = min(self.backoff_max, self.backoff_base * 2 ** (failures - 1))
                log.exception("%s failed; retrying in %.0f s", source.key, delay)
            kick = self._kicks[source.key]
            kick.clear()
            try:
                await asyncio.wait_for(kick.wait(), timeout=delay)
            except TimeoutError:
                pass

    async def stop(self) -> None:
        for key in list(self._tasks):
            await self.remove(key)
