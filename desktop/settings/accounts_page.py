"""The Accounts page of Settings: the connected accounts with their health, and connecting or
disconnecting Google, IMAP email and WhatsApp.

Nothing here blocks the UI: each slow step (Google sign-in in the browser, the IMAP login
check) runs as an asyncio task through the ``spawn`` callable the page is given. The steps are
plain ``async`` methods returning an error message or None, so tests drive them directly; the
dialogs around them are thin, stay open while a step runs and show its error inline."""

from __future__ import annotations

import asyncio
import html
import webbrowser
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Signal, Slot
from desktop.settings.form import ERROR_COLOR, Form, hint_label, message_label, show_message
from desktop.widgets.dialogs import FittedDialog
from desktop.widgets.qr import qr_presenter
from engine.engine import (
    ACCOUNT_LABELS,
    UNOFFICIAL_WARNING,
    AccountConfig,
    AccountState,
    Engine,
    Kind,
    MailProvider,
    mail_providers,
    missing_extra,
    provider_for_address,
)
from engine.errors import TicError
from engine.tasks import first_line, one_line

Spawn = Callable[[Coroutine[Any, Any, Any], str], asyncio.Task[Any]]

REFRESH_MS = 10_000
GOOGLE_KINDS = ("gmail", "gcal")
STATE_TEXT = {"needs_sign_in": "needs sign-in"}
STATE_COLOURS = {
    "ok": "#2e7d32",
    "retrying": "#f9a825",
    "error": "#c62828",
    "needs_sign_in": "#ef6c00",
}
IDLE_COLOUR = "#9e9e9e"  # not synced yet
EMPTY_TEXT = "No accounts connected yet. Add one with the buttons below."
INTRO = "TIC reads these accounts. Passwords and sign-in tokens stay in your system keyring."
GOOGLE_HELP = (
    "TIC signs in with your own Google OAuth client: in the Google Cloud console create an "
    "OAuth client of type “Desktop app”, download its JSON file (client_secret_….json) and "
    "choose it here. TIC then opens your browser and asks for read-only access to Gmail and "
    "Calendar."
)
EXPORT_HELP = (
    "Save chats with WhatsApp's “Export chat” (.txt or .zip) into this folder; TIC reads new "
    "exports as they appear. Your own messages are recognised by your name and skipped."
)
IMAP_SECURITY = (("SSL/TLS", 993), ("STARTTLS", 143), ("None (unencrypted)", 143))
OTHER_PROVIDER = "Other (type the server)"


# --- words for the rows --------------------------------------------------------------------


def account_title(config: AccountConfig) -> str:
    """ "Gmail — anna@gmail.com", "WhatsApp exports — ~/WhatsApp", "WhatsApp (live)"."""
    label = ACCOUNT_LABELS[config.kind]
    if config.kind == "whatsapp-live" and config.account == "default":
        return label
    shown = config.account
    if config.kind == "whatsapp-export":
        home = str(Path.home())
        if shown == home or shown.startswith(home + "/"):
            shown = "~" + shown[len(home) :]
    return f"{label} — {shown}"


def state_text(state: str) -> str:
    return STATE_TEXT.get(state, state.replace("_", " "))


def synced_text(when: datetime | None, now: datetime) -> str:
    """ "Synced just now", "Synced 3 min ago", "Synced at 14:05", "Synced 2 Mar 14:05"."""
    if when is None:
        return "Never synced"
    age = now - when
    if age < timedelta(minutes=1):
        return "Synced just now"
    if age < timedelta(hours=1):
        return f"Synced {int(age.total_seconds() // 60)} min ago"
    local, today = when.astimezone(), now.astimezone()
    if local.date() == today.date():
        return f"Synced at {local:%H:%M}"
    return f"Synced {local.day} {local:%b %H:%M}"


