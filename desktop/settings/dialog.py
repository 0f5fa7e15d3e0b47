"""The Settings dialog: General, Model, Notifications, Rules and Accounts pages.

It edits a copy of :class:`engine.settings.Settings` and never blocks on I/O: the model file
is checked on a worker thread, when it is chosen and again when OK is pressed; OK is refused
while the model file or the quiet hours are invalid. Applying the result (saving it, writing
the autostart entry, reloading the model) is the caller's job, on ``settingsAccepted``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Signal, Slot
from desktop.settings.form import (
    ERROR_COLOR,
    OK_COLOR,
    Form,
    hint_label,
    message_label,
    page_layout,
    show_message,
)
from desktop.settings.rules_editor import open_rules_file
from desktop.system.autostart import unsupported_reason
from engine.engine import check_choice
from engine.errors import ModelError
from engine.modeltypes import CapabilitySetting
from engine.modeltypes import model_label as describe_model
from engine.settings import Settings

if TYPE_CHECKING:
    from desktop.settings.model_page import ModelLibraryPanel

TIME_FORMAT = "HH:mm"
DEFAULT_QUIET_START = "22:00"
DEFAULT_QUIET_END = "07:00"


class GeneralPage(QtWidgets.QWidget):
    def __init__(self, settings: Settings, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.tick_interval = QtWidgets.QSpinBox()
        self.tick_interval.setRange(1, 24 * 60)
        self.tick_interval.setSuffix(" min")
        self.tick_interval.setValue(settings.tick_interval_minutes)
        self.tick_interval.setMaximumWidth(120)

        self.start_on_login = QtWidgets.QCheckBox("Start TIC Desktop when I log in")
        self.start_on_login.setChecked(settings.start_on_login)

        form = Form()
        form.add_row("Check for news every:", self.tick_interval)
        form.add_row("", hint_label("TIC reads new mail, messages and events this often."))
        form.add_row("Startup:", self.start_on_login)
        reason = unsupported_reason()
        if reason is not None:
            self.start_on_login.setEnabled(False)
            self.start_on_login.setToolTip(reason)
            form.add_row("", hint_label(reason))
        self.setLayout(page_layout(form))

    def values(self) -> dict[str, Any]:
        return {
            "tick_interval_minutes": self.tick_interval.value(),
            "start_on_login": self.start_on_login.isChecked(),
        }


CAPABILITY_CHOICES: tuple[tuple[CapabilitySetting, str], ...] = (
    ("auto", "Automatic"),
    ("tiny", "Small model: compose replies from the facts"),
    ("capable", "Capable model: let it write"),
)
CAPABILITY_HINT = (
    "A small model's replies are composed in code from your messages, calendar and rules, "
    "and it changes nothing unless you ask in so many words. A capable model writes its "
    "replies (checked against the facts) and asks before it changes anything."
)


class ModelPage(QtWidgets.QWidget):
    """The model file: chosen, typed, or left empty for the default; checked off-thread.
    And what the model is trusted with: judged from the model, or the user's choice."""

    changed = Signal()  # the path changed: any earlier check result is void
    checked = Signal(object)  # str | None: the latest check's error, None when valid
    # generation, error, and what the file is (emitted from the worker thread)
    _checkDone = Signal(int, object, object)

    def __init__(
        self,
        settings: Settings,
        parent: QtWidgets.QWidget | None = None,
        models_dir: Path | None = None,
        model_label: str | None = None,
    ):
        super().__init__(parent)
        self._models_dir = models_dir
        self._initial_path = settings.model_path or None
        self._initial_label = model_label
        self._generation = 0
        self._state = "unchecked"  # unchecked | checking | valid | invalid
        self._checkDone.connect(self._on_check_done, Qt.ConnectionType.QueuedConnection)

        self.path_edit = QtWidgets.QLineEdit(settings.model_path or "")
        self.path_edit.setPlaceholderText("Default model")
        self.path_edit.setClearButtonEnabled(True)
        self.path_edit.setToolTip(self.path_edit.text())
        self.path_edit.textEdited.connect(self._on_edited)
        self.path_edit.editingFinished.connect(self._on_editing_finished)
        self.choose_button = QtWidgets.QPushButton("Choose…")
        self.choose_button.clicked.connect(self._choose)
        self.embedded_button = QtWidgets.QPushButton("Use the embedded default")
        self.embedded_button.clicked.connect(self.use_embedded)
        self.message = message_label()
        self.capability = QtWidgets.QComboBox()
        for value, text in CAPABILITY_CHOICES:
            self.capability.addItem(text, value)
        self.capability.setCurrentIndex(max(0, self.capability.findData(settings.model_capability)))
        self._show_automatic(model_label)
        self.keep_loaded = QtWidgets.QCheckBox("Keep the model in memory")
        self.keep_loaded.setChecked(settings.keep_model_loaded)

        path_row = QtWidgets.QHBoxLayout()
        path_row.setSpacing(6)
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(self.choose_button)
        default_row = QtWidgets.QHBoxLayout()
        default_row.addWidget(self.embedded_button)
        default_row.addStretch(1)

        form = Form()
        form.add_row("Model file:", path_row)
        form.add_row("", self.message)
        form.add_row("", default_row)
        form.add_row(
            "",
            hint_label(
                "A local GGUF model run by llama.cpp. When empty, TIC uses the first .gguf "
                "file in the workspace's models folder, else the embedded SmolLM2-135M model."
            ),
        )
        form.add_row("The model is:", self.capability)
        form.add_row("", hint_label(CAPABILITY_HINT))
        form.add_row("Memory:", self.keep_loaded)
        form.add_row(
            "",
            hint_label(
                "Kept, replies start sooner. Off, the model's memory is freed after 5 "
                "minutes without use, and loaded again when it is needed."
            ),
        )
        # The page scrolls as a whole on a small screen; the library (added to ``body`` by
        # the dialog) scrolls with it rather than in a box of its own.
        self.body = page_layout(form)
        content = QtWidgets.QWidget()
        content.setLayout(self.body)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        if self.path() is not None:
            self.check()

    @property
    def state(self) -> str:
        return self._state

    def path(self) -> str | None:
        text = self.path_edit.text().strip()
        return text or None

    def set_path(self, path: str | Path) -> None:
        """Show ``path`` and check it."""
        self.path_edit.setText(str(path))
        self._on_edited()
        self.check()

    @Slot()
    def use_embedded(self) -> None:
        self.path_edit.clear()
        self._on_edited()
        self.check()

    def check(self) -> None:
        """Check the current path on a worker thread; ``checked`` reports the result."""
        self._generation += 1
        path = self.path()
        if path is None:
            unchanged = self._initial_path is None
            self._show_automatic(self._initial_label if unchanged else None)
            self._finish(None)
            return
        self._state = "checking"
        show_message(self.message, "Checking the model file…")
        generation = self._generation
        threading.Thread(
            target=self._check_in_worker, args=(generation, path), daemon=True, name="model-check"
        ).start()

    def _check_in_worker(self, generation: int, path: str) -> None:
        label: str | None = None
        try:
            capability = check_choice(path)
            error: str | None = None
            label = describe_model(_model_name(path), capability)
        except ModelError as exc:
            error = str(exc)
        except Exception as exc:  # a worker must always report back
            error = f"cannot check the model file: {exc}"
        try:
            self._checkDone.emit(generation, error, label)
        except RuntimeError:  # the dialog is gone
            pass

    @Slot(int, object, object)
    def _on_check_done(self, generation: int, error: str | None, label: str | None) -> None:
        if generation == self._generation:
            if label is not None:
                self._show_automatic(label)
            self._finish(error)

    def _show_automatic(self, label: str | None) -> None:
        """ "Automatic (SmolLM2-135M · small built-in model)": what the chosen model is."""
        text = f"Automatic ({label})" if label else "Automatic"
        self.capability.setItemText(self.capability.findData("auto"), text)

    def _finish(self, error: str | None) -> None:
        if error is None:
            self._state = "valid"
            text = "" if self.path() is None else "✓ GGUF model file"
            show_message(self.message, text, OK_COLOR)
        else:
            self._state = "invalid"
            show_message(self.message, error, ERROR_COLOR)
        self.checked.emit(error)

    @Slot()
    def _on_edited(self) -> None:
        self.path_edit.setToolTip(self.path_edit.text())
        self._generation += 1  # a check still running is for an older path
        self._state = "unchecked"
        show_message(self.message, "")
        self.changed.emit()

    @Slot()
    def _on_editing_finished(self) -> None:
        if self._state == "unchecked":
            self.check()

    @Slot()
    def _choose(self) -> None:
        current = self.path()
        start = str(Path(current).expanduser().parent) if current else str(self._models_dir or "")
        chosen, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Choose a GGUF model", start, "GGUF models (*.gguf);;All files (*)"
        )
        if chosen:
            self.set_path(chosen)

    def values(self) -> dict[str, Any]:
        return {
            "model_path": self.path(),
            "model_capability": self.capability.currentData(),
            "keep_model_loaded": self.keep_loaded.isChecked(),
        }


