"""The welcome panel at the head of the chat: what TIC is, how to start, what the built-in
model can and can't do (with the bigger model this computer is best served by, one click
away), and what to ask.

It is shown on a workspace's first start and whenever the conversation is empty. Clicking an
example puts it in the message box (the user may change it before sending); the links ask
the app to open Settings → Accounts or the rules file; the model's button asks the app to
download and use it (``modelOfferAccepted``), and its progress is shown under it.
"""

from __future__ import annotations

import html

from desktop.chat import welcome
from desktop.qt import Qt, QtGui, QtWidgets, Signal
from desktop.widgets.icons import app_pixmap
from engine.engine import BUILTIN_CAN, BUILTIN_CANNOT, offer_button, offer_text
from engine.modeltypes import DownloadState, ModelOffer

ICON_SIZE = 36  # px, the app's icon beside the title
LINE_HEIGHT = 125  # percent, as airy as the chat's bubbles


def _paragraph(inner_html: str) -> str:
    return f'<p style="line-height: {LINE_HEIGHT}%; margin: 0">{inner_html}</p>'


class WelcomePanel(QtWidgets.QFrame):
    promptChosen = Signal(str)
    linkActivated = Signal(str)  # welcome.ACCOUNTS_LINK or welcome.RULES_LINK
    modelOfferAccepted = Signal(str)  # the catalog name of the offered model

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
        layout.addWidget(self._model_box())
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

    def _model_box(self) -> QtWidgets.QWidget:
        """What the built-in model can and can't do, and the offer (``set_model``)."""
        self.model_box = QtWidgets.QWidget(objectName="welcomeModel")
        box = QtWidgets.QVBoxLayout(self.model_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(8)
        said = f"{html.escape(BUILTIN_CAN)} {html.escape(BUILTIN_CANNOT)}"
        box.addWidget(self._label(_paragraph(f"<b>What TIC can do now</b><br>{said}")))
        self.offer_label = self._label("")
        box.addWidget(self.offer_label)
        self.offer_button = QtWidgets.QPushButton(objectName="offer")
        self.offer_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.offer_button.clicked.connect(self._accept_offer)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.offer_button)
        row.addStretch(1)
        box.addLayout(row)
        self.offer_status = self._label("", "welcomeHeading", rich=False)
        box.addWidget(self.offer_status)
        self.offer: ModelOffer | None = None
        self.set_model(tiny=False, offer=None)
        return self.model_box

    def set_model(self, *, tiny: bool, offer: ModelOffer | None) -> None:
        """Say what the built-in model can do while a tiny model runs, with ``offer`` (the
        recommended catalog model, if any) and its button; nothing of it on a capable model."""
        self.offer = offer
        self.model_box.setVisible(tiny)
        if offer is not None:
            self.offer_label.setText(_paragraph(html.escape(offer_text(offer))))
            self.offer_button.setText(offer_button(offer))
            self.offer_button.setToolTip(f"{offer.title}: {offer.summary}")
            self.offer_button.setEnabled(True)
        for widget in (self.offer_label, self.offer_button):
            widget.setVisible(offer is not None)
        self.offer_status.hide()

    def set_download(self, state: DownloadState) -> None:
        """How getting the offered model goes (the app feeds it the bus's download news)."""
        if self.offer is None or state.name != self.offer.name:
            return
        self.offer_status.setText(state.describe())
        self.offer_status.show()
        self.offer_button.setEnabled(state.phase in ("failed", "cancelled"))

    def _accept_offer(self) -> None:
        if self.offer is None:
            return
        self.offer_button.setEnabled(False)
        self.offer_status.setText(f"Getting {self.offer.title}…")
        self.offer_status.show()
        self.modelOfferAccepted.emit(self.offer.name)

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
            if label.isVisibleTo(self)
        ]
        buttons = [*self.prompt_buttons, self.offer_button]
        return [t for t in found if t] + [b.text() for b in buttons if b.isVisibleTo(self)]
