"""The one funnel for Qt imports: every desktop module imports Qt from here."""

from __future__ import annotations

import os

os.environ.setdefault("QT_API", "pyside6")

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt, Signal, Slot

__all__ = ["Qt", "QtCore", "QtGui", "QtWidgets", "Signal", "Slot"]