def detail_text(state: AccountState, now: datetime) -> str:
    """The second line of a row: when it last synced, and the last error if any."""
    parts = [synced_text(state.last_sync_at, now)]
    if state.last_error and state.state != "ok":
        parts.append(first_line(state.last_error))
    return " · ".join(parts)


def sign_in_problem(states: Sequence[AccountState]) -> str | None:
    """One line for the tray when accounts need the user to sign in again, else None."""
    names: list[str] = []
    for s in states:
        if s.state != "needs_sign_in" or not s.config.enabled:
            continue
        kind, account = s.config.kind, s.config.account
        label = "Google" if kind in GOOGLE_KINDS else ACCOUNT_LABELS[kind]
        name = label if kind == "whatsapp-live" else f"{label} ({account})"
        if name not in names:
            names.append(name)
    if not names:
        return None
    more = f" (and {len(names) - 1} more)" if len(names) > 1 else ""
    return f"{names[0]} needs you to sign in again{more}"


# --- one row -------------------------------------------------------------------------------


def _dot(colour: str, size: int = 10) -> QtGui.QPixmap:
    ratio = 2.0
    pixmap = QtGui.QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(pixmap)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QtGui.QColor(colour))
    painter.drawEllipse(QtCore.QRectF(0.5, 0.5, size - 1, size - 1))
    painter.end()
    return pixmap


class ElidedLabel(QtWidgets.QLabel):
    """A one-line label that ends in "…" when too narrow; the full text is its tooltip."""

    def __init__(self, text: str = ""):
        super().__init__()
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.width(), 40)
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width)
        super().setText(shown)


class AccountRow(QtWidgets.QWidget):
    """● Gmail — anna@gmail.com            needs sign-in
    Synced at 10:42 · Google access was revoked; sign in again"""

    def __init__(self, state: AccountState, now: datetime):
        super().__init__()
        self.key = state.config.key
        colour = STATE_COLOURS.get(state.state, IDLE_COLOUR)
        self.dot = QtWidgets.QLabel()
        self.dot.setPixmap(_dot(colour))
        self.title = ElidedLabel(account_title(state.config))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.state = QtWidgets.QLabel(state_text(state.state))
        self.detail = ElidedLabel(detail_text(state, now))
        self._colour = colour
        self.set_selected(False)

        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(8, 6, 8, 6)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        grid.addWidget(self.dot, 0, 0, Qt.AlignmentFlag.AlignCenter)
        grid.addWidget(self.title, 0, 1)
        grid.addWidget(self.state, 0, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.detail, 1, 1, 1, 2)
        grid.setColumnStretch(1, 1)

    def set_selected(self, selected: bool) -> None:
        """Readable on the list's selection colour too."""
        palette = self.palette()
        role = QtGui.QPalette.ColorRole
        text = palette.color(role.HighlightedText if selected else role.WindowText)
        muted = text if selected else palette.color(role.PlaceholderText)
        for label, colour in ((self.title, text), (self.detail, muted)):
            label_palette = label.palette()
            label_palette.setColor(role.WindowText, colour)
            label.setPalette(label_palette)
        self.state.setStyleSheet(f"color: {text.name() if selected else self._colour};")


# --- the connect dialogs (thin: the page runs their step) ----------------------------------


class ConnectDialog(FittedDialog):
    """A form whose OK runs a step on the page: it stays open, busy, until the step succeeds,
    and shows the step's error inline."""

    submitted = Signal()

    def __init__(
        self,
        title: str,
        ok_text: str,
        busy_text: str,
        parent: QtWidgets.QWidget | None = None,
        *,
        help_text: str = "",
    ):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.busy_text = busy_text
        self.body = QtWidgets.QWidget()
        self.form = Form()
        self.form.setContentsMargins(0, 0, 0, 0)
        self.body.setLayout(self.form)
        self.message = message_label()
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button.setText(ok_text)
        self.buttons.accepted.connect(self.submitted.emit)
        self.buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(10)
        if help_text:
            layout.addWidget(hint_label(help_text))
        layout.addWidget(self.body)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    @property
    def ok_button(self) -> QtWidgets.QPushButton:
        return self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)

    def set_busy(self, busy: bool) -> None:
        self.body.setEnabled(not busy)
        self.ok_button.setEnabled(not busy)
        show_message(self.message, self.busy_text if busy else "")
        self._fit_height()

    def show_error(self, text: str) -> None:
        show_message(self.message, text, ERROR_COLOR)
        self._fit_height()

    def error(self) -> str | None:
        shown = not self.message.isHidden() and self.message.styleSheet()
        return self.message.text() if shown else None


