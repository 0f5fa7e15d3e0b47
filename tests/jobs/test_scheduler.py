"""Scheduled jobs: parsing the times people write (engine.clock), recurrence across DST
(engine.jobs), the scheduler with an injected clock, and the scheduling tools."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engine.agent.tools.base import ToolContext
from engine.agent.tools.jobs import CancelJobTool, ListJobsTool, ScheduleJobTool
from engine.clock import parse_when
from engine.errors import ToolError
from engine.jobs.scheduler import JobScheduler, next_occurrence
from engine.llm.scripted import ScriptedModel
from engine.store.models import Job, Notification
from engine.workspace import Workspace
from tests.factories import reply

MADRID_NAME = "Europe/Madrid"
MADRID = ZoneInfo(MADRID_NAME)
# Tuesday 10 November 2026, 11:30 in Madrid (UTC+1).
NOW = datetime(2026, 11, 10, 10, 30, tzinfo=UTC)


def madrid(*args: int) -> datetime:
    return datetime(*args, tzinfo=MADRID)


def elapsed(start: datetime, end: datetime) -> timedelta:
    """Real time between two instants (same-zone subtraction would ignore DST)."""
    return end.astimezone(UTC) - start.astimezone(UTC)


class FakeClock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Inbox:
    """A fake ``notify``: collects the payloads the scheduler hands over."""

    def __init__(self) -> None:
        self.payloads: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    async def __call__(self, payload: dict[str, Any]) -> object:
        self.payloads.append(payload)
        self.arrived.set()
        return object()


# parse_when ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("17:00", madrid(2026, 11, 10, 17, 0)),
        ("11:00", madrid(2026, 11, 11, 11, 0)),  # already past today: tomorrow
        ("5pm", madrid(2026, 11, 10, 17, 0)),
        ("5:15 PM", madrid(2026, 11, 10, 17, 15)),
        ("12pm", madrid(2026, 11, 10, 12, 0)),
        ("12am", madrid(2026, 11, 11, 0, 0)),
        ("tomorrow 9:00", madrid(2026, 11, 11, 9, 0)),
        ("Tomorrow at 9am", madrid(2026, 11, 11, 9, 0)),
        ("tomorrow", madrid(2026, 11, 11, 9, 0)),
        ("today 18:30", madrid(2026, 11, 10, 18, 30)),
        ("monday 09:00", madrid(2026, 11, 16, 9, 0)),
        ("fri 8am", madrid(2026, 11, 13, 8, 0)),
        ("tuesday 18:00", madrid(2026, 11, 10, 18, 0)),  # today, still ahead
        ("tuesday 09:00", madrid(2026, 11, 17, 9, 0)),  # today, already past: next week
        ("in 20 minutes", NOW + timedelta(minutes=20)),
        ("in 2 hours", NOW + timedelta(hours=2)),
        ("in 3 days", NOW + timedelta(days=3)),
        ("2026-12-01T17:00", madrid(2026, 12, 1, 17, 0)),
        ("2026-12-01T17:00+00:00", datetime(2026, 12, 1, 17, 0, tzinfo=UTC)),
        ("2026-12-01T17:00:00-05:00", datetime(2026, 12, 1, 22, 0, tzinfo=UTC)),
    ],
)
def test_parse_when(text: str, expected: datetime) -> None:
    parsed = parse_when(text, NOW, MADRID)

    assert parsed.tzinfo is not None
    assert parsed == expected
    if not text.startswith(("in ", "2026")):
        assert parsed.astimezone(MADRID).replace(tzinfo=None) == expected.replace(tzinfo=None)


def test_parse_when_keeps_wall_clock_time_across_a_dst_change() -> None:
    # Saturday 28 March 2026, 10:00 UTC: clocks in Madrid go forward that night.
    now = datetime(2026, 3, 28, 10, 0, tzinfo=UTC)

    parsed = parse_when("tomorrow 9:00", now, MADRID)

    assert parsed.astimezone(MADRID).hour == 9
    assert parsed == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    ["banana", "25:00", "17:75", "in a while", "in 20 fortnights", "next week", "", "   "],
)
def test_parse_when_refuses_garbage(text: str) -> None:
    with pytest.raises(ValueError, match=r"17:00"):
        parse_when(text, NOW, MADRID)


# next_occurrence ----------------------------------------------------------------------


def test_daily_keeps_wall_clock_time_when_clocks_go_forward() -> None:
    before = madrid(2026, 3, 28, 9, 0)  # 08:00 UTC (CET)

    after = next_occurrence(before, "daily", MADRID_NAME, before)

    assert after.astimezone(MADRID).replace(tzinfo=None) == datetime(2026, 3, 29, 9, 0)
    assert after == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)  # CEST
    assert elapsed(before, after) == timedelta(hours=23)


def test_daily_keeps_wall_clock_time_when_clocks_go_back() -> None:
    before = madrid(2026, 10, 24, 9, 0).astimezone(UTC)  # stored as UTC, like the store does

    after = next_occurrence(before, "daily", MADRID_NAME, before)

    assert after.astimezone(MADRID).replace(tzinfo=None) == datetime(2026, 10, 25, 9, 0)
    assert after == datetime(2026, 10, 25, 8, 0, tzinfo=UTC)


def test_daily_skips_to_the_first_occurrence_after_the_given_moment() -> None:
    first = madrid(2026, 11, 1, 9, 0)

    after = next_occurrence(first, "daily", MADRID_NAME, madrid(2026, 11, 5, 12, 0))

    assert after == madrid(2026, 11, 6, 9, 0)


@pytest.mark.parametrize(
    ("previous", "expected"),
    [
        (madrid(2026, 11, 10, 8, 0), madrid(2026, 11, 11, 8, 0)),  # Tuesday → Wednesday
        (madrid(2026, 11, 13, 8, 0), madrid(2026, 11, 16, 8, 0)),  # Friday → Monday
        (madrid(2026, 11, 14, 8, 0), madrid(2026, 11, 16, 8, 0)),  # Saturday → Monday
        (madrid(2026, 10, 24, 8, 0), madrid(2026, 10, 26, 8, 0)),  # Saturday, over DST change
    ],
)
def test_weekdays_skip_the_weekend(previous: datetime, expected: datetime) -> None:
    assert next_occurrence(previous, "weekdays", MADRID_NAME, previous) == expected


def test_weekly_keeps_the_weekday_and_wall_clock_time_across_dst() -> None:
    before = madrid(2026, 10, 20, 9, 0)

    after = next_occurrence(before, "weekly", MADRID_NAME, before)

    assert after == madrid(2026, 10, 27, 9, 0)
    assert after.utcoffset() == timedelta(hours=1)
    assert elapsed(before, after) == timedelta(days=7, hours=1)


@pytest.mark.parametrize(
    ("previous", "expected"),
    [
        (madrid(2026, 1, 15, 9, 0), madrid(2026, 2, 15, 9, 0)),
        (madrid(2026, 12, 15, 9, 0), madrid(2027, 1, 15, 9, 0)),
        (madrid(2026, 3, 15, 9, 0), madrid(2026, 4, 15, 9, 0)),  # across spring-forward
    ],
)
def test_monthly_keeps_the_day_and_time(previous: datetime, expected: datetime) -> None:
    after = next_occurrence(previous, "monthly", MADRID_NAME, previous)

    assert after == expected
    assert after.astimezone(MADRID).hour == 9


def test_monthly_never_produces_an_impossible_date() -> None:
    end_of_january = madrid(2026, 1, 31, 9, 0)

    after = next_occurrence(end_of_january, "monthly", MADRID_NAME, end_of_january)

    assert (after.month, after.hour) == (2, 9)
    assert after.day <= 28


def test_hourly_steps_one_real_hour_even_when_clocks_go_back() -> None:
    # 25 October 2026: in Madrid 03:00 CEST becomes 02:00 CET, so 02:xx happens twice.
    occurrence = madrid(2026, 10, 25, 0, 0).astimezone(UTC)
    seen = []
    for _ in range(4):
        occurrence = next_occurrence(occurrence, "hourly", MADRID_NAME, occurrence)
        seen.append(occurrence.astimezone(UTC).hour)

    assert seen == [23, 0, 1, 2]  # 01:00 CEST, 02:00 CEST, 02:00 CET, 03:00 CET


def test_unknown_recurrence_is_an_error() -> None:
    with pytest.raises(ValueError, match="fortnightly"):
        next_occurrence(NOW, "fortnightly", MADRID_NAME, NOW)


# JobScheduler -------------------------------------------------------------------------


async def test_a_one_off_job_fires_once_and_is_done(db: object) -> None:
    clock, inbox = FakeClock(NOW), Inbox()
    scheduler = JobScheduler(inbox, clock=clock)
    job = scheduler.create("call Anna", NOW + timedelta(minutes=10), "none", "reminder", "UTC")

    assert await scheduler.run_due() == 0
    clock.advance(minutes=10)
    assert await scheduler.run_due() == 1
    clock.advance(days=1)
    assert await scheduler.run_due() == 0

    assert inbox.payloads == [
        {
            "source": "cron",
            "event_type": "cron.reminder",
            "summary": "Reminder: call Anna",
            "event_time": "2026-11-10T10:40:00+00:00",
            "refs": {"job_id": job.id, "event_id": f"cron:{job.id}:2026-11-10T10:40:00+00:00"},
        }
    ]
    stored = Job.get_by_id(job.id)
    assert stored.status == "done"
    assert stored.last_run_at == NOW + timedelta(minutes=10)
    assert scheduler.active() == []


async def test_a_recurring_job_missed_while_closed_runs_once_on_start(db: object) -> None:
    clock, inbox = FakeClock(madrid(2026, 11, 5, 12, 0)), Inbox()
    scheduler = JobScheduler(inbox, clock=clock, poll_seconds=60)
    job = scheduler.create(
        "water the plants", madrid(2026, 11, 1, 9, 0), "daily", "reminder", MADRID_NAME
    )

    scheduler.start()
    try:
        await asyncio.wait_for(inbox.arrived.wait(), timeout=2)
    finally:
        await scheduler.stop()

    assert len(inbox.payloads) == 1
    assert inbox.payloads[0]["event_time"] == "2026-11-01T08:00:00+00:00"
    stored = Job.get_by_id(job.id)
    assert stored.status == "active"
    assert stored.next_run_at == madrid(2026, 11, 6, 9, 0)
    assert await scheduler.run_due() == 0

    clock.now = madrid(2026, 11, 6, 9, 0)
    assert await scheduler.run_due() == 1
    assert Job.get_by_id(job.id).next_run_at == madrid(2026, 11, 7, 9, 0)


async def test_a_cancelled_job_never_fires(db: object) -> None:
    clock, inbox = FakeClock(NOW), Inbox()
    scheduler = JobScheduler(inbox, clock=clock)
    keep = scheduler.create("stand up", NOW + timedelta(hours=1), "daily", "reminder", "UTC")
    drop = scheduler.create("call Anna", NOW + timedelta(hours=1), "none", "reminder", "UTC")

    assert scheduler.cancel(drop.id) is True
    assert scheduler.cancel(drop.id) is False
    assert scheduler.cancel(9999) is False
    assert [j.id for j in scheduler.active()] == [keep.id]

    clock.advance(hours=2)
    assert await scheduler.run_due() == 1
    assert [p["summary"] for p in inbox.payloads] == ["Reminder: stand up"]
    assert Job.get_by_id(drop.id).status == "cancelled"


async def test_a_failing_notify_leaves_the_job_due(db: object) -> None:
    async def broken(payload: dict[str, Any]) -> object:
        raise RuntimeError("hub is down")

    scheduler = JobScheduler(broken, clock=FakeClock(NOW))
    job = scheduler.create("call Anna", NOW - timedelta(minutes=1), "none", "reminder", "UTC")

    with pytest.raises(RuntimeError):
        await scheduler.run_due()

    stored = Job.get_by_id(job.id)
    assert (stored.status, stored.next_run_at) == ("active", NOW - timedelta(minutes=1))


async def test_a_task_job_reports_its_result(db: object) -> None:
    inbox = Inbox()

    async def run_task(text: str) -> str:
        return f"did {text!r}"

    scheduler = JobScheduler(inbox, run_task, clock=FakeClock(NOW))
    scheduler.create("sum up my week", NOW, "none", "task", "UTC")

    assert await scheduler.run_due() == 1

    [payload] = inbox.payloads
    assert payload["event_type"] == "cron.task"
    assert payload["summary"] == "Scheduled task “sum up my week”: did 'sum up my week'"


def test_create_refuses_an_unknown_recurrence(db: object) -> None:
    scheduler = JobScheduler(Inbox())

    with pytest.raises(ValueError, match="repeat must be one of"):
        scheduler.create("x", NOW, "yearly", "reminder", "UTC")
    assert Job.select().count() == 0


async def test_a_job_notified_before_a_crash_is_not_notified_twice(
    engine: Any, model: ScriptedModel
) -> None:
    model.default = reply("Reminder: call Anna.")
    due = datetime.now(UTC) - timedelta(minutes=1)
    job = engine.jobs.create("call Anna", due, "none", "reminder", "UTC")

    assert await engine.jobs.run_due() == 1
    assert Notification.select().count() == 1

    # A crash after notify but before the job was saved: on restart it is due again.
    Job.update(status="active", last_run_at=None).where(Job.id == job.id).execute()
    assert await engine.jobs.run_due() == 1

    [notification] = Notification.select()
    assert notification.source == "cron"
    assert notification.summary == "Reminder: call Anna"
    assert notification.dedup_key == f"cron:{job.id}:{due.isoformat()}"
    assert Job.get_by_id(job.id).status == "done"


# tools ---------------------------------------------------------------------------------


@pytest.fixture
def scheduler(db: object, monkeypatch: pytest.MonkeyPatch) -> JobScheduler:
    monkeypatch.setenv("TZ", MADRID_NAME)
    return JobScheduler(Inbox(), clock=FakeClock(NOW))


@pytest.fixture
def ctx(workspace: Workspace) -> ToolContext:
    return ToolContext(workspace=workspace, now=NOW)


async def test_schedule_list_and_cancel_tools(scheduler: JobScheduler, ctx: ToolContext) -> None:
    created = await ScheduleJobTool(scheduler).call({"text": "call Anna", "at": "17:00"}, ctx)

    assert created == {
        "job_id": created["job_id"],
        "kind": "reminder",
        "text": "call Anna",
        "next_run": "2026-11-10T17:00+01:00",
        "repeat": "none",
        "status": "active",
    }
    weekly = await ScheduleJobTool(scheduler).call(
        {"text": "weekly summary", "at": "monday 09:00", "repeat": "weekly", "kind": "task"}, ctx
    )
    assert weekly["next_run"] == "2026-11-16T09:00+01:00"

    listed = await ListJobsTool(scheduler).call({}, ctx)
    assert [j["text"] for j in listed] == ["call Anna", "weekly summary"]

    result = await CancelJobTool(scheduler).call({"job_id": created["job_id"]}, ctx)
    assert result == f"cancelled job {created['job_id']}"
    assert [j["text"] for j in await ListJobsTool(scheduler).call({}, ctx)] == ["weekly summary"]

    with pytest.raises(ToolError, match=f"^no active job {created['job_id']}$"):
        await CancelJobTool(scheduler).call({"job_id": created["job_id"]}, ctx)


@pytest.mark.parametrize("at", ["2026-11-10T09:00", "2020-01-01T10:00+00:00", "today 8:00"])
async def test_a_one_off_job_in_the_past_is_refused(
    scheduler: JobScheduler, ctx: ToolContext, at: str
) -> None:
    with pytest.raises(ToolError, match="is in the past"):
        await ScheduleJobTool(scheduler).call({"text": "too late", "at": at}, ctx)
    assert Job.select().count() == 0


async def test_an_unreadable_time_is_refused(scheduler: JobScheduler, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="cannot understand the time 'teatime'"):
        await ScheduleJobTool(scheduler).call({"text": "tea", "at": "teatime"}, ctx)
    assert Job.select().count() == 0


@pytest.mark.parametrize(
    "arguments",
    [
        {"text": "x", "at": "17:00", "repeat": "yearly"},
        {"text": "x", "at": "17:00", "when": "now"},
        {"text": "x"},
    ],
)
async def test_schedule_job_validates_its_arguments(
    scheduler: JobScheduler, ctx: ToolContext, arguments: dict[str, Any]
) -> None:
    with pytest.raises(ToolError, match=r"^schedule_job: invalid arguments"):
        await ScheduleJobTool(scheduler).call(arguments, ctx)
    assert Job.select().count() == 0
