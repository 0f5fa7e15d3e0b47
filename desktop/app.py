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
from enum import StrEnum
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

from desktop.chat import welcome
from desktop.gc_guard import MainThreadCollector
from desktop.qt import QtCore, QtGui, QtWidgets
from desktop.system.opener import Opener
from desktop.system.xdg import APP_ID
from engine.bus import (
    ModelDownloadEnded,
    ModelDownloadProgress,
    ModelFailed,
    ModelLoading,
    ModelReady,
    ModelServerDown,
    ModelServerUp,
    ReplyFinished,
    TickFinished,
    TurnFailed,
    WhatsAppQrCode,
)
from engine.engine import Engine, RequestHandler
from engine.errors import TicError
from engine.ipc.handover import HandedOver, run_here_or_hand_over
from engine.logs.setup import setup_logging
from engine.settings import Settings
from engine.tasks import TaskSet, one_line
from engine.workspace import Workspace

log = logging.getLogger("desktop")
ACCOUNT_CHECK_MS = 30_000  # how often the tray looks for accounts that need signing in again
SCREENSHOTS = "screenshots"  # the workspace's folder for the channel's screenshots
TOAST_ICON = "tic-icon.png"  # the icon toasts carry, drawn into the workspace's cache/


class Window(StrEnum):
    """The app's windows a screenshot may be asked of, by name (the channel takes no paths)."""

    CHAT = "chat"
    SETTINGS = "settings"


def _hhmm(value: str | None) -> time | None:
    return time.fromisoformat(value) if value else None


