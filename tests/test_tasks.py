"""Background work: Periodic loops, TaskSet, one_line, and the error policy (a TicError is one
line in the log; anything else is logged with its traceback and published as UnexpectedError)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import pytest

from engine.bus import EventBus, UnexpectedError
from engine.errors import ModelError
from engine.tasks import Periodic, TaskSet, first_line, one_line, report
from tests.timers import ManualTimer


class Calls:
    """A step that records when it ran and returns what it is told to."""

    def __init__(self, *results: float | BaseException | None):
        self.results = list(results)
        self.count = 0
        self.ran = asyncio.Event()

    async def __call__(self) -> float | None:
        self.count += 1
        self.ran.set()
        result = self.results.pop(0) if self.results else None
        if isinstance(result, BaseException):
            raise result
        return result

    async def wait(self, count: int, timeout: float = 2.0) -> None:
        async with asyncio.timeout(timeout):
            while self.count < count:
                self.ran.clear()
                await self.ran.wait()


@contextlib.asynccontextmanager
async def running(loop: Periodic) -> AsyncIterator[Periodic]:
    loop.start()
    try:
        yield loop
    finally:
        await loop.stop()


# one_line -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (ValueError("bad value\nmore detail"), "bad value"),
        (ValueError("\n  indented first\nsecond"), "indented first"),
        (ValueError(""), "ValueError"),
        (KeyError(), "KeyError"),
    ],
)
def test_one_line(exc: BaseException, line: str) -> None:
    assert one_line(exc) == line


def test_first_line_of_blank_text_is_empty() -> None:
    assert first_line(" \n ") == ""


# the error policy ---------------------------------------------------------------------------


@pytest.mark.allow_log_warnings
def test_an_expected_error_is_one_line_and_not_counted(caplog: pytest.LogCaptureFixture) -> None:
    bus, seen = EventBus(), []
    bus.subscribe(seen.append)
    line = report(ModelError("model file is gone\nsee the log"), "tick failed", bus=bus)
    assert line == "model file is gone"
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage() == "tick failed: model file is gone"
    assert record.exc_info is None
    assert seen == []


@pytest.mark.allow_log_warnings
def test_a_bug_is_logged_with_its_traceback_and_published(caplog: pytest.LogCaptureFixture) -> None:
    bus, seen = EventBus(), []
    bus.subscribe(seen.append)
    try:
        {}["missing"]
    except KeyError as exc:
        line = report(exc, "tick failed", bus=bus)
    assert line == "'missing'"
    (record,) = caplog.records
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None and record.exc_info[0] is KeyError
    assert seen == [UnexpectedError("tick failed", "KeyError: 'missing'")]


# Periodic -----------------------------------------------------------------------------------


async def test_runs_at_start_then_every_interval() -> None:
    step, timer = Calls(), ManualTimer()
    async with running(Periodic("test", step, interval=5, timer=timer)) as loop:
        await step.wait(1)
        await timer.advance(4)
        assert step.count == 1
        await timer.advance(1)
        assert step.count == 2
        await timer.advance(10)
        assert step.count == 4
    assert not loop.running


async def test_wake_runs_the_step_now() -> None:
    step, timer = Calls(), ManualTimer()
    async with running(Periodic("test", step, interval=60, timer=timer)) as loop:
        await step.wait(1)
        await timer.idle()
        loop.wake()
        await timer.idle()
        assert (step.count, timer.now) == (2, 0)


async def test_wait_first_runs_only_when_woken() -> None:
    step, timer = Calls(), ManualTimer()
    async with running(Periodic("test", step, interval=None, wait_first=True, timer=timer)) as loop:
        await timer.advance(3600)
        assert step.count == 0
        loop.wake()
        await timer.idle()
        assert step.count == 1


async def test_wake_ups_within_the_settle_time_make_one_run() -> None:
    step, timer = Calls(), ManualTimer()
    loop = Periodic("test", step, interval=None, wait_first=True, settle=10, timer=timer)
    async with running(loop):
        for _ in range(3):
            loop.wake()
            await timer.advance(1)
        assert step.count == 0  # still settling
        await timer.advance(7)
        assert step.count == 1  # the settle ended at 10 s: one run for the three
        await timer.advance(3600)
        assert step.count == 1


async def test_a_step_can_ask_for_another_delay() -> None:
    step, timer = Calls(1, 1, None), ManualTimer()  # two quick retries, then the interval
    async with running(Periodic("test", step, interval=60, timer=timer)):
        await step.wait(1)
        await timer.advance(2)
        assert step.count == 3
        await timer.advance(59)
        assert step.count == 3
        await timer.advance(1)
        assert step.count == 4  # 60 s after the last retry


async def test_set_interval_applies_at_once() -> None:
    step, timer = Calls(), ManualTimer()
    async with running(Periodic("test", step, interval=60, timer=timer)) as loop:
        await step.wait(1)
        await timer.idle()
        loop.set_interval(2)
        await timer.idle()
        assert (step.count, loop.interval) == (2, 2)  # woken to apply it
        await timer.advance(6)
        assert step.count == 5


async def test_set_interval_before_start_does_not_run_twice() -> None:
    step, timer = Calls(), ManualTimer()
    loop = Periodic("test", step, interval=60, timer=timer)
    loop.set_interval(30)
    async with running(loop):
        await step.wait(1)
        await timer.idle()
        assert step.count == 1
        await timer.advance(30)
        assert step.count == 2


@pytest.mark.allow_log_warnings
async def test_a_failing_step_is_reported_and_the_loop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus, seen, timer = EventBus(), [], ManualTimer()
    bus.subscribe(seen.append)
    step = Calls(RuntimeError("bug"), ModelError("model failed"), None)
    loop = Periodic("test-loop", step, interval=60, retry_after=5, bus=bus, timer=timer)
    async with running(loop):
        await step.wait(1)
        await timer.advance(10)
        assert step.count == 3  # each failure retried 5 s later
    assert seen == [UnexpectedError("test-loop failed", "RuntimeError: bug")]
    bug, expected = [r for r in caplog.records if r.name == "engine.tasks"]
    assert bug.exc_info is not None and expected.exc_info is None
    assert expected.getMessage() == "test-loop failed: model failed"


async def test_stop_is_clean_and_restartable() -> None:
    step = Calls()
    loop = Periodic("test", step, interval=60)
    await loop.stop()  # never started: nothing to do
    loop.start()
    await step.wait(1)
    await loop.stop()
    assert not loop.running
    loop.start()
    await step.wait(2)
    await loop.stop()


# TaskSet ------------------------------------------------------------------------------------


async def test_tasks_are_held_until_they_end() -> None:
    tasks = TaskSet()
    gate = asyncio.Event()
    task = tasks.spawn(gate.wait(), "waiting")
    assert task.get_name() == "waiting" and len(tasks) == 1
    gate.set()
    await task
    await asyncio.sleep(0)
    assert len(tasks) == 0


@pytest.mark.allow_log_warnings
async def test_a_failed_task_is_reported_by_the_policy(caplog: pytest.LogCaptureFixture) -> None:
    bus, seen, shown = EventBus(), [], []
    bus.subscribe(seen.append)
    tasks = TaskSet(bus=bus, on_unexpected=shown.append)

    async def fail(exc: BaseException) -> None:
        raise exc

    expected = tasks.spawn(fail(ModelError("no model")), "expected")
    bug = tasks.spawn(fail(ZeroDivisionError("division by zero")), "bug")
    await asyncio.gather(expected, bug, return_exceptions=True)
    await asyncio.sleep(0)
    assert [type(e) for e in shown] == [ZeroDivisionError]
    assert seen == [UnexpectedError("task bug failed", "ZeroDivisionError: division by zero")]
    lines = {r.getMessage(): r.exc_info is not None for r in caplog.records}
    assert lines == {
        "task expected failed: no model": False,
        "task bug failed: division by zero": True,
    }


async def test_stop_cancels_and_waits() -> None:
    tasks = TaskSet()
    task = tasks.spawn(asyncio.sleep(60), "sleeper")
    await tasks.stop()
    assert task.cancelled() and len(tasks) == 0
