"""Toasts: their wording, the pause / quiet-hours hold, and real delivery over D-Bus.

The D-Bus tests run a private ``dbus-daemon`` and the fake notification server as subprocesses
(``tests/desktop/session.py``); the Notifier runs in-process on a qasync loop, as in the app.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import logging
import shutil
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from datetime import datetime, time, timedelta
from typing import Any

import pytest
import qasync

from desktop.app import DesktopApp
from desktop.notify.notifier import (
    LATER_LABEL,
    MUTE_LABEL,
    Notifier,
    Toast,
    shorten,
    strip_markdown,
    summary_for,
    toast_for,
)
from desktop.qt import QtGui, QtWidgets
from desktop.widgets.icons import write_app_icon
from engine.bus import DeliveredNotification, ReplyFinished
from engine.workspace import Workspace
from tests.desktop.session import (
    DesktopSession,
    FakeNotificationServer,
    isolated_session,
)
from tests.waits import until

# -- helpers -------------------------------------------------------------------------------


def note(
    nid: int, source: str, sender: str | None = None, summary: str = ""
) -> DeliveredNotification:
    return DeliveredNotification(
        id=nid,
        source=source,
        event_type="message",
        summary=summary or f"Something from {source}.",
        event_time="2025-03-14T09:30:00+01:00",
        reason="",
        rule="",
        sender=sender,
    )


def reply(text: str, *notes: DeliveredNotification, message_id: int = 10) -> ReplyFinished:
    return ReplyFinished(1, message_id, text, "notification", list(notes))


def toast(message_id: int, title: str = "Email from Marco", nids: list[int] | None = None) -> Toast:
    return Toast(title, f"Body of {message_id}", message_id, [message_id] if nids is None else nids)


class Clock:
    """A settable wall clock (naive local time, like datetime.now())."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Recorder:
    """Collects a Notifier's signals."""

    def __init__(self, notifier: Notifier) -> None:
        self.opened: list[int] = []
        self.muted: list[int] = []
        self.delivered: list[tuple[Toast, str]] = []
        notifier.openRequested.connect(self.opened.append)
        notifier.muteRequested.connect(self.muted.append)
        notifier.delivered.connect(lambda t, channel: self.delivered.append((t, channel)))


def tray_icon() -> QtWidgets.QSystemTrayIcon:
    pixmap = QtGui.QPixmap(16, 16)
    pixmap.fill(QtGui.QColor("teal"))
    tray = QtWidgets.QSystemTrayIcon(QtGui.QIcon(pixmap))
    tray.show()
    return tray


# -- fixtures (plain helpers from session.py; conftest may take them over) -------------------


def needs(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (.ci/run installs them)")


@pytest.fixture
def bus_session() -> Iterator[DesktopSession]:
    """A private session bus (no notification server yet), applied to os.environ."""
    needs("dbus-daemon", "dbus-send")
    with isolated_session(xvfb=False) as session, session.applied():
        yield session


@pytest.fixture
def fake_server(bus_session: DesktopSession) -> FakeNotificationServer:
    return bus_session.start_fake_notifications()


@pytest.fixture
def qloop(qapp: QtWidgets.QApplication) -> Iterator[qasync.QEventLoop]:
    """The app's loop: asyncio on top of Qt's event loop."""
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    yield loop
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def run(qloop: qasync.QEventLoop) -> Callable[[Awaitable[Any]], Any]:
    """Run a coroutine to completion on the qasync loop (bounded)."""
    return lambda aw: qloop.run_until_complete(asyncio.wait_for(aw, 20))


@pytest.fixture
def native(run: Callable[[Awaitable[Any]], Any]) -> Iterator[Notifier]:
    notifier = Notifier("TIC")
    yield notifier
    run(notifier.aclose())


# -- wording -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notification", "title"),
    [
        (note(1, "email", "Tomas Herrera <tomas@example.com>"), "Email from Tomas Herrera"),
        (note(1, "email", "Tomas Herrera"), "Email from Tomas Herrera"),
        (note(1, "email", "billing@example.com"), "Email from billing@example.com"),
        (note(1, "email", None), "Email"),
        (note(1, "whatsapp", "Marco"), "WhatsApp from Marco"),
        (
            note(1, "calendar", summary="Budget review moved to 15:00 tomorrow."),
            "Calendar: Budget review moved to 15:00 tomorrow.",
        ),
        (note(1, "cron", summary="Reminder: Water the plants."), "Reminder: Water the plants."),
        (
            replace(note(1, "email", "Tomas Herrera"), refs={"again": "later:3:x:0"}),
            "Reminder: Email from Tomas Herrera",
        ),
    ],
)
def test_title_names_the_source_and_the_sender(notification: DeliveredNotification, title: str):
    assert toast_for(reply("Hi.", notification)).title == title


