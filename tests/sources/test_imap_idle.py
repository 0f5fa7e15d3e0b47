"""IMAP IDLE against a real Dovecot on 127.0.0.1: mail delivered to the server has the
account fetched at once (not at its next poll), a server restart is survived with a
reconnect, and a server without IDLE or a failed sign-in leaves the poll alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from engine.bus import EventBus, EventsStored
from engine.sources.mail.idle import IdleWatcher, reports_new_mail
from engine.sources.mail.imap import ImapSource
from engine.sources.sync import SourceRunner
from engine.store.models import EventRecord
from tests.sources.dovecot import Dovecot, dovecot_binary
from tests.sources.test_imap import PASSWORD, USER, message

WAIT = 10.0  # seconds any one step may take at most; each returns as soon as it happens


@pytest.fixture
def server() -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd)")
    with Dovecot() as dovecot:
        dovecot.add_user(USER, PASSWORD)
        dovecot.start()
        yield dovecot


class Calls:
    """Counts ``on_new`` calls (from the watcher's thread) and lets a test wait for one."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = threading.Condition()

    def __call__(self) -> None:
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def wait_beyond(self, seen: int, timeout: float = WAIT) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.count > seen, timeout)


def source_for(server: Dovecot, **overrides: Any) -> ImapSource:
    args: dict[str, Any] = {"ssl": False, "password": PASSWORD, "timeout": 5.0}
    return ImapSource(server.host, server.port, USER, **{**args, **overrides})


@pytest.fixture
async def source(server: Dovecot) -> AsyncIterator[ImapSource]:
    made = source_for(server)
    yield made
    await made.close()


async def idling(watcher: IdleWatcher | None, connections: int = 1) -> None:
    """Wait until the watcher has connected ``connections`` times and is in IDLE."""
    assert watcher is not None
    ready = await asyncio.to_thread(watcher.wait_idling, connections, WAIT)
    assert ready, "the IDLE connection never came up"


def test_only_exists_responses_mean_new_mail():
    assert reports_new_mail([(b"3", b"EXISTS"), (b"1", b"RECENT")])
    assert not reports_new_mail([(b"2", b"EXPUNGE"), (b"OK", b"Still here")])
    assert not reports_new_mail([])


async def test_mail_delivered_to_the_server_is_reported_at_once(server, source):
    calls = Calls()
    source.watch(calls)
    await idling(source.idle)

    server.append(USER, message(1))

    assert await asyncio.to_thread(calls.wait_beyond, 0), "IDLE reported nothing"


async def test_a_server_restart_is_survived_with_a_reconnect(server, source):
    calls = Calls()
    source.watch(calls)
    assert source.idle is not None
    source.idle.backoff_first = 0.1
    await idling(source.idle)

    await asyncio.to_thread(server.stop)
    await asyncio.to_thread(server.start)
    await idling(source.idle, connections=2)
    seen = calls.count  # the reconnect asks for one fetch: mail may have come meanwhile
    assert seen >= 1
    server.append(USER, message(2))

    assert await asyncio.to_thread(calls.wait_beyond, seen), "no IDLE after the reconnect"


@pytest.mark.usefixtures("db")
async def test_the_runner_fetches_as_soon_as_idle_says_so(server):
    """The poll interval is an hour: only IDLE can bring the second message in."""
    bus = EventBus()
    stored: asyncio.Queue[EventsStored] = asyncio.Queue()
    bus.subscribe(lambda m: stored.put_nowait(m) if isinstance(m, EventsStored) else None)
    server.append(USER, message(1))
    source = source_for(server)
    source.poll_seconds = 3600.0  # an instance's own interval
    runner = SourceRunner(bus=bus)
    runner.add(source)
    try:
        first = await asyncio.wait_for(stored.get(), WAIT)
        assert first.added == 1
        await idling(source.idle)

        server.append(USER, message(2))

        second = await asyncio.wait_for(stored.get(), WAIT)
        assert (second.source, second.added) == (source.key, 1)
        assert EventRecord.select().count() == 2
    finally:
        await runner.stop()


async def test_a_failed_sign_in_ends_the_watcher_and_leaves_the_poll(server, caplog):
    source = source_for(server, password="wrong")
    watcher = IdleWatcher(
        source._connect, "INBOX", Calls(), name="imap-idle:test", translate=source._translate
    )
    watcher.start()
    thread = watcher._thread
    assert thread is not None
    await asyncio.to_thread(thread.join, WAIT)  # it ends by itself
    assert not watcher.running and watcher.connections == 0
    assert f"imap-idle:test: no IDLE, the account is polled: IMAP sign-in as {USER}" in caplog.text


async def test_stop_ends_the_watcher_promptly(server, source):
    source.watch(Calls())
    watcher = source.idle
    await idling(watcher)
    await source.close()
    assert watcher is not None and not watcher.running
