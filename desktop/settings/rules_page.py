"""The Rules page of Settings: ``data/notifications.md`` in an editor, how TIC reads each line
beside it, and what the edited rules would have done with the latest events.

Everything the page shows comes from the engine's façade: ``rules_report`` (cheap, run on the
UI thread a moment after the user stops typing), ``preview_rules`` (its decisions run off the
event loop; the page runs it as a task through the ``spawn`` callable it is given) and
``save_rules`` (an atomic write). A line TIC could not read is marked in the editor's margin
and in amber, in the words ``tic-desktop rules`` uses."""

from __future__ import annotations

import asyncio
import html
from collections.abc import Sequence
from functools import partial
from typing import Any

from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Signal, Slot
from desktop.settings.accounts_page import Spawn
from desktop.settings.form import ERROR_COLOR, OK_COLOR, hint_label, message_label, show_message
from desktop.settings.rules_editor import open_rules_file
from desktop.widgets.marked_editor import FLAG_COLOR, FLAG_MARK, MarkedEditor, muted_color
from desktop.widgets.wrapping import wrap_rows
from engine.engine import (
    SOURCE_LABELS,
    Engine,
    LineExplanation,
    PreviewedEvent,
    RulesPreview,
    RuleSuggestion,
)
from engine.errors import TicError

DEBOUNCE_MS = 300
PREVIEW_LIMIT = 50
CURRENT_BACKGROUND = "#e8eefb"
NOTIFY_COLOR = "#2e7d32"
SILENT_COLOR = "#757575"
INTRO = (
    "One rule per line. Beside each line: how TIC reads it. Below: what these rules would "
    "have done with your latest messages. Saved rules apply from the next check."
)
NOT_A_RULE = "not read as a rule (notes between rules are skipped; start a line with “- ”)"
PREVIEW_COLUMNS = ("Decision", "When", "From", "About", "Decided by")


def flagged_note(lines: Sequence[LineExplanation]) -> str | None:
    """The tray tooltip's line about rule lines TIC could not read, or None when all are."""
    unread = [line for line in lines if not line.understood]
    if not unread:
        return None
    n = len(unread)
    lines_word = "rule line" if n == 1 else "rule lines"
    if all(line.applied_by == "model" for line in unread):
        return f"{n} {lines_word} left to the model \u2014 see Settings \u2192 Rules"
    return f"{n} {lines_word} not understood \u2014 see Settings \u2192 Rules"


def _counts_text(notified: int, silenced: int, limit: int) -> str:
    parts = []
    if notified:
        parts.append(f"notified {notified}")
    if silenced:
        parts.append(f"silenced {silenced}")
    return f"{' and '.join(parts)} of the last {limit}"


def _when(row: PreviewedEvent) -> str:
    local = row.time.astimezone()
    return f"{local:%a} {local.day} {local:%b %H:%M}"


def _decision_text(row: PreviewedEvent) -> str:
    text = "Notify" if row.notify else "Silent"
    if row.changed:
        text += " (was silent)" if row.notify else " (was notified)"
    return text


def _decided_by(row: PreviewedEvent) -> str:
    if row.rule is None:
        return f"built-in judgement: {row.reason}"
    return f"line {row.line_number}: {row.rule}" if row.line_number else row.rule


