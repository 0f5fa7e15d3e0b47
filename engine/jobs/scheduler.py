"""Scheduled jobs: one-off and recurring reminders or agent tasks, stored in the store and
delivered through ``notify`` (source ``cron``). A job missed while the app was closed runs
once on start, then moves to its next occurrence.

A ``later`` job is "Remind me in 1 hour" on a notification: it holds the notifications as
``notify`` took them, and delivers each again when due, as itself (its source, refs and
event, so "Open" still leads to the message) with ``refs.again`` naming the job's run (a
notification is delivered once per key: this one is new)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.bus import EventBus
from engine.clock import utcnow, zone
from engine.store.models import Job
from engine.store.values import JobKind
from engine.tasks import Periodic, report

log = logging.getLogger(__name__)

RECURRENCES = ["none", "hourly", "daily", "weekdays", "weekly", "monthly"]

NotifyFn = Callable[[dict[str, Any]], Awaitable[Any]]
TaskFn = Callable[[str], Awaitable[str]]


def next_occurrence(previous: datetime, recurrence: str, tz_name: str, after: datetime) -> datetime:
    """The first occurrence of the series through ``previous`` that is later than ``after``
    (wall-clock times kept in the job's zone across DST changes)."""
    tz = zone(tz_name)
    local = previous.astimezone(tz)
    for _ in range(100_000):
        if recurrence == "hourly":
            # Elapsed time, not wall-clock: a DST fall-back hour must not be skipped.
            local = (local.astimezone(UTC) + timedelta(hours=1)).astimezone(tz)
        elif recurrence == "daily":
            local = local + timedelta(days=1)
        elif recurrence == "weekdays":
            local = local + timedelta(days=1)
            while local.weekday() >= 5:
                local = local + timedelta(days=1)
        elif recurrence == "weekly":
            local = local + timedelta(days=7)
        elif recurrence == "monthly":
            month = local.month % 12 + 1
            year = local.year + (1 if month == 1 else 0)
            day = min(local.day, 28)
            local = local.replace(year=year, month=month, day=day)
        else:
            raise ValueError(f"unknown recurrence {recurrence!r}")
        local = local.replace(tzinfo=tz)
        # Compare instants: same-zone comparison ignores fold (the repeated DST hour).
        if local.astimezone(UTC) > after.astimezone(UTC):
            return local
    raise ValueError("recurrence does not advance")


AGAIN = "again"
"""The ref a notification delivered again by a ``later`` job carries: the job's run."""


def later_payloads(job: Job) -> list[dict[str, Any]]:
    """The notifications a ``later`` job delivers again (none when its text is unreadable)."""
    try:
        notes = json.loads(job.text).get("notifications", [])
    except (ValueError, AttributeError):
        log.error("job %s: unreadable notifications, nothing to deliver again", job.id)
        return []
    return [n for n in notes if isinstance(n, dict)]


def _job_text(job: Job) -> str:
    """What a job is, as the user reads it (a ``later`` job: the notifications' titles)."""
    if job.kind != JobKind.LATER:
        return job.text
    try:
        return str(json.loads(job.text).get("title", ""))
    except (ValueError, AttributeError):
        return ""


def describe(job: Job) -> dict[str, Any]:
    return {
        "job_id": job.id,
        "kind": job.kind,
        "text": _job_text(job),
        "next_run": job.next_run_at.astimezone(zone(job.timezone)).isoformat(timespec="minutes")
        if job.next_run_at
        else None,
        "repeat": job.recurrence,
        "status": job.status,
    }


class JobScheduler:
    """Runs due jobs as background workers. ``poll_seconds`` bounds how late a job can be."""

    def __init__(
        self,
        notify: NotifyFn,
        run_task: TaskFn | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        poll_seconds: float = 20.0,
        bus: EventBus | None = None,
    ):
        self._notify = notify
        self._run_task = run_task
        self._clock = clock
        self._bus = bus
        self._loop = Periodic("tic-jobs", self._run_due, interval=poll_seconds, logger=log, bus=bus)

    def create(self, text: str, at: datetime, recurrence: str, kind: str, tz_name: str) -> Job:
        if recurrence not in RECURRENCES:
            raise ValueError(f"repeat must be one of {', '.join(RECURRENCES)}")
        job = Job.create(
            kind=kind, text=text, next_run_at=at, recurrence=recurrence, timezone=tz_name
        )
        self._loop.wake()
        return job

    def later(self, payloads: list[dict[str, Any]], at: datetime, title: str) -> Job:
        """Deliver these notifications (``notify``'s structure) again at ``at``; ``title``
        says what they are where jobs are listed."""
        text = json.dumps({"title": title, "notifications": payloads}, ensure_ascii=False)
        return self.create(text, at, "none", JobKind.LATER, "UTC")

    @staticmethod
    def active() -> list[Job]:
        return list(Job.select().where(Job.status == "active").order_by(Job.next_run_at))

    @staticmethod
    def cancel(job_id: int) -> bool:
        return bool(
            Job.update(status="cancelled")
            .where((Job.id == job_id) & (Job.status == "active"))
            .execute()
        )

    async def run_due(self) -> int:
        """Deliver every due job once; returns how many ran."""
        now = self._clock()
        due = list(
            Job.select()
            .where((Job.status == "active") & (Job.next_run_at <= now))
            .order_by(Job.next_run_at)
        )
        for job in due:
            await self._fire(job, now)
        return len(due)

    async def _fire(self, job: Job, now: datetime) -> None:
        scheduled = job.next_run_at
        assert scheduled is not None  # due jobs were selected by their time
        if job.kind == JobKind.LATER:
            await self._deliver_again(job, scheduled, now)
            return
        summary = f"Reminder: {job.text}"
        if job.kind == JobKind.TASK and self._run_task is not None:
            try:
                result = await self._run_task(job.text)
                summary = f"Scheduled task \u201c{job.text}\u201d: {result}"[:400]
            except Exception as exc:
                error = report(exc, f"scheduled task {job.id} failed", logger=log, bus=self._bus)
                summary = f"Scheduled task \u201c{job.text}\u201d could not run: {error}"[:400]
        await self._notify(
            {
                "source": "cron",
                "event_type": f"cron.{job.kind}",
                "summary": summary,
                "event_time": scheduled.isoformat(),
                "refs": {"job_id": job.id, "event_id": f"cron:{job.id}:{scheduled.isoformat()}"},
            }
        )
        if job.recurrence == "none":
            job.status = "done"
        else:
            job.next_run_at = next_occurrence(scheduled, job.recurrence, job.timezone, now)
        job.last_run_at = now
        job.save()

    async def _deliver_again(self, job: Job, scheduled: datetime, now: datetime) -> None:
        run = f"later:{job.id}:{scheduled.isoformat()}"
        for index, payload in enumerate(later_payloads(job)):
            refs = {**(payload.get("refs") or {}), AGAIN: f"{run}:{index}"}
            await self._notify({**payload, "refs": refs})
        job.status = "done"
        job.last_run_at = now
        job.save()

    def wake(self) -> None:
        """Look for due jobs now (the clock moved, e.g. a test's)."""
        self._loop.wake()

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def _run_due(self) -> None:
        await self.run_due()