def _model_name(choice: str) -> str:
    """How a model choice is named: a GGUF file by its stem, a server by its address."""
    return choice if "://" in choice else Path(choice).stem


class NotificationsPage(QtWidgets.QWidget):
    changed = Signal()
    rulesRequested = Signal()  # "Edit notification rules…" when the rules have their own tab

    def __init__(
        self,
        settings: Settings,
        parent: QtWidgets.QWidget | None = None,
        rules_file: Path | None = None,
        *,
        rules_tab: bool = False,
    ):
        super().__init__(parent)
        self._rules_file = rules_file
        self._rules_tab = rules_tab
        start, end = settings.quiet_hours_start, settings.quiet_hours_end
        self.quiet_enabled = QtWidgets.QCheckBox("Mute notifications during quiet hours")
        self.quiet_enabled.setChecked(start is not None and end is not None)
        self.quiet_from = self._time_edit(start or DEFAULT_QUIET_START)
        self.quiet_to = self._time_edit(end or DEFAULT_QUIET_END)
        self.summary = hint_label()
        self.message = message_label()
        self.reminders_through = QtWidgets.QCheckBox(
            "Let my own reminders through while paused or in quiet hours"
        )
        self.reminders_through.setChecked(settings.reminders_through_pause)

        form = Form()
        form.add_row("Quiet hours:", self.quiet_enabled)
        form.add_row("From:", self.quiet_from)
        form.add_row("To:", self.quiet_to)
        form.add_row("", self.summary)
        form.add_row("", self.message)
        form.add_row("Reminders:", self.reminders_through)
        form.add_row(
            "",
            hint_label(
                "Reminders you set (and “Remind me in 1 hour”) still pop up; everything "
                "else waits for one summary when the pause ends."
            ),
        )
        if rules_file is not None or rules_tab:
            where = (
                "on the Rules tab, with how TIC reads each line"
                if rules_tab or rules_file is None
                else f"in {rules_file.name}; it opens in your text editor"
            )
            self.edit_rules_button = QtWidgets.QPushButton("Edit notification rules…")
            self.edit_rules_button.clicked.connect(self.edit_rules)
            self.rules_message = message_label()
            rules_row = QtWidgets.QHBoxLayout()
            rules_row.addWidget(self.edit_rules_button)
            rules_row.addStretch(1)
            form.add_row("Rules:", rules_row)
            form.add_row(
                "",
                hint_label(
                    f"Your rules (who always gets through, what never does) are {where}. "
                    "Changes apply at the next check."
                ),
            )
            form.add_row("", self.rules_message)
        self.setLayout(page_layout(form))

        self.quiet_enabled.toggled.connect(self._refresh)
        self.quiet_from.timeChanged.connect(self._refresh)
        self.quiet_to.timeChanged.connect(self._refresh)
        self._refresh()

    @staticmethod
    def _time_edit(hhmm: str) -> QtWidgets.QTimeEdit:
        edit = QtWidgets.QTimeEdit(QtCore.QTime.fromString(hhmm, TIME_FORMAT))
        edit.setDisplayFormat(TIME_FORMAT)
        edit.setWrapping(True)
        edit.setMaximumWidth(120)
        return edit

    def is_valid(self) -> bool:
        return not self.quiet_enabled.isChecked() or self.quiet_from.time() != self.quiet_to.time()

    @Slot()
    def edit_rules(self) -> None:
        """Open the rules file in the user's editor (or their tab); if that fails, say so
        and where it is."""
        if self._rules_tab:
            self.rulesRequested.emit()
            return
        if self._rules_file is None:
            return
        error = open_rules_file(self._rules_file)
        show_message(self.rules_message, error or "", ERROR_COLOR if error else None)

    @Slot()
    def _refresh(self) -> None:
        enabled = self.quiet_enabled.isChecked()
        self.quiet_from.setEnabled(enabled)
        self.quiet_to.setEnabled(enabled)
        start, end = self.quiet_from.time(), self.quiet_to.time()
        a, b = start.toString(TIME_FORMAT), end.toString(TIME_FORMAT)
        if not enabled:
            self.summary.setText("Notifications can arrive at any time.")
        elif end == start:
            self.summary.setText("")
        elif end < start:
            self.summary.setText(f"Quiet from {a} until {b} the next morning.")
        else:
            self.summary.setText(f"Quiet from {a} until {b}.")
        self.summary.setVisible(bool(self.summary.text()))
        error = "" if self.is_valid() else "“From” and “To” must differ."
        show_message(self.message, error, ERROR_COLOR)
        self.changed.emit()

    def values(self) -> dict[str, Any]:
        through = {"reminders_through_pause": self.reminders_through.isChecked()}
        if not self.quiet_enabled.isChecked():
            return {"quiet_hours_start": None, "quiet_hours_end": None, **through}
        return {
            "quiet_hours_start": self.quiet_from.time().toString(TIME_FORMAT),
            "quiet_hours_end": self.quiet_to.time().toString(TIME_FORMAT),
            **through,
        }


