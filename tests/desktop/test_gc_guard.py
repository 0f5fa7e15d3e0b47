"""Cyclic garbage is collected on the GUI thread, never by whatever thread allocates."""

from __future__ import annotations

import gc
import os
import weakref

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop.gc_guard import MainThreadCollector


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_collection_happens_on_the_timer_not_on_allocation(qtbot):
    collector = MainThreadCollector()
    try:
        assert not gc.isenabled()
        node = Node()
        ref = weakref.ref(node)
        del node
        for _ in range(5000):  # far past the thresholds: nothing is collected implicitly
            Node()
        assert ref() is not None
        qtbot.waitUntil(lambda: ref() is None, timeout=3000)
    finally:
        collector.stop()
    assert gc.isenabled()