def test_long_calendar_title_is_shortened_on_a_word():
    summary = "Quarterly planning with the whole product team and the external auditors at HQ"
    title = toast_for(reply("x", note(1, "calendar", summary=summary))).title
    assert title.startswith("Calendar: Quarterly planning")
    assert title.endswith("…")
    assert len(title) <= len("Calendar: ") + 60
    assert title[:-1].split()[-1] in summary.split()


def test_several_notifications_are_counted_by_source():
    t = toast_for(
        reply(
            "Three things.",
            note(4, "email", "A"),
            note(5, "whatsapp", "Marco"),
            note(6, "email", "B"),
            message_id=77,
        )
    )
    assert t.title == "3 notifications · Email, WhatsApp"
    assert (t.message_id, t.notification_ids) == (77, [4, 5, 6])


def test_body_is_the_agents_wording_without_markdown():
    text = (
        "## Heads up\n\n**Tomas Herrera** wrote about the *invoice* — see "
        "[the thread](https://mail.example.com/t/1) and `INV-204`.\n\n- due ~~Monday~~ Friday\n"
    )
    body = toast_for(reply(text, note(1, "email", "Tomas Herrera"))).body
    assert body == (
        "Heads up\nTomas Herrera wrote about the invoice — see the thread and INV-204.\n"
        "• due Monday Friday"
    )


def test_a_composed_reply_is_the_toast_body_facts_first():
    single = (
        "Tomas Herrera emailed you at 08:01: \u201cQ3 VAT return\u201d \u2014 \u201cSign "
        "\\*now\\*.\u201d Reply by email."
    )
    body = toast_for(reply(single, note(1, "email", "Tomas Herrera"))).body
    assert body.startswith("Tomas Herrera emailed you at 08:01: \u201cQ3 VAT return\u201d")
    assert "\u201cSign *now*.\u201d" in body
    several = (
        "2 new: 1 email, 1 WhatsApp message.\n\n- Papa wrote on WhatsApp at 09:02: "
        "\u201cLanded\u201d.\n- Tomas Herrera emailed you at 08:01: \u201cQ3 VAT return\u201d."
    )
    body = toast_for(reply(several, note(1, "whatsapp", "Papa"), note(2, "email", "T"))).body
    assert body.splitlines() == [
        "2 new: 1 email, 1 WhatsApp message.",
        "\u2022 Papa wrote on WhatsApp at 09:02: \u201cLanded\u201d.",
        "\u2022 Tomas Herrera emailed you at 08:01: \u201cQ3 VAT return\u201d.",
    ]


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("# Title #", "Title"),
        ("> quoted **bold**", "quoted bold"),
        ("1. first\n2. second", "1. first\n2. second"),
        ("* [x] done", "• done"),
        ("![logo](a.png) and <https://example.com>", "logo and https://example.com"),
        ("```python\nprint('hi')\n```", "print('hi')"),
        ("keep snake_case_names and 2 * 3 * 4", "keep snake_case_names and 2 * 3 * 4"),
        ("__strong__ and _em_ and ***both***", "strong and em and both"),
        ("text\n\n---\n\nmore", "text\nmore"),
        (
            "said \u201csee \\*this\\* \\[x\\](y) a\\_b\u201d",
            "said \u201csee *this* [x](y) a_b\u201d",
        ),
    ],
)
def test_strip_markdown(markdown: str, plain: str):
    assert strip_markdown(markdown) == plain


def test_long_body_is_cut_on_a_word_boundary_with_an_ellipsis():
    words = [f"word{i}" for i in range(80)]
    body = toast_for(reply(" ".join(words), note(1, "email", "A"))).body
    assert len(body) <= 200
    assert body.endswith("…")
    assert body[:-1].split()[-1] in words
    assert shorten("short", 200) == "short"


