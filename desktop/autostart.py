"""Start TIC Desktop when the user logs in.

Linux (and the BSDs) follow the XDG Autostart spec: a ``.desktop`` entry in
``$XDG_CONFIG_HOME/autostart``. macOS and Windows are not supported yet: enabling there
raises :class:`AutostartUnsupported`, whose message is fit to show in the settings dialog.
"""

from __future__ import annotations

import configparser
import os
import sys
from collections.abc import Sequence
from pathlib import Path

ENTRY_NAME = "tic-desktop.desktop"

_XDG_PLATFORMS = ("linux", "freebsd", "openbsd", "netbsd", "dragonfly")
# Characters that force an Exec argument into double quotes (Desktop Entry spec, "Exec key").
_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
# Characters that must be backslash-escaped inside a double-quoted Exec argument.
_ESCAPED_IN_QUOTES = frozenset('"`$\\')


class AutostartUnsupported(NotImplementedError):
    """Start on login is not available on this platform (the message says which)."""


def unsupported_reason() -> str | None:
    """Why start on login cannot work here, or None when it can."""
    if sys.platform.startswith(_XDG_PLATFORMS):
        return None
    system = {"darwin": "macOS", "win32": "Windows", "cygwin": "Windows"}.get(
        sys.platform, sys.platform
    )
    return f"Start on login is not supported on {system} yet."


def autostart_path() -> Path:
    """``$XDG_CONFIG_HOME/autostart/tic-desktop.desktop`` (``~/.config`` when unset)."""
    config_home = os.environ.get("XDG_CONFIG_HOME", "").strip()
    # The spec says a relative value is invalid and must be ignored.
    base = Path(config_home) if os.path.isabs(config_home) else Path.home() / ".config"
    return base / "autostart" / ENTRY_NAME


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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".desktop.tmp")
    tmp.write_text(desktop_entry(command), encoding="utf-8")
    tmp.replace(path)


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
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.5",
        "Name=TIC Desktop",
        "Comment=Local-first assistant in the system tray that tells you only what matters",
        f"Exec={exec_value(command)}",
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
    ]
    return "\n".join(lines) + "\n"


def exec_value(command: Sequence[str]) -> str:
    """``command`` as an ``Exec=`` value: each argument quoted per the Exec rules, then the
    whole string escaped as a key-file string value (the spec applies that escape first)."""
    joined = " ".join(_quote_argument(arg) for arg in command)
    return _escape_string_value(joined)


def _quote_argument(arg: str) -> str:
    arg = arg.replace("%", "%%")  # a literal percent sign, never a field code
    if arg and not (_RESERVED & set(arg)):
        return arg
    inner = "".join("\\" + ch if ch in _ESCAPED_IN_QUOTES else ch for ch in arg)
    return f'"{inner}"'


def _escape_string_value(value: str) -> str:
    return (
        value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    )
