"""Opening the user's notification rules (``data/notifications.md``) in their own editor."""

from __future__ import annotations

from pathlib import Path

from desktop.qt import QtCore, QtGui


def open_rules_file(path: Path) -> str | None:
    """Hand ``path`` to the desktop's default app for it. None when that worked; otherwise
    the one line to show, naming the file so the user can open it themselves."""
    if not path.is_file():
        return f"The rules file is missing: {path}"
    if QtGui.QDesktopServices.openUrl(QtCore.QUrl.fromLocalFile(str(path))):
        return None
    return f"No app could open the rules file; edit it with any text editor: {path}"
