"""The pieces the Settings pages share: a form grid whose word-wrapped labels get the height
they need, muted hints under a control, an inline status line, and the colours it uses. The
dialog and each page (``model_page``, ``accounts_page``, ``rules_page``) build from these, so
no page imports the dialog for them."""

from __future__ import annotations

from desktop.qt import Qt, QtGui, QtWidgets

ERROR_COLOR = "#c62828"
OK_COLOR = "#2e7d32"


def wrapping_label(text: str = "") -> QtWidgets.QLabel:
    """A word-wrapping label that takes the full width of its form row."""
    label = QtWidgets.QLabel(text)
    policy = QtWidgets.QSizePolicy(
        QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred
    )
    policy.setHeightForWidth(True)
    label.setSizePolicy(policy)
    label.setWordWrap(True)
    return label


def hint_label(text: str = "") -> QtWidgets.QLabel:
    """A muted, wrapping explanation under a control."""
    label = wrapping_label(text)
    palette = label.palette()
    muted = palette.color(QtGui.QPalette.ColorRole.PlaceholderText)
    palette.setColor(QtGui.QPalette.ColorRole.WindowText, muted)
    label.setPalette(palette)
    return label


def message_label() -> QtWidgets.QLabel:
    """An inline status line (errors in red); hidden while empty."""
    label = wrapping_label()
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


def show_message(label: QtWidgets.QLabel, text: str, color: str | None = None) -> None:
    label.setText(text)
    label.setStyleSheet(f"color: {color};" if color else "")
    label.setVisible(bool(text))


class Form(QtWidgets.QGridLayout):
    """Label/field rows like QFormLayout, whose rows ignore height-for-width: in this grid
    a word-wrapped label gets the height its text needs at the width it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.setHorizontalSpacing(12)
        self.setVerticalSpacing(8)
        self.setColumnStretch(1, 1)

    def add_row(self, label: str, field: QtWidgets.QWidget | QtWidgets.QLayout) -> None:
        row = self.rowCount()
        if label:
            caption = QtWidgets.QLabel(label)
            self.addWidget(caption, row, 0, Qt.AlignmentFlag.AlignRight)
            if isinstance(field, QtWidgets.QWidget):
                caption.setBuddy(field)
        if isinstance(field, QtWidgets.QLayout):
            self.addLayout(field, row, 1)
        else:
            self.addWidget(field, row, 1)


def page_layout(*parts: QtWidgets.QLayout | QtWidgets.QWidget) -> QtWidgets.QVBoxLayout:
    layout = QtWidgets.QVBoxLayout()
    layout.setContentsMargins(16, 16, 16, 16)
    layout.setSpacing(8)
    for part in parts:
        if isinstance(part, Form):
            part.setRowStretch(part.rowCount(), 1)  # spare height below the last row
        if isinstance(part, QtWidgets.QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    layout.addStretch(1)
    return layout
