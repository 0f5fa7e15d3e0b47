"""Arrival → toast with the app running: how long after a source stores new events their toast
is on a real notification server, with no tick asked for (the events wake TIC themselves), and
how long after mail is delivered to a real IMAP server (Dovecot on 127.0.0.1, IDLE) its toast
is there.

    python -m bench --only arrival [--quick]

The engine runs as the app runs it: the schedule started at its default 15 minutes, the
embedded model loaded, the desktop's Notifier on a private D-Bus session with the fake
notification server (when dbus-daemon is installed; otherwise the figures stop at the reply,
the moment the desktop toasts). "Stored by a source" is a source whose server pushes (as IMAP
IDLE and WhatsApp live do): its events are handed over, the runner fetches and stores them,
and the clock starts when the store says so (``EventsStored``). "Delivered to the server" is
an IMAP APPEND into the watched INBOX returning; the clock stops when the toast is on D-Bus.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from bench.common import Options, Row
from engine.tasks import TaskSet

RUN_TIMEOUT_S = 30.0
MAIL_FROM = "Nadia Kim <nadia@example.org>"


@dataclass
class Marks:
    """When each step of one run happened (``time.perf_counter``)."""

    stored: float | None = None
    replied: float | None = None
    shown: float | None = None
    channel: str | None = None  # where the toast went
    notified: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Running:
    """An engine as the app runs it, with the bus timed and each reply toasted."""

    def __init__(self, model: Path | None, toaster: Any) -> None:
        self._model = model
        self.toaster = toaster
        self.marks = Marks()
        self.expected = 0
        self._shows = TaskSet()
        self._home = tempfile.TemporaryDirectory(prefix="tic-bench-arrival-")

    async def __aenter__(self) -> Running:
        from engine.engine import Engine
        from engine.workspace import Workspace

        workspace = Workspace.open(Path(self._home.name))
        self.engine = Engine.open(workspace, self._model)
        self.engine.bus.subscribe(self._on_bus)
        await self.engine.start(schedule=True)
        error = await self.engine.load_model()
        if error:
            raise SystemExit(f"the model cannot be loaded: {error}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._shows.stop()
        await self.engine.stop()
        self._home.cleanup()

    def expect(self, count: int) -> Marks:
        self.marks = Marks()
        self.expected = count
        return self.marks

    def _on_bus(self, message: object) -> None:
        from engine.bus import EventsStored, ReplyFinished

        now, marks = time.perf_counter(), self.marks
        if isinstance(message, EventsStored) and marks.stored is None:
            marks.stored = now
        elif isinstance(message, ReplyFinished) and message.kind == "notification":
            marks.notified += len(message.notifications)
            if marks.notified >= self.expected:
                marks.replied = now
                if self.toaster is None:
                    marks.done.set()
                else:
                    self._shows.spawn(self._toast(message, marks), "bench-toast")

    async def _toast(self, message: Any, marks: Marks) -> None:
        marks.channel = await self.toaster.show(message)
        marks.shown = time.perf_counter()
        marks.done.set()

    async def finished(self, marks: Marks) -> Marks:
        """Wait for the run's last reply (and its toast); a toast that missed the
        notification server fails the figure."""
        await asyncio.wait_for(marks.done.wait(), RUN_TIMEOUT_S)
        if self.toaster is not None and marks.channel != "native":
            raise RuntimeError(f"the toast went to {marks.channel!r}, not the server")
        return marks


def _push_source() -> Any:
    from engine.events import Event
    from engine.sources.base import Batch, Source

    class PushedSource(Source):
        """A source whose server pushes, as IMAP IDLE and WhatsApp live do."""

        kind = "imap"
        poll_seconds = 3600.0  # only a push brings anything in

        def __init__(self) -> None:
            super().__init__("bench@example.org")
            self.waiting: list[Event] = []
            self._on_new: Callable[[], None] | None = None

        def watch(self, on_new: Callable[[], None]) -> None:
            self._on_new = on_new

        def arrive(self, events: list[Event]) -> None:
            self.waiting += events
            if self._on_new is not None:
                self._on_new()

        async def fetch(self, cursor: str | None) -> Batch:
            batch, self.waiting = self.waiting, []
            return Batch(events=batch, cursor=cursor)

    return PushedSource()


async def stored_to_toast(running: Running, count: int, runs: int, first: int) -> list[Marks]:
    from bench.tick_to_toast import notifiable_events
    from engine.events import parse_event

    source = _push_source()
    running.engine.sources.add(source)
    done: list[Marks] = []
    try:
        for run in range(first, first + runs):
            marks = running.expect(count)
            source.arrive([parse_event(e) for e in notifiable_events(run, count)])
            done.append(await running.finished(marks))
    finally:
        await running.engine.sources.remove(source.key)
    return done


def _mail(n: int) -> bytes:
    from datetime import UTC, datetime

    lines = [
        f"From: {MAIL_FROM}",
        "To: me@example.org",
        f"Subject: Call me back {n}",
        f"Date: {format_datetime(datetime.now(UTC))}",
        f"Message-ID: <bench-{n}-{time.time_ns()}@example.org>",
        "Content-Type: text/plain; charset=utf-8",
    ]
    return ("\r\n".join(lines) + "\r\n\r\nCould you call me back today, please?\r\n").encode()


async def delivered_to_toast(running: Running, runs: int) -> tuple[list[float], list[float]]:
    """(delivered → stored, delivered → toast or reply) per run, in ms."""
    from engine.sources.mail.imap import ImapSource
    from tests.sources.dovecot import Dovecot

    user, password = "bench", "bench-password"
    to_stored: list[float] = []
    to_toast: list[float] = []
    with Dovecot() as dovecot:
        dovecot.add_user(user, password)
        await asyncio.to_thread(dovecot.start)
        source = ImapSource(dovecot.host, dovecot.port, user, ssl=False, password=password)
        source.poll_seconds = 3600.0  # only IDLE brings mail in
        running.engine.sources.add(source)
        try:
            assert source.idle is not None
            if not await asyncio.to_thread(source.idle.wait_idling, 1, RUN_TIMEOUT_S):
                raise SystemExit("the IMAP IDLE connection never came up")
            for n in range(runs):
                marks = running.expect(1)
                await asyncio.to_thread(dovecot.append, user, _mail(n))
                delivered = time.perf_counter()
                await running.finished(marks)
                assert marks.stored is not None and marks.replied is not None
                to_stored.append((marks.stored - delivered) * 1000)
                to_toast.append(((marks.shown or marks.replied) - delivered) * 1000)
        finally:
            await running.engine.sources.remove(source.key)
    return to_stored, to_toast


def _ms(marks: list[Marks], end: Callable[[Marks], float | None]) -> list[float]:
    out = []
    for m in marks:
        stop = end(m)
        if m.stored is not None and stop is not None:
            out.append((stop - m.stored) * 1000)
    return out


async def arrival_figures(opts: Options) -> list[Row]:
    """For ``python -m bench``: stored → toast for 1 and 10 events, IMAP delivered → toast."""
    from bench.tick_to_toast import Toaster
    from tests.sources.dovecot import dovecot_binary

    runs = opts.repeat(full=10, quick=3)
    toaster = Toaster() if shutil.which("dbus-daemon") else None
    shown = "toast on D-Bus" if toaster is not None else "reply (no D-Bus here)"
    rows: list[Row] = []
    try:
        async with Running(opts.model, toaster) as running:
            first = 10_000  # event ids apart from the other figures'
            for count in (1, 10):
                marks = await stored_to_toast(running, count, runs, first)
                first += runs
                label = f"{count} event{'s' if count > 1 else ''}"
                note = "no tick asked; schedule 15 min"
                rows.append(Row("arrival", f"{label}: stored → reply", "ms", _ms(marks, _replied)))
                if toaster is not None:
                    rows.append(
                        Row(
                            "arrival",
                            f"{label}: stored → {shown}",
                            "ms",
                            _ms(marks, _shown),
                            note=note,
                        )
                    )
            if dovecot_binary() is None:
                rows.append(Row("arrival", "IMAP delivered → toast", "ms", error="no dovecot"))
            else:
                to_stored, to_toast = await delivered_to_toast(running, runs)
                rows.append(Row("arrival", "IMAP delivered → stored (IDLE)", "ms", to_stored))
                rows.append(
                    Row(
                        "arrival", f"IMAP delivered → {shown}", "ms", to_toast, note="Dovecot, IDLE"
                    )
                )
    finally:
        if toaster is not None:
            await toaster.close()
    return rows


def _replied(m: Marks) -> float | None:
    return m.replied


def _shown(m: Marks) -> float | None:
    return m.shown
