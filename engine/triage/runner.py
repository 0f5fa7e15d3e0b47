"""The TIC runner: claims pending events oldest first, lets TIC decide, hands what is worth it
to ``notify``, and only then marks the events done. Each event is decided, notified and
marked on its own: a crash or a model error leaves it to be retried (bounded attempts), a
retried event is never notified twice, and an event that fails holds up no other. On an
event's last attempt a model that still fails is done without: the event is decided by the
lines code reads and the heuristics (see ``TriageDecider.decide_each``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from engine.agent.draft import NotificationDraft
from engine.bus import EventBus, TickFinished, TickStarted
from engine.clock import utcnow
from engine.errors import TicError
from engine.events import Event
from engine.store import inbox
from engine.store.base import database
from engine.store.models import EventRecord
from engine.store.recent import recent_events
from engine.tasks import Periodic, Slices, one_line, report
from engine.triage.decider import Decision, RulesFileError, TriageDecider, Undecided
from engine.triage.holds import CONFIRMED_FILE, SAMPLE

log = logging.getLogger(__name__)


class Notify(Protocol):
    """Where the runner hands each notification (``ChatHub.notify``); what it returns is
    None when the event was notified already."""

    def __call__(self, draft: NotificationDraft) -> Awaitable[object | None]: ...


@dataclass(frozen=True)
class TickResult:
    events: int = 0
    notified: int = 0
    failed: int = 0
    skipped: bool = False
    error: str | None = None


@dataclass
class _BatchResult:
    events: int = 0
    notified: int = 0
    failed: int = 0  # given up on for good (attempts spent, or corrupt)
    errors: list[str] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)  # records released in this batch


def _summary(errors: list[str]) -> str | None:
    """The tick's error in one line: the reason, and how many events failed when many did."""
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    return f"{errors[0]} ({len(errors)} events failed)"


HOLDS_FRESH = timedelta(hours=1)
"""How long a measure of the rule lines held for the user's yes is reused."""

WAKE_SETTLE_SECONDS = 0.5
"""How long a check woken by new events waits for more to arrive: a burst (a sync's pages,
a run of ingests, a chat's messages) is one check."""