def _browse_row(edit: QtWidgets.QLineEdit, browse: Callable[[], None]) -> QtWidgets.QHBoxLayout:
    button = QtWidgets.QPushButton("Browse…")
    button.clicked.connect(browse)
    row = QtWidgets.QHBoxLayout()
    row.setSpacing(6)
    row.addWidget(edit, 1)
    row.addWidget(button)
    return row


class GoogleDialog(ConnectDialog):
    def __init__(self, client_file: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(
            "Connect Google",
            "Sign in with Google",
            "Waiting for you to finish signing in in your browser…",
            parent,
            help_text=GOOGLE_HELP,
        )
        self.path_edit = QtWidgets.QLineEdit(client_file)
        self.path_edit.setPlaceholderText("client_secret_….json")
        self.form.add_row("OAuth client file:", _browse_row(self.path_edit, self._browse))

    @Slot()
    def _browse(self) -> None:
        start = str(Path(self.path_edit.text()).parent) if self.path_edit.text() else ""
        chosen, _ = QtWidgets.QFileDialog.getOpenFileName(
            self,
            "Choose the Google OAuth client file",
            start,
            "Google OAuth client (client_secret*.json);;JSON files (*.json);;All files (*)",
        )
        if chosen:
            self.path_edit.setText(chosen)

    def path(self) -> str:
        return self.path_edit.text().strip()


class ImapDialog(ConnectDialog):
    """Server, security, user name, password and folders; a provider from the list (or the
    one the address's domain names) fills the server and says where to make the password.
    Every field stays editable: "Other" is any server at all."""

    def __init__(
        self,
        config: AccountConfig | None = None,
        parent: QtWidgets.QWidget | None = None,
        *,
        providers: Sequence[MailProvider] = (),
        suggest: Callable[[str], MailProvider | None] | None = None,
    ):
        super().__init__(
            "Connect email (IMAP)", "Connect", "Checking the login with the server…", parent
        )
        self._providers = tuple(providers)
        self._suggest = suggest
        self.provider = QtWidgets.QComboBox()
        self.provider.addItem(OTHER_PROVIDER)
        for preset in self._providers:
            self.provider.addItem(preset.name)
        self.provider_help = hint_label()
        self.provider_help.setTextFormat(Qt.TextFormat.RichText)
        self.provider_help.setOpenExternalLinks(True)
        self.provider_help.hide()
        self.host = QtWidgets.QLineEdit()
        self.host.setPlaceholderText("imap.example.com")
        self.security = QtWidgets.QComboBox()
        for name, _port in IMAP_SECURITY:
            self.security.addItem(name)
        self.port = QtWidgets.QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(IMAP_SECURITY[0][1])
        self.port.setMaximumWidth(100)
        self.username = QtWidgets.QLineEdit()
        self.username.setPlaceholderText("usually your email address: you@example.com")
        self.password = QtWidgets.QLineEdit()
        self.password.setEchoMode(QtWidgets.QLineEdit.EchoMode.Password)
        self.folders = QtWidgets.QLineEdit("INBOX")
        self.security.currentIndexChanged.connect(self._security_changed)
        self._security = 0
        self.provider.currentIndexChanged.connect(self._provider_chosen)
        self.username.editingFinished.connect(self._suggest_provider)
        self.host.textEdited.connect(self._server_typed)

        server = QtWidgets.QHBoxLayout()
        server.setSpacing(6)
        server.addWidget(self.host, 1)
        server.addWidget(QtWidgets.QLabel("Port:"))
        server.addWidget(self.port)
        if self._providers:
            self.form.add_row("Provider:", self.provider)
            self.form.add_row("", self.provider_help)
        self.form.add_row("User name:", self.username)
        self.form.add_row("Password:", self.password)
        self.form.add_row("Server:", server)
        self.form.add_row("Security:", self.security)
        self.form.add_row("Folders:", self.folders)
        self.form.add_row("", hint_label("Comma-separated. The password is kept in your keyring."))
        if config is not None:
            self.fill(config)

    def fill(self, config: AccountConfig) -> None:
        opts = config.options
        self.host.setText(opts.get("host", ""))
        index = 0 if opts.get("ssl", True) else (1 if opts.get("starttls") else 2)
        self.security.setCurrentIndex(index)
        if opts.get("port"):
            self.port.setValue(int(opts["port"]))
        self.username.setText(opts.get("username", ""))
        self.folders.setText(", ".join(opts.get("folders", ["INBOX"])))
        known = next((p for p in self._providers if p.host == self.host.text()), None)
        self._show_provider(known, fill=False)

    def chosen_provider(self) -> MailProvider | None:
        index = self.provider.currentIndex() - 1  # 0 is "Other"
        return self._providers[index] if 0 <= index < len(self._providers) else None

    def choose_provider(self, name: str) -> None:
        """Pick the preset called ``name`` (as the list does): its server, port and security
        fill the fields, and where to make the password is shown."""
        self.provider.setCurrentIndex(max(0, self.provider.findText(name)))

    @Slot(int)
    def _provider_chosen(self, _index: int) -> None:
        self._show_provider(self.chosen_provider(), fill=True)

    def _show_provider(self, preset: MailProvider | None, *, fill: bool) -> None:
        if preset is not None and fill:
            self.host.setText(preset.host)
            self.security.setCurrentIndex(0 if preset.ssl else 1)
            self.port.setValue(preset.port)
        if self.chosen_provider() != preset:
            with QtCore.QSignalBlocker(self.provider):
                self.provider.setCurrentIndex(
                    self._providers.index(preset) + 1 if preset is not None else 0
                )
        self.provider_help.setText(provider_help(preset) if preset is not None else "")
        self.provider_help.setVisible(preset is not None)
        QtCore.QTimer.singleShot(0, self._fit_height)  # once the new text is laid out

    @Slot()
    def _suggest_provider(self) -> None:
        """An address at a provider's domain picks that provider, while none is chosen."""
        if self._suggest is None or self.chosen_provider() is not None or self.host.text():
            return
        preset = self._suggest(self.username.text())
        if preset is not None and preset in self._providers:
            self._show_provider(preset, fill=True)

    @Slot(str)
    def _server_typed(self, text: str) -> None:
        preset = self.chosen_provider()
        if preset is not None and text.strip() != preset.host:
            self._show_provider(None, fill=False)  # a server of the user's own: "Other"

    @Slot(int)
    def _security_changed(self, index: int) -> None:
        if self.port.value() == IMAP_SECURITY[self._security][1]:
            self.port.setValue(IMAP_SECURITY[index][1])
        self._security = index

    def values(self) -> dict[str, Any]:
        index = self.security.currentIndex()
        return {
            "host": self.host.text().strip(),
            "port": self.port.value(),
            "username": self.username.text().strip(),
            "password": self.password.text(),
            "ssl": index == 0,
            "folders": self.folders.text(),
            "starttls": index == 1,
        }


def provider_help(preset: MailProvider) -> str:
    """Where to make the password, as rich text with the provider's page as a link."""
    text = html.escape(preset.password)
    if preset.link:
        link = html.escape(preset.link, quote=True)
        text += f' <a href="{link}">{html.escape(_page_name(preset.link))}</a>'
    return text


def _page_name(link: str) -> str:
    """What the user will see open: "myaccount.google.com/apppasswords", or only the site
    ("support.microsoft.com") when the rest is a long page id."""
    shown = link.split("://", 1)[-1].rstrip("/")
    site = shown.split("/", 1)[0]
    return shown if len(shown) <= 40 else site


class WhatsAppExportDialog(ConnectDialog):
    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(
            "Import WhatsApp exports", "Import", "Adding the folder…", parent, help_text=EXPORT_HELP
        )
        self.folder = QtWidgets.QLineEdit()
        self.folder.setPlaceholderText(str(Path.home() / "WhatsApp"))
        self.user_name = QtWidgets.QLineEdit()
        self.user_name.setPlaceholderText("e.g. Anna Berg")
        self.form.add_row("Folder:", _browse_row(self.folder, self._browse))
        self.form.add_row("Your name as shown in WhatsApp:", self.user_name)

    @Slot()
    def _browse(self) -> None:
        chosen = QtWidgets.QFileDialog.getExistingDirectory(
            self, "Folder with WhatsApp chat exports", self.folder.text() or str(Path.home())
        )
        if chosen:
            self.folder.setText(chosen)

    def values(self) -> dict[str, str]:
        return {"folder": self.folder.text().strip(), "user_name": self.user_name.text().strip()}


class UnofficialWarningBox(QtWidgets.QMessageBox):
    """The unofficial-client warning; only its "I understand, connect" button connects."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setIcon(QtWidgets.QMessageBox.Icon.Warning)
        self.setWindowTitle("Connect WhatsApp (live)")
        self.setText("Live WhatsApp uses an unofficial client.")
        self.setInformativeText(UNOFFICIAL_WARNING)
        self.connect_button = self.addButton(
            "I understand, connect", QtWidgets.QMessageBox.ButtonRole.AcceptRole
        )
        self.cancel_button = self.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.cancel_button)
        self.setEscapeButton(self.cancel_button)


# --- the page ------------------------------------------------------------------------------


class AccountsPage(QtWidgets.QWidget):
    refreshed = Signal()  # the rows were re-read (the app re-checks the tray then)

    def __init__(
        self,
        engine: Engine,
        spawn: Spawn,
        *,
        open_browser: Callable[[str], object] = webbrowser.open,
        parent: QtWidgets.QWidget | None = None,
    ):
        super().__init__(parent)
        self.engine = engine
        self._spawn = spawn
        self._open_browser = open_browser
        self._tasks: set[asyncio.Task[Any]] = set()
        self._states: list[AccountState] = []
        self.destroyed.connect(partial(_cancel_all, self._tasks))
        self.qr = qr_presenter()  # the app shows the engine's WhatsAppQrCode messages in it

        self.list = QtWidgets.QListWidget()
        self.list.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMinimumSize(300, 220)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.empty = hint_label(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message = message_label()

        self.google_button = QtWidgets.QPushButton("Connect Google…")
        self.imap_button = QtWidgets.QPushButton("Connect email (IMAP)…")
        self.export_button = QtWidgets.QPushButton("Import WhatsApp exports…")
        self.live_button = QtWidgets.QPushButton("Connect WhatsApp (live)…")
        self.reconnect_button = QtWidgets.QPushButton("Sign in again…")
        self.disconnect_button = QtWidgets.QPushButton("Disconnect…")
        self.refresh_button = QtWidgets.QPushButton("Refresh")
        self.google_button.clicked.connect(lambda: self.open_google_dialog())
        self.imap_button.clicked.connect(lambda: self.open_imap_dialog())
        self.export_button.clicked.connect(self.open_export_dialog)
        self.live_button.clicked.connect(self.confirm_whatsapp_live)
        self.reconnect_button.clicked.connect(self.reconnect_selected)
        self.disconnect_button.clicked.connect(self.confirm_disconnect)
        self.refresh_button.clicked.connect(self.refresh)

        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self._layout()
        self.refresh()

    def _layout(self) -> None:
        stack = QtWidgets.QStackedLayout()
        stack.addWidget(self.list)
        stack.addWidget(self.empty)
        self._stack = stack
        actions = QtWidgets.QHBoxLayout()
        actions.setSpacing(6)
        actions.addWidget(self.reconnect_button)
        actions.addWidget(self.disconnect_button)
        actions.addStretch(1)
        actions.addWidget(self.refresh_button)
        connect = QtWidgets.QGridLayout()
        connect.setSpacing(6)
        connect.addWidget(self.google_button, 0, 0)
        connect.addWidget(self.imap_button, 0, 1)
        connect.addWidget(self.export_button, 1, 0)
        connect.addWidget(self.live_button, 1, 1)
        caption = QtWidgets.QLabel("Add an account:")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        layout.addWidget(hint_label(INTRO))
        layout.addLayout(stack, 1)
        layout.addLayout(actions)
        layout.addWidget(self.message)
        layout.addSpacing(8)
        layout.addWidget(caption)
        layout.addLayout(connect)

    # -- the rows ---------------------------------------------------------------------------

    @Slot()
    def refresh(self) -> None:
        """Re-read the accounts and their health (a few rows from the local store)."""
        selected = self.selected_key()
        scrolled = self.list.verticalScrollBar().value()
        self._states = self.engine.account_states()
        now = self.engine.clock()
        self.list.clear()
        for state in self._states:
            row = AccountRow(state, now)
            item = QtWidgets.QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, state.config.key)
            item.setSizeHint(row.sizeHint())
            self.list.addItem(item)
            self.list.setItemWidget(item, row)
            if state.config.key == selected:
                item.setSelected(True)
        self.list.verticalScrollBar().setValue(scrolled)
        self._stack.setCurrentWidget(self.list if self._states else self.empty)
        self._update_buttons()
        self.refreshed.emit()

    def rows(self) -> list[tuple[str, str, str]]:
        """(title, state, detail) of each row, as shown."""
        out = []
        for i in range(self.list.count()):
            row = self.list.itemWidget(self.list.item(i))
            assert isinstance(row, AccountRow)
            out.append((row.title.full_text(), row.state.text(), row.detail.full_text()))
        return out

    def selected_key(self) -> str | None:
        items = self.list.selectedItems()
        return items[0].data(Qt.ItemDataRole.UserRole) if items else None

    def select(self, key: str) -> None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) == key)

    def _config(self, key: str | None) -> AccountConfig | None:
        return next((a for a in self.engine.settings.accounts if a.key == key), None)

    @Slot()
    def _update_buttons(self) -> None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            row = self.list.itemWidget(item)
            if isinstance(row, AccountRow):
                row.set_selected(item.isSelected())
        config = self._config(self.selected_key())
        self.disconnect_button.setEnabled(config is not None)
        self.reconnect_button.setEnabled(config is not None and config.kind != "whatsapp-export")

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
        self.timer.start()

    def hideEvent(self, event: QtGui.QHideEvent) -> None:
        self.timer.stop()
        super().hideEvent(event)

    # -- running steps ------------------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = self._spawn(coro, name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _show_status(self, error: str | None) -> None:
        show_message(self.message, error or "", ERROR_COLOR if error else None)

    def _lacks_extra(self, kind: Kind) -> bool:
        """Show the one line naming the pip extra ``kind`` needs when it is not installed."""
        hint = missing_extra(kind)
        if hint is not None:
            self._show_status(hint)
        return hint is not None

    async def _submit(self, dialog: ConnectDialog, step: Awaitable[str | None]) -> str | None:
        """Run a dialog's step: the dialog closes on success, else shows the error."""
        dialog.set_busy(True)
        error = await step
        dialog.set_busy(False)
        if error is None:
            dialog.accept()
        else:
            dialog.show_error(error)
        return error

    def _open(
        self, dialog: ConnectDialog, submit: Callable[[Any], Coroutine[Any, Any, Any]]
    ) -> None:
        """Show ``dialog``; its OK runs ``submit(dialog)`` as a task, Cancel cancels it."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def start() -> None:
            task = self._run(submit(dialog), f"accounts:{dialog.windowTitle()}")
            dialog.rejected.connect(task.cancel)

        dialog.submitted.connect(start)
        dialog.open()

    # -- Google -------------------------------------------------------------------------------

    async def connect_google_with(self, path: str | Path) -> str | None:
        """Sign in in the browser, then read that account's Gmail and Calendar."""
        if not str(path).strip():
            return "Choose the OAuth client file first."
        try:
            await self.engine.connect_google(path, self._open_browser)
        except TicError as exc:
            return one_line(exc)
        self.refresh()
        return None

    async def submit_google(self, dialog: GoogleDialog) -> str | None:
        return await self._submit(dialog, self.connect_google_with(dialog.path()))

    def google_dialog(self, client_file: str | None = None) -> GoogleDialog:
        if client_file is None:
            known = [a.options.get("client_file") for a in self.engine.settings.accounts]
            client_file = next((f for f in known if f), "")
        return GoogleDialog(client_file, self)

    def open_google_dialog(self, client_file: str | None = None) -> None:
        if self._lacks_extra("gmail"):
            return
        self._open(self.google_dialog(client_file), self.submit_google)

    # -- IMAP ---------------------------------------------------------------------------------

    async def connect_imap_with(
        self,
        host: str,
        port: int | None,
        username: str,
        password: str,
        ssl: bool = True,
        folders: str | Sequence[str] = "INBOX",
        *,
        starttls: bool = False,
    ) -> str | None:
        """Check the login; only then keep the password (keyring) and the account."""
        if not (host.strip() and username.strip() and password):
            return "Enter the server, the user name and the password."
        names = folders.split(",") if isinstance(folders, str) else list(folders)
        try:
            await self.engine.connect_imap(
                host.strip(),
                port,
                username.strip(),
                password,
                ssl=ssl,
                starttls=starttls and not ssl,
                folders=[f.strip() for f in names if f.strip()] or ["INBOX"],
            )
        except TicError as exc:
            return one_line(exc)
        self.refresh()
        return None

    async def submit_imap(self, dialog: ImapDialog) -> str | None:
        return await self._submit(dialog, self.connect_imap_with(**dialog.values()))

    def imap_dialog(self, config: AccountConfig | None = None) -> ImapDialog:
        return ImapDialog(
            config,
            self,
            providers=mail_providers(),  # the common providers' IMAP settings, as presets
            suggest=provider_for_address,
        )

    def open_imap_dialog(self, config: AccountConfig | None = None) -> None:
        self._open(self.imap_dialog(config), self.submit_imap)

    # -- WhatsApp exports ---------------------------------------------------------------------

    async def add_whatsapp_export(self, folder: str | Path, user_name: str) -> str | None:
        """Watch a folder of chat exports."""
        if not str(folder).strip():
            return "Choose the folder with the chat exports."
        path = _folder(folder)
        if path is None:
            return f"{folder} is not a folder."
        if not user_name.strip():
            return "Enter your name as WhatsApp shows it, so your own messages are skipped."
        try:
            await self.engine.add_whatsapp_export(path, user_name.strip())
        except TicError as exc:
            return one_line(exc)
        self.refresh()
        return None

    async def submit_export(self, dialog: WhatsAppExportDialog) -> str | None:
        return await self._submit(dialog, self.add_whatsapp_export(**dialog.values()))

    def export_dialog(self) -> WhatsAppExportDialog:
        return WhatsAppExportDialog(self)

    @Slot()
    def open_export_dialog(self) -> None:
        self._open(self.export_dialog(), self.submit_export)

    # -- WhatsApp live ------------------------------------------------------------------------

    def whatsapp_warning(self) -> UnofficialWarningBox:
        return UnofficialWarningBox(self)

    @Slot()
    def confirm_whatsapp_live(self) -> None:
        if self._lacks_extra("whatsapp-live"):
            return
        box = self.whatsapp_warning()
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(button: QtWidgets.QAbstractButton) -> None:
            if button is box.connect_button:
                self._run(self.accept_whatsapp_live(), "accounts:whatsapp-live")

        box.buttonClicked.connect(answered)
        box.open()

    async def accept_whatsapp_live(self) -> str | None:
        """After the warning was accepted: link this computer (a QR code window opens)."""
        hint = missing_extra("whatsapp-live")
        if hint is not None:  # the whatsapp extra is not installed: say so, save nothing
            self._show_status(hint)
            return hint
        try:
            await self.engine.connect_whatsapp_live()
        except TicError as exc:
            self._show_status(one_line(exc))
            return one_line(exc)
        self._show_status(None)
        self.refresh()
        return None

    def show_qr(self, payload: str | bytes) -> QtWidgets.QDialog:
        return self.qr.show(payload)

    # -- disconnecting and signing in again ---------------------------------------------------

    def disconnect_keys(self, key: str) -> list[str]:
        """What disconnecting ``key`` removes: a Google account's Gmail and Calendar together."""
        config = self._config(key)
        if config is None:
            return []
        if config.kind not in GOOGLE_KINDS:
            return [key]
        return [
            f"{k}:{config.account}" for k in GOOGLE_KINDS if self._config(f"{k}:{config.account}")
        ]

    async def disconnect_account(self, key: str) -> str | None:
        """Stop reading the account and forget it and its secrets (read events stay)."""
        error: str | None
        try:
            for k in self.disconnect_keys(key):
                await self.engine.remove_account(k)
        except TicError as exc:
            error = one_line(exc)
        else:
            error = None
        self._show_status(error)
        self.refresh()
        return error

    def disconnect_question(self, key: str) -> QtWidgets.QMessageBox:
        config = self._config(key)
        assert config is not None
        if config.kind in GOOGLE_KINDS:
            what = f"the Google account {config.account} (Gmail and Calendar)"
        else:
            what = account_title(config)
        box = QtWidgets.QMessageBox(self)
        box.setIcon(QtWidgets.QMessageBox.Icon.Question)
        box.setWindowTitle("Disconnect account")
        box.setText(f"Disconnect {what}?")
        box.setInformativeText(
            "TIC stops reading it and forgets its password or sign-in. What it already read stays."
        )
        box.setStandardButtons(
            QtWidgets.QMessageBox.StandardButton.Ok | QtWidgets.QMessageBox.StandardButton.Cancel
        )
        box.button(QtWidgets.QMessageBox.StandardButton.Ok).setText("Disconnect")
        box.setDefaultButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        return box

    @Slot()
    def confirm_disconnect(self) -> None:
        key = self.selected_key()
        if key is None or self._config(key) is None:
            return
        box = self.disconnect_question(key)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.accepted.connect(lambda: self._run(self.disconnect_account(key), "accounts:disconnect"))
        box.open()

    @Slot()
    def reconnect_selected(self) -> None:
        """Sign in again to the selected account (after "needs sign-in")."""
        config = self._config(self.selected_key())
        if config is None:
            return
        if config.kind in GOOGLE_KINDS:
            self.open_google_dialog(config.options.get("client_file"))
        elif config.kind == "imap":
            self.open_imap_dialog(config)
        elif config.kind == "whatsapp-live":
            self._run(self.accept_whatsapp_live(), "accounts:whatsapp-live")


def _folder(folder: str | Path) -> Path | None:
    """The absolute folder, or None when there is no such folder."""
    path = Path(folder).expanduser().resolve()
    return path if path.is_dir() else None


def _cancel_all(tasks: set[asyncio.Task[Any]], *_args: object) -> None:
    """The page is gone: its running steps must not touch it any more."""
    for task in list(tasks):
        task.cancel()
