"""The confirmation of "Don't notify me about this": before a Never rule is added, the user
sees the rule (keyed on the sender's address or the chat's id) and the notifications of the
last 30 days it would have silenced (``Engine.mute_preview``)."""

from __future__ import annotations

from desktop.qt import QtCore, QtWidgets, Signal
from engine.types import MutePreview

TITLE = "Don't notify me about this"
ADD_LABEL = "Add rule"
LISTED = 5  # silenced notifications listed by name; the rest are counted
WIDTH = 520


def needs_confirmation(preview: MutePreview) -> bool:
    """Only adding a rule is confirmed: cancelling a reminder or adding nothing is not."""
    return bool(preview.rules)


def confirmation_text(preview: MutePreview) -> str:
    rules = "\n".join(f"  \u2022 {rule}" for rule in preview.rules)
    noun = "this rule" if len(preview.rules) == 1 else "these rules"
    lines = [f"TIC will add {noun} under Never notify:", rules, ""]
    total = preview.silenced_total
    if total == 0:
        lines.append(f"It would have silenced nothing in the last {preview.days} days.")
    else:
        what = "1 notification" if total == 1 else f"{total} notifications"
        lines.append(f"In the last {preview.days} days it would have silenced {what}:")
        for item in preview.silenced[:LISTED]:
            when = item.time.astimezone().strftime("%d %b %H:%M")
            lines.append(f"  \u2022 {when} \u2014 {item.summary}")
        if total > LISTED:
            lines.append(f"  \u2026 and {total - LISTED} more")
    for summary in preview.unidentified:
        lines += ["", f"No rule for \u201c{summary}\u201d: nothing identifies its sender."]
    for why in preview.refused:
        lines += ["", why]
    return "\n".join(lines)


class MuteConfirmation(QtWidgets.QMessageBox):
    """A non-modal question; ``confirmed`` is emitted when the user chooses to add the rule."""

    confirmed = Signal()

    def __init__(self, preview: MutePreview):
        super().__init__()
        self.setIcon(QtWidgets.QMessageBox.Icon.Question)
        self.setWindowTitle(TITLE)
        self.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.setText(confirmation_text(preview))
        self.add_button = self.addButton(ADD_LABEL, QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        self.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.add_button)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.buttonClicked.connect(self._clicked)
        layout = self.layout()
        if isinstance(layout, QtWidgets.QGridLayout):  # a message box ignores a minimum width
            wide = QtWidgets.QSpacerItem(WIDTH, 0, QtWidgets.QSizePolicy.Policy.Minimum)
            layout.addItem(wide, layout.rowCount(), 0, 1, layout.columnCount())

    def _clicked(self, button: QtWidgets.QAbstractButton) -> None:
        if button is self.add_button:
            self.confirmed.emit()
