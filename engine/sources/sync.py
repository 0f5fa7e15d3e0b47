"""Runs sources: each on its own interval, cursor and events committed together, transient
failures retried with exponential backoff, revoked credentials shown as "needs sign-in". A
source that can push (``Source.watch``) is fetched as soon as it says something is new, and
every sync that stored new events says so on the bus (``EventsStored``), which wakes TIC."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial

from engine.bus import EventBus, EventsStored
from engine.clock import utcnow
from engine.sources.base import NeedsSignIn, Source, TransientError
from engine.store.base import database
from engine.store.inbox import ingest
from engine.store.models import SourceCursor, SourceStatus
from engine.tasks import Periodic, TaskSet, one_line, report

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
    """Polls each added source in its own named loop (:class:`~engine.tasks.Periodic`)."""

    def __init__(
        self,
        *,
        backoff_base: float = 5.0,
        backoff_max: float = 15 * 60.0,
        bus: EventBus | None = None,
    ):
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.bus = bus
        self._loops: dict[str, Periodic] = {}
        self._sources: dict[str, Source] = {}
        self._failures: dict[str, int] = {}
        self._closing = TaskSet(logger=log, bus=bus)  # sources replaced by a newer one

    def add(self, source: Source) -> None:
        """Start polling ``source`` (replacing one with the same key, which is closed: its
        push connection too)."""
        previous = self._sources.get(source.key)
        if previous is not None and previous is not source:
            self._closing.spawn(previous.close(), f"close:{source.key}")
        self._sources[source.key] = source
        old = self._loops.pop(source.key, None)
        if old is not None:
            old.cancel()
        self._failures[source.key] = 0
        poll = Periodic(
            f"source:{source.key}",
            partial(self._poll, source),
            interval=source.poll_seconds,
            logger=log,
            bus=self.bus,
        )
        self._loops[source.key] = poll
        poll.start()
        source.watch(_thread_safe_wake(poll))

    async def remove(self, key: str) -> None:
        poll = self._loops.pop(key, None)
        source = self._sources.pop(key, None)
        self._failures.pop(key, None)
        if poll is not None:
            await poll.stop()
        if source is not None:
            await source.close()

    def active_keys(self) -> list[str]:
        return list(self._sources)

    async def run_once(self, source: Source) -> int:
        """One sync with status bookkeeping; raises what the sync raised."""
        try:
            added = await sync_once(source)
        except NeedsSignIn as exc:
            _set_status(source, "needs_sign_in", str(exc), synced=False)
            raise
        except TransientError as exc:
            _set_status(source, "retrying", str(exc), synced=False)
            raise
        except Exception as exc:
            _set_status(source, "error", one_line(exc), synced=False)
            raise
        _set_status(source, "ok", None, synced=True)
        if added and self.bus is not None:
            self.bus.publish(EventsStored(source.key, added))
        return added

    async def _poll(self, source: Source) -> float:
        """One poll; returns how long to wait before the next (backing off on failures)."""
        try:
            await self.run_once(source)
        except NeedsSignIn as exc:
            log.warning("%s needs sign-in: %s", source.key, exc)
            return self.backoff_max
        except TransientError as exc:
            delay = self._backoff(source.key)
            log.info("%s: %s; retrying in %.0f s", source.key, exc, delay)
            return delay
        except Exception as exc:
            delay = self._backoff(source.key)
            report(exc, f"{source.key} failed; retrying in {delay:.0f} s", logger=log, bus=self.bus)
            return delay
        self._failures[source.key] = 0
        return source.poll_seconds

    def _backoff(self, key: str) -> float:
        self._failures[key] = failures = self._failures.get(key, 0) + 1
        return min(self.backoff_max, self.backoff_base * 2 ** (failures - 1))

    async def stop(self) -> None:
        for key in list(self._loops):
            await self.remove(key)
        await self._closing.stop()


def _thread_safe_wake(poll: Periodic) -> Callable[[], None]:
    """``poll.wake`` callable from any thread (a push arrives on the source's own thread);
    a call once the loop has closed is dropped: nothing is left to fetch with."""
    loop = asyncio.get_running_loop()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(poll.wake)
        except RuntimeError:  # the loop closed: the app is quitting
            pass

    return wake