class SettingsDialog(QtWidgets.QDialog):
    settingsAccepted = Signal(object)  # Settings: the edited copy, emitted on OK

    def __init__(
        self,
        settings: Settings,
        parent: QtWidgets.QWidget | None = None,
        accounts_page: QtWidgets.QWidget | None = None,
        *,
        models_dir: Path | None = None,
        rules_file: Path | None = None,
        model_label: str | None = None,
        model_library: ModelLibraryPanel | None = None,
        rules_page: QtWidgets.QWidget | None = None,
    ):
        """``model_label``: what the current model is (``engine.modeltypes.model_label``), shown
        as what "Automatic" means. ``rules_page``: the Rules tab, where the rules are edited
        (the Notifications page's "Edit notification rules…" then goes to it)."""
        super().__init__(parent)
        self.setWindowTitle("TIC Desktop Settings")
        self._settings = settings
        self._accept_after_check = False

        self.general_page = GeneralPage(settings)
        self.model_page = ModelPage(settings, models_dir=models_dir, model_label=model_label)
        self.notifications_page = NotificationsPage(
            settings, rules_file=rules_file, rules_tab=rules_page is not None
        )
        self.accounts_page = accounts_page
        self.model_library = model_library
        if model_library is not None:  # the catalog and the servers, under the model field
            page = self.model_page.body
            page.insertWidget(page.count() - 1, model_library, 1)
            page.setStretch(page.count() - 1, 0)
            model_library.useRequested.connect(self.model_page.set_path)
        self.rules_page = rules_page

        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.general_page, "General")
        self.tabs.addTab(self.model_page, "Model")
        self.tabs.addTab(self.notifications_page, "Notifications")
        if rules_page is not None:
            self.tabs.addTab(rules_page, "Rules")
            self.notifications_page.rulesRequested.connect(
                lambda: self.tabs.setCurrentWidget(rules_page)
            )
        if accounts_page is not None:
            self.tabs.addTab(accounts_page, "Accounts")

        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(12)
        layout.addWidget(self.tabs)
        layout.addWidget(self.buttons)
        self.setMinimumSize(560, 340)
        if model_library is not None:
            self.resize(760, 720)

        self.model_page.changed.connect(self._on_model_changed)
        self.model_page.checked.connect(self._on_model_checked)
        self.notifications_page.changed.connect(self._update_ok)
        self._update_ok()

    @property
    def ok_button(self) -> QtWidgets.QPushButton:
        return self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)

    def result_settings(self) -> Settings:
        """A new Settings with the dialog's values (the one passed in is left untouched)."""
        update = {
            **self.general_page.values(),
            **self.model_page.values(),
            **self.notifications_page.values(),
            **(self.model_library.values() if self.model_library is not None else {}),
        }
        return self._settings.model_copy(update=update)

    @Slot()
    def accept(self) -> None:
        """Check the model file again (off-thread), then accept only if all is valid."""
        if not self.notifications_page.is_valid():
            self.tabs.setCurrentWidget(self.notifications_page)
            return
        if self.model_page.path() is None:
            self._finish_accept()
            return
        self._accept_after_check = True
        self._update_ok()
        self.model_page.check()

    @Slot()
    def reject(self) -> None:
        self._accept_after_check = False
        super().reject()

    def _finish_accept(self) -> None:
        self._accept_after_check = False
        result = self.result_settings()
        super().accept()
        self.settingsAccepted.emit(result)

    @Slot()
    def _on_model_changed(self) -> None:
        self._accept_after_check = False
        self._update_ok()

    @Slot(object)
    def _on_model_checked(self, error: str | None) -> None:
        if self._accept_after_check:
            self._accept_after_check = False
            if error is None:
                self._finish_accept()
                return
            self.tabs.setCurrentWidget(self.model_page)
        self._update_ok()

    @Slot()
    def _update_ok(self) -> None:
        model_ok = self.model_page.state != "invalid"
        quiet_ok = self.notifications_page.is_valid()
        self._mark_tab(self.model_page, model_ok)
        self._mark_tab(self.notifications_page, quiet_ok)
        self.ok_button.setEnabled(model_ok and quiet_ok and not self._accept_after_check)

    def _mark_tab(self, page: QtWidgets.QWidget, valid: bool) -> None:
        """A warning icon on the tab of a page that blocks OK, visible from any page."""
        index = self.tabs.indexOf(page)
        style = self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.tabs.setTabIcon(index, QtGui.QIcon() if valid else style)
        self.tabs.setTabToolTip(index, "" if valid else "Fix this page to save the settings")
