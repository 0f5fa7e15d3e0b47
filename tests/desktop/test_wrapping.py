"""Rows that grow to show their text: a long cell wraps in its column instead of ending in
"…", and a narrower column makes the row taller."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop.qt import QtGui, QtWidgets
from desktop.widgets.wrapping import wrap_rows

LONG = "needs 4 CPU cores to answer at a usable speed, this computer has 2"


def table(width: int) -> tuple[QtWidgets.QTreeWidget, QtWidgets.QTreeWidgetItem]:
    tree = QtWidgets.QTreeWidget()
    tree.setHeaderLabels(["Model", "Status"])
    wrap_rows(tree, (1,))
    short = QtWidgets.QTreeWidgetItem(["Qwen2.5 0.5B Instruct", "fits this computer"])
    long = QtWidgets.QTreeWidgetItem(["Qwen2.5 7B Instruct", LONG])
    tree.addTopLevelItems([short, long])
    tree.resize(width, 300)
    tree.show()
    tree.resizeColumnToContents(0)
    QtWidgets.QApplication.processEvents()
    return tree, long


def test_a_long_cell_wraps_and_its_row_grows(qtbot) -> None:
    tree, long = table(420)
    qtbot.addWidget(tree)
    first = tree.visualItemRect(tree.topLevelItem(0)).height()
    row = tree.visualItemRect(long).height()
    line = QtGui.QFontMetrics(tree.font()).lineSpacing()
    assert row >= first + line  # two lines or more
    assert tree.columnWidth(0) >= QtGui.QFontMetrics(tree.font()).horizontalAdvance(
        "Qwen2.5 0.5B Instruct"
    )  # the other column still fits its contents
    wide, wide_long = table(1200)
    qtbot.addWidget(wide)
    assert wide.visualItemRect(wide_long).height() < row  # room for one line: one line
