"""Table rows that grow to show their whole text. A QTreeWidget's word wrap alone wraps
nothing: its rows are as tall as one line, because the item delegate measures text without
knowing its column's width. This delegate measures it in that width, and the rows are laid
out again when a column is resized."""

from __future__ import annotations

from desktop.qt import QtCore, QtWidgets


class WrappingDelegate(QtWidgets.QStyledItemDelegate):
    """Measures each cell's text wrapped in its column's width."""

    def __init__(self, view: QtWidgets.QTreeView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        measured = QtWidgets.QStyleOptionViewItem(option)
        self.initStyleOption(measured, index)
        width = self._view.header().sectionSize(index.column())
        # the style wraps only within a valid rectangle; its height does not limit the lines
        measured.rect = QtCore.QRect(0, 0, width, 1 << 16)
        measured.features |= QtWidgets.QStyleOptionViewItem.ViewItemFeature.WrapText
        widget = measured.widget
        style = widget.style() if widget is not None else QtWidgets.QApplication.style()
        size = style.sizeFromContents(
            QtWidgets.QStyle.ContentsType.CT_ItemViewItem, measured, QtCore.QSize(), widget
        )
        return QtCore.QSize(width, size.height())


def wrap_rows(view: QtWidgets.QTreeView, columns: tuple[int, ...]) -> None:
    """Let ``view``'s rows grow to show the text of ``columns`` wrapped at word breaks (the
    other columns keep their one line, and fit their contents when asked to)."""
    view.setWordWrap(True)
    view.setUniformRowHeights(False)
    delegate = WrappingDelegate(view)
    for column in columns:
        view.setItemDelegateForColumn(column, delegate)
    view.header().sectionResized.connect(lambda *_args: view.doItemsLayout())
