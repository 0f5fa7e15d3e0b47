"""The chat window: the conversation with TIC, replies streaming in, and why TIC spoke up.

The window only shows things and emits ``sendRequested``; the app wires it to the engine
(``ChatHub.send``) and feeds it the bus events through ``EngineBridge``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from desktop.chat.markdown import open_link, set_markdown, space_blocks
from desktop.chat.welcome_panel import WelcomePanel
from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Signal, Slot
from engine.bus import ReplyFinished, ReplyStarted, ReplyToken, ToolCalled, TurnFailed
from engine.engine import SOURCE_LABELS, tool_labels

BUBBLE_SHARE = 0.82  # of the conversation's width a bubble may take
BUBBLE_PADDING = 14  # px, left and right inside a bubble
HIGHLIGHT_MS = 1800
TYPING_FRAMES = ("●", "● ●", "● ● ●")
BOTTOM_SLACK = 24  # px: this close to the bottom counts as "at the bottom"


@dataclass(frozen=True)
class Theme:
    window: str
    text: str
    muted: str
    border: str
    assistant: str
    user: str
    user_text: str
    user_muted: str
    accent: str
    badge: str
    badge_text: str
    highlight: str
    error: str
    disabled: str


LIGHT = Theme(
    window="#f3f4f7",
    text="#1d2230",
    muted="#7a8194",
    border="#dfe2ea",
    assistant="#ffffff",
    user="#2f6fed",
    user_text="#ffffff",
    user_muted="#d5e2ff",
    accent="#2f6fed",
    badge="#e6eefe",
    badge_text="#2457c5",
    highlight="#f5a623",
    error="#c62828",
    disabled="#b9c3da",
)
DARK = Theme(
    window="#17191f",
    text="#e6e8ee",
    muted="#8b92a5",
    border="#2c303b",
    assistant="#22252e",
    user="#3b6fe0",
    user_text="#ffffff",
    user_muted="#cddcff",
    accent="#5b8cff",
    badge="#26324d",
    badge_text="#a9c1ff",
    highlight="#f5a623",
    error="#ff6b6b",
    disabled="#3a4152",
)


def current_theme() -> Theme:
    dark = QtGui.QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark
    return DARK if dark else LIGHT


def style_sheet(t: Theme) -> str:
    return f"""
    ChatWindow, QWidget#messages {{ background: {t.window}; }}
    QScrollArea#conversation {{ border: none; background: {t.window}; }}
    QFrame#bubble {{ border-radius: 14px; }}
    QFrame#bubble[role="assistant"] {{ background: {t.assistant}; border: 1px solid {t.border}; }}
    QFrame#bubble[role="user"] {{ background: {t.user}; border: 1px solid {t.user}; }}
    QFrame#bubble[highlighted="true"] {{ border: 2px solid {t.highlight}; }}
    QFrame#bubble QTextBrowser {{ background: transparent; border: none; color: {t.text}; }}
    QFrame#bubble[role="user"] QTextBrowser {{ color: {t.user_text}; }}
    QFrame#bubble QTextBrowser[error="true"] {{ color: {t.error}; }}
    QLabel#meta {{ color: {t.muted}; font-size: 11px; }}
    QFrame#bubble[role="user"] QLabel#meta {{ color: {t.user_muted}; }}
    QLabel#typing {{ color: {t.muted}; font-size: 13px; }}
    QLabel#badge {{
        background: {t.badge}; color: {t.badge_text}; border-radius: 8px;
        padding: 1px 8px; font-size: 11px; font-weight: 600;
    }}
    QPushButton#why, QPushButton#open {{
        border: none; background: transparent; color: {t.accent};
        font-size: 11px; text-decoration: underline; padding: 0 2px;
    }}
    QFrame#welcome {{
        background: {t.assistant}; border: 1px solid {t.border}; border-radius: 14px;
    }}
    QLabel#welcomeTitle {{ color: {t.text}; font-size: 18px; font-weight: 700; }}
    QLabel#welcomeText {{ color: {t.text}; }}
    QLabel#welcomeHeading {{ color: {t.muted}; font-weight: 600; }}
    QPushButton#prompt {{
        background: {t.badge}; color: {t.badge_text}; border: none; border-radius: 12px;
        padding: 6px 12px; text-align: left;
    }}
    QPushButton#prompt:hover {{ background: {t.border}; }}
    QPushButton#offer {{
        background: {t.accent}; color: #ffffff; border: none; border-radius: 12px;
        padding: 6px 14px; font-weight: 600;
    }}
    QPushButton#offer:disabled {{ background: {t.disabled}; }}
    QFrame#composer {{ background: {t.assistant}; border-top: 1px solid {t.border}; }}
    QPlainTextEdit#input {{
        background: {t.window}; color: {t.text}; border: 1px solid {t.border};
        border-radius: 12px; padding: 4px 6px;
    }}
    QPlainTextEdit#input:focus {{ border: 1px solid {t.accent}; }}
    QPushButton#send {{
        background: {t.accent}; color: #ffffff; border: none; border-radius: 12px;
        padding: 8px 18px; font-weight: 600;
    }}
    QPushButton#send:disabled {{ background: {t.disabled}; }}
    QWidget#status {{ background: {t.window}; }}
    QLabel#statusText, QLabel#statusTiming {{ color: {t.muted}; }}
    QWidget#header {{ background: {t.assistant}; border-bottom: 1px solid {t.border}; }}
    QLabel#modelLabel {{ color: {t.muted}; font-size: 11px; }}
    QProgressBar#statusBusy {{
        border: none; background: {t.border}; border-radius: 2px; max-height: 4px;
    }}
    QProgressBar#statusBusy::chunk {{ background: {t.accent}; border-radius: 2px; }}
    """


# time -----------------------------------------------------------------------------------


def parse_timestamp(value: str) -> datetime:
    """A stored ISO timestamp as an aware datetime (naive values are UTC, as the store writes)."""
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def format_timestamp(moment: datetime, now: datetime | None = None) -> str:
    """Local time as HH:MM, with the date in front when it is not today."""
    local = moment.astimezone()
    today = (now or datetime.now().astimezone()).astimezone().date()
    if local.date() == today:
        return f"{local:%H:%M}"
    if local.year == today.year:
        return f"{local.day} {local:%b}, {local:%H:%M}"
    return f"{local.day} {local:%b %Y}, {local:%H:%M}"


def source_label(source: str) -> str:
    return SOURCE_LABELS.get(source, source.replace("_", " ").title())


def format_timing(first_token_ms: int | None, total_ms: int | None) -> str:
    """A finished turn's times, e.g. "First token 0.8 s · total 2.4 s"."""
    if total_ms is None:
        return ""
    total = f"{total_ms / 1000:.1f} s"
    if first_token_ms is None:
        return f"Total {total}"
    return f"First token {first_token_ms / 1000:.1f} s · total {total}"


