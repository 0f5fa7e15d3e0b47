"""Start TIC Desktop when the user logs in.

Linux (and the BSDs) follow the XDG Autostart spec: a ``.desktop`` entry in
``$XDG_CONFIG_HOME/autostart``. macOS and Windows are not supported yet: enabling there
raises :class:`AutostartUnsupported`, whose message is fit to show in the settings dialog.
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Sequence
from pathlib import Path

from desktop.system import xdg


class AutostartUnsupported(NotImplementedError):
    """Start on login is not available on this platform (the message says which)."""


def unsupported_reason() -> str | None:
    """Why start on login cannot work here, or None when it can."""
    if xdg.is_xdg_platform():
        return None
    system = {"darwin": "macOS", "win32": "Windows", "cygwin": "Windows"}.get(
        sys.platform, sys.platform
    )
    return f"Start on login is not supported on {system} yet."


def autostart_path() -> Path:
    """``$XDG_CONFIG_HOME/autostart/tic-desktop.desktop`` (``~/.config`` when unset)."""
    return xdg.config_home() / "autostart" / xdg.ENTRY_NAME


def set_start_on_login(enabled: bool, command: Sequence[str]) -> None:
    """Write (``enabled``) or remove the autostart entry that runs ``command``."""
    reason = unsupported_reason()
    if reason is not None:
        if enabled:
            raise AutostartUnsupported(reason)
        return
    path = autostart_path()
    if not enabled:
        path.unlink(missing_ok=True)
        return
    if not command:
        raise ValueError("the start-on-login command is empty")
    xdg.write_text_atomically(path, desktop_entry(command))


def is_start_on_login() -> bool:
    """True when an enabled autostart entry exists (always False where unsupported)."""
    if unsupported_reason() is not None:
        return False
    path = autostart_path()
    if not path.is_file():
        return False
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return True  # present but unreadable: the session manager may still run it
    if not parser.has_section("Desktop Entry"):
        return True
    entry = parser["Desktop Entry"]
    hidden = entry.get("Hidden", "false").strip().lower() == "true"
    gnome_off = entry.get("X-GNOME-Autostart-enabled", "true").strip().lower() == "false"
    return not (hidden or gnome_off)


def desktop_entry(command: Sequence[str]) -> str:
    """The text of the autostart ``.desktop`` file that runs ``command``."""
    return xdg.desktop_entry(command, {"Icon": xdg.APP_ID, "X-GNOME-Autostart-enabled": "true"})
