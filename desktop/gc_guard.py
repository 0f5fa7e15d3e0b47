"""Garbage collection on the GUI thread only.

Python's cyclic collector runs in whichever thread happens to allocate; when that is a worker
(the model's thread, asyncio's to_thread pool) it can destroy Qt objects off the GUI thread,
leaving timers that later fire into freed memory (a segfault in QTimerInfoList). So automatic
collection is switched off and a timer on the GUI thread collects when the counts call for it.
"""

from __future__ import annotations

import gc

from desktop.qt import QtCore


class MainThreadCollector(QtCore.QObject):
    INTERVAL_MS = 500

    def __init__(self, parent: QtCore.QObject | None = None):
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(self.INTERVAL_MS)

    def check(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        self._timer.stop()
        gc.enable()
        gc.collect()