def test_empty_wording_falls_back_to_the_summaries_and_plain_replies_say_tic():
    t = toast_for(reply("", note(1, "whatsapp", "Marco", summary="Marco asked about dinner.")))
    assert t.body == "Marco asked about dinner."
    plain = toast_for(reply("Done: the file is saved.", message_id=3))
    assert (plain.title, plain.body) == ("TIC", "Done: the file is saved.")
    assert plain.notification_ids == []


def test_summary_counts_notifications_and_lists_titles():
    held = [
        toast(1, "Email from Marco"),
        toast(2, "Email from Marco"),
        toast(3, "2 notifications · Email, WhatsApp", nids=[7, 8]),
    ]
    s = summary_for(held)
    assert s.title == "While you were away: 4 notifications"
    assert s.body == "Email from Marco (×2); 2 notifications · Email, WhatsApp"
    assert (s.message_id, s.notification_ids) == (3, [1, 2, 7, 8])
    assert summary_for([toast(5)]).title == "While you were away: 1 notification"
    many = summary_for([toast(i, f"Email from P{i}") for i in range(1, 8)])
    assert many.body.split("; ") == [f"Email from P{i}" for i in (1, 2, 3)] + ["and 4 more"]


# -- pause and quiet hours (no D-Bus: native off, no tray → channel "chat") ------------------


def test_is_quiet_follows_the_configured_hours(qapp):
    notifier = Notifier(use_native=False)
    assert not notifier.is_quiet(datetime(2025, 3, 14, 23))
    notifier.set_quiet_hours(time(22), time(7))
    assert notifier.quiet_hours == (time(22), time(7))
    assert notifier.is_quiet(datetime(2025, 3, 14, 23))
    assert notifier.is_quiet(datetime(2025, 3, 15, 6, 30))
    assert not notifier.is_quiet(datetime(2025, 3, 15, 7, 0))
    notifier.set_quiet_hours(None, None)
    assert not notifier.is_quiet(datetime(2025, 3, 14, 23))


async def test_pause_holds_toasts_and_resume_sends_one_summary(qapp):
    notifier = Notifier(use_native=False)
    seen = Recorder(notifier)
    notifier.pause()
    assert notifier.paused and notifier.paused_until is None
    assert [await notifier.show(toast(i)) for i in (1, 2, 3)] == ["held"] * 3
    assert seen.delivered == []
    assert [t.message_id for t in notifier.held] == [1, 2, 3]

    notifier.resume()
    await until(lambda: bool(seen.delivered))
    assert [(t.title, channel) for t, channel in seen.delivered] == [
        ("While you were away: 3 notifications", "chat")
    ]
    assert seen.delivered[0][0].message_id == 3
    assert notifier.held == [] and not notifier.paused
    assert await notifier.flush_held() is None
    assert await notifier.show(toast(4)) == "chat"


async def test_pause_until_ends_by_the_clock_and_the_next_show_sends_the_summary_first(qapp):
    clock = Clock(datetime(2025, 3, 14, 10, 0))
    notifier = Notifier(use_native=False, clock=clock)
    seen = Recorder(notifier)
    notifier.pause(until=datetime(2025, 3, 14, 11, 0))
    assert notifier.paused_until is not None
    assert notifier.paused_until.replace(tzinfo=None) == datetime(2025, 3, 14, 11, 0)
    assert await notifier.show(toast(1)) == "held"
    assert await notifier.flush_held() is None  # still paused

    clock.now = datetime(2025, 3, 14, 11, 0, 1)
    assert notifier.paused_until is None and not notifier.paused
    assert await notifier.show(toast(2, "WhatsApp from Marco")) == "chat"
    assert [t.title for t, _ in seen.delivered] == [
        "While you were away: 1 notification",
        "WhatsApp from Marco",
    ]


