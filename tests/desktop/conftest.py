"""Desktop tests leave no Qt garbage for a worker thread to collect later (which would
destroy Qt objects off the GUI thread): collect on the GUI thread after each test."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _collect_qt_garbage_on_the_gui_thread() -> Iterator[None]:
    yield
    gc.collect()
    from desktop.qt import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is not None:
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        app.processEvents()
