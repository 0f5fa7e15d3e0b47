"""A plain-text editor with numbered lines and a mark in the margin on some of them: ✓ for a
line that was understood, ⚠ (and an amber background) for one that was not. The Rules page
uses it for data/notifications.md."""

from __future__ import annotations

from desktop.qt import Qt, QtCore, QtGui, QtWidgets, Slot

FLAG_COLOR = "#b26a00"
FLAG_BACKGROUND = "#fff1d6"
MARK_COLOR = "#2e7d32"
UNDERSTOOD_MARK = "\u2713"
FLAG_MARK = "\u26a0"


def muted_color(palette: QtGui.QPalette) -> QtGui.QColor:
    """A grey between the text and its background (the palette's placeholder colour is the
    text's with transparency, which rich text cannot show)."""
    text = palette.color(QtGui.QPalette.ColorRole.WindowText)
    base = palette.color(QtGui.QPalette.ColorRole.Base)
    return QtGui.QColor(
        (text.red() * 11 + base.red() * 9) // 20,
        (text.green() * 11 + base.green() * 9) // 20,
        (text.blue() * 11 + base.blue() * 9) // 20,
    )


class _Gutter(QtWidgets.QWidget):
    """The editor's margin: line numbers, and a mark on each rule line (✓ read, ⚠ not)."""

    def __init__(self, editor: MarkedEditor):
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self._editor.gutter_width(), 0)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        self._editor.paint_gutter(event)


class MarkedEditor(QtWidgets.QPlainTextEdit):
    """A plain-text editor with numbered lines; ``set_marks`` marks rule lines in the margin
    and gives lines TIC could not read an amber background."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._marks: dict[int, bool] = {}  # line number -> understood
        self._gutter = _Gutter(self)
        font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        self.setTabChangesFocus(True)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._on_update_request)
        self._update_margin()

    def marks(self) -> dict[int, bool]:
        return dict(self._marks)

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        advance = self.fontMetrics().horizontalAdvance("9")
        return 12 + advance * digits + self.fontMetrics().horizontalAdvance(FLAG_MARK) + 8

    @Slot()
    def _update_margin(self, *_args: object) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    @Slot(QtCore.QRect, int)
    def _on_update_request(self, rect: QtCore.QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_margin()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self._gutter.setGeometry(
            QtCore.QRect(area.left(), area.top(), self.gutter_width(), area.height())
        )

    def set_marks(self, marks: dict[int, bool]) -> None:
        self._marks = dict(marks)
        selections = []
        for line, understood in sorted(marks.items()):
            block = self.document().findBlockByNumber(line - 1)
            if understood or not block.isValid():
                continue
            selection = QtWidgets.QTextEdit.ExtraSelection()
            selection.format.setBackground(QtGui.QColor(FLAG_BACKGROUND))
            selection.format.setProperty(QtGui.QTextFormat.Property.FullWidthSelection, True)
            cursor = QtGui.QTextCursor(block)
            cursor.movePosition(
                QtGui.QTextCursor.MoveOperation.EndOfBlock, QtGui.QTextCursor.MoveMode.KeepAnchor
            )
            selection.cursor = cursor
            selections.append(selection)
        self.setExtraSelections(selections)
        self._gutter.update()

    def paint_gutter(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self._gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QtGui.QPalette.ColorRole.Window))
        muted = muted_color(palette)
        metrics = self.fontMetrics()
        mark_width = metrics.horizontalAdvance(FLAG_MARK) + 6
        width = self._gutter.width()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            if block.isVisible() and top + height >= event.rect().top():
                line = block.blockNumber() + 1
                painter.setPen(muted)
                painter.drawText(
                    0,
                    top,
                    width - mark_width - 4,
                    metrics.height(),
                    Qt.AlignmentFlag.AlignRight,
                    str(line),
                )
                understood = self._marks.get(line)
                if understood is not None:
                    colour = MARK_COLOR if understood else FLAG_COLOR
                    painter.setPen(QtGui.QColor(colour))
                    painter.drawText(
                        width - mark_width,
                        top,
                        mark_width,
                        metrics.height(),
                        Qt.AlignmentFlag.AlignCenter,
                        UNDERSTOOD_MARK if understood else FLAG_MARK,
                    )
            block = block.next()
            top += height
        painter.end()

    def go_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(line - 1)
        if block.isValid():
            self.setTextCursor(QtGui.QTextCursor(block))
            self.centerCursor()
            self.setFocus()