async def test_quiet_hours_hold_until_the_window_ends(qapp):
    clock = Clock(datetime(2025, 3, 14, 23, 15))
    notifier = Notifier(use_native=False, clock=clock)
    seen = Recorder(notifier)
    notifier.set_quiet_hours(time(22), time(7))
    assert await notifier.show(toast(1, "Email from Tomas Herrera")) == "held"
    clock.now = datetime(2025, 3, 15, 3, 0)
    assert await notifier.show(toast(2, "WhatsApp from Marco")) == "held"
    assert await notifier.flush_held() is None

    clock.now = datetime(2025, 3, 15, 7, 0)
    assert await notifier.flush_held() == "chat"
    ((summary, _),) = seen.delivered
    assert summary.title == "While you were away: 2 notifications"
    assert summary.body == "Email from Tomas Herrera; WhatsApp from Marco"
    assert summary.message_id == 2
    assert await notifier.flush_held() is None


def test_quiet_hours_end_is_noticed_by_the_timer(qapp, run):
    clock = Clock(datetime(2025, 3, 14, 23, 0))
    notifier = Notifier(use_native=False, clock=clock, check_interval_ms=30)
    seen = Recorder(notifier)
    notifier.set_quiet_hours(time(22), time(7))

    checks: list[None] = []
    notifier._check_timer.timeout.connect(lambda: checks.append(None))  # after its own check

    async def scenario() -> None:
        assert await notifier.show(toast(1)) == "held"
        await until(lambda: len(checks) >= 3)  # the timer looked three times, in quiet hours
        assert seen.delivered == []
        clock.now = datetime(2025, 3, 15, 7, 1)
        await until(lambda: bool(seen.delivered))
        await notifier.aclose()

    run(scenario())
    assert [t.title for t, _ in seen.delivered] == ["While you were away: 1 notification"]


# -- real D-Bus: private bus + fake notification server, Notifier on qasync ----------------


def test_native_toast_reaches_the_notification_server(fake_server, native, run):
    t = toast_for(reply("**Tomas** sent the invoice.", note(4, "email", "Tomas Herrera")))
    assert run(native.show(t)) == "native"
    (sent,) = fake_server.wait_for_notifications(1)
    assert sent["app_name"] == "TIC"
    assert sent["summary"] == "Email from Tomas Herrera"
    assert sent["body"] == "Tomas sent the invoice."
    assert sent["actions"] == [
        *("default", "", "open", "Open", "later", LATER_LABEL, "mute", MUTE_LABEL)
    ]


def test_mute_action_emits_mute_requested_for_that_toast(fake_server, native, run):
    seen = Recorder(native)
    assert run(native.show(toast(7))) == "native"
    assert run(native.show(toast(8))) == "native"
    first, _second = fake_server.wait_for_notifications(2)

    fake_server.invoke(first["id"], "mute")
    run(until(lambda: bool(seen.muted)))
    assert (seen.muted, seen.opened) == ([7], [])


@pytest.mark.parametrize("action_key", ["default", "open"])
def test_clicking_the_toast_or_open_emits_open_requested(fake_server, native, run, action_key):
    seen = Recorder(native)
    run(native.show(toast(5)))
    run(native.show(toast(6)))
    _, second = fake_server.wait_for_notifications(2)

    fake_server.invoke(second["id"], action_key)
    run(until(lambda: bool(seen.opened)))
    assert (seen.opened, seen.muted) == ([6], [])


def test_body_is_escaped_only_for_servers_that_read_markup(bus_session, run):
    for capabilities, expected in [
        (("actions", "body", "body-markup"), "Q&amp;A &lt;draft&gt;"),
        (("actions", "body"), "Q&A <draft>"),
    ]:
        server = bus_session.start_fake_notifications(
            record=bus_session.tmp / f"{len(capabilities)}.jsonl", capabilities=capabilities
        )
        notifier = Notifier()
        try:
            assert run(notifier.show(Toast("Email", "Q&A <draft>", 1, [1]))) == "native"
        finally:
            run(notifier.aclose())
            server.stop()
        assert server.notifications()[0]["body"] == expected


