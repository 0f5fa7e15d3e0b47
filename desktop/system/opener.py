"""The one way the desktop opens a message in its own place: every URL "Open" leads to (a
Gmail thread, a calendar event, a WhatsApp chat, an email by its Message-ID) goes through an
:class:`Opener`, so a test hands the app a fake one that records what it was asked.

https is the browser's and always opens. Another scheme (``mid:`` for a mail client) opens
only where a program has registered for it; otherwise ``can_open`` says no and the app shows
the message in TIC instead of letting the system pick a program at random."""

from __future__ import annotations

import logging
import shutil
import subprocess
from urllib.parse import urlsplit

from desktop.qt import QtCore, QtGui
from desktop.system.xdg import is_xdg_platform

log = logging.getLogger(__name__)

WEB_SCHEMES = ("https", "http")
HANDLER_TIMEOUT_S = 3.0


def scheme_handler(scheme: str) -> str | None:
    """The desktop entry registered for ``scheme`` URLs (``xdg-mime query default
    x-scheme-handler/<scheme>``), or None when none is, or this is no freedesktop system."""
    xdg_mime = shutil.which("xdg-mime")
    if not is_xdg_platform() or xdg_mime is None:
        return None
    try:
        found = subprocess.run(
            [xdg_mime, "query", "default", f"x-scheme-handler/{scheme}"],
            capture_output=True,
            text=True,
            timeout=HANDLER_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("cannot ask xdg-mime for a %s: handler: %s", scheme, exc)
        return None
    return found.stdout.strip() or None


class Opener:
    """Opens URLs in the user's own programs (Qt's QDesktopServices: the browser, the mail
    client)."""

    def can_open(self, url: str) -> bool:
        """Whether some program here takes ``url``: always for the web, otherwise when a
        program has registered for its scheme."""
        scheme = urlsplit(url).scheme.lower()
        if scheme in WEB_SCHEMES:
            return True
        return bool(scheme) and scheme_handler(scheme) is not None

    def open(self, url: str) -> bool:
        """Hand ``url`` to its program; False when the system could not."""
        return bool(QtGui.QDesktopServices.openUrl(QtCore.QUrl(url)))
