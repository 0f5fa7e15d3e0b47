"""The tray app. ``tic-desktop`` with no arguments lands here: one instance per user, the
engine on a qasync loop inside a PySide6 application, the bus adapted to Qt signals."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import traceback
from collections.abc import Coroutine
from datetime import datetime, time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

from desktop import welcome
from desktop.gc_guard import MainThreadCollector
from desktop.qt import QtCore, QtWidgets
from desktop.xdg import APP_ID
from engine import ipc
from engine.bus import ReplyFinished, TickFinished, TurnFailed
from engine.core import Engine, load_model_or_stand_in
from engine.errors import ModelError, TicError
from engine.events import parse_event
from engine.history import history_rows
from engine.logsetup import setup_logging
from engine.settings import Settings
from engine.tic import ingest
from engine.workspace import Workspace

log = logging.getLogger("desktop")
ACCOUNT_CHECK_MS = 30_000  # how often the tray looks for accounts that need signing in again


def _hhmm(value: str | None) -> time | None:
    return time.fromisoformat(value) if value else None


class DesktopApp(QtCore.QObject):
    """Owns the engine and the windows for the lifetime of the process."""

    def __init__(self, workspace: Workspace, model_path: str | None, log_path: Path):
        super().__init__()
        self.workspace = workspace
        self.model_path = model_path
        self.log_path = log_path
        self.settings = Settings.load(workspace.settings_file)
        self.quit_requested = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.toast_channels: list[str] = []
        self.model_error: str | None = None
        self.model_ready = False  # loaded, or given up on (model_error says why)
        self.account_problem: str | None = None
        self.base_status = ""  # what the chat's status line shows when nothing is going on

    # background tasks with strong references and names ------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None and not isinstance(exc, TicError):
            log.error("task %s failed", task.get_name(), exc_info=exc)
            show_crash_dialog(exc, self.log_path)

    # start ------------------------------------------------------------------------------

    async def start(self) -> None:
        from desktop.bridge import EngineBridge
        from desktop.chat_window import ChatWindow
        from desktop.notifier import Notifier
        from desktop.tray import TrayController

        model, self.model_error = load_model_or_stand_in(
            self.workspace, self.settings, self.model_path
        )
        self.engine = Engine(self.workspace, self.settings, model)
        self.bridge = EngineBridge(self.engine.bus, self)
        self.chat = ChatWindow()
        self.chat.load_history(history_rows(200))
        self.first_start = welcome.is_first_start(self.workspace)
        if self.first_start:
            self.chat.pin_welcome()
        self.chat.installEventFilter(self)
        self.tray = TrayController(self)
        self.chat.setWindowIcon(self.tray.app_icon())
        self.notifier = Notifier(
            app_name="TIC", tray=self.tray.icon if self.tray.available else None
        )
        self.notifier.set_quiet_hours(
            _hhmm(self.settings.quiet_hours_start), _hhmm(self.settings.quiet_hours_end)
        )
        self._wire()
        self.ipc = ipc.IpcServer(self.workspace, self.handle_request)
        await self.ipc.start()
        self.tray.show()
        self._pause_sync = QtCore.QTimer(self)
        self._pause_sync.timeout.connect(
            lambda: self.tray.set_paused(self.notifier.paused, self.notifier.paused_until)
        )
        self._pause_sync.start(30_000)
        if not self.tray.available:
            self.base_status = "No system tray here: TIC runs in this window (closing it quits)."
            self.chat.set_status(self.base_status, False)
            self.chat.show()
        if self.first_start:
            self.show_chat()  # once: the welcome says what TIC is and how to start
            self._remember_first_start()
        await self.engine.start(schedule=True)
        self._watch_accounts()
        if self.model_error:
            self.tray.set_state("error", self.model_error)
            self.model_ready = True
        else:
            self.spawn(self._load_model(), "load-model")

    def _remember_first_start(self) -> None:
        try:
            welcome.remember_first_start(self.workspace)
        except OSError as exc:
            log.warning("cannot remember that the welcome was shown: %s", exc)

    def _wire(self) -> None:
        b, chat, tray = self.bridge, self.chat, self.tray
        b.replyStarted.connect(chat.on_reply_started)
        b.replyToken.connect(chat.on_reply_token)
        b.replyFinished.connect(chat.on_reply_finished)
        b.replyFinished.connect(self._on_reply_finished)
        b.turnFailed.connect(chat.on_turn_failed)
        b.toolCalled.connect(chat.on_tool_called)
        b.userMessageAdded.connect(lambda ev: chat.add_user_message(ev.text))
        b.turnFailed.connect(self._on_turn_failed)
        b.tickStarted.connect(lambda _ev: tray.set_state("checking"))
        b.tickFinished.connect(self._on_tick_finished)
        chat.sendRequested.connect(self._on_send)
        chat.welcomeLinkActivated.connect(self._on_welcome_link)
        tray.openChat.connect(self.show_chat)
        tray.checkNow.connect(lambda: self.spawn(self.check_now(), "check-now"))
        tray.pauseRequested.connect(self._pause)
        tray.resumeRequested.connect(self._resume)
        tray.openSettings.connect(self.open_settings)
        tray.editRules.connect(self.edit_rules)
        tray.quitRequested.connect(self.quit_requested.set)
        self.notifier.openRequested.connect(self.show_chat_at)
        self.notifier.muteRequested.connect(
            lambda message_id: self.spawn(self.engine.hub.mute(message_id), "mute")
        )

    def _watch_accounts(self) -> None:
        self.accounts_timer = QtCore.QTimer(self)
        self.accounts_timer.setInterval(ACCOUNT_CHECK_MS)
        self.accounts_timer.timeout.connect(self.check_accounts)
        self.accounts_timer.start()
        self.check_accounts()

    def check_accounts(self) -> None:
        """An account that needs signing in again turns the tray to error, with its name."""
        from desktop.accounts_page import sign_in_problem
        from engine.accounts import states

        previous = self.account_problem
        self.account_problem = sign_in_problem(states(self.engine.settings.accounts))
        if self.account_problem and not self.model_error:
            self.tray.set_state("error", self.account_problem)
        elif previous and self.tray.state == "error" and self.tray.error == previous:
            self.tray.set_state("idle")

    async def _load_model(self) -> None:
        self.model_ready = False
        self.chat.set_status(f"Loading model {self.engine.model.name}…", True)
        try:
            await self.engine.model.load()
        except ModelError as exc:
            self.model_error = str(exc)
            self.tray.set_state("error", str(exc))
            self.chat.set_status(str(exc), False)
            return
        finally:
            self.model_ready = True
        self.chat.set_status(self.base_status, False)

    # reactions --------------------------------------------------------------------------

    def _on_send(self, text: str) -> None:
        self.chat.add_user_message(text)
        self.spawn(self._send(text), "user-turn")

    async def _send(self, text: str) -> None:
        with contextlib.suppress(TicError):  # TurnFailed already shows it in the chat
            await self.engine.hub.send(text)

    def _on_reply_finished(self, ev: ReplyFinished) -> None:
        if ev.kind != "notification":
            return
        if not (self.chat.isVisible() and self.chat.isActiveWindow()):
            self.tray.set_state("unread")
        from desktop.notifier import toast_for

        self.spawn(self._toast(toast_for(ev)), "toast")

    async def _toast(self, toast: Any) -> None:
        channel = await self.notifier.show(toast)
        self.toast_channels.append(channel)

    def _on_turn_failed(self, ev: TurnFailed) -> None:
        if "model" in ev.error.lower():
            self.tray.set_state("error", ev.error)

    def _on_tick_finished(self, ev: TickFinished) -> None:
        if ev.error:
            self.tray.set_state("error", f"checking failed: {ev.error}")
        elif ev.failed:
            self.tray.set_state(
                "error", f"{ev.failed} message(s) could not be checked; see {self.log_path}"
            )
        elif self.tray.state == "checking":
            self.tray.set_state("idle")

    def _pause(self, until: datetime | None) -> None:
        self.notifier.pause(until)
        self.tray.set_paused(True, until)

    def _resume(self) -> None:
        self.notifier.resume()
        self.tray.set_paused(False)

    def show_chat(self) -> None:
        self.chat.show()
        self.chat.raise_()
        self.chat.activateWindow()
        if self.tray.state == "unread":
            self.tray.set_state("idle")

    def show_chat_at(self, message_id: int) -> None:
        self.show_chat()
        self.chat.show_message(message_id)

    async def check_now(self) -> dict[str, Any]:
        result = await self.engine.tic.tick()
        await self.engine.hub.drain(timeout=600)
        return {
            "ok": result.error is None,
            "events": result.events,
            "notified": result.notified,
            "skipped": result.skipped,
            "error": result.error,
        }

    def _on_welcome_link(self, link: str) -> None:
        if link == welcome.ACCOUNTS_LINK:
            self.open_settings(accounts=True)
        elif link == welcome.RULES_LINK:
            self.edit_rules()

    def edit_rules(self) -> None:
        """Open data/notifications.md in the user's editor; if none opens, say where it is."""
        from desktop.rules_editor import open_rules_file

        self.workspace.ensure()  # recreates the file from the template if it was deleted
        error = open_rules_file(self.workspace.rules_file)
        if error is None:
            return
        log.info("%s", error)
        box = QtWidgets.QMessageBox()
        box.setIcon(QtWidgets.QMessageBox.Icon.Information)
        box.setWindowTitle("Notification rules")
        box.setText(error)
        box.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()
        self._rules_box = box

    def open_settings(self, accounts: bool = False) -> None:
        from desktop.accounts_page import AccountsPage
        from desktop.settings_dialog import SettingsDialog

        accounts_page = AccountsPage(self.engine, self.spawn)
        accounts_page.refreshed.connect(self.check_accounts)
        dialog = SettingsDialog(
            self.engine.settings,
            parent=None,
            accounts_page=accounts_page,
            rules_file=self.workspace.rules_file,
        )
        if accounts:
            dialog.tabs.setCurrentWidget(accounts_page)
        dialog.settingsAccepted.connect(
            lambda new: self.spawn(self.apply_settings(new), "apply-settings")
        )
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        dialog.raise_()
        self._settings_dialog = dialog

    async def apply_settings(self, new: Settings) -> None:
        from desktop.autostart import set_start_on_login
        from desktop.xdg import launch_command

        old = self.engine.settings
        # Accounts are saved as they are connected; keep them, not the dialog's stale copy.
        new = new.model_copy(update={"accounts": old.accounts})
        new.save(self.workspace.settings_file)
        self.engine.settings = new
        self.engine.tic.set_interval(new.tick_interval_minutes)
        self.notifier.set_quiet_hours(_hhmm(new.quiet_hours_start), _hhmm(new.quiet_hours_end))
        if new.start_on_login != old.start_on_login:
            try:
                set_start_on_login(new.start_on_login, launch_command())
            except Exception as exc:
                self.chat.set_status(f"Start on login: {exc}", False)
        if new.model_path != old.model_path:
            model, error = load_model_or_stand_in(self.workspace, new, None)
            await self.engine.swap_model(model)
            self.model_error = error
            if error:
                self.tray.set_state("error", error)
            else:
                self.tray.set_state("idle")
                await self._load_model()

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.chat and event.type() == QtCore.QEvent.Type.Close:
            if self.tray.available:
                self.chat.hide()
                event.ignore()
                return True
            self.quit_requested.set()
        return False

    # the single-instance channel --------------------------------------------------------

    async def handle_request(self, request: dict[str, Any]) -> dict[str, Any]:
        cmd = request.get("cmd")
        if cmd == "ping":
            return {"ok": True, "pid": os.getpid()}
        if cmd == "show":
            self.show_chat()
            return {"ok": True}
        if cmd == "tick":
            return await self.check_now()
        if cmd == "ingest":
            events = [parse_event(obj) for obj in request.get("events", [])]
            added = ingest(events)
            return {"ok": True, "added": added, "known": len(events) - added}
        if cmd == "status":
            return self.status()
        if cmd == "screenshot":
            ok = self.chat.grab().save(str(request["path"]))
            return {"ok": bool(ok)}
        if cmd == "quit":
            self.quit_requested.set()
            return {"ok": True}
        return {"ok": False, "error": f"unknown command {cmd!r}"}

    def status(self) -> dict[str, Any]:
        return {
            "ok": True,
            "window_visible": self.chat.isVisible(),
            "tray_available": self.tray.available,
            "tray_visible": self.tray.icon.isVisible(),
            "tray_geometry": self.tray.geometry().getRect(),
            "tray_state": self.tray.state,
            "tooltip": self.tray.tooltip(),
            "toasts": list(self.toast_channels),
            "messages": self.chat.message_ids(),
            "model_error": self.model_error,
            "model_ready": self.model_ready,
            "chat_status": self.chat.status_text(),
            "first_start": self.first_start,
            "welcome_visible": self.chat.welcome_visible(),
        }

    # quit -------------------------------------------------------------------------------

    async def run(self) -> None:
        """The app's whole life in one coroutine, so one loop run owns every task."""
        await self.start()
        await self.quit_requested.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        """Stop taking requests, stop the schedules, let in-flight work settle, close."""
        await self.ipc.stop()
        self.accounts_timer.stop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.engine.stop()
        self.bridge.detach()
        self.tray.icon.hide()