def test_summary_after_a_timed_pause_is_one_native_toast_that_opens_the_chat(
    fake_server, native, run
):
    seen = Recorder(native)

    async def scenario() -> None:
        native.pause(until=datetime.now() + timedelta(milliseconds=300))
        assert await native.show(toast(11, "Email from Tomas Herrera")) == "held"
        assert await native.show(toast(12, "WhatsApp from Marco")) == "held"
        await until(lambda: bool(seen.delivered))  # the pause timer fired on the Qt loop

    run(scenario())
    (summary,) = fake_server.wait_for_notifications(1)
    assert summary["summary"] == "While you were away: 2 notifications"
    assert summary["body"] == "Email from Tomas Herrera; WhatsApp from Marco"
    assert summary["actions"] == ["default", "", "open", "Open"]

    fake_server.invoke(summary["id"], "default")
    run(until(lambda: bool(seen.opened)))
    assert seen.opened == [12]


@pytest.mark.allow_log_warnings  # desktop-notifier logs "Notification failed" itself
def test_server_going_away_falls_back_to_the_chat(fake_server, native, run):
    assert run(native.show(toast(1))) == "native"
    fake_server.stop()
    assert run(native.show(toast(2))) == "chat"
    assert run(native.show(toast(3))) == "chat"


def test_without_a_notification_server_show_falls_back_to_tray_or_chat(
    bus_session, run, caplog: pytest.LogCaptureFixture
):
    assert not bus_session.has_name("org.freedesktop.Notifications")
    tray = tray_icon()
    with_tray = Notifier(tray=tray)
    seen = Recorder(with_tray)
    chat_only = Notifier()
    try:
        assert run(with_tray.show(toast(21))) == "tray"
        assert run(with_tray.show(toast(22))) == "tray"
        assert run(chat_only.show(toast(23))) == "chat"
    finally:
        run(with_tray.aclose())
        run(chat_only.aclose())

    tray.messageClicked.emit()
    assert seen.opened == [22]
    unavailable = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert [r.levelno for r in unavailable] == [logging.INFO, logging.INFO]  # once per notifier
    tray.hide()


def test_without_any_session_bus_show_returns_chat(run, monkeypatch, tmp_path):
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path}/no-bus")
    notifier = Notifier()
    try:
        assert run(notifier.show(toast(1))) == "chat"
    finally:
        run(notifier.aclose())


def test_native_toast_is_displayed_by_dunst_on_a_virtual_display(run):
    needs("Xvfb", "dbus-daemon", "dunst", "dunstctl")
    with isolated_session() as session, session.applied():
        session.start_dunst()
        notifier = Notifier()
        try:
            assert run(notifier.show(toast(1, "Email from Tomas Herrera"))) == "native"
        finally:
            run(notifier.aclose())
        assert session.dunst_displayed() == 1


def test_a_toast_carries_tics_icon(fake_server, run, tmp_path):
    icon = write_app_icon(tmp_path / "cache" / "tic-icon.png")
    assert QtGui.QImage(str(icon)).width() == 128  # a real PNG
    notifier = Notifier("TIC", icon=icon)
    try:
        assert run(notifier.show(toast(1))) == "native"
    finally:
        run(notifier.aclose())
    (sent,) = fake_server.wait_for_notifications(1)
    assert sent["app_icon"] == icon.as_uri()


def test_the_app_draws_the_toasts_icon_into_its_workspace(qapp, tmp_path):
    app = DesktopApp.__new__(DesktopApp)  # only the method under test
    app.workspace = Workspace.open(tmp_path / "home")
    icon = app._toast_icon()
    assert icon == tmp_path / "home" / "cache" / "tic-icon.png" and icon.stat().st_size > 0


def test_dunst_shows_the_toast_with_tics_icon(run, tmp_path):
    needs("Xvfb", "dbus-daemon", "dunst", "dunstctl")
    icon = write_app_icon(tmp_path / "tic-icon.png")
    with isolated_session() as session, session.applied():
        session.start_dunst()
        notifier = Notifier(icon=icon)
        try:
            assert run(notifier.show(toast(1, "Email from Tomas Herrera"))) == "native"
        finally:
            run(notifier.aclose())
        session.run(["dunstctl", "close-all"])  # closed toasts are what its history lists
        (shown,) = session.dunst_history()
    assert shown["summary"] == "Email from Tomas Herrera"
    assert shown["icon_path"] == str(icon)


