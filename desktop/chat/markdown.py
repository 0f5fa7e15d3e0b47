"""Markdown for chat bubbles: rendered by Qt, never fetching anything by itself.

Replies may echo untrusted event content, so raw HTML is shown as text, images become plain
links, and a link opens (in the system browser) only when the user clicks a web or mail link.
"""

from __future__ import annotations

import re

from desktop.qt import QtCore, QtGui

_Feature = QtGui.QTextDocument.MarkdownFeature
MARKDOWN_FEATURES = _Feature(_Feature.MarkdownDialectGitHub.value | _Feature.MarkdownNoHTML.value)
SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
LINE_HEIGHT_PERCENT = 120
LINE_HEIGHT_KIND = QtGui.QTextBlockFormat.LineHeightTypes.ProportionalHeight.value
PARAGRAPH_GAP = 8  # px
LIST_GAP = 2  # px
LIST_INDENT = 18  # px

# The "!" of an inline or reference image: ![alt](url) and ![alt][ref] become links.
_IMAGE_BANG = re.compile(r"!(?=\[[^\]\n]*\][(\[])")


def without_images(text: str) -> str:
    return _IMAGE_BANG.sub("", text)


def set_markdown(document: QtGui.QTextDocument, text: str) -> None:
    document.setMarkdown(without_images(text), MARKDOWN_FEATURES)
    document.setIndentWidth(LIST_INDENT)
    space_blocks(document)


def space_blocks(document: QtGui.QTextDocument) -> None:
    """Airier text: taller lines, a gap between paragraphs, a small one between list items."""
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        fmt.setLineHeight(LINE_HEIGHT_PERCENT, LINE_HEIGHT_KIND)
        fmt.setTopMargin(0)
        following = block.next()
        in_list = block.textList() is not None and following.textList() is not None
        gap = LIST_GAP if in_list else PARAGRAPH_GAP
        fmt.setBottomMargin(gap if following.isValid() else 0)
        QtGui.QTextCursor(block).setBlockFormat(fmt)
        block = block.next()


def is_safe_link(url: QtCore.QUrl) -> bool:
    return url.isValid() and url.scheme().lower() in SAFE_LINK_SCHEMES


def open_link(url: QtCore.QUrl) -> None:
    """Opens a clicked link in the user's browser or mail client; other schemes do nothing."""
    if is_safe_link(url):
        QtGui.QDesktopServices.openUrl(url)
