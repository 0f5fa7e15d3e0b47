"""Background work on the event loop, and the one error policy for it.

- :class:`Periodic`: a named loop that runs a step now and then every N seconds, sooner when
  woken; a step may ask for another delay (a backoff), the interval may change, and ``stop``
  ends it cleanly. It waits through a :class:`Timer`, so a test can move its time by hand.
- :class:`TaskSet`: named one-off tasks held by strong references until they end.
- :class:`Slices`: CPU work on the loop in short slices, so the loop (the GUI's, in the
  tray app) keeps answering while a big tick runs.
- :func:`report`: a :class:`~engine.errors.TicError` is expected and logged in one line;
  anything else is a bug, logged with its traceback and published as
  :class:`~engine.bus.UnexpectedError` (the engine counts those), so a programming error can
  never pass for "the model failed".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.errors import TicError

if TYPE_CHECKING:  # a bus is given only where engine.bus is loaded: tic triage loads neither
    from engine.bus import EventBus

log = logging.getLogger(__name__)

Step = Callable[[], Awaitable[float | None]]


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` ("" when there is none)."""
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else ""


def one_line(exc: BaseException) -> str:
    """An exception in one line: the first line of its message, else its type's name."""
    return first_line(str(exc)) or type(exc).__name__


def report(
    exc: BaseException,
    what: str,
    *,
    logger: logging.Logger = log,
    bus: EventBus | None = None,
    expected_level: int = logging.WARNING,
) -> str:
    """Log ``exc`` by the error policy (``what`` says what failed); returns its one line."""
    line = one_line(exc)
    if isinstance(exc, TicError):
        logger.log(expected_level, "%s: %s", what, line)
        return line
    logger.error("%s: %s", what, line, exc_info=exc)
    if bus is not None:
        from engine.bus import UnexpectedError

        bus.publish(UnexpectedError(what, f"{type(exc).__name__}: {line}"))
    return line


class Timer:
    """How a :class:`Periodic` waits: on the event loop's clock. A test hands in one whose
    time moves only when the test says (``tests/timers.py``)."""

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait(self, event: asyncio.Event, seconds: float | None) -> None:
        """Until ``event`` is set or ``seconds`` have passed (None: until it is set)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout=seconds)


class Periodic:
    """A named background loop around ``step``.

    ``step`` runs at start (or, with ``wait_first``, at the first wake-up), then again after
    ``interval`` seconds or as soon as :meth:`wake` is called; ``interval`` None means "only
    when woken". A step returning a number waits that long instead (a backoff or a retry
    time). ``settle`` waits a moment after each wake-up so that wake-ups arriving together
    make one run (a batch window). A step that raises is reported (:func:`report`) and run
    again after ``retry_after`` seconds (default: the interval).
    """

    def __init__(
        self,
        name: str,
        step: Step,
        *,
        interval: float | None,
        wait_first: bool = False,
        settle: float = 0.0,
        retry_after: float | None = None,
        logger: logging.Logger = log,
        bus: EventBus | None = None,
        timer: Timer | None = None,
    ):
        self.name, self._step, self._interval = name, step, interval
        self._wait_first, self._settle, self._retry_after = wait_first, settle, retry_after
        self._report = partial(report, logger=logger, bus=bus)
        self._timer = timer or Timer()
        self._woken = asyncio.Event()
        self._stepped = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self.busy = False

    @property
    def interval(self) -> float | None:
        return self._interval

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    def wake(self) -> None:
        """Run the step as soon as the one running (if any) is done."""
        self._woken.set()

    async def next_step(self) -> None:
        """Return once the next run of the step has finished (a run under way counts): how a
        caller waits for the loop's work without polling it."""
        async with self._stepped:
            await self._stepped.wait()

    def set_interval(self, seconds: float | None) -> None:
        """Use a new interval from now on (a running loop wakes to apply it)."""
        self._interval = seconds
        if self.running:
            self.wake()

    def cancel(self) -> None:
        """Stop without waiting (``stop`` waits)."""
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        if self._wait_first:
            await self._sleep(self._interval)
        while True:
            if self._settle:
                await self._timer.sleep(self._settle)
            self._woken.clear()  # a wake-up during the step runs it again right after
            self.busy = True
            try:
                delay = await self._step()
            except Exception as exc:
                self._report(exc, f"{self.name} failed")
                delay = self._retry_after
            finally:
                self.busy = False
            async with self._stepped:
                self._stepped.notify_all()
            await self._sleep(self._interval if delay is None else delay)

    async def _sleep(self, seconds: float | None) -> None:
        await self._timer.wait(self._woken, seconds)


class TaskSet:
    """Named one-off tasks, referenced until they end (asyncio keeps only weak ones). A task
    that fails is reported (:func:`report`); an unexpected failure also goes to
    ``on_unexpected`` (the desktop shows it)."""

    def __init__(
        self,
        *,
        logger: logging.Logger = log,
        bus: EventBus | None = None,
        on_unexpected: Callable[[BaseException], None] | None = None,
    ):
        self._report = partial(report, logger=logger, bus=bus)
        self._on_unexpected = on_unexpected
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def stop(self) -> None:
        """Cancel every task and wait until they have ended."""
        tasks = list(self._tasks)
        self.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            return
        self._report(exc, f"task {task.get_name()} failed")
        if self._on_unexpected is not None and not isinstance(exc, TicError):
            self._on_unexpected(exc)


class Slices:
    """Cooperative time slices for CPU work done on the loop: ``await slices.pause()``
    between items hands the loop over once ``budget`` seconds of work have passed since it
    last did, so anything else waiting (a click, an IPC request) waits at most about that.
    The store is used on the loop's thread only, so work that touches it is sliced rather
    than sent to a thread."""

    BUDGET = 0.002

    def __init__(self, budget: float = BUDGET):
        self.budget = budget
        self._since = time.perf_counter()

    async def pause(self) -> None:
        now = time.perf_counter()
        if now - self._since >= self.budget:
            await asyncio.sleep(0)
            self._since = time.perf_counter()
