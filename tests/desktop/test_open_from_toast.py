""" "Open" and "Remind me in 1 hour" on a real toast: a real engine (its store, TIC, the
delivery, the jobs on an injected clock) and the app's Notifier on a private D-Bus with the
fake notification server; the user's click is the server's ActionInvoked. The app's one
opener is a fake that records each URL it is asked to open."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import shutil
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import qasync

from desktop.app import DesktopApp
from desktop.chat.window import ChatWindow
from desktop.notify.notifier import LATER_ACTION, OPEN_ACTION, Notifier, toast_for
from desktop.notify.opening import MessageView
from desktop.qt import QtWidgets
from desktop.system.opener import Opener
from engine.bus import ReplyFinished
from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.workspace import Workspace
from tests.desktop.session import DesktopSession, FakeNotificationServer, isolated_session
from tests.factories import make_event
from tests.waits import until

ANNA = {"name": "Anna Berg", "address": "anna@example.org"}
RULES = "## Always notify\n- Emails from Anna Berg\n- WhatsApp messages from Marco\n"


class FakeOpener(Opener):
    """Records what the app asks to open; takes the web and the schemes in ``handlers``."""

    def __init__(self, handlers: tuple[str, ...] = ()) -> None:
        self.handlers = handlers
        self.opened: list[str] = []

    def can_open(self, url: str) -> bool:
        return url.startswith("https:") or url.split(":", 1)[0] in self.handlers

    def open(self, url: str) -> bool:
        self.opened.append(url)
        return True


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 10, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def fake_server() -> Iterator[FakeNotificationServer]:
    missing = [t for t in ("dbus-daemon", "dbus-send") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")
    with isolated_session(xvfb=False) as session, session.applied():
        yield _server(session)


def _server(session: DesktopSession) -> FakeNotificationServer:
    return session.start_fake_notifications()


@pytest.fixture
def qloop(qapp: QtWidgets.QApplication) -> Iterator[qasync.QEventLoop]:
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


class Desktop:
    """The parts of the app "Open" and "later" go through, around a real engine."""

    def __init__(self, workspace: Workspace, tmp: Path, opener: FakeOpener) -> None:
        self.clock = Clock()
        self.engine = Engine(
            workspace, Settings(), ScriptedModel(capability="tiny"), clock=self.clock
        )
        self.app = DesktopApp(workspace, None, tmp / "tic.log", opener=opener)
        self.app.engine = self.engine
        self.app.chat = ChatWindow()
        self.app.tray = SimpleNamespace(state="unread", set_state=self._tray_state)
        self.app.notifier = self.notifier = Notifier("TIC")
        self.notifier.openRequested.connect(self.app.open_message)  # as DesktopApp._wire
        self.notifier.laterRequested.connect(self.app.remind_later)
        self.replies: list[ReplyFinished] = []
        self.toasts: list[asyncio.Task[str]] = []
        self.engine.bus.subscribe(self._on_bus)

    def _tray_state(self, state: str) -> None:
        self.app.tray.state = state

    def _on_bus(self, message: object) -> None:
        if isinstance(message, ReplyFinished) and message.kind == "notification":
            self.replies.append(message)
            self.toasts.append(asyncio.ensure_future(self.notifier.show(toast_for(message))))

    async def toasted(self, count: int) -> None:
        await until(lambda: len(self.toasts) >= count)
        await asyncio.gather(*self.toasts)

    async def close(self) -> None:
        await self.notifier.aclose()
        await self.engine.stop()
        self.app.chat.deleteLater()


@pytest.fixture
def desktop(
    qloop: qasync.QEventLoop, workspace: Workspace, tmp_path: Path, fake_server: Any
) -> Iterator[tuple[Desktop, FakeOpener, Callable[[Awaitable[Any]], Any]]]:
    workspace.rules_file.write_text(RULES)
    opener = FakeOpener()

    def run(aw: Awaitable[Any]) -> Any:
        return qloop.run_until_complete(asyncio.wait_for(aw, 20))

    made = Desktop(workspace, tmp_path, opener)
    run(made.engine.start(schedule=False))
    yield made, opener, run
    run(made.close())


async def notify(d: Desktop, *events: Any, toasts: int = 1) -> None:
    d.engine.ingest(list(events))
    await d.engine.check_now(timeout=5)
    await d.toasted(toasts)


def test_open_on_a_gmail_toast_opens_the_thread_and_marks_it_read(desktop, fake_server):
    d, opener, run = desktop
    event = make_event(sender=ANNA, refs={"thread_id": "18c2f0", "account": "me@gmail.com"})
    run(notify(d, event))
    (toast,) = fake_server.wait_for_notifications(1)
    assert toast["summary"] == "Email from Anna Berg"

    fake_server.invoke(toast["id"], OPEN_ACTION)

    run(until(lambda: bool(opener.opened)))
    assert opener.opened == ["https://mail.google.com/mail/u/me@gmail.com/#all/18c2f0"]
    assert d.app.tray.state == "idle"  # read: nothing unread is left


def test_an_imap_message_opens_in_the_mail_program_only_where_one_takes_mid(desktop, fake_server):
    d, opener, run = desktop
    refs = {"folder": "INBOX", "uid": 9, "message_id": "vat-42@ltx9.example"}
    run(notify(d, make_event(id="imap:me@host:<vat-42@ltx9.example>", sender=ANNA, refs=refs)))
    (toast,) = fake_server.wait_for_notifications(1)

    fake_server.invoke(toast["id"], "default")  # a click on the toast itself

    run(until(lambda: getattr(d.app, "message_view", None) is not None))
    view: MessageView = d.app.message_view
    assert opener.opened == [] and view.windowTitle() == "Email from Anna Berg"
    assert "Could you call me back today?" in view.text.toPlainText()
    view.close()
    opener.handlers = ("mid",)  # a mail program that takes mid: links is installed
    d.app.open_message(d.replies[-1].message_id)
    assert opener.opened == ["mid:vat-42@ltx9.example"]


def test_a_group_message_opens_in_tic(desktop, fake_server):
    d, opener, run = desktop
    group = make_event(
        source="whatsapp",
        event_type="whatsapp.message",
        sender={"name": "Marco", "address": "+393331234567"},
        chat={"id": "120363@g.us", "name": "Family", "is_group": True},
        text="I'm at A&E with grandma, she fell. Please call me",
        refs={"chat_jid": "120363@g.us"},
    )
    run(notify(d, group))
    (toast,) = fake_server.wait_for_notifications(1)

    fake_server.invoke(toast["id"], OPEN_ACTION)

    run(until(lambda: getattr(d.app, "message_view", None) is not None))
    assert opener.opened == []
    assert "she fell" in d.app.message_view.text.toPlainText()


def test_remind_me_in_1_hour_toasts_it_again_an_hour_later(desktop, fake_server):
    d, opener, run = desktop
    event = make_event(sender=ANNA, refs={"thread_id": "t7", "account": "me@gmail.com"})
    run(notify(d, event))
    (first,) = fake_server.wait_for_notifications(1)

    fake_server.invoke(first["id"], LATER_ACTION)

    run(until(lambda: bool(d.engine.jobs.active())))
    assert "I'll remind you of it at" in d.app.chat.status_text()
    d.clock.now += timedelta(minutes=59)
    assert run(d.engine.jobs.run_due()) == 0
    d.clock.now += timedelta(minutes=1)
    assert run(d.engine.jobs.run_due()) == 1
    run(d.toasted(2))
    _, again = fake_server.wait_for_notifications(2)
    assert again["summary"] == "Reminder: Email from Anna Berg"
    assert again["body"] == first["body"]

    fake_server.invoke(again["id"], OPEN_ACTION)  # still the message itself

    run(until(lambda: bool(opener.opened)))
    assert opener.opened == ["https://mail.google.com/mail/u/me@gmail.com/#all/t7"]