class TicRunner:
    def __init__(
        self,
        decider: TriageDecider,
        notify: Notify,
        bus: EventBus,
        *,
        batch_size: int = 50,
        max_attempts: int = 3,
        clock: Callable[[], datetime] = utcnow,
        wake_settle: float = WAKE_SETTLE_SECONDS,
    ):
        self.decider = decider
        self.notify = notify
        self.bus = bus
        self.batch_size = batch_size
        self.max_attempts = max_attempts
        self.clock = clock
        self._lock = asyncio.Lock()
        self._holds_cache: tuple[tuple[int, int], datetime, frozenset[str]] | None = None
        self._schedule = Periodic(
            "tic-schedule", self._scheduled_tick, interval=15 * 60.0, logger=log, bus=bus
        )
        # New events wake the schedule's own loop (after a settle), so a woken check and a
        # scheduled one never overlap, and a wake-up during a check runs one more after it.
        self._wake = Periodic(
            "tic-wake",
            self._wake_schedule,
            interval=None,
            wait_first=True,
            settle=wake_settle,
            logger=log,
            bus=bus,
        )

    @property
    def running(self) -> bool:
        return self._lock.locked()

    async def tick(self, *, after_current: bool = False) -> TickResult:
        """Run TIC over every pending event now. A tick while one runs is skipped, or with
        ``after_current`` waits for it to end and then runs (so it sees what arrived since).
        Each event is decided, notified and marked on its own: one that fails is retried on
        a later tick (boundedly) and holds up no other."""
        if self._lock.locked() and not after_current:
            return TickResult(skipped=True)
        async with self._lock:
            try:  # a broken rules file stops the tick before any event is claimed
                self.decider.read_rules()
            except RulesFileError as exc:
                log.error("TIC cannot run: %s", exc)
                self.bus.publish(TickFinished(0, 0, str(exc)))
                return TickResult(error=str(exc))
            total = notified = failed = 0
            errors: list[str] = []
            tried: set[int] = set()  # failed in this tick: not claimed again until the next
            while True:
                batch = inbox.claim(self.batch_size, exclude=tried)
                if not batch:
                    break
                self.bus.publish(TickStarted(len(batch)))
                result = await self._run_batch(batch)
                tried.update(result.retry)
                total += result.events
                notified += result.notified
                failed += result.failed
                errors += result.errors
                error = _summary(result.errors)
                self.bus.publish(TickFinished(result.events, result.notified, error, result.failed))
                await asyncio.sleep(0)  # between batches, whatever else waits runs
            return TickResult(total, notified, failed, error=_summary(errors))

    async def _run_batch(self, batch: list[EventRecord]) -> _BatchResult:
        run = inbox.start_run("tic", len(batch), self.clock())
        result = _BatchResult(events=len(batch))
        batch, events = self._set_aside_corrupt(batch)
        result.failed = result.events - len(batch)
        await asyncio.sleep(0)  # claiming and parsing were a slice of their own
        try:
            names = [(e.source, e.sender.name) for e in events if e.sender and e.sender.name]
            history = inbox.sender_history(names)
            last_try = frozenset(r.event_id for r in batch if r.attempts + 1 >= self.max_attempts)
            outcomes = await self.decider.decide_each(
                events,
                self.clock(),
                history=history,
                held=await self._held(),
                decide_now=last_try,
            )
        except Exception as exc:  # the decider itself failed: every event is retried
            outcomes = [Undecided(e.event_id, exc) for e in batch]
            events = []
        by_id = {e.id: e for e in events}
        decided = {o.id: o for o in outcomes}
        slices = Slices()  # notifying is work on the loop: in slices
        done: list[tuple[EventRecord, Decision]] = []
        for record in batch:
            await slices.pause()
            outcome = decided.get(record.event_id) or Undecided(
                record.event_id, TicError("TIC gave no decision for it")
            )
            try:
                if isinstance(outcome, Undecided):
                    raise outcome.error
                event = by_id[outcome.id]
                if outcome.notify and outcome.summary:
                    draft = NotificationDraft.for_event(
                        event, outcome.summary, reason=outcome.reason, rule=outcome.rule
                    )
                    result.notified += await self.notify(draft) is not None
                done.append((record, outcome))
            except Exception as exc:
                self._failed(record, exc, result)
        self._mark_done(done, result)
        with database.atomic():
            inbox.finish_run(run, self.clock(), result.notified, error=_summary(result.errors))
        return result

    async def _held(self) -> frozenset[str]:
        """The rule lines held for the user's yes, measured on the latest messages (off the
        loop); measured again when the rules file or the confirmations change, else hourly."""
        try:
            text = self.decider.read_rules()
        except RulesFileError:
            return frozenset()
        confirmed_file = self.decider.workspace.root / CONFIRMED_FILE
        stamp = confirmed_file.stat().st_mtime_ns if confirmed_file.exists() else 0
        now = self.clock()
        key = (hash(text), stamp)
        cached = self._holds_cache
        if cached is not None and cached[0] == key and now - cached[1] < HOLDS_FRESH:
            return cached[2]
        sample = [(s.event, s.decided_at or now) for s in recent_events(SAMPLE)]
        holds = await asyncio.to_thread(self.decider.holds, sample, text)
        for hold in holds:
            log.warning("rules line %d is %s", hold.line_number, hold.sentence)
        held = frozenset(h.text for h in holds)
        self._holds_cache = (key, now, held)
        return held

    def _mark_done(self, done: list[tuple[EventRecord, Decision]], result: _BatchResult) -> None:
        """The decided events marked in one transaction, one statement per distinct decision
        (a statement per event was 40% of a big tick); should that fail, each on its own, so
        only an event at fault fails. An event notified but not yet marked when the process
        dies is decided again after the restart, and its notification is not sent twice."""
        now = self.clock()
        try:
            with database.atomic():
                inbox.mark_all_done([(r, d.notify, d.reason, d.rule) for r, d in done], now)
        except Exception:
            for record, d in done:
                try:
                    with database.atomic():
                        inbox.mark_done(record, now, d.notify, d.reason, d.rule)
                except Exception as exc:
                    self._failed(record, exc, result)

    def _failed(self, record: EventRecord, exc: BaseException, result: _BatchResult) -> None:
        """One event failed: it alone goes back to pending (or is given up once its
        attempts are spent), with its reason. A TicError (the model failed) is expected;
        anything else is a bug, logged with its traceback and counted."""
        message = report(
            exc,
            f"TIC could not handle event {record.event_id}",
            logger=log,
            bus=self.bus,
            expected_level=logging.ERROR,
        )
        with database.atomic():
            result.failed += inbox.release([record.id], message, self.max_attempts)
        result.errors.append(message)
        result.retry.append(record.id)

    def _set_aside_corrupt(self, batch: list[EventRecord]) -> tuple[list[EventRecord], list[Event]]:
        """The batch's records that parse, and their events (each parsed once). A stored
        event that no longer parses is marked failed with the reason (and logged), so it
        cannot hold up the rest of its batch."""
        good: list[EventRecord] = []
        events: list[Event] = []
        for record in batch:
            try:
                event = Event.model_validate_json(record.payload)
            except ValueError as exc:
                reason = f"corrupt event: {one_line(exc)}"
                log.error("event %s set aside: %s", record.event_id, reason)
                inbox.set_aside(record, reason)
                continue
            good.append(record)
            events.append(event)
        return good, events

    # schedule ---------------------------------------------------------------------------

    def start(self, interval_minutes: float) -> None:
        self._schedule.set_interval(interval_minutes * 60.0)
        self._schedule.start()
        self._wake.start()

    def set_interval(self, interval_minutes: float) -> None:
        self._schedule.set_interval(interval_minutes * 60.0)

    def check_now(self) -> None:
        self._schedule.wake()

    def wake_soon(self) -> None:
        """New events were stored: check within ``wake_settle`` seconds, whatever the
        schedule (which stays the floor for anything missed). Wake-ups in the settle make one
        check; one during a check makes one more right after it. Nothing happens before
        ``start`` (a one-off command checks by itself)."""
        if self._wake.running:
            self._wake.wake()

    async def stop(self) -> None:
        await self._wake.stop()
        await self._schedule.stop()

    async def _wake_schedule(self) -> None:
        self._schedule.wake()

    async def _scheduled_tick(self) -> None:
        await self.tick()