def test_session_starts_display_bus_and_tray_and_leaves_nothing_behind():
    needs("Xvfb", "dbus-daemon", "dbus-send", "trayer", "xdotool")
    with isolated_session() as session:
        assert session.display and session.display.startswith(":")
        assert session.bus_address and session.bus_address.startswith("unix:")
        assert session.env["DISPLAY"] == session.display
        session.start_trayer()
        server = session.start_fake_notifications()
        assert session.has_name("org.freedesktop.Notifications")
        pids = [p.pid for p in session._procs]
        before = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        with session.applied():
            assert os.environ["DBUS_SESSION_BUS_ADDRESS"] == session.bus_address
        assert os.environ.get("DBUS_SESSION_BUS_ADDRESS") == before
        assert server.proc.pid in pids and len(pids) == 4
        tmp = session.tmp
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)
    assert not tmp.exists()


# -- reminders through a pause, what the summary names, "Remind me in 1 hour" ---------------


def reminder(nid: int, text: str) -> DeliveredNotification:
    return replace(note(nid, "cron", summary=f"Reminder: {text}"), event_type="cron.reminder")


def test_the_summary_names_what_was_held():
    held = [
        toast_for(reply("x", reminder(1, "Call Mario"), message_id=1)),
        *(toast_for(reply("x", note(i, "whatsapp", "Anna"), message_id=i)) for i in range(2, 6)),
        toast_for(reply("x", note(6, "whatsapp", "Anna"), note(7, "email", "T <t@x.org>"))),
        toast_for(reply("x", reminder(8, "Pay rent"), message_id=8)),
    ]
    s = summary_for(held)
    assert s.title == "While you were away: 8 notifications"
    assert s.body == "2 reminders: Call Mario, Pay rent; 5 messages from Anna; 1 email from T"
    assert (s.message_id, s.notification_ids) == (8, [1, 2, 3, 4, 5, 6, 7, 8])
    calendar = toast_for(reply("x", note(9, "calendar", summary="Design review moved.")))
    assert summary_for([calendar]).body == "1 calendar change: Design review moved."


async def test_reminders_the_user_set_come_through_a_pause_the_rest_waits(qapp):
    notifier = Notifier(use_native=False)
    seen = Recorder(notifier)
    notifier.pause()
    assert notifier.reminders_through  # the default
    alone = toast_for(reply("Call Mario now.", reminder(1, "Call Mario"), message_id=1))
    assert await notifier.show(alone) == "chat"
    mixed = reply("Two things.", note(2, "whatsapp", "Anna"), reminder(3, "Pay rent"))
    assert await notifier.show(toast_for(mixed)) == "chat"
    again = replace(note(4, "email", "Tomas Herrera"), refs={"again": "later:1:x:0"})
    assert await notifier.show(toast_for(reply("x", again, message_id=4))) == "chat"
    task = replace(note(5, "cron", summary="Scheduled task: done"), event_type="cron.task")
    assert await notifier.show(toast_for(reply("x", task, message_id=5))) == "held"

    shown = [(t.title, t.body) for t, _ in seen.delivered]
    assert shown == [
        ("Reminder: Call Mario", "Call Mario now."),
        ("Reminder: Pay rent", "Pay rent"),  # out of its reply; Anna's message waits
        ("Reminder: Email from Tomas Herrera", "x"),
    ]
    notifier.resume()
    await until(lambda: len(seen.delivered) == 4)
    summary, _ = seen.delivered[-1]
    assert summary.body == "1 message from Anna; 1 notification (Reminder)"
    assert summary.notification_ids == [2, 5]


async def test_with_the_setting_off_reminders_wait_like_the_rest(qapp):
    notifier = Notifier(use_native=False)
    seen = Recorder(notifier)
    notifier.reminders_through = False
    notifier.pause()
    assert await notifier.show(toast_for(reply("x", reminder(1, "Call Mario")))) == "held"
    notifier.resume()
    await until(lambda: bool(seen.delivered))
    ((summary, _),) = seen.delivered
    assert summary.body == "1 reminder: Call Mario"


def test_later_action_emits_later_requested_for_that_toast(fake_server, native, run):
    seen: list[int] = []
    native.laterRequested.connect(seen.append)
    assert run(native.show(toast(9))) == "native"
    (sent,) = fake_server.wait_for_notifications(1)

    fake_server.invoke(sent["id"], "later")

    run(until(lambda: bool(seen)))
    assert seen == [9]