class DesktopApp(QtCore.QObject):
    """Owns the engine and the windows for the lifetime of the process."""

    def __init__(
        self,
        workspace: Workspace,
        model_path: str | None,
        log_path: Path,
        *,
        opener: Opener | None = None,
    ):
        super().__init__()
        self.opener = opener if opener is not None else Opener()  # every URL "Open" opens
        self.workspace = workspace
        self.model_path = model_path
        self.log_path = log_path
        self.settings = Settings.load(workspace.settings_file)
        self.quit_requested = asyncio.Event()
        self._tasks = TaskSet(logger=log, on_unexpected=self._crashed)
        self.toast_channels: list[str] = []
        self.model_error: str | None = None
        self.model_ready = False  # loaded, or given up on (model_error says why)
        self.account_problem: str | None = None
        self.base_status = ""  # what the chat's status line shows when nothing is going on

    # background tasks with strong references and names ------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        return self._tasks.spawn(coro, name)

    def _crashed(self, exc: BaseException) -> None:
        show_crash_dialog(exc, self.log_path, logged=True)

    # start ------------------------------------------------------------------------------

    def _toast_icon(self) -> Path | None:
        """TIC's icon as a file for toasts to carry (None, logged, when it cannot be written:
        toasts then come without one)."""
        from desktop.widgets.icons import write_app_icon

        try:
            return write_app_icon(self.workspace.root / "cache" / TOAST_ICON)
        except OSError as exc:
            log.warning("toasts go without TIC's icon: %s", exc)
            return None

    async def start(self) -> None:
        from desktop.bridge import EngineBridge
        from desktop.chat.window import ChatWindow
        from desktop.notify.notifier import Notifier
        from desktop.tray import TrayController

        self.engine = Engine.open(
            self.workspace, self.model_path, settings=self.settings, stand_in=True
        )
        self.model_error = self.engine.model_error
        self.bridge = EngineBridge(self.engine.bus, self)
        self.chat = ChatWindow()
        self.show_model()
        self.chat.load_history(self.engine.history(200))
        self.first_start = welcome.is_first_start(self.workspace)
        if self.first_start:
            self.chat.pin_welcome()
        self.chat.installEventFilter(self)
        self.tray = TrayController(self)
        self.chat.setWindowIcon(self.tray.app_icon())
        self.notifier = Notifier(
            app_name="TIC",
            tray=self.tray.icon if self.tray.available else None,
            icon=self._toast_icon(),
        )
        self.notifier.set_quiet_hours(
            _hhmm(self.settings.quiet_hours_start), _hhmm(self.settings.quiet_hours_end)
        )
        self.notifier.reminders_through = self.settings.reminders_through_pause
        self._wire()
        await self.engine.serve(self.ipc_handlers())
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
        self.check_rules()
        if self.model_error:
            self.tray.set_state("error", self.model_error)
            self.model_ready = True
        else:
            self.spawn(self.engine.load_model(), "load-model")

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
        b.modelLoading.connect(self._on_model_loading)
        b.modelReady.connect(self._on_model_ready)
        b.modelFailed.connect(self._on_model_failed)
        b.whatsAppQrCode.connect(self.show_whatsapp_qr)
        b.modelDownload.connect(self._on_model_download)
        b.modelDownload.connect(lambda ev: chat.welcome.set_download(ev.state))
        b.modelServer.connect(self._on_model_server)
        chat.sendRequested.connect(self._on_send)
        chat.openRequested.connect(lambda message_id: self.open_message(message_id, choose=True))
        chat.welcomeLinkActivated.connect(self._on_welcome_link)
        chat.modelOfferAccepted.connect(self._take_offer)
        tray.openChat.connect(self.show_chat)
        tray.checkNow.connect(lambda: self.spawn(self.engine.check_now(timeout=600), "check-now"))
        tray.pauseRequested.connect(self._pause)
        tray.resumeRequested.connect(self._resume)
        tray.openSettings.connect(self.open_settings)
        tray.editRules.connect(self.edit_rules)
        tray.quitRequested.connect(self.quit_requested.set)
        self.notifier.openRequested.connect(self.open_message)
        self.notifier.laterRequested.connect(self.remind_later)
        self.notifier.muteRequested.connect(self.confirm_mute)

    def open_message(self, message_id: int, *, choose: bool = False) -> None:
        """ "Open" on a notification: the message in its own place, or TIC's view of it."""
        from desktop.notify.opening import open_reply

        open_reply(self, message_id, choose=choose)

    def remind_later(self, message_id: int) -> None:
        """ "Remind me in 1 hour" on a toast: the engine delivers it again then."""
        try:
            when = self.engine.remind_later(message_id)
        except TicError as exc:
            self.chat.set_status(str(exc), False)
            return
        self.chat.set_status(f"I'll remind you of it at {when.astimezone():%H:%M}.", False)

    def confirm_mute(self, message_id: int) -> None:
        """ "Don't notify me about this" on a toast: the rule it adds and what it would have
        silenced in the last 30 days are shown first; the rule is added on "Add rule"."""
        from desktop.notify.confirm import MuteConfirmation, needs_confirmation

        try:
            preview = self.engine.mute_preview(message_id)
        except TicError as exc:
            self.chat.set_status(str(exc), False)
            return
        if not needs_confirmation(preview):
            self.spawn(self.engine.mute(message_id), "mute")
            return
        box = MuteConfirmation(preview)
        box.confirmed.connect(lambda: self.spawn(self.engine.mute(message_id), "mute"))
        box.show()
        box.raise_()
        self._mute_box = box

    def _watch_accounts(self) -> None:
        self.accounts_timer = QtCore.QTimer(self)
        self.accounts_timer.setInterval(ACCOUNT_CHECK_MS)
        self.accounts_timer.timeout.connect(self.check_accounts)
        self.accounts_timer.start()
        self.check_accounts()

    def check_accounts(self) -> None:
        """An account that needs signing in again turns the tray to error, with its name."""
        from desktop.settings.accounts_page import sign_in_problem

        previous = self.account_problem
        self.account_problem = sign_in_problem(self.engine.account_states())
        if self.account_problem and not self.model_error:
            self.tray.set_state("error", self.account_problem)
        elif previous and self.tray.state == "error" and self.tray.error == previous:
            self.tray.set_state("idle")

    def check_rules(self) -> None:
        """Rule lines TIC could not read are named under the tray's tooltip."""
        from desktop.settings.rules_page import flagged_note

        try:
            lines = self.engine.rules_report()
        except TicError:  # an unreadable file: the next check reports it as an error
            lines = []
        self.tray.set_note(flagged_note(lines))

    def _on_model_loading(self, ev: ModelLoading) -> None:
        self.model_ready = False
        self.chat.set_status(f"Loading model {ev.name}…", True)

    def _on_model_ready(self, _ev: ModelReady) -> None:
        self.model_ready = True
        self.tray.end_passing()  # a model in use now: an old download failure is past
        self.chat.set_status(self.base_status, False)
        self.show_model()
        self.spawn(self.engine.warm_up(), "warm-up")

    def show_model(self) -> None:
        """The chat's header: the model and what it is trusted with; and the welcome's word
        on the built-in model, with the bigger one on offer."""
        from engine.modeltypes import describe_capability, model_label

        tiny = not self.model_error and self.engine.capability == "tiny"
        self.chat.welcome.set_model(tiny=tiny, offer=self.engine.models.offer() if tiny else None)
        if self.model_error:
            self.chat.set_model("No model", self.model_error, show_timing=False)
            return
        capability = self.engine.capability
        self.chat.set_model(
            model_label(self.engine.model_name, capability),
            describe_capability(capability),
            show_timing=capability == "capable",
        )

    def _on_model_failed(self, ev: ModelFailed) -> None:
        self.model_ready = True  # given up on: model_error says why
        self.model_error = ev.error
        self.tray.set_state("error", ev.error)
        self.chat.set_status(ev.error, False)
        self.show_model()

    def _take_offer(self, name: str) -> None:
        """The welcome's one click: download the offered model and use it (the header and the
        welcome follow once it is loaded; the download goes on when the window closes)."""
        self.spawn(self._get_and_use(name), f"get-model-{name}")

    async def _get_and_use(self, name: str) -> None:
        try:
            applied = await self.engine.models.get_and_use(name)
        except TicError as exc:  # the download's own failure is on the bus already
            self.chat.set_status(one_line(exc), False)
            return
        self.model_error = applied.model_error
        self.show_model()
        if applied.model_error:
            self.tray.set_state("error", applied.model_error)

    def _on_model_download(self, ev: ModelDownloadProgress | ModelDownloadEnded) -> None:
        """A download's progress (or why it failed) under the tray's state; gone when done,
        and a failure at the next check or success."""
        state = ev.state
        if isinstance(ev, ModelDownloadProgress):
            self.tray.set_activity(f"Downloading {state.describe()}")
        elif state.phase == "failed":
            self.tray.set_activity(state.describe(), passing=True)
        else:
            self.tray.set_activity(None)

    def _on_model_server(self, ev: ModelServerDown | ModelServerUp) -> None:
        """The model server in use stopped (or started again) answering."""
        if isinstance(ev, ModelServerDown):
            self.tray.set_state("error", f"model server {ev.url} does not answer: {ev.error}")
        elif self.tray.state == "error" and ev.url in (self.tray.error or ""):
            self.model_error = None
            self.tray.set_state("idle")

    @staticmethod
    def show_whatsapp_qr(ev: WhatsAppQrCode) -> None:
        """WhatsApp asks to link this computer: one window shows (and updates) the code."""
        from desktop.widgets.qr import qr_presenter

        qr_presenter().show(ev.payload)

    # reactions --------------------------------------------------------------------------

    def _on_send(self, text: str) -> None:
        self.chat.add_user_message(text)
        self.spawn(self._send(text), "user-turn")

    async def _send(self, text: str) -> None:
        with contextlib.suppress(TicError):  # TurnFailed already shows it in the chat
            await self.engine.send(text)

    def _on_reply_finished(self, ev: ReplyFinished) -> None:
        if ev.kind != "notification":
            return
        if not (self.chat.isVisible() and self.chat.isActiveWindow()):
            self.tray.set_state("unread")
        from desktop.notify.notifier import toast_for

        self.spawn(self._toast(toast_for(ev)), "toast")

    async def _toast(self, toast: Any) -> None:
        channel = await self.notifier.show(toast)
        self.toast_channels.append(channel)

    def _on_turn_failed(self, ev: TurnFailed) -> None:
        if "model" in ev.error.lower():
            self.tray.set_state("error", ev.error)

    def _on_tick_finished(self, ev: TickFinished) -> None:
        self.check_rules()
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

    def _on_welcome_link(self, link: str) -> None:
        if link == welcome.ACCOUNTS_LINK:
            self.open_settings(accounts=True)
        elif link == welcome.RULES_LINK:
            self.edit_rules()

    def edit_rules(self) -> None:
        """Settings → Rules: data/notifications.md with how TIC reads each line."""
        self.workspace.ensure()  # recreates the file from the template if it was deleted
        self.open_settings(rules=True)

    def open_settings(self, accounts: bool = False, rules: bool = False) -> None:
        from desktop.settings.accounts_page import AccountsPage
        from desktop.settings.dialog import SettingsDialog
        from desktop.settings.model_page import ModelLibraryPanel
        from desktop.settings.rules_page import RulesPage

        shown = getattr(self, "_settings_dialog", None)
        try:
            open_now = shown is not None and shown.isVisible()
        except RuntimeError:  # closed: it deleted itself
            open_now = False
        if shown is not None and open_now:  # one Settings window: bring it forward
            page = shown.accounts_page if accounts else shown.rules_page if rules else None
            if page is not None:
                shown.tabs.setCurrentWidget(page)
            shown.raise_()
            shown.activateWindow()
            return
        rules_page = RulesPage(self.engine, self.spawn)
        rules_page.saved.connect(self.check_rules)
        accounts_page = AccountsPage(self.engine, self.spawn)
        accounts_page.refreshed.connect(self.check_accounts)
        from engine.modeltypes import model_label

        dialog = SettingsDialog(
            self.engine.settings,
            parent=None,
            accounts_page=accounts_page,
            models_dir=self.workspace.models_dir,
            rules_file=self.workspace.rules_file,
            model_label=model_label(self.engine.model_name, self.engine.detected_capability),
            model_library=ModelLibraryPanel(self.engine, self.spawn),
            rules_page=rules_page,
        )
        if accounts:
            dialog.tabs.setCurrentWidget(accounts_page)
        elif rules:
            dialog.tabs.setCurrentWidget(rules_page)
        dialog.settingsAccepted.connect(lambda _new: rules_page.save(force=True))
        dialog.settingsAccepted.connect(
            lambda new: self.spawn(self.apply_settings(new), "apply-settings")
        )
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        dialog.raise_()
        self._settings_dialog = dialog

    async def apply_settings(self, new: Settings) -> None:
        from desktop.system.autostart import set_start_on_login
        from desktop.system.xdg import launch_command

        old = self.engine.settings
        applied = await self.engine.apply_settings(new)
        self.notifier.set_quiet_hours(_hhmm(new.quiet_hours_start), _hhmm(new.quiet_hours_end))
        self.notifier.reminders_through = new.reminders_through_pause
        if new.start_on_login != old.start_on_login:
            try:
                set_start_on_login(new.start_on_login, launch_command())
            except Exception as exc:
                self.chat.set_status(f"Start on login: {exc}", False)
        self.show_model()  # the capability setting may have changed
        self.check_rules()  # and with it who applies the lines code could not read
        if applied.model_changed:
            self.model_error = applied.model_error
            self.show_model()
            if applied.model_error:
                self.tray.set_state("error", applied.model_error)
            else:
                self.tray.set_state("idle")
                await self.engine.load_model()

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.chat and event.type() == QtCore.QEvent.Type.Close:
            if self.tray.available:
                self.chat.hide()
                event.ignore()
                return True
            self.quit_requested.set()
        return False

    # the single-instance channel --------------------------------------------------------

    def ipc_handlers(self) -> dict[str, RequestHandler]:
        """The app's own requests; the engine answers its own (ping, tick, ingest)."""
        return {
            "show": self._on_show,
            "status": self._on_status,
            "screenshot": self._on_screenshot,
            "settings": self._on_settings,
            "quit": self._on_quit,
        }

    async def _on_show(self, _request: dict[str, Any]) -> dict[str, Any]:
        self.show_chat()
        return {"ok": True}

    async def _on_status(self, _request: dict[str, Any]) -> dict[str, Any]:
        return self.status()

    async def _on_screenshot(self, request: dict[str, Any]) -> dict[str, Any]:
        """A window, by name (``"window"``: one of ``Window``, the chat by default), as a PNG
        in the workspace's ``screenshots/``, answered with where it is. The client names no
        path: TIC composes the file's name, and writes only in that folder."""
        name = request.get("window", Window.CHAT.value)
        if not isinstance(name, str) or name not in {w.value for w in Window}:
            known = ", ".join(w.value for w in Window)
            said = repr(name)[:60]
            return {"ok": False, "error": f"no window called {said} (there are: {known})"}
        window = Window(name)
        widget = self._window(window)
        if widget is None:
            return {"ok": False, "error": f"the {window.value} window is not open"}
        folder = self.workspace.root / SCREENSHOTS
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.is_symlink() or folder.resolve().parent != self.workspace.root.resolve():
            return {"ok": False, "error": f"{folder} is not a folder of the workspace"}
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        path = folder / f"{window.value}-{stamp}.png"
        return {"ok": bool(widget.grab().save(str(path))), "path": str(path)}

    def _window(self, window: Window) -> QtWidgets.QWidget | None:
        """The open window of that name (None when it is not open)."""
        if window is Window.CHAT:
            return self.chat
        dialog: QtWidgets.QWidget | None = getattr(self, "_settings_dialog", None)
        try:
            return dialog if dialog is not None and dialog.isVisible() else None
        except RuntimeError:  # closed: it deleted itself
            return None

    async def _on_settings(self, request: dict[str, Any]) -> dict[str, Any]:
        """Open Settings (on its Model tab with ``"page": "model"``)."""
        self.open_settings(accounts=request.get("page") == "accounts")
        if request.get("page") == "model":
            self._settings_dialog.tabs.setCurrentWidget(self._settings_dialog.model_page)
        return {"ok": True}

    async def _on_quit(self, _request: dict[str, Any]) -> dict[str, Any]:
        self.quit_requested.set()
        return {"ok": True}

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
            "chat_model": self.chat.model_text(),
            "first_start": self.first_start,
            "welcome_visible": self.chat.welcome_visible(),
            "model": self.engine.models.describe_current(),
        }

    # quit -------------------------------------------------------------------------------

    async def run(self) -> None:
        """The app's whole life in one coroutine, so one loop run owns every task."""
        await self.start()
        await self.quit_requested.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        """Stop taking requests, stop the schedules, let in-flight work settle, close."""
        await self.engine.stop_serving()
        self.accounts_timer.stop()
        await self._tasks.stop()
        await self.engine.stop()
        self.bridge.detach()
        self.tray.icon.hide()


