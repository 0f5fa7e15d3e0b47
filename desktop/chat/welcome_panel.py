"""The welcome panel at the head of the chat: what TIC is, how to start, what to ask.

It is shown on a workspace's first start and whenever the conversation is empty. Clicking an
example puts it in the message box (the user may change it before sending); the links ask
the app to open Settings → Accounts or the rules file.
"""

from __future__ import annotations

import html

from desktop.chat import welcome
from desktop.qt import Qt, QtGui, QtWidgets, Signal
from desktop.widgets.icons import app_pixmap

ICON_SIZE = 36  # px, the app's icon beside the title
LINE_HEIGHT = 125  # percent, as airy as the chat's bubbles


def _paragraph(inner_html: str) -> str:
    return f'<p style="line-height: {LINE_HEIGHT}%; margin: 0">{inner_html}</p>'


class WelcomePanel(QtWidgets.QFrame):
    promptChosen = Signal(str)
    linkActivated = Signal(str)  # welcome.ACCOUNTS_LINK or welcome.RULES_LINK

    def __init__(self, accent: str, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum
        )
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)

        layout.addLayout(self._header())
        layout.addWidget(self._label(_paragraph(html.escape(welcome.INTRO)), "welcomeText"))
        for heading, text in welcome.STEPS:
            styled = text.replace("<a ", f'<a style="color: {accent}; text-decoration: none" ')
            step = self._label(_paragraph(f"<b>{html.escape(heading)}</b><br>{styled}"))
            step.setOpenExternalLinks(False)
            step.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
            step.linkActivated.connect(self.linkActivated.emit)
            layout.addWidget(step)
        layout.addSpacing(4)
        layout.addWidget(self._label("Try asking", "welcomeHeading", rich=False))
        self.prompt_buttons: list[QtWidgets.QPushButton] = []
        for prompt in welcome.EXAMPLE_PROMPTS:
            button = QtWidgets.QPushButton(f"“{prompt}”", objectName="prompt")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setToolTip("Put this in the message box")
            button.clicked.connect(lambda _checked=False, p=prompt: self.promptChosen.emit(p))
            row = QtWidgets.QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)
            self.prompt_buttons.append(button)

    def _header(self) -> QtWidgets.QHBoxLayout:
        ratio = self.devicePixelRatioF()
        pixmap = app_pixmap(round(ICON_SIZE * ratio))
        pixmap.setDevicePixelRatio(ratio)
        icon = QtWidgets.QLabel(objectName="welcomeIcon")
        icon.setPixmap(pixmap)
        row = QtWidgets.QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(icon)
        row.addWidget(self._label(welcome.TITLE, "welcomeTitle", rich=False), 1)
        return row

    @staticmethod
    def _label(text: str, name: str = "welcomeText", rich: bool = True) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel(text, objectName=name)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        return label

    def texts(self) -> list[str]:
        """Every text the panel shows, links as plain text (for tests and the status)."""
        found = [
            QtGui.QTextDocumentFragment.fromHtml(label.text()).toPlainText()
            if label.textFormat() == Qt.TextFormat.RichText
            else label.text()
            for label in self.findChildren(QtWidgets.QLabel)
        ]
        return found + [button.text() for button in self.prompt_buttons]