_crash_shown = False


def show_crash_dialog(exc: BaseException, log_path: Path) -> None:
    """An unexpected error is logged and shown, never a silent exit."""
    global _crash_shown
    log.critical("unexpected error", exc_info=exc)
    if _crash_shown or QtWidgets.QApplication.instance() is None:
        return
    _crash_shown = True
    box = QtWidgets.QMessageBox()
    box.setIcon(QtWidgets.QMessageBox.Icon.Critical)
    box.setWindowTitle("TIC hit an unexpected error")
    box.setText(f"{type(exc).__name__}: {exc}")
    box.setInformativeText(f"TIC keeps running. Details are in {log_path}.")
    box.setDetailedText("".join(traceback.format_exception(exc)))
    box.open()
    box.finished.connect(lambda _r: globals().__setitem__("_crash_shown", False))


def main(home: Path | None = None, model_path: str | None = None, verbose: bool = False) -> int:
    workspace = Workspace.open(home)
    if ipc.app_running(workspace):
        ipc.request(workspace, {"cmd": "show"}, timeout=10)
        print("TIC is already running; its window was brought forward.")
        return 0
    log_path = setup_logging(workspace, verbose)
    import qasync

    qapp = QtWidgets.QApplication.instance() or QtWidgets.QApplication([APP_ID])
    qapp.setApplicationName("TIC")
    qapp.setDesktopFileName(APP_ID)  # the menu entry: its icon and name on Wayland
    qapp.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    sys.excepthook = lambda t, e, tb: show_crash_dialog(e, log_path)
    loop.set_exception_handler(
        lambda _l, ctx: show_crash_dialog(
            ctx.get("exception") or RuntimeError(ctx.get("message", "error")), log_path
        )
    )
    collector = MainThreadCollector(qapp)
    app = DesktopApp(workspace, model_path, log_path)
    with loop:
        try:
            loop.run_until_complete(app.run())
        except TicError as exc:
            print(f"tic-desktop: error: {exc}", file=sys.stderr)
            return 1
    collector.stop()
    log.info("TIC quit cleanly")
    return 0
