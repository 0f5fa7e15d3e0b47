"""New events wake TIC: with the schedule at 15 minutes, what a source stores (an ingest
handed over, a sync, a live WhatsApp message) is checked within seconds, a burst is one
check, and a check under way picks up what arrives meanwhile (no lost wake-up, no overlap)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.bus import EventsStored, ReplyFinished, TickStarted
from engine.engine import Engine
from engine.events import Event
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.sources.base import Batch, Source
from engine.store.models import AgentRun, EventRecord
from engine.workspace import Workspace
from tests.factories import make_event

WAIT = 10.0  # each wait returns as soon as what it waits for happens
RULES = "## Always notify\n- Emails from Anna Berg\n"


@pytest.fixture
async def running(workspace: Workspace) -> AsyncIterator[Engine]:
    """An engine as the app runs it: the schedule (15 minutes) started; replies composed."""
    workspace.rules_file.write_text(RULES)
    eng = Engine(workspace, Settings(), ScriptedModel(capability="tiny"))
    await eng.start(schedule=True)
    yield eng
    await eng.stop()


def replies(engine: Engine) -> asyncio.Queue[ReplyFinished]:
    queue: asyncio.Queue[ReplyFinished] = asyncio.Queue()

    def on(message: object) -> None:
        if isinstance(message, ReplyFinished) and message.kind == "notification":
            queue.put_nowait(message)

    engine.bus.subscribe(on)
    return queue


async def notified_ids(queue: asyncio.Queue[ReplyFinished], count: int) -> list[str]:
    """The event ids of the next ``count`` notifications delivered (bounded wait)."""
    ids: list[str] = []
    while len(ids) < count:
        reply = await asyncio.wait_for(queue.get(), WAIT)
        ids += [str(n.refs["event_id"]) for n in reply.notifications]
    return ids


async def test_an_ingest_is_checked_within_seconds_without_a_tick(running):
    assert running.settings.tick_interval_minutes == 15
    delivered = replies(running)
    event = make_event(text="I'm at A&E with grandma, she fell. Please call me")

    running.ingest([event])

    assert await notified_ids(delivered, 1) == [event.id]


async def test_a_burst_of_ingests_is_one_check(running):
    delivered = replies(running)
    ticks: list[TickStarted] = []
    running.bus.subscribe(lambda m: ticks.append(m) if isinstance(m, TickStarted) else None)
    events = [make_event() for _ in range(10)]

    for event in events:  # ten ingests handed over one after another
        running.ingest([event])
        await asyncio.sleep(0)

    assert sorted(await notified_ids(delivered, 10)) == sorted(e.id for e in events)
    assert [t.events for t in ticks] == [10]
    assert AgentRun.select().count() == 1


async def test_what_arrives_during_a_check_is_checked_when_it_ends(running):
    delivered = replies(running)
    gate = asyncio.Event()
    started = asyncio.Event()
    original = running.decider.decide_each

    async def held(events: Any, now: Any, **kwargs: Any) -> Any:
        started.set()
        await gate.wait()
        return await original(events, now, **kwargs)

    running.decider.decide_each = held  # type: ignore[method-assign]
    first, second = make_event(), make_event()
    running.ingest([first])
    await asyncio.wait_for(started.wait(), WAIT)  # the woken check is under way

    running.ingest([second])  # its wake-up must not be lost, nor start a second check
    await asyncio.sleep(running.tic._wake._settle * 2)
    assert running.tic.running
    gate.set()

    assert sorted(await notified_ids(delivered, 2)) == sorted([first.id, second.id])
    assert EventRecord.select().where(EventRecord.status == "done").count() == 2


class PushedSource(Source):
    """A source whose server pushes: ``arrive`` queues events and says so (``watch``)."""

    kind = "imap"
    poll_seconds = 3600.0  # only a push can bring anything in

    def __init__(self) -> None:
        super().__init__("push@example.org")
        self.waiting: list[Event] = []
        self._on_new: Any = None

    def watch(self, on_new: Any) -> None:
        self._on_new = on_new

    def arrive(self, *events: Event) -> None:
        self.waiting += events
        self._on_new()

    async def fetch(self, cursor: str | None) -> Batch:
        batch, self.waiting = self.waiting, []
        return Batch(events=batch, cursor=str(len(batch)))


async def test_a_sync_that_stores_events_wakes_a_check(running):
    delivered = replies(running)
    stored: list[EventsStored] = []
    running.bus.subscribe(lambda m: stored.append(m) if isinstance(m, EventsStored) else None)
    source = PushedSource()
    running.sources.add(source)
    event = make_event()

    source.arrive(event)

    assert await notified_ids(delivered, 1) == [event.id]
    assert [(s.source, s.added) for s in stored] == [(source.key, 1)]


async def test_a_one_off_engine_is_not_woken(engine, model):
    """``tic-desktop ingest`` or ``tick`` holding the workspace: no schedule, no check."""
    before = asyncio.all_tasks()
    engine.ingest([make_event()])
    assert asyncio.all_tasks() == before  # nothing was scheduled to check it
    assert not engine.tic.running
    assert EventRecord.get().status == "pending" and model.calls == []


async def test_a_source_replaced_by_a_newer_one_is_closed(running):
    closed: list[str] = []

    class Closing(PushedSource):
        async def close(self) -> None:
            closed.append(self.key)

    first, second = Closing(), Closing()
    running.sources.add(first)
    running.sources.add(second)  # the account connected again, e.g. with a new password
    await asyncio.sleep(0)
    assert closed == [first.key]
    assert running.sources.active_keys() == [second.key]
