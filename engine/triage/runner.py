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
from engine.store import inbox
from engine.store.db import database
from engine.store.models import EventRecord
from engine.tasks import Periodic, one_line, report
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
        self._schedule = Periodic(
            "tic-schedule", self._scheduled_tick, interval=15 * 60.0, logger=log, bus=bus
        )

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
                batch = inbox.claim(self.batch_size)
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

    async def _run_batch(self, batch: list[EventRecord]) -> TickResult:
        run = inbox.start_run("tic", len(batch), self.clock())
        notified = 0
        claimed = len(batch)
        batch = self._set_aside_corrupt(batch)
        corrupt = claimed - len(batch)
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
                    inbox.mark_done(
                        record, self.clock(), decision.notify, decision.reason, decision.rule
                    )
                inbox.finish_run(run, self.clock(), notified)
            return TickResult(claimed, notified, corrupt)
        except Exception as exc:
            # A TicError (the model failed) is expected; anything else is a bug, logged with
            # its traceback and counted. Either way the events are retried, boundedly.
            message = report(
                exc, "TIC run failed", logger=log, bus=self.bus, expected_level=logging.ERROR
            )
            with database.atomic():
                failed = inbox.release([r.id for r in batch], message, self.max_attempts)
                inbox.finish_run(run, self.clock(), notified, error=message)
            return TickResult(claimed, notified, failed + corrupt, error=message)

    def _set_aside_corrupt(self, batch: list[EventRecord]) -> list[EventRecord]:
        """A stored event that no longer parses is marked failed with the reason (and logged),
        so it cannot hold up the rest of its batch."""
        good = []
        for record in batch:
            try:
                Event.model_validate_json(record.payload)
            except ValueError as exc:
                reason = f"corrupt event: {one_line(exc)}"
                log.error("event %s set aside: %s", record.event_id, reason)
                inbox.set_aside(record, reason)
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
        self._schedule.set_interval(interval_minutes * 60.0)
        self._schedule.start()

    def set_interval(self, interval_minutes: float) -> None:
        self._schedule.set_interval(interval_minutes * 60.0)

    def check_now(self) -> None:
        self._schedule.wake()

    async def stop(self) -> None:
        await self._schedule.stop()

    async def _scheduled_tick(self) -> None:
        await self.tick()
