"""QR codes for linking WhatsApp: a payload rendered as a crisp black-on-white image, and the
one window that shows the current code (WhatsApp sends a fresh code every few seconds, so the
window is updated in place rather than a new one opened each time)."""

from __future__ import annotations

import functools

from desktop.qt import Qt, QtGui, QtWidgets
from desktop.widgets.dialogs import FittedDialog
from engine.extras import import_extra

QUIET_ZONE = 4  # modules of white around the code: scanners need it
MODULE_PIXELS = 8
LINK_STEPS = (
    "On your phone open WhatsApp → Settings → Linked devices → Link a device, "
    "and point the camera at this code."
)


def qr_image(
    payload: str | bytes, *, module_pixels: int = MODULE_PIXELS, border: int = QUIET_ZONE
) -> QtGui.QImage:
    """``payload`` as a QR code, ``module_pixels`` per module, quiet zone included.

    segno comes with the whatsapp extra (only WhatsApp live shows QR codes): without it this
    raises ExtraMissing, one line naming the extra."""
    segno = import_extra("segno")
    text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    rows = list(segno.make_qr(text, error="m").matrix_iter(scale=1, border=border))
    side = len(rows) * module_pixels
    image = QtGui.QImage(side, side, QtGui.QImage.Format.Format_RGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                painter.fillRect(
                    x * module_pixels,
                    y * module_pixels,
                    module_pixels,
                    module_pixels,
                    Qt.GlobalColor.black,
                )
    painter.end()
    return image


class QrDialog(FittedDialog):
    """Shows the current pairing code and how to scan it."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Link WhatsApp")
        self.image = QtWidgets.QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        steps = QtWidgets.QLabel(LINK_STEPS)
        steps.setWordWrap(True)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(12)
        layout.addWidget(self.image, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(steps)
        layout.addWidget(buttons)

    def set_payload(self, payload: str | bytes) -> None:
        self.image.setPixmap(QtGui.QPixmap.fromImage(qr_image(payload)))
        self._fit_height()

    def pixmap(self) -> QtGui.QPixmap:
        return self.image.pixmap()


class QrPresenter:
    """Owns the QR window: the first code opens it, later ones replace the picture."""

    def __init__(self) -> None:
        self.dialog: QrDialog | None = None

    def show(self, payload: str | bytes) -> QrDialog:
        if self.dialog is None:
            self.dialog = QrDialog()
            self.dialog.finished.connect(self._forget)
        self.dialog.set_payload(payload)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def close(self) -> None:
        if self.dialog is not None:
            self.dialog.reject()

    def _forget(self, _result: int) -> None:
        dialog, self.dialog = self.dialog, None
        if dialog is not None:
            dialog.deleteLater()


@functools.cache
def qr_presenter() -> QrPresenter:
    """The process-wide QR window (one WhatsApp link at a time)."""
    return QrPresenter()