ToolCall = tuple[str, dict[str, Any], str]  # name, arguments, status


def tools_line(calls: Sequence[ToolCall]) -> str:
    """What the reply's tool calls changed, in words ("Rule added to Never notify"); ""
    for look-ups, whose answer is the reply itself."""
    return " · ".join(tool_labels(calls))


# widgets --------------------------------------------------------------------------------


class MessageText(QtWidgets.QTextBrowser):
    """A bubble's text: selectable, sized exactly to its content, loading no resources."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Fixed)
        self.setOpenLinks(False)
        self.anchorClicked.connect(open_link)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(0)
        self._max_width = 320

    def loadResource(self, kind: int, name: QtCore.QUrl | str) -> Any:
        return None

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        event.ignore()  # the conversation scrolls, never a single bubble

    def fit(self, max_width: int | None = None) -> None:
        if max_width is not None:
            self._max_width = max_width
        document = self.document()
        document.setTextWidth(self._max_width)
        width = min(self._max_width, math.ceil(document.idealWidth()) + 1)
        document.setTextWidth(width)
        self.setFixedSize(max(width, 1), math.ceil(document.size().height()) + 1)

    def set_error(self, error: bool) -> None:
        self.setProperty("error", error)
        self.style().unpolish(self)
        self.style().polish(self)


class WhyDialog(QtWidgets.QDialog):
    """Why TIC surfaced a notification: each event's summary, reason and matching rule, and
    whether TIC composed the reply from these facts itself."""

    COMPOSED = "TIC wrote this reply itself, from these facts; no model wrote any of it."

    def __init__(
        self,
        entries: Iterable[dict[str, Any]],
        parent: QtWidgets.QWidget | None = None,
        *,
        composed: bool = False,
    ):
        super().__init__(parent)
        self.setWindowTitle("Why TIC told you this")
        self.setMinimumWidth(380)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setSpacing(6)
        for index, entry in enumerate(entries):
            if index:
                layout.addSpacing(8)
            self._add_entry(layout, entry)
        if composed:
            layout.addSpacing(8)
            layout.addWidget(self._label(self.COMPOSED))
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addSpacing(6)
        layout.addWidget(buttons)

    def _add_entry(self, layout: QtWidgets.QVBoxLayout, entry: dict[str, Any]) -> None:
        summary = str(entry.get("summary") or "")
        if entry.get("source"):
            summary = f"{source_label(str(entry['source']))}: {summary}"
        title = self._label(summary)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)
        if entry.get("reason"):
            layout.addWidget(self._label(f"Why: {entry['reason']}"))
        if entry.get("rule"):
            layout.addWidget(self._label(f"Rule: {entry['rule']}"))
        if entry.get("notes"):  # what was cut on arrival; the originals are kept
            layout.addWidget(self._label("On arrival: " + "; ".join(map(str, entry["notes"]))))

    @staticmethod
    def _label(text: str) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)  # event content is untrusted
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def texts(self) -> list[str]:
        return [label.text() for label in self.findChildren(QtWidgets.QLabel)]


class MessageBubble(QtWidgets.QFrame):
    """One message: its text, then a footer with time, tools used, badges and "why?"."""

    def __init__(self, role: str, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.role = role
        self.message_id: int | None = None
        self.why: list[dict[str, Any]] = []
        self.composed = False
        self.tool_calls: list[ToolCall] = []
        self.setObjectName("bubble")
        self.setProperty("role", role)
        self.setProperty("highlighted", False)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Maximum, QtWidgets.QSizePolicy.Policy.Fixed)

        self.badges = QtWidgets.QHBoxLayout()
        self.badges.setSpacing(4)
        self.body = MessageText(self)
        self.typing = QtWidgets.QLabel(TYPING_FRAMES[-1], objectName="typing")
        self.typing.hide()
        self.tools = self._meta_label()
        self.note = self._meta_label("(delivered without the model)")
        self.why_button = QtWidgets.QPushButton("why?", objectName="why")
        self.why_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.why_button.setToolTip("Why TIC told you this")
        self.why_button.clicked.connect(self.show_why)
        self.open_button = QtWidgets.QPushButton("Open", objectName="open")
        self.open_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.open_button.setToolTip("Open the message where it is: the email, the chat, the event")
        self.time_label = self._meta_label()
        for widget in (self.tools, self.note, self.why_button, self.open_button, self.time_label):
            widget.hide()

        footer = QtWidgets.QHBoxLayout()
        footer.setSpacing(8)
        footer.addWidget(self.note)
        footer.addWidget(self.open_button)
        footer.addWidget(self.why_button)
        footer.addStretch(1)
        footer.addWidget(self.time_label)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(BUBBLE_PADDING, 9, BUBBLE_PADDING, 7)
        layout.setSpacing(4)
        layout.addLayout(self.badges)
        layout.addWidget(self.body)
        layout.addWidget(self.typing)
        layout.addWidget(self.tools)
        layout.addLayout(footer)

        self._typing_timer = QtCore.QTimer(self, interval=350)
        self._typing_timer.timeout.connect(self._next_typing_frame)
        self._flash_timer = QtCore.QTimer(self, singleShot=True, interval=HIGHLIGHT_MS)
        self._flash_timer.timeout.connect(lambda: self._set_highlighted(False))

    def _meta_label(self, text: str = "") -> QtWidgets.QLabel:
        label = QtWidgets.QLabel(text, self, objectName="meta")
        label.setTextFormat(Qt.TextFormat.PlainText)
        return label

    # content

    def text(self) -> str:
        return self.body.toPlainText()

    def document(self) -> QtGui.QTextDocument:
        return self.body.document()

    def set_markdown(self, text: str) -> None:
        self.set_typing(False)
        self.body.set_error(False)
        set_markdown(self.body.document(), text)
        self.body.fit()

    def set_plain(self, text: str) -> None:
        self.set_typing(False)
        self.body.setPlainText(text)
        space_blocks(self.body.document())
        self.body.fit()

    def append(self, text: str) -> None:
        self.set_typing(False)
        cursor = self.body.textCursor()
        cursor.movePosition(QtGui.QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        self.body.fit()

    def set_error(self, text: str) -> None:
        self.set_plain(text)
        self.body.set_error(True)

    def set_time(self, moment: datetime) -> None:
        self.time_label.setText(format_timestamp(moment))
        self.time_label.show()
        self.time_label.setToolTip(f"{moment.astimezone():%A %d %B %Y, %H:%M}")

    def set_tools(self, calls: Sequence[ToolCall]) -> None:
        self.tool_calls = list(calls)
        line = tools_line(calls)
        self.tools.setText(line)
        self.tools.setVisible(bool(line))

    def set_notification(
        self, sources: Iterable[str], why: list[dict[str, Any]], composed: bool = False
    ) -> None:
        for source in sorted(set(sources)):
            self.badges.addWidget(QtWidgets.QLabel(source_label(source), objectName="badge"))
        self.badges.addStretch(1)
        self.why = why
        self.composed = composed
        self.why_button.setVisible(bool(why))
        self.open_button.setVisible(True)

    def set_fallback(self, fallback: bool) -> None:
        self.note.setVisible(fallback)

    def badge_texts(self) -> list[str]:
        return [label.text() for label in self.findChildren(QtWidgets.QLabel, "badge")]

    def fit(self, max_text_width: int) -> None:
        self.body.fit(max_text_width)

    # behaviour

    def set_typing(self, typing: bool) -> None:
        self.typing.setVisible(typing)
        self.body.setVisible(not typing)
        if typing:
            self._typing_timer.start()
        else:
            self._typing_timer.stop()

    def _next_typing_frame(self) -> None:
        current = TYPING_FRAMES.index(self.typing.text())
        self.typing.setText(TYPING_FRAMES[(current + 1) % len(TYPING_FRAMES)])

    def flash(self) -> None:
        self._set_highlighted(True)
        self._flash_timer.start()

    def is_highlighted(self) -> bool:
        return bool(self.property("highlighted"))

    def _set_highlighted(self, on: bool) -> None:
        self.setProperty("highlighted", on)
        self.style().unpolish(self)
        self.style().polish(self)

    @Slot()
    def show_why(self) -> WhyDialog:
        dialog = WhyDialog(self.why, self.window(), composed=self.composed)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog


class ChatWindow(QtWidgets.QWidget):
    """The conversation: history, live replies, the input box and a status line."""

    sendRequested = Signal(str)
    openRequested = Signal(int)  # "Open" under a notification's reply: its message_id
    welcomeLinkActivated = Signal(str)  # a link in the welcome: welcome.ACCOUNTS_LINK, …
    modelOfferAccepted = Signal(str)  # the welcome's "Download and use …": a catalog name

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("TIC")
        self.resize(520, 680)
        self.setMinimumSize(360, 400)
        theme = current_theme()
        self.setStyleSheet(style_sheet(theme))
        self._bubbles: list[MessageBubble] = []
        self._pending: MessageBubble | None = None
        self._awaiting_reply = False
        self._stick_to_bottom = True
        self._welcome_pinned = False

        self._messages = QtWidgets.QWidget(objectName="messages")
        self._list = QtWidgets.QVBoxLayout(self._messages)
        self._list.setContentsMargins(14, 14, 14, 14)
        self._list.setSpacing(10)
        self._list.addStretch(1)  # a short conversation sits at the bottom, as in messengers
        self.welcome = WelcomePanel(theme.accent, self._messages)
        self.welcome.promptChosen.connect(self.fill_input)
        self.welcome.linkActivated.connect(self.welcomeLinkActivated.emit)
        self.welcome.modelOfferAccepted.connect(self.modelOfferAccepted.emit)
        self._list.addWidget(self.welcome)  # above the first message
        self._list.addStretch(1)  # centres the welcome while there are no messages
        self._scroll = QtWidgets.QScrollArea(objectName="conversation")
        self._scroll.setWidgetResizable(True)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setWidget(self._messages)
        bar = self._scroll.verticalScrollBar()
        bar.valueChanged.connect(self._remember_position)
        bar.rangeChanged.connect(self._follow_content)

        self._show_timing = False
        self._turn_clock = QtCore.QElapsedTimer()
        self._first_token_s: float | None = None
        self._timing_timer = QtCore.QTimer(self, interval=100)
        self._timing_timer.timeout.connect(self._tick_timing)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_header())
        layout.addWidget(self._scroll, 1)
        layout.addWidget(self._build_status())
        layout.addWidget(self._build_composer())

        self._scroll.viewport().installEventFilter(self)
        self.input_box.installEventFilter(self)

    def _build_header(self) -> QtWidgets.QWidget:
        """A thin line naming the model and what it is trusted with (``set_model``)."""
        self._header = QtWidgets.QWidget(objectName="header")
        self._header.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._model_label = QtWidgets.QLabel(objectName="modelLabel")
        self._model_label.setTextFormat(Qt.TextFormat.PlainText)
        row = QtWidgets.QHBoxLayout(self._header)
        row.setContentsMargins(16, 5, 16, 5)
        row.addWidget(self._model_label, 1)
        self._header.hide()
        return self._header

    def _build_status(self) -> QtWidgets.QWidget:
        self._status = QtWidgets.QWidget(objectName="status")
        self._status_text = QtWidgets.QLabel(objectName="statusText")
        self._status_timing = QtWidgets.QLabel(objectName="statusTiming")
        self._status_timing.setToolTip("How long the model took to answer your last message")
        self._status_busy = QtWidgets.QProgressBar(objectName="statusBusy")
        self._status_busy.setRange(0, 0)  # indeterminate
        self._status_busy.setTextVisible(False)
        self._status_busy.setFixedWidth(90)
        row = QtWidgets.QHBoxLayout(self._status)
        row.setContentsMargins(16, 4, 16, 6)
        row.addWidget(self._status_text, 1)
        row.addWidget(self._status_timing)
        row.addWidget(self._status_busy)
        self._status.hide()
        self._status_busy.hide()
        return self._status

    def _build_composer(self) -> QtWidgets.QWidget:
        composer = QtWidgets.QFrame(objectName="composer")
        self.input_box = QtWidgets.QPlainTextEdit(objectName="input")
        self.input_box.setPlaceholderText("Message TIC…")
        self.input_box.setToolTip("Enter sends, Shift+Enter starts a new line")
        self.input_box.setTabChangesFocus(True)
        self.input_box.textChanged.connect(self._on_input_changed)
        self.send_button = QtWidgets.QPushButton("Send", objectName="send")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.send_button.clicked.connect(self._send)
        row = QtWidgets.QHBoxLayout(composer)
        row.setContentsMargins(12, 10, 12, 12)
        row.setSpacing(8)
        row.addWidget(self.input_box, 1)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        self._on_input_changed()
        return composer

    # public helpers ---------------------------------------------------------------------

    def message_ids(self) -> list[int]:
        return [b.message_id for b in self._bubbles if b.message_id is not None]

    def bubble_texts(self) -> list[str]:
        return [b.text() for b in self._bubbles]

    def bubbles(self) -> list[MessageBubble]:
        return list(self._bubbles)

    def status_text(self) -> str:
        return self._status_text.text()

    def timing_text(self) -> str:
        return self._status_timing.text()

    def model_text(self) -> str:
        return self._model_label.text() if not self._header.isHidden() else ""

    def set_model(self, label: str, description: str, *, show_timing: bool) -> None:
        """Name the model in the header (``description`` says what it is trusted with);
        ``show_timing``: show how long each of the user's turns takes (capable models)."""
        self._model_label.setText(label)
        self._model_label.setToolTip(description)
        self._header.show()
        self._show_timing = show_timing
        if not show_timing:
            self._stop_timing("")

    def can_send(self) -> bool:
        return not self._awaiting_reply

    def welcome_visible(self) -> bool:
        return not self.welcome.isHidden()

    # the welcome ------------------------------------------------------------------------

    def pin_welcome(self) -> None:
        """Keep the welcome above the conversation for this session (the first start);
        otherwise it shows only while the conversation is empty."""
        self._welcome_pinned = True
        self._update_welcome()

    def fill_input(self, text: str) -> None:
        """Put ``text`` in the message box, ready to send or edit."""
        self.input_box.setPlainText(text)
        self.input_box.moveCursor(QtGui.QTextCursor.MoveOperation.End)
        self.input_box.setFocus()

    def _update_welcome(self) -> None:
        self.welcome.setVisible(self._welcome_pinned or not self._bubbles)
        self._list.setStretch(self._list.count() - 1, 0 if self._bubbles else 1)

    # history ----------------------------------------------------------------------------

    def load_history(self, rows: list[dict[str, Any]]) -> None:
        """Shows ``engine.history.history_rows()``: what the user said and what TIC replied."""
        self._clear()
        tools: list[ToolCall] = []
        for row in rows:
            if row.get("is_synthetic") or row.get("role") not in ("user", "assistant"):
                continue
            calls = [
                (call["name"], call.get("arguments") or {}, call.get("status") or "done")
                for call in row.get("tool_calls") or []
            ]
            if row["role"] == "assistant" and not (row.get("content") or "").strip():
                tools += calls  # a tool-only step: shown under the reply it led to
                continue
            bubble = self._add_bubble(row["role"])
            bubble.message_id = row.get("id")
            if row["role"] == "user":
                bubble.set_plain(row["content"])
            else:
                bubble.set_markdown(row["content"])
                bubble.set_tools(tools + calls)
                if row.get("kind") == "notification":
                    bubble.set_notification(
                        row.get("sources") or [], row.get("why") or [], bool(row.get("composed"))
                    )
                bubble.set_fallback(bool(row.get("fallback")))
            tools = []
            if row.get("created_at"):
                bubble.set_time(parse_timestamp(row["created_at"]))
        self._scroll_to_bottom()

    def add_user_message(self, text: str) -> None:
        bubble = self._add_bubble("user")
        bubble.set_plain(text)
        bubble.set_time(datetime.now(UTC))
        self._scroll_to_bottom()

    # streaming --------------------------------------------------------------------------

    @Slot(object)
    def on_reply_started(self, ev: ReplyStarted) -> None:
        self._pending_bubble()
        if ev.kind == "user" and self._show_timing:
            self._turn_clock.start()
            self._first_token_s = None
            self._timing_timer.start()
            self._tick_timing()

    @Slot(object)
    def on_reply_token(self, ev: ReplyToken) -> None:
        self._pending_bubble().append(ev.text)
        if self._timing_timer.isActive() and self._first_token_s is None:
            self._first_token_s = self._turn_clock.elapsed() / 1000
            self._tick_timing()

    @Slot(object)
    def on_tool_called(self, ev: ToolCalled) -> None:
        bubble = self._pending_bubble()
        bubble.set_tools([*bubble.tool_calls, (ev.name, ev.arguments, ev.status)])

    @Slot(object)
    def on_reply_finished(self, ev: ReplyFinished) -> None:
        bubble = self._take_pending()
        if ev.kind == "user":
            self._set_awaiting_reply(False)
            if self._timing_timer.isActive():
                timing = "" if ev.composed else format_timing(ev.first_token_ms, ev.total_ms)
                self._stop_timing(timing)
        if not ev.text.strip():
            self._remove(bubble)
            return
        bubble.message_id = ev.message_id
        bubble.set_markdown(ev.text)
        bubble.set_time(datetime.now(UTC))
        if ev.kind == "notification":
            why = [asdict(n) for n in ev.notifications]  # as the history's rows hold them
            bubble.set_notification([n.source for n in ev.notifications], why, ev.composed)
        bubble.set_fallback(bool(getattr(ev, "fallback", False)))

    @Slot(object)
    def on_turn_failed(self, ev: TurnFailed) -> None:
        bubble = self._take_pending()
        if ev.kind == "user":
            self._set_awaiting_reply(False)
            self._stop_timing("")
            bubble.set_error(f"Couldn't answer: {ev.error}")
        else:
            bubble.set_error(f"Couldn't deliver a notification yet (will retry): {ev.error}")
        bubble.set_time(datetime.now(UTC))

    def _pending_bubble(self) -> MessageBubble:
        if self._pending is None:
            self._pending = self._add_bubble("assistant")
            self._pending.set_typing(True)
        return self._pending

    def _take_pending(self) -> MessageBubble:
        bubble = self._pending_bubble()
        bubble.set_typing(False)
        self._pending = None
        return bubble

    # navigation and status --------------------------------------------------------------

    def show_message(self, message_id: int) -> bool:
        """Scrolls to a message and highlights it briefly; False if it is not shown."""
        bubble = next((b for b in self._bubbles if b.message_id == message_id), None)
        if bubble is None:
            return False
        self._reveal(bubble)
        # Again once pending layout work is done (the window may have just been shown).
        QtCore.QTimer.singleShot(0, bubble, lambda: self._reveal(bubble))
        bubble.flash()
        return True

    def _reveal(self, bubble: MessageBubble) -> None:
        self._list.activate()
        self._scroll.ensureWidgetVisible(bubble, 0, 40)

    def set_status(self, text: str, busy: bool) -> None:
        self._status_text.setText(text)
        self._status_busy.setVisible(busy)
        self._update_status_row()

    def _update_status_row(self) -> None:
        shown = self._status_text.text() or self._status_timing.text()
        self._status.setVisible(bool(shown) or self._status_busy.isVisibleTo(self._status))

    def _tick_timing(self) -> None:
        """While a capable model answers: the time so far, and its first token's."""
        elapsed = f"{self._turn_clock.elapsed() / 1000:.1f} s"
        if self._first_token_s is None:
            text = f"Waiting for the model… {elapsed}"
        else:
            text = f"First token {self._first_token_s:.1f} s · {elapsed}"
        self._status_timing.setText(text)
        self._update_status_row()

    def _stop_timing(self, text: str) -> None:
        self._timing_timer.stop()
        self._status_timing.setText(text)
        self._update_status_row()

    # internals --------------------------------------------------------------------------

    def _open(self, bubble: MessageBubble) -> None:
        if bubble.message_id is not None:
            self.openRequested.emit(bubble.message_id)

    def _add_bubble(self, role: str) -> MessageBubble:
        row = QtWidgets.QWidget(self._messages)
        line = QtWidgets.QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        bubble = MessageBubble(role, row)
        bubble.open_button.clicked.connect(lambda: self._open(bubble))
        bubble.fit(self._max_text_width())
        if role == "user":
            line.addStretch(1)
        line.addWidget(bubble)
        if role != "user":
            line.addStretch(1)
        self._list.insertWidget(self._list.count() - 1, row)
        row.show()
        self._bubbles.append(bubble)
        self._update_welcome()
        return bubble

    def _remove(self, bubble: MessageBubble) -> None:
        self._bubbles.remove(bubble)
        row = bubble.parentWidget()
        assert row is not None  # a bubble always sits in its row
        self._list.removeWidget(row)
        row.hide()
        row.deleteLater()
        self._update_welcome()

    def _clear(self) -> None:
        for bubble in list(self._bubbles):
            self._remove(bubble)
        self._pending = None

    def _max_text_width(self) -> int:
        margins = self._list.contentsMargins()
        room = self._scroll.viewport().width() - margins.left() - margins.right()
        return max(120, int(room * BUBBLE_SHARE) - 2 * BUBBLE_PADDING - 2)

    def _refit(self) -> None:
        width = self._max_text_width()
        for bubble in self._bubbles:
            bubble.fit(width)

    def _scroll_to_bottom(self) -> None:
        self._stick_to_bottom = True
        bar = self._scroll.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _remember_position(self, value: int) -> None:
        bar = self._scroll.verticalScrollBar()
        self._stick_to_bottom = value >= bar.maximum() - BOTTOM_SLACK

    def _follow_content(self, _minimum: int, maximum: int) -> None:
        if not self._bubbles:  # the welcome alone: it is read from its start
            self._scroll.verticalScrollBar().setValue(0)
        elif self._stick_to_bottom:
            self._scroll.verticalScrollBar().setValue(maximum)

    def _set_awaiting_reply(self, waiting: bool) -> None:
        self._awaiting_reply = waiting
        self._on_input_changed()

    def _on_input_changed(self) -> None:
        has_text = bool(self.input_box.toPlainText().strip())
        self.send_button.setEnabled(has_text and self.can_send())
        lines = self.input_box.document().documentLayout().documentSize().height()
        visible = min(max(int(lines), 1), 6)
        line_height = self.input_box.fontMetrics().lineSpacing()
        self.input_box.setFixedHeight(visible * line_height + 22)

    def _send(self) -> None:
        text = self.input_box.toPlainText().strip()
        if not text or not self.can_send():
            return
        self.input_box.clear()
        self._set_awaiting_reply(True)
        self.sendRequested.emit(text)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.input_box and event.type() == QtCore.QEvent.Type.KeyPress:
            key_event: QtGui.QKeyEvent = event  # type: ignore[assignment]
            enter = key_event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            shift = key_event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            if enter and not shift:
                self._send()
                return True
        elif watched is self._scroll.viewport() and event.type() == QtCore.QEvent.Type.Resize:
            self._refit()
        return super().eventFilter(watched, event)
