"""The model library on Settings → Model, under the model file field: the catalog as it fits
this computer (download with progress, pause, use, delete) and the models already running in
a model server on this machine (Ollama, LM Studio, llama.cpp's server, or a URL).

"Use this model" fills the page's model field (and, for a server, the model name kept in
``values()``): OK applies it like any setting, and the app swaps the model live. Downloads run
in the engine, so they go on when the dialog closes; the page follows them on the bus. Slow
steps (asking servers) run as asyncio tasks through ``spawn``; nothing blocks the UI."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Signal, Slot
from desktop.settings.form import ERROR_COLOR, OK_COLOR, hint_label, message_label, show_message
from desktop.widgets.wrapping import wrap_rows
from engine.bus import ModelDownloadEnded, ModelDownloadProgress
from engine.engine import Engine
from engine.errors import TicError
from engine.modeltypes import (
    CatalogChoice,
    DownloadState,
    LocalServer,
    describe_capability,
    human_bytes,
)

Spawn = Callable[[Coroutine[Any, Any, Any], str], asyncio.Task[Any]]

NAME_ROLE = Qt.ItemDataRole.UserRole
SERVER_ROLE = Qt.ItemDataRole.UserRole + 1
MUTED = "#757575"
COLUMNS = ("Model", "Size", "Memory", "Status")
STATUS = COLUMNS.index("Status")
NO_SERVERS = (
    "No model server answers on this machine (Ollama 11434, LM Studio 1234, llama.cpp 8080). "
    "Give its address above."
)


def _count(models: int) -> str:
    return f"{models} chat model{'' if models == 1 else 's'}"


def _cancel_all(tasks: set[asyncio.Task[Any]], *_args: object) -> None:
    for task in list(tasks):
        task.cancel()


class ModelLibraryPanel(QtWidgets.QWidget):
    useRequested = Signal(str)  # a GGUF path or a server URL, for the page's model field

    def __init__(self, engine: Engine, spawn: Spawn, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self._spawn = spawn
        self._tasks: set[asyncio.Task[Any]] = set()
        self._choices: dict[str, CatalogChoice] = {}
        self._servers: list[LocalServer] = []
        self._server_model: str | None = None
        self._asked_servers = False
        self.destroyed.connect(partial(_cancel_all, self._tasks))
        unsubscribe = engine.bus.subscribe(self._on_bus)
        self.destroyed.connect(lambda *_a: unsubscribe())

        self._build_catalog()
        self._build_servers()
        # No scroll area of its own: the Model page around it scrolls as a whole.
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(10)
        layout.addWidget(self.catalog_box)
        layout.addWidget(self.servers_box)
        layout.addStretch(1)
        self.refresh()
        for state in engine.models.downloads.values():
            self._show_download(state)
            if state.phase == "failed":
                self._say(state.describe(), error=True)

    # -- layout ---------------------------------------------------------------------------

    def _build_catalog(self) -> None:
        self.machine_label = hint_label()
        self.catalog = QtWidgets.QTreeWidget()
        self.catalog.setColumnCount(len(COLUMNS))
        self.catalog.setHeaderLabels(COLUMNS)
        self.catalog.setRootIsDecorated(False)
        wrap_rows(self.catalog, (STATUS,))  # a long status ("needs 4 CPU cores …") wraps, never cut
        self.catalog.setAlternatingRowColors(True)
        self.catalog.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._fit_timer = QtCore.QTimer(self)  # a narrower Status column wraps to more lines
        self._fit_timer.setSingleShot(True)
        self._fit_timer.timeout.connect(self._fit_catalog)
        self.catalog.header().sectionResized.connect(lambda *_args: self._fit_timer.start(0))
        self.catalog.itemSelectionChanged.connect(self._update_buttons)
        self.details = hint_label()
        self.download_button = QtWidgets.QPushButton("Download")
        self.pause_button = QtWidgets.QPushButton("Pause")
        self.use_button = QtWidgets.QPushButton("Use this model")
        self.delete_button = QtWidgets.QPushButton("Delete…")
        self.token_button = QtWidgets.QPushButton("Hugging Face token…")
        self.token_button.setToolTip("For gated models: kept in the system keyring")
        self.download_button.clicked.connect(self.download_selected)
        self.pause_button.clicked.connect(self.pause_selected)
        self.use_button.clicked.connect(self.use_selected)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.token_button.clicked.connect(self.ask_token)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        self.progress_label = hint_label()
        self.progress.hide()
        self.progress_label.hide()
        self.message = message_label()

        buttons = QtWidgets.QHBoxLayout()
        buttons.setSpacing(6)
        for button in (self.download_button, self.pause_button, self.use_button):
            buttons.addWidget(button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.token_button)

        self.catalog_box = QtWidgets.QGroupBox("Download a model")
        box = QtWidgets.QVBoxLayout(self.catalog_box)
        box.setSpacing(6)
        box.addWidget(self.machine_label)
        box.addWidget(self.catalog)
        box.addWidget(self.details)
        box.addLayout(buttons)
        box.addWidget(self.progress)
        box.addWidget(self.progress_label)
        box.addWidget(self.message)

    def _build_servers(self) -> None:
        self.find_button = QtWidgets.QPushButton("Find model servers")
        self.find_button.clicked.connect(self.find_servers)
        self.url_edit = QtWidgets.QLineEdit()
        self.url_edit.setPlaceholderText("or a server's address, e.g. http://192.168.1.5:11434")
        self.url_edit.returnPressed.connect(self.find_servers)
        self.servers = QtWidgets.QTreeWidget()
        self.servers.setColumnCount(2)
        self.servers.setHeaderLabels(("Server and model", "Details"))
        self.servers.setMinimumHeight(90)
        self.servers.itemSelectionChanged.connect(self._update_buttons)
        self.use_server_button = QtWidgets.QPushButton("Use this model")
        self.use_server_button.clicked.connect(self.use_server_model)
        self.key_button = QtWidgets.QPushButton("API key…")
        self.key_button.clicked.connect(self.ask_server_key)
        self.servers_message = hint_label()

        find_row = QtWidgets.QHBoxLayout()
        find_row.addWidget(self.find_button)
        find_row.addWidget(self.url_edit, 1)
        actions = QtWidgets.QHBoxLayout()
        actions.addWidget(self.use_server_button)
        actions.addWidget(self.key_button)
        actions.addStretch(1)

        self.servers_box = QtWidgets.QGroupBox("Models you already run")
        box = QtWidgets.QVBoxLayout(self.servers_box)
        box.setSpacing(6)
        box.addLayout(find_row)
        box.addWidget(self.servers)
        box.addLayout(actions)
        box.addWidget(self.servers_message)
        self.servers.hide()
        self._update_buttons()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        """The first time it is seen, ask the usual local ports for model servers."""
        super().showEvent(event)
        if not self._asked_servers:
            self._asked_servers = True
            self.find_servers()

    # -- the catalog ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the catalog, this computer and the models folder again."""
        models = self.engine.models
        try:
            machine = models.machine()
            choices = models.choices(machine)
        except TicError as exc:
            self._say(str(exc), error=True)
            return
        self.machine_label.setText(f"{machine.describe()}. In use: {models.describe_current()}.")
        selected = self.selected_name()
        self._choices = {c.name: c for c in choices}
        self.catalog.clear()
        for choice in choices:
            self.catalog.addTopLevelItem(self._row(choice))
        for column in range(STATUS):
            self.catalog.resizeColumnToContents(column)
        self.select(selected or next((c.name for c in choices if c.recommended), None))
        self._update_buttons()
        self._fit_catalog()

    def _fit_catalog(self) -> None:
        """As tall as its rows: the page scrolls, the table inside it does not."""
        self.catalog.doItemsLayout()
        rows = sum(
            self.catalog.visualItemRect(item).height()
            for index in range(self.catalog.topLevelItemCount())
            if (item := self.catalog.topLevelItem(index)) is not None
        )
        frame = 2 * self.catalog.frameWidth()
        self.catalog.setFixedHeight(self.catalog.header().sizeHint().height() + rows + frame + 2)

    def _row(self, choice: CatalogChoice) -> QtWidgets.QTreeWidgetItem:
        mark = "✓ " if choice.in_use else ("★ " if choice.recommended else "")
        item = QtWidgets.QTreeWidgetItem(
            [
                f"{mark}{choice.title}",
                human_bytes(choice.size),
                f"{choice.ram_gb:.1f} GB",
                choice.status,
            ]
        )
        item.setData(0, NAME_ROLE, choice.name)
        item.setToolTip(STATUS, choice.status)
        item.setToolTip(0, f"{choice.title}: {choice.licence}")
        if choice.recommended or choice.in_use:
            font = item.font(0)
            font.setBold(True)
            item.setFont(0, font)
        if not choice.fits and choice.path is None:
            for column in range(len(COLUMNS)):
                item.setForeground(column, QtGui.QBrush(QtGui.QColor(MUTED)))
        return item

    def select(self, name: str | None) -> None:
        for index in range(self.catalog.topLevelItemCount()):
            item = self.catalog.topLevelItem(index)
            if item is not None and item.data(0, NAME_ROLE) == name:
                self.catalog.setCurrentItem(item)
                return

    def selected_name(self) -> str | None:
        items = self.catalog.selectedItems()
        return str(items[0].data(0, NAME_ROLE)) if items else None

    def selected(self) -> CatalogChoice | None:
        name = self.selected_name()
        return self._choices.get(name) if name else None

    def _update_buttons(self) -> None:
        choice = self.selected()
        downloading = set(self.engine.models.downloading())
        busy = choice is not None and choice.name in downloading
        self.download_button.setEnabled(
            choice is not None and choice.path is None and not busy and choice.fits
        )
        self.download_button.setText("Resume download" if choice and choice.partial else "Download")
        self.pause_button.setEnabled(busy)
        self.use_button.setEnabled(choice is not None and choice.path is not None)
        self.delete_button.setEnabled(
            choice is not None
            and not busy
            and not choice.in_use
            and bool(choice.path or choice.partial)
        )
        if choice is not None:
            capability = describe_capability("tiny" if choice.capability == "tiny" else "capable")
            self.details.setText(
                f"{choice.summary} {choice.parameters} parameters, "
                f"{choice.context_length // 1024}k context; {capability}. "
                f"Licence: {choice.licence}. From {choice.repo} on Hugging Face."
                + ("" if choice.fits else f" It does not fit: {'; '.join(choice.reasons)}.")
            )
        server = self._selected_server()
        self.use_server_button.setEnabled(
            server is not None and self._selected_server_model() is not None
        )
        self.key_button.setEnabled(server is not None)

    def _say(self, text: str, *, error: bool = False, ok: bool = False) -> None:
        show_message(self.message, text, ERROR_COLOR if error else (OK_COLOR if ok else None))

    @Slot()
    def download_selected(self) -> None:
        choice = self.selected()
        if choice is None:
            return
        try:
            self.engine.models.start_download(choice.name)
        except TicError as exc:
            self._say(str(exc), error=True)
            return
        self._say("")
        self._show_download(DownloadState(choice.name, choice.title))
        self._update_buttons()

    @Slot()
    def pause_selected(self) -> None:
        choice = self.selected()
        if choice is not None:
            self.engine.models.cancel_download(choice.name)

    @Slot()
    def use_selected(self) -> None:
        choice = self.selected()
        if choice is None or choice.path is None:
            return
        self._server_model = None
        self.useRequested.emit(str(choice.path))
        self._say(f"{choice.title} chosen: OK switches to it, without a restart.", ok=True)

    @Slot()
    def confirm_delete(self) -> None:
        choice = self.selected()
        if choice is None:
            return
        size = human_bytes(choice.size if choice.path else choice.partial)
        answer = QtWidgets.QMessageBox.question(
            self,
            "Delete the model",
            f"Delete {choice.title} ({size}) from the models folder?",
        )
        if answer == QtWidgets.QMessageBox.StandardButton.Yes:
            self.delete(choice.name)

    def delete(self, name: str) -> None:
        try:
            deleted = self.engine.models.remove(name)
        except TicError as exc:
            self._say(str(exc), error=True)
            return
        self._say(f"Deleted {', '.join(p.name for p in deleted)}.")
        self.engine.models.downloads.pop(name, None)
        self._show_download(None)
        self.refresh()

    @Slot()
    def ask_token(self) -> None:
        token, ok = QtWidgets.QInputDialog.getText(
            self,
            "Hugging Face token",
            "An access token from huggingface.co/settings/tokens, for models whose licence\n"
            "you accepted there. It is kept in the system keyring. Empty: forget it.",
            QtWidgets.QLineEdit.EchoMode.Password,
        )
        if ok:
            self.set_token(token)

    def set_token(self, token: str) -> None:
        try:
            self.engine.models.set_hub_token(token or None)
        except TicError as exc:
            self._say(str(exc), error=True)
            return
        self._say("Token kept in the keyring." if token else "Token forgotten.")

    # -- downloads, followed on the bus -----------------------------------------------------

    def _on_bus(self, message: object) -> None:
        if isinstance(message, ModelDownloadProgress):
            self._show_download(message.state)
        elif isinstance(message, ModelDownloadEnded):
            self._show_download(message.state)
            self.refresh()
            if message.state.phase == "failed":
                self._say(message.state.describe(), error=True)
            elif message.state.phase == "finished":
                self.select(message.state.name)
                self._say(f"{message.state.describe()}: “Use this model” to switch.", ok=True)

    def _show_download(self, state: DownloadState | None) -> None:
        active = state is not None and state.phase in ("starting", "downloading", "verifying")
        self.progress.setVisible(active)
        self.progress_label.setVisible(state is not None and state.phase != "failed")
        if state is None:
            return
        fraction = state.fraction
        if state.phase == "starting" or fraction is None:
            self.progress.setRange(0, 0)  # busy
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * fraction))
        self.progress_label.setText(state.describe())
        if active and fraction is not None:
            self._set_row_status(state.name, f"downloading: {int(100 * fraction)} %")
        self._update_buttons()

    def _set_row_status(self, name: str, text: str) -> None:
        for index in range(self.catalog.topLevelItemCount()):
            item = self.catalog.topLevelItem(index)
            if item is not None and item.data(0, NAME_ROLE) == name:
                item.setText(STATUS, text)

    # -- model servers --------------------------------------------------------------------

    @Slot()
    def find_servers(self) -> None:
        url = self.url_edit.text().strip()
        self.find_button.setEnabled(False)
        self.servers_message.setText("Asking the model servers on this machine…")
        task = self._spawn(self.look_for_servers([url] if url else []), "model-servers")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def look_for_servers(self, urls: list[str]) -> list[LocalServer]:
        """Ask the usual ports and ``urls``; show what answered."""
        try:
            servers = await self.engine.models.find_servers(urls)
        except (TicError, ValueError) as exc:
            servers = []
            self.servers_message.setText(str(exc))
        else:
            self.servers_message.setText("" if servers else NO_SERVERS)
        finally:
            self.find_button.setEnabled(True)
        self.show_servers(servers)
        return servers

    def show_servers(self, servers: list[LocalServer]) -> None:
        self._servers = servers
        self.servers.clear()
        for index, server in enumerate(servers):
            top = QtWidgets.QTreeWidgetItem(
                [f"{server.kind} at {server.url}", server.error or _count(len(server.models))]
            )
            top.setData(0, SERVER_ROLE, index)
            if server.error:
                top.setForeground(1, QtGui.QBrush(QtGui.QColor(ERROR_COLOR)))
            for model in server.models:
                child = QtWidgets.QTreeWidgetItem([model.id, model.details])
                child.setData(0, SERVER_ROLE, index)
                child.setData(0, NAME_ROLE, model.id)
                top.addChild(child)
            self.servers.addTopLevelItem(top)
            top.setExpanded(True)
        self.servers.setVisible(bool(servers))
        self.servers.resizeColumnToContents(0)
        first = self.servers.topLevelItem(0)
        first_model = first.child(0) if first is not None and first.childCount() else None
        if first_model is not None:
            self.servers.setCurrentItem(first_model)
        self._update_buttons()

    def _selected_server(self) -> LocalServer | None:
        items = self.servers.selectedItems()
        if not items:
            return None
        index = items[0].data(0, SERVER_ROLE)
        return (
            self._servers[index] if isinstance(index, int) and index < len(self._servers) else None
        )

    def _selected_server_model(self) -> str | None:
        items = self.servers.selectedItems()
        value = items[0].data(0, NAME_ROLE) if items else None
        return str(value) if value else None

    @Slot()
    def use_server_model(self) -> None:
        server, model = self._selected_server(), self._selected_server_model()
        if server is None or model is None:
            return
        self._server_model = model
        self.useRequested.emit(server.url)
        self.servers_message.setText(f"{model} at {server.kind} chosen: OK switches to it.")

    @Slot()
    def ask_server_key(self) -> None:
        server = self._selected_server()
        if server is None:
            return
        key, ok = QtWidgets.QInputDialog.getText(
            self,
            "API key",
            f"The API key of {server.url}, kept in the system keyring. Empty: forget it.",
            QtWidgets.QLineEdit.EchoMode.Password,
        )
        if ok:
            self.set_server_key(server.url, key)

    def set_server_key(self, url: str, key: str) -> None:
        try:
            self.engine.models.set_server_key(url, key or None)
        except TicError as exc:
            self.servers_message.setText(str(exc))
            return
        self.url_edit.setText(url)
        self.find_servers()

    # -- the dialog -------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The server's model name, when one was chosen here."""
        return {"server_model": self._server_model} if self._server_model else {}
