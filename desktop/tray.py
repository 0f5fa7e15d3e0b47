"""The tray icon and its menu. It shows state (idle, checking, unread, error, paused) with a
tooltip naming the error, and under it a standing note (rule lines TIC could not read);
clicking it opens the chat."""

from __future__ import annotations

from datetime import datetime, timedelta

from desktop.qt import QtCore, QtGui, QtWidgets, Signal
from desktop.widgets.icons import state_icon

TOOLTIPS = {
    "idle": "TIC — all quiet",
    "checking": "TIC — checking for new messages…",
    "unread": "TIC — you have a new notification",
    "paused": "TIC — notifications paused",
}


def until_text(until: datetime | None, now: datetime | None = None) -> str:
    """When a pause ends, as the tooltip says it: "until 14:30", "until 09:00 tomorrow",
    "until Fri 14 Nov, 09:00", or "until you turn them back on"."""
    if until is None:
        return "until you turn them back on"
    local = until.astimezone()
    today = (now or datetime.now().astimezone()).astimezone().date()
    if local.date() == today:
        return f"until {local:%H:%M}"
    if local.date() == today + timedelta(days=1):
        return f"until {local:%H:%M} tomorrow"
    return f"until {local:%a} {local.day} {local:%b}, {local:%H:%M}"


def tomorrow_morning(now: datetime, hour: int = 8) -> datetime:
    local = now.astimezone()
    target = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    return target if target > local and local.hour < hour else target + timedelta(days=1)


class TrayController(QtCore.QObject):
    openChat = Signal()
    checkNow = Signal()
    pauseRequested = Signal(object)  # datetime | None (None: until resumed)
    resumeRequested = Signal()
    openSettings = Signal()
    editRules = Signal()
    quitRequested = Signal()

    def __init__(self, parent: QtCore.QObject | None = None):
        super().__init__(parent)
        self.available = QtWidgets.QSystemTrayIcon.isSystemTrayAvailable()
        self.icon = QtWidgets.QSystemTrayIcon(self)
        self.state = "idle"
        self.error: str | None = None
        self.paused = False
        self.paused_until: datetime | None = None
        self.activity: str | None = None  # a second tooltip line: a model download
        self._passing = False  # the activity line is a failure, gone at the next check
        self.note: str | None = None
        self.menu = QtWidgets.QMenu()
        self._build_menu()
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self._render()

    def _build_menu(self) -> None:
        self.menu.addAction("Open chat", self.openChat.emit)
        self.check_action = self.menu.addAction("Check now", self.checkNow.emit)
        pause = self.menu.addMenu("Pause notifications")
        pause.addAction("For 1 hour", lambda: self._pause(timedelta(hours=1)))
        pause.addAction(
            "Until tomorrow morning",
            lambda: self.pauseRequested.emit(tomorrow_morning(datetime.now().astimezone())),
        )
        pause.addAction("Until I turn them back on", lambda: self.pauseRequested.emit(None))
        pause.addSeparator()
        self.resume_action = pause.addAction(
            "Turn notifications back on", self.resumeRequested.emit
        )
        self.menu.addSeparator()
        self.menu.addAction("Edit notification rules…", self.editRules.emit)
        self.menu.addAction("Settings…", self.openSettings.emit)
        self.menu.addSeparator()
        self.menu.addAction("Quit", self.quitRequested.emit)

    def _pause(self, delta: timedelta) -> None:
        self.pauseRequested.emit(datetime.now().astimezone() + delta)

    def _activated(self, reason: QtWidgets.QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QtWidgets.QSystemTrayIcon.ActivationReason.Trigger,
            QtWidgets.QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.openChat.emit()

    def show(self) -> None:
        if self.available:
            self.icon.show()

    def set_state(self, state: str, error: str | None = None) -> None:
        """idle | checking | unread | error (with its one-line reason). A check starting
        ends a passing activity line (an old failure)."""
        if state == "checking" and self._passing:
            self.activity, self._passing = None, False
        self.state = state
        self.error = error if state == "error" else None
        self._render()

    def set_paused(self, paused: bool, until: datetime | None = None) -> None:
        """Paused (``until`` a moment, or None: until resumed) or not."""
        self.paused = paused
        self.paused_until = until if paused else None
        self._render()

    def set_activity(self, text: str | None, *, passing: bool = False) -> None:
        """Something going on in the background, shown under the state (None: nothing).
        ``passing``: a failure, shown until the next check starts or ``end_passing``."""
        self.activity = text
        self._passing = passing and text is not None
        self._render()

    def end_passing(self) -> None:
        """Something succeeded: a passing activity line (an old failure) goes."""
        if self._passing:
            self.set_activity(None)

    def set_note(self, note: str | None) -> None:
        """A second tooltip line that stays whatever the state (None: none)."""
        self.note = note
        self._render()

    def tooltip(self) -> str:
        return self._state_tooltip() + (f"\n{self.note}" if self.note else "")

    def _state_tooltip(self) -> str:
        if self.state == "error":
            text = f"TIC — {self.error or 'something went wrong'}"
        elif self.paused and self.state == "idle":
            text = f"{TOOLTIPS['paused']} {until_text(self.paused_until)}"
        else:
            text = TOOLTIPS.get(self.state, "TIC")
        return f"{text}\n{self.activity}" if self.activity else text

    def _render(self) -> None:
        shown = "paused" if self.paused and self.state == "idle" else self.state
        self.icon.setIcon(state_icon(shown))
        self.icon.setToolTip(self.tooltip())
        self.resume_action.setEnabled(self.paused)

    def geometry(self) -> QtCore.QRect:
        return self.icon.geometry()

    def app_icon(self) -> QtGui.QIcon:
        return state_icon("idle")
