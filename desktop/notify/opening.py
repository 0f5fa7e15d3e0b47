""" "Open" on a notification (its toast, or the button under its reply in the chat): the
message in its own place, through the app's one :class:`~desktop.system.opener.Opener` — the
Gmail thread or the calendar event in the browser, the WhatsApp chat, the email in the mail
program that takes ``mid:`` links. Where there is none (a group chat, no such mail program),
TIC shows the message as it stored it; a reminder, or a reply about several messages opened
from its toast, shows the chat at that reply. The engine marks the reply read."""

from __future__ import annotations

import logging
from typing import Any, Literal

from desktop.qt import Qt, QtGui, QtWidgets
from desktop.system.opener import Opener
from engine.engine import Place
from engine.errors import TicError

log = logging.getLogger(__name__)

Opened = Literal["url", "text", "chat", "menu", "none"]


class MessageView(QtWidgets.QDialog):
    """A message as TIC stored it, in plain text (what a sender wrote is never markup)."""

    def __init__(self, place: Place, note: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(place.title)
        self.resize(480, 360)
        layout = QtWidgets.QVBoxLayout(self)
        if note:
            hint = QtWidgets.QLabel(note)
            hint.setWordWrap(True)
            hint.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(hint)
        self.text = QtWidgets.QPlainTextEdit(place.text or "")
        self.text.setReadOnly(True)
        layout.addWidget(self.text, 1)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)


def _no_program_note(place: Place) -> str:
    if place.url and place.url.startswith("mid:"):
        return "No mail program here opens an email by its Message-ID; this is it as TIC read it."
    if place.url:
        return "This could not be opened here; this is it as TIC read it."
    return ""


def open_place(app: Any, place: Place) -> Opened:
    """Open one message: its URL where a program takes it, else TIC's view of it."""
    opener: Opener = app.opener
    if place.url and opener.can_open(place.url):
        if opener.open(place.url):
            return "url"
        log.info("the system could not open %s", place.label.lower())
    if place.text:
        view = MessageView(place, _no_program_note(place))
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        view.show()
        view.raise_()
        app.message_view = view
        return "text"
    if place.message_id is not None:
        app.show_chat_at(place.message_id)
        return "chat"
    return "none"


def choose_place(app: Any, places: list[Place]) -> QtWidgets.QMenu:
    """A menu at the pointer naming each message of a reply; the one chosen is opened. It
    pops up and returns at once: no nested event loop under the app's asyncio loop."""
    menu = QtWidgets.QMenu(app.chat)
    for index, place in enumerate(places):
        menu.addAction(f"{place.title} — {place.label}").setData(index)
    menu.triggered.connect(lambda action: open_place(app, places[action.data()]))
    menu.popup(QtGui.QCursor.pos())
    app.place_menu = menu
    return menu


def open_reply(app: Any, message_id: int, *, choose: bool = False) -> Opened:
    """ "Open" on the reply ``message_id``. A reply about one message opens it; about
    several, the chat at the reply from a toast, or (``choose``, the chat's button) a menu
    of them to pick from. Returns how it was opened."""
    try:
        places = app.engine.open_notification(message_id)
    except TicError as exc:
        app.chat.set_status(str(exc), False)
        return "none"
    if app.tray.state == "unread":
        app.tray.set_state("idle")
    if len(places) == 1:
        return open_place(app, places[0])
    if choose:
        choose_place(app, places)
        return "menu"
    app.show_chat_at(message_id)
    return "chat"
