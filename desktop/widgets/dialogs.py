"""Dialog behaviour shared by the app's small windows."""

from __future__ import annotations

from desktop.qt import QtGui, QtWidgets


class FittedDialog(QtWidgets.QDialog):
    """A dialog that grows to fit its wrapped text: a window ignores its layout's
    height-for-width, so it is given that height whenever it shows or resizes."""

    def _fit_height(self) -> None:
        layout = self.layout()
        if layout is not None and layout.hasHeightForWidth():
            self.setMinimumHeight(layout.totalHeightForWidth(self.width()))

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self._fit_height()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()
