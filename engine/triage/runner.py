"""The TIC runner: claims pending events oldest first, lets TIC decide, hands what is worth it
to ``notify``, and only then marks the events done. A crash or model error leaves the events
to be retried (bounded attempts); a retried event is never notified twice."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from engine.agent.tools.base import ToolContext, ToolRegistry
from engine.bus import EventBus, TickFinished, TickStarted
from engine.clock import utcnow
from engine.events import Event
from engine.store.db import database
from engine.store.models import AgentRun, EventRecord
from engine.triage.decider import RulesFileError, TriageDecider

log = logging.getLogger(__name__)


class Notify(Protocol):
    """Where the runner hands each notification (``ChatHub.notify``), with why TIC chose it."""

    def __call__(
        self, payload: dict[str, Any], *, reason: str | None = ..., rule: str | None = ...
    ) -> Awaitable[object]: ...


@dataclass(frozen=True)
class TickResult:
    events: int = 0
    notified: int = 0
    failed: int = 0
    skipped: bool = False
    error: str | None = None


def ingest(events: list[Event]) -> int:
    """Add events to the store in one transaction; ids already there are ignored.
    Returns how many were new."""
    added = 0
    with database.atomic():
        for event in events:
            cal = event.calendar
            rows = (
                EventRecord.insert(
                    event_id=event.id,
                    source=event.source,
                    event_type=event.event_type,
                    time=event.time,
                    sender_name=event.sender.name if event.sender else None,
                    sender_address=event.sender.address if event.sender else None,
                    subject=event.subject,
                    text=event.text,
                    chat_name=event.chat.name if event.chat else None,
                    calendar_start=cal.start if cal and cal.start and cal.start.tzinfo else None,
                    payload=event.to_json(),
                    ingested_at=utcnow(),
                )
                .on_conflict_ignore()
                .as_rowcount()
                .execute()
            )
            added += rows
    return added


def recover_events() -> int:
    """Events left 'processing' by a crash go back to pending (their attempt counted)."""
    query = EventRecord.update(status="pending").where(EventRecord.status == "processing")
    recovered: int = query.execute()
    return recovered


class TicRunner:
    def __init__(
        self,
        decider: TriageDecider,
        registry: ToolRegistry,
        notify: Notify,
        bus: EventBus,
        *,
        batch_size: int = 50,
        max_attempts: int = 3,
        clock: Callable[[], datetime] = utcnow,
    ):
        self.decider = decider
        self.registry = registry
        self.notify = notify
        self.bus = bus
        self.batch_size = batch_size
        self.max_attempts = max_attempts
        self.clock = clock
        self._lock = asyncio.Lock()
        self._periodic: asyncio.Task[None] | None = None
        self._interval = 15 * 60.0
        self._kick = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._lock.locked()

    async def tick(self) -> TickResult:
        """Run TIC over every pending event now. A tick while one runs is skipped."""
        if self._lock.locked():
            return TickResult(skipped=True)
        async with self._lock:
            try:  # a broken rules file stops the tick before any event is claimed
                self.decider.read_rules()
            except RulesFileError as exc:
                log.error("TIC cannot run: %s", exc)
                self.bus.publish(TickFinished(0, 0, str(exc)))
                return TickResult(error=str(exc))
            total = notified = failed = 0
            while True:
                batch = self._claim()
                if not batch:
                    break
                self.bus.publish(TickStarted(len(batch)))
                result = await self._run_batch(batch)
                total += result.events
                notified += result.notified
                failed += result.failed
                self.bus.publish(
                    TickFinished(result.events, result.notified, result.error, result.failed)
                )
                if result.error:
                    return TickResult(total, notified, failed, error=result.error)
            return TickResult(total, notified, failed)

    def _claim(self) -> list[EventRecord]:
        with database.atomic():
            batch = list(
                EventRecord.select()
                .where(EventRecord.status == "pending")
                .order_by(EventRecord.time, EventRecord.id)
                .limit(self.batch_size)
            )
            if batch:
                EventRecord.update(status="processing", attempts=EventRecord.attempts + 1).where(
                    EventRecord.id.in_([r.id for r in batch])
                ).execute()
        return batch

    async def _run_batch(self, batch: list[EventRecord]) -> TickResult:
        run = AgentRun.create(agent="tic", events_in=len(batch), started_at=self.clock())
        notified = 0
        claimed = len(batch)
        batch = self._set_aside_corrupt(batch)
        corrupt = claimed - len(batch)
        ids = [r.id for r in batch]
        try:
            events = [Event.model_validate_json(r.payload) for r in batch]
            decisions = await self.decider.decide(events, self.clock())
            notify_tool = self.registry.get("notify")
            ctx = ToolContext(
                workspace=self.decider.workspace, now=self.clock(), depth=0, agent="tic"
            )
            for event, decision in zip(events, decisions, strict=True):
                if not decision.notify or not decision.summary:
                    continue
                ctx.notify = self._notifier(decision.reason, decision.rule)
                outcome = await notify_tool.call(
                    {
                        "source": event.source,
                        "event_type": event.event_type,
                        "summary": decision.summary,
                        "event_time": event.time.isoformat(),
                        "refs": {**event.refs, "event_id": event.id},
                    },
                    ctx,
                )
                notified += outcome == "queued"
            with database.atomic():
                for record, decision in zip(batch, decisions, strict=True):
                    EventRecord.update(
                        status="done",
                        processed_at=self.clock(),
                        last_error=None,
                        decision_notify=decision.notify,
                        decision_reason=decision.reason,
                        decision_rule=decision.rule,
                    ).where(EventRecord.id == record.id).execute()
                run.status, run.ended_at, run.notifications_out = "ok", self.clock(), notified
                run.save()
            return TickResult(claimed, notified, corrupt)
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.error("TIC run failed: %s", message)
            with database.atomic():
                EventRecord.update(status="pending", last_error=message).where(
                    EventRecord.id.in_(ids) & (EventRecord.attempts < self.max_attempts)
                ).execute()
                failed = (
                    EventRecord.update(status="failed", last_error=message)
                    .where(EventRecord.id.in_(ids) & (EventRecord.attempts >= self.max_attempts))
                    .execute()
                )
                run.status, run.ended_at, run.error = "error", self.clock(), message
                run.notifications_out = notified
                run.save()
            return TickResult(claimed, notified, failed + corrupt, error=message)

    def _set_aside_corrupt(self, batch: list[EventRecord]) -> list[EventRecord]:
        """A stored event that no longer parses is marked failed with the reason (and logged),
        so it cannot hold up the rest of its batch."""
        good = []
        for record in batch:
            try:
                Event.model_validate_json(record.payload)
            except ValueError as exc:
                reason = f"corrupt event: {str(exc).splitlines()[0]}"
                log.error("event %s set aside: %s", record.event_id, reason)
                EventRecord.update(status="failed", last_error=reason).where(
                    EventRecord.id == record.id
                ).execute()
                continue
            good.append(record)
        return good

    def _notifier(
        self, reason: str, rule: str | None
    ) -> Callable[[dict[str, Any]], Awaitable[object]]:
        async def send(payload: dict[str, Any]) -> object:
            return await self.notify(payload, reason=reason, rule=rule)

        return send

    # schedule ---------------------------------------------------------------------------

    def start(self, interval_minutes: float) -> None:
        self._interval = interval_minutes * 60.0
        if self._periodic is None:
            self._periodic = asyncio.create_task(self._every(), name="tic-schedule")

    def set_interval(self, interval_minutes: float) -> None:
        self._interval = interval_minutes * 60.0
        self._kick.set()

    def check_now(self) -> None:
        self._kick.set()

    async def stop(self) -> None:
        if self._periodic is not None:
            self._periodic.cancel()
            try:
                await self._periodic
            except asyncio.CancelledError:
                pass
            self._periodic = None

    async def _every(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("TIC tick failed")
            self._kick.clear()
            try:
                await asyncio.wait_for(self._kick.wait(), timeout=self._interval)
            except TimeoutError:
                pass