def _is_heading(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("#") or stripped.endswith(":")


class RulesPage(QtWidgets.QWidget):
    saved = Signal()  # the rules file was written: the app re-checks the tray's tooltip

    def __init__(
        self,
        engine: Engine,
        spawn: Spawn,
        parent: QtWidgets.QWidget | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        preview_limit: int = PREVIEW_LIMIT,
    ):
        super().__init__(parent)
        self.engine = engine
        self._spawn = spawn
        self.preview_limit = preview_limit
        self._loaded: str | None = None  # the file's text the editor started from
        self._lines: list[LineExplanation] = []
        self._notes: dict[int, str] = {}
        self._suggestions: list[RuleSuggestion] = []
        self._preview: RulesPreview | None = None
        self._preview_text: str | None = None  # the text the preview shown was made for
        self._generation = 0
        self._highlighted = 0  # the line highlighted beside the editor
        self._tasks: set[asyncio.Task[Any]] = set()
        self.destroyed.connect(partial(_cancel_all, self._tasks))

        self.editor = MarkedEditor()
        self.editor.setObjectName("rulesEditor")
        self.understanding = QtWidgets.QTextBrowser()
        self.understanding.setOpenLinks(False)
        self.understanding.anchorClicked.connect(self._on_anchor)
        self.summary = hint_label()
        self.preview_title = hint_label()
        self.preview_list = QtWidgets.QTreeWidget()
        self.preview_list.setHeaderLabels(list(PREVIEW_COLUMNS))
        self.preview_list.setRootIsDecorated(False)
        wrap_rows(self.preview_list, (2, 3, 4))  # a long rule line wraps instead of being cut
        self.preview_list.setAlternatingRowColors(True)
        self.preview_list.itemDoubleClicked.connect(self._on_preview_item)
        self.message = message_label()
        self.save_button = QtWidgets.QPushButton("Save")
        self.save_button.clicked.connect(lambda: self.save())
        self.revert_button = QtWidgets.QPushButton("Revert")
        self.revert_button.clicked.connect(self.reload)
        self.open_button = QtWidgets.QPushButton("Open in your editor")
        self.open_button.clicked.connect(self.open_in_editor)
        save_shortcut = QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Save, self)
        save_shortcut.activated.connect(lambda: self.save())

        self.timer = QtCore.QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self.refresh)
        self.editor.textChanged.connect(self._on_edited)
        self.editor.cursorPositionChanged.connect(self._on_cursor_moved)

        folder = self.engine.workspace.rules_file.parent
        self.watcher = QtCore.QFileSystemWatcher([str(folder)], self)
        self.watcher.directoryChanged.connect(self._on_disk_changed)
        self._layout()
        self.reload()

    def _layout(self) -> None:
        side = QtWidgets.QSplitter(Qt.Orientation.Horizontal)
        side.addWidget(self.editor)
        side.addWidget(self.understanding)
        side.setStretchFactor(0, 3)
        side.setStretchFactor(1, 2)
        side.setChildrenCollapsible(False)
        top = QtWidgets.QWidget()
        top_layout = QtWidgets.QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(side, 1)
        top_layout.addWidget(self.summary)
        bottom = QtWidgets.QWidget()
        bottom_layout = QtWidgets.QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.preview_title)
        bottom_layout.addWidget(self.preview_list, 1)
        split = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.revert_button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        layout.addWidget(hint_label(INTRO))
        layout.addWidget(split, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(900, 640)

    # -- the text -----------------------------------------------------------------------------

    def text(self) -> str:
        return self.editor.toPlainText()

    @property
    def modified(self) -> bool:
        return self._loaded is not None and self.text() != self._loaded

    @Slot()
    def reload(self) -> None:
        """Show the file as it is now (unsaved edits are dropped)."""
        try:
            text = self.engine.rules_text()
        except TicError as exc:
            self._loaded = None
            self.editor.setReadOnly(True)
            show_message(self.message, str(exc), ERROR_COLOR)
            self._update_buttons()
            return
        self.editor.setReadOnly(False)
        self._loaded = text
        self.editor.setPlainText(text)
        show_message(self.message, "")
        self.timer.stop()
        self.refresh_understanding()
        if self.isVisible():
            self.request_preview()

    @Slot()
    def _on_edited(self) -> None:
        self._update_buttons()
        self.timer.start()

    def _update_buttons(self) -> None:
        self.save_button.setEnabled(self.modified)
        self.revert_button.setEnabled(self.modified)

    @Slot(str)
    def _on_disk_changed(self, _folder: str = "") -> None:
        """The file changed outside the page (the chat added a rule, another editor saved):
        shown at once when nothing here is unsaved, else the user is told."""
        try:
            text = self.engine.rules_text()
        except TicError:
            return
        if self._loaded is None or text == self._loaded:
            return
        if not self.modified:
            self.reload()
            show_message(self.message, "The rules file changed on disk; this is the new text.")
            return
        show_message(
            self.message,
            "The rules file changed on disk since you opened it: Save replaces it with your "
            "text, Revert shows the new one.",
            ERROR_COLOR,
        )

    # -- saving -------------------------------------------------------------------------------

    def save(self, *, force: bool = False) -> bool:
        """Write the editor's text to the rules file (atomically). A file changed meanwhile
        is not overwritten on the first press: the user is told, and a second press saves.
        ``force`` (the Settings dialog's OK): unsaved edits are saved whatever the file holds
        now (the page said when it changed)."""
        if self._loaded is None:
            return False
        if force and not self.modified:
            return True
        text = self.text()
        try:
            written = self.engine.save_rules(text, replacing=None if force else self._loaded)
        except TicError as exc:
            show_message(self.message, str(exc), ERROR_COLOR)
            return False
        if not written:
            try:
                self._loaded = self.engine.rules_text()
            except TicError as exc:
                show_message(self.message, str(exc), ERROR_COLOR)
                return False
            show_message(
                self.message,
                "The rules file changed since you opened it (a rule added from the chat?). "
                "Save again to replace it with your text, or Revert to see it.",
                ERROR_COLOR,
            )
            self._update_buttons()
            return False
        self._loaded = text
        self._update_buttons()
        show_message(self.message, "Saved. TIC uses these rules from the next check.", OK_COLOR)
        self.saved.emit()
        return True

    @Slot()
    def open_in_editor(self) -> None:
        """Open the file in the user's own editor; the page follows what is saved there."""
        error = open_rules_file(self.engine.workspace.rules_file)
        if error is None and self.modified:
            error = "Your unsaved edits here are not in the file the editor opened."
        show_message(self.message, error or "", ERROR_COLOR if error else None)

    # -- understanding --------------------------------------------------------------------------

    @Slot()
    def refresh(self) -> None:
        """How TIC reads each line now, then a new preview (as a task)."""
        self.timer.stop()
        self.refresh_understanding()
        self.request_preview()

    def refresh_understanding(self) -> None:
        self._lines = self.engine.rules_report(self.text())
        self._notes = {n.line_number: n.sentence for n in self.engine.rules_notes(self.text())}
        self._suggestions = self.engine.rule_suggestions(self.text())
        marks: dict[int, bool] = {}
        for line in self._lines:  # a line of several sentences is marked if any is unread
            marks[line.line_number] = marks.get(line.line_number, True) and line.understood
        self.editor.set_marks(marks)
        self._render_understanding()
        self._render_summary()

    def explanations(self) -> list[LineExplanation]:
        return list(self._lines)

    def _render_summary(self) -> None:
        lines = self._lines
        if not lines:
            self.summary.setText("No rule lines: TIC's built-in judgement decides everything.")
            self.summary.setStyleSheet("")
            return
        unread = [line for line in lines if not line.understood]
        text = f"{len(lines)} rule line{'s' if len(lines) != 1 else ''}: "
        if not unread:
            self.summary.setText(text + "all understood.")
            self.summary.setStyleSheet("")
            return
        numbers = ", ".join(str(line.line_number) for line in unread)
        if all(line.applied_by == "model" for line in unread):
            fate = "left to the model to judge at each check"
        else:
            fate = "ignored on the built-in model; reword them"
        self.summary.setText(
            f"{text}{FLAG_MARK} {len(unread)} not understood (line{'s' if len(unread) > 1 else ''}"
            f" {numbers}), {fate}."
        )
        self.summary.setStyleSheet(f"color: {FLAG_COLOR};")

    @Slot()
    def _on_cursor_moved(self) -> None:
        """The line under the cursor is highlighted beside the editor (while an edit waits
        for its refresh, the refresh does it)."""
        if not self.timer.isActive() and self._current_line() != self._highlighted:
            self._render_understanding()

    def _held_body(self, explained: LineExplanation) -> str:
        """A line held for the user's yes: how much it would silence, and the way to apply it."""
        held = {h.text: h for h in self._preview.held} if self._preview is not None else {}
        hold = held.get(explained.text)
        if hold is None:
            return ""
        index = list(held).index(explained.text)
        return (
            f'<br><span style="color:{FLAG_COLOR}">\u23f8 {html.escape(hold.sentence)}</span> '
            f'<a href="confirm:{index}">Apply it</a>'
        )

    def accept_suggestion(self, index: int) -> None:
        """The user's choice of the ``index``-th suggested reading: kept, and shown."""
        if not 0 <= index < len(self._suggestions):
            return
        chosen = self._suggestions[index]
        try:
            self.engine.accept_suggestion(chosen.line, chosen.kind)
        except TicError as exc:
            self.preview_title.setText(f"Not kept: {exc}")
            return
        self.refresh_understanding()
        self._preview_text = None
        self.request_preview()

    def confirm_held(self, index: int) -> None:
        """The user's yes to the ``index``-th held line: kept, and the preview made again."""
        if self._preview is None or not 0 <= index < len(self._preview.held):
            return
        try:
            self.engine.confirm_rule(self._preview.held[index].text)
        except TicError as exc:
            self.preview_title.setText(f"Not applied: {exc}")
            return
        self._preview_text = None
        self.request_preview()

    def _line_body(self, explained: LineExplanation, several: bool) -> str:
        """One rule's reading; with several rules on a line, each after its own words; a
        line read only in part with the readings it may have instead."""
        said = f"\u201c{html.escape(explained.text)}\u201d \u2192 " if several else ""
        if explained.understood:
            return said + html.escape(explained.sentence)
        flagged = html.escape(explained.sentence)
        offers = "".join(
            f'<br>Did you mean: {html.escape(s.reading)}? <a href="suggest:{i}">Use this</a>'
            for i, s in enumerate(self._suggestions)
            if s.line == explained.text
        )
        return f'{said}<span style="color:{FLAG_COLOR}"><b>{flagged}</b></span>{offers}'

    def _current_line(self) -> int:
        return self.editor.textCursor().blockNumber() + 1

    def _render_understanding(self) -> None:
        current = self._highlighted = self._current_line()
        by_line: dict[int, list[LineExplanation]] = {}
        for line in self._lines:
            by_line.setdefault(line.line_number, []).append(line)
        counts = self._preview.line_counts() if self._preview is not None else {}
        shown = len(self._preview.events) if self._preview is not None else 0
        muted = muted_color(self.palette()).name()
        parts = []
        for number, raw in enumerate(self.text().splitlines(), start=1):
            found = by_line.get(number)
            if found is None:
                if not raw.strip() or _is_heading(raw):
                    continue
                note = self._notes.get(number, NOT_A_RULE)
                body = f'<span style="color:{muted}">{html.escape(note)}</span>'
            else:
                body = "<br>".join(self._line_body(e, len(found) > 1) for e in found)
                body += "".join(self._held_body(e) for e in found if e.understood)
                if number in counts and all(e.understood for e in found):
                    notified, silenced = counts[number]
                    body += (
                        f'<br><span style="color:{muted}">'
                        f"{_counts_text(notified, silenced, shown)}</span>"
                    )
            background = f"background-color:{CURRENT_BACKGROUND};" if number == current else ""
            parts.append(
                f'<p style="margin:0 0 8px 0;{background}"><a name="l{number}"></a>'
                f'<a href="line:{number}" style="color:{muted};text-decoration:none">'
                f"Line {number}</a> \u00b7 {body}</p>"
            )
        bar = self.understanding.verticalScrollBar()
        position = bar.value()
        self.understanding.setHtml("".join(parts))
        bar.setValue(position)
        if current in by_line:
            self.understanding.scrollToAnchor(f"l{current}")

    def understanding_text(self) -> str:
        return self.understanding.toPlainText()

    @Slot(QtCore.QUrl)
    def _on_anchor(self, url: QtCore.QUrl) -> None:
        if url.scheme() == "line":
            self.editor.go_to_line(int(url.path() or 0))
        elif url.scheme() == "confirm":
            self.confirm_held(int(url.path() or 0))
        elif url.scheme() == "suggest":
            self.accept_suggestion(int(url.path() or 0))

    # -- preview ------------------------------------------------------------------------------

    def request_preview(self) -> None:
        """Run a preview for the current text unless the one shown is for it already."""
        if self._preview_text == self.text():
            return
        task = self._spawn(self.refresh_preview(), "rules-preview")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def refresh_preview(self) -> RulesPreview | None:
        """What the editor's text would have done with the latest events; an older preview
        still running is dropped when it ends."""
        self._generation += 1
        generation, text = self._generation, self.text()
        try:
            preview = await self.engine.preview_rules(text, self.preview_limit)
        except TicError as exc:
            self.preview_title.setText(f"No preview: {exc}")
            return None
        if generation != self._generation:
            return None
        self._preview, self._preview_text = preview, text
        self._show_preview(preview)
        self._render_understanding()
        return preview

    def preview(self) -> RulesPreview | None:
        return self._preview

    def _show_preview(self, preview: RulesPreview) -> None:
        self.preview_title.setText(self._preview_heading(preview))
        self.preview_list.clear()
        bold = self.preview_list.font()
        bold.setBold(True)
        for row in preview.events:
            item = QtWidgets.QTreeWidgetItem(
                [
                    _decision_text(row),
                    _when(row),
                    f"{SOURCE_LABELS.get(row.source, row.source)} \u00b7 {row.sender}",
                    row.about,
                    _decided_by(row),
                ]
            )
            colour = QtGui.QColor(NOTIFY_COLOR if row.notify else SILENT_COLOR)
            item.setForeground(0, colour)
            item.setData(0, Qt.ItemDataRole.UserRole, row.line_number)
            for column in range(len(PREVIEW_COLUMNS)):
                item.setToolTip(column, row.reason)
                if row.changed:
                    item.setFont(column, bold)
            self.preview_list.addTopLevelItem(item)
        for column in range(2):  # the decision and the time: as wide as their words
            self.preview_list.resizeColumnToContents(column)
        for column, width in ((2, 170), (3, 190)):  # "Decided by" takes the rest and wraps
            self.preview_list.setColumnWidth(column, width)

    def _preview_heading(self, preview: RulesPreview) -> str:
        if not preview.events:
            return (
                "No messages yet. Once TIC has read some, this shows what each line would do "
                f"with the last {self.preview_limit}."
            )
        n = len(preview.events)
        text = (
            f"Your last {n} message{'s' if n != 1 else ''} under these rules: "
            f"{preview.notified} would notify you, {n - preview.notified} would stay silent."
        )
        if preview.changed:
            text += f" {preview.changed} decided differently from before (in bold)."
        if preview.unjudged_lines:
            numbers = ", ".join(str(n) for n in preview.unjudged_lines)
            text += (
                f" Line{'s' if len(preview.unjudged_lines) > 1 else ''} {numbers} "
                "would be left to the model at a check; the preview does not ask the model, "
                "so it shows the decisions without them."
            )
        return text

    def preview_rows(self) -> list[tuple[str, ...]]:
        """The preview's rows as shown (for tests and the status command)."""
        rows = []
        for index in range(self.preview_list.topLevelItemCount()):
            item = self.preview_list.topLevelItem(index)
            if item is not None:
                rows.append(tuple(item.text(c) for c in range(len(PREVIEW_COLUMNS))))
        return rows

    @Slot(QtWidgets.QTreeWidgetItem, int)
    def _on_preview_item(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        line = item.data(0, Qt.ItemDataRole.UserRole)
        if isinstance(line, int):
            self.editor.go_to_line(line)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.request_preview()


def _cancel_all(tasks: set[asyncio.Task[Any]], *_args: object) -> None:
    """The page is gone: a preview still running must not touch it."""
    for task in list(tasks):
        task.cancel()
