"""A :class:`~engine.tasks.Timer` whose time moves only when the test says, so a test of a
``Periodic`` states what happens at which moment instead of sleeping and hoping:

    timer = ManualTimer()
    loop = Periodic("test", step, interval=60, timer=timer)
    loop.start()
    await timer.idle()          # it ran at start and waits again
    await timer.advance(59)     # nothing is due yet
    assert step.count == 1
    await timer.advance(1)      # the interval ends: one more run
    assert step.count == 2
"""

from __future__ import annotations

import asyncio
import math

from engine.tasks import Timer

IDLE_LIMIT = 5.0  # real seconds: a safety net for a loop that runs on and on


class ManualTimer(Timer):
    """Waits that end when :meth:`advance` moves ``now`` past them (or their event is set).

    ``loops`` is how many tasks wait on it: :meth:`idle` returns once that many have started
    waiting and each one is waiting again (or has ended)."""

    def __init__(self, loops: int = 1) -> None:
        self.now = 0.0
        self.loops = loops
        self._due: dict[asyncio.Future[None], float] = {}  # each wait's end → its deadline
        self._waiting: dict[asyncio.Task[object], tuple[asyncio.Future[None], asyncio.Event]] = {}
        self._tasks: set[asyncio.Task[object]] = set()
        self._changed = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        await self._wait(asyncio.Event(), seconds)  # an event nobody sets

    async def wait(self, event: asyncio.Event, seconds: float | None) -> None:
        await self._wait(event, seconds)

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``: every wait that falls due on the way ends in turn,
        and each time the loops run until they wait again."""
        target = self.now + seconds
        await self.idle()
        while (nearest := min(self._due.values(), default=math.inf)) <= target:
            self.now = nearest
            for end, deadline in list(self._due.items()):
                if deadline <= nearest and not end.done():
                    end.set_result(None)
            await self.idle()
        self.now = target

    async def idle(self, limit: float = IDLE_LIMIT) -> None:
        """Until ``loops`` tasks have waited here and none of them has anything left to do
        at this moment: each is waiting again, on a wait that has not ended, or has ended.
        A loop that never waits again fails the test after ``limit`` real seconds."""
        try:
            async with asyncio.timeout(limit):
                while not self._idle():
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"the loops did not wait again within {limit} s") from None

    def _idle(self) -> bool:
        if len(self._tasks) < self.loops:
            return False
        for task in self._tasks:
            if task.done():
                continue
            if task not in self._waiting:
                return False  # running (or about to, its wait having just ended)
            end, event = self._waiting[task]
            if end.done() or event.is_set():
                return False  # its wait has ended; it has not run on yet
        return True

    async def _wait(self, event: asyncio.Event, seconds: float | None) -> None:
        task = asyncio.current_task()
        assert task is not None
        if task not in self._tasks:
            self._tasks.add(task)
            task.add_done_callback(lambda _task: self._changed.set())
        end: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._due[end] = math.inf if seconds is None else self.now + seconds
        self._waiting[task] = (end, event)
        woken = asyncio.ensure_future(event.wait())
        self._changed.set()
        try:
            await asyncio.wait((end, woken), return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
            del self._due[end]
            del self._waiting[task]
            self._changed.set()
