"""The app's one opener: the web always opens, another scheme (``mid:``) only where a program
registered for it (asked of ``xdg-mime``, here a stand-in script on PATH), and what it opens
goes through Qt's QDesktopServices (caught with a URL handler). The chat's "Open" under a
reply about several messages offers each of them."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktop.chat.window import ChatWindow
from desktop.notify.opening import open_reply
from desktop.qt import QtCore, QtGui, Slot
from desktop.system.opener import Opener, scheme_handler
from engine.bus import DeliveredNotification, ReplyFinished, ReplyStarted
from engine.engine import Place


@pytest.fixture
def xdg_mime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An ``xdg-mime`` that knows a handler for ``mid:`` links only."""
    script = tmp_path / "bin" / "xdg-mime"
    script.parent.mkdir()
    script.write_text(
        '#!/bin/sh\n[ "$3" = "x-scheme-handler/mid" ] && echo thunderbird.desktop\nexit 0\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    return script


def test_the_web_opens_and_mid_only_where_a_mail_program_takes_it(xdg_mime, monkeypatch):
    opener = Opener()
    assert opener.can_open("https://mail.google.com/mail/u/0/#all/t1")
    assert scheme_handler("mid") == "thunderbird.desktop"
    assert opener.can_open("mid:vat-42@ltx9.example")
    assert not opener.can_open("news:comp.lang.python")
    monkeypatch.setenv("PATH", "/nonexistent")  # no xdg-utils at all
    assert not opener.can_open("mid:vat-42@ltx9.example")
    assert opener.can_open("https://wa.me/393331234567")


class Catcher(QtCore.QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QtCore.QUrl)
    def catch(self, url: QtCore.QUrl) -> None:
        self.urls.append(url.toString())


def test_open_hands_the_url_to_qt(qapp):
    catcher = Catcher()
    QtGui.QDesktopServices.setUrlHandler("https", catcher, "catch")
    try:
        assert Opener().open("https://wa.me/393331234567")
    finally:
        QtGui.QDesktopServices.unsetUrlHandler("https")
    assert catcher.urls == ["https://wa.me/393331234567"]


class Recording(Opener):
    def __init__(self) -> None:
        self.opened: list[str] = []

    def can_open(self, url: str) -> bool:
        return url.startswith("https:")

    def open(self, url: str) -> bool:
        self.opened.append(url)
        return True


def test_the_chats_open_under_a_reply_about_several_messages_offers_each(qtbot):
    chat = ChatWindow()
    qtbot.addWidget(chat)
    notes = [
        DeliveredNotification(1, "email", "email.received", "a", sender="Anna Berg"),
        DeliveredNotification(2, "whatsapp", "whatsapp.message", "b", sender="Marco"),
    ]
    chat.on_reply_started(ReplyStarted(1, "notification"))
    chat.on_reply_finished(ReplyFinished(1, 42, "Two things.", "notification", notes))
    places = [
        Place(1, 42, "Open the Gmail thread", "Email from Anna Berg", url="https://m.example/t"),
        Place(2, 42, "Show the message", "WhatsApp from Marco in Family", text="From: Marco"),
    ]
    opened: list[int] = []
    app = SimpleNamespace(
        engine=SimpleNamespace(
            open_notification=lambda message_id: opened.append(message_id) or places
        ),
        opener=Recording(),
        chat=chat,
        tray=SimpleNamespace(state="idle", set_state=lambda state: None),
        show_chat_at=lambda message_id: None,
    )
    chat.openRequested.connect(lambda message_id: open_reply(app, message_id, choose=True))
    (bubble,) = chat.bubbles()
    assert bubble.open_button.isVisibleTo(chat)

    bubble.open_button.click()

    assert opened == [42]
    menu = app.place_menu
    actions = menu.actions()
    assert [a.text() for a in actions] == [
        "Email from Anna Berg — Open the Gmail thread",
        "WhatsApp from Marco in Family — Show the message",
    ]
    menu.triggered.emit(actions[0])
    assert app.opener.opened == ["https://m.example/t"]
    menu.close()
