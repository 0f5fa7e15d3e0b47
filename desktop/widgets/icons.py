"""Tray icons drawn at run time (no binary assets): one per state."""

from __future__ import annotations

from pathlib import Path

from desktop.qt import Qt, QtCore, QtGui

STATE_COLOURS = {
    "idle": "#4f6bed",
    "checking": "#e0a106",
    "unread": "#4f6bed",
    "error": "#d64545",
    "paused": "#8a8f98",
}


def state_icon(state: str, size: int = 64) -> QtGui.QIcon:
    return QtGui.QIcon(state_pixmap(state, size))


def app_pixmap(size: int) -> QtGui.QPixmap:
    """The application's icon (the idle tray icon), drawn at ``size`` pixels."""
    return state_pixmap("idle", size)


def write_app_icon(path: Path, size: int = 128) -> Path:
    """The application's icon as a PNG file at ``path`` (for toasts: a notification server
    shows a file, and the desktop entry's named icon may not be installed). OSError when it
    cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if not app_pixmap(size).save(str(tmp), "PNG"):
        raise OSError(f"cannot write the app's icon to {path}")
    tmp.replace(path)
    return path


def state_pixmap(state: str, size: int = 64) -> QtGui.QPixmap:
    pixmap = QtGui.QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(pixmap)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    colour = QtGui.QColor(STATE_COLOURS.get(state, STATE_COLOURS["idle"]))
    painter.setBrush(colour)
    painter.setPen(Qt.PenStyle.NoPen)
    margin = size * 0.08
    painter.drawEllipse(QtCore.QRectF(margin, margin, size - 2 * margin, size - 2 * margin))
    painter.setPen(QtGui.QColor("white"))
    font = painter.font()
    font.setBold(True)
    font.setPixelSize(int(size * 0.5))
    painter.setFont(font)
    glyph = {"checking": "…", "error": "!", "paused": "z"}.get(state, "T")
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, glyph)
    if state == "unread":
        painter.setBrush(QtGui.QColor("#2fb344"))
        painter.setPen(QtGui.QPen(QtGui.QColor("white"), size * 0.04))
        dot = size * 0.34
        painter.drawEllipse(QtCore.QRectF(size - dot - 1, 1, dot, dot))
    painter.end()
    return pixmap