_crash_shown = False


def show_crash_dialog(exc: BaseException, log_path: Path, *, logged: bool = False) -> None:
    """An unexpected error is logged (unless it was already) and shown, never a silent exit."""
    global _crash_shown
    if not logged:
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
    os.umask(0o077)  # the store, logs and settings it writes are the user's only
    workspace = Workspace.open(home)
    claimed = run_here_or_hand_over(
        workspace,
        "the TIC desktop app",
        lambda: {"cmd": "show"},
        on_wait=lambda who: print(
            f"waiting for {who.describe()} to finish…", file=sys.stderr, flush=True
        ),
    )
    if isinstance(claimed, HandedOver):
        if claimed.answer.get("ok"):
            print("TIC is already running; its window was brought forward.")
            return 0
        print(f"tic-desktop: error: {claimed.answer.get('error')}", file=sys.stderr)
        return 1
    with claimed:  # this process is the workspace's one engine until it ends
        return _run(workspace, model_path, verbose)


def _run(workspace: Workspace, model_path: str | None, verbose: bool) -> int:
    log_path = setup_logging(workspace, verbose)
    import qasync

    qapp = QtWidgets.QApplication.instance() or QtWidgets.QApplication([APP_ID])
    qapp.setApplicationName("TIC")
    QtWidgets.QApplication.setQuitOnLastWindowClosed(False)
    QtGui.QGuiApplication.setDesktopFileName(APP_ID)  # the menu entry's icon and name on Wayland
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
