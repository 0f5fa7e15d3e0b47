"""Freedesktop (XDG) plumbing shared by the autostart entry and the application-menu entry:
the base directories, the command that launches this install's desktop app, and the text of
a ``.desktop`` file with its ``Exec`` value quoted per the Desktop Entry spec. No Qt here."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

APP_ID = "tic-desktop"  # the .desktop file's name and the icon's name
ENTRY_NAME = f"{APP_ID}.desktop"
APP_NAME = "TIC Desktop"
COMMENT = "Local-first assistant in the system tray that tells you only what matters"
XDG_PLATFORMS = ("linux", "freebsd", "openbsd", "netbsd", "dragonfly")

# Characters that force an Exec argument into double quotes (Desktop Entry spec, "Exec key").
RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
# Characters that must be backslash-escaped inside a double-quoted Exec argument.
_ESCAPED_IN_QUOTES = frozenset('"`$\\')


def is_xdg_platform(platform: str | None = None) -> bool:
    """Linux and the BSDs: the desktops that follow the freedesktop specs."""
    return (platform or sys.platform).startswith(XDG_PLATFORMS)


def config_home() -> Path:
    """``$XDG_CONFIG_HOME``, or ``~/.config`` when unset or relative."""
    return _base_dir("XDG_CONFIG_HOME", Path.home() / ".config")


def data_home() -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when unset or relative."""
    return _base_dir("XDG_DATA_HOME", Path.home() / ".local" / "share")


def _base_dir(variable: str, default: Path) -> Path:
    value = os.environ.get(variable, "").strip()
    # The Base Directory spec says a relative value is invalid and must be ignored.
    return Path(value) if os.path.isabs(value) else default


def launch_command(home: Path | None = None) -> list[str]:
    """How this install starts its desktop app: this Python running the launcher package
    (right in a venv too, and whatever the console script is called)."""
    command = [sys.executable, "-m", "tic_desktop"]
    if home is not None:
        command += ["--home", str(Path(home).expanduser().resolve())]
    return command


def desktop_entry(command: Sequence[str], extra: Mapping[str, str] | None = None) -> str:
    """The text of a ``.desktop`` file that runs ``command``; ``extra`` keys come last."""
    keys = {
        "Type": "Application",
        "Version": "1.4",  # what desktop-file-validate of Debian 12 still knows
        "Name": APP_NAME,
        "Comment": COMMENT,
        "Exec": exec_value(command),
        "Terminal": "false",
        **(extra or {}),
    }
    return "\n".join(["[Desktop Entry]", *(f"{k}={v}" for k, v in keys.items())]) + "\n"


def write_text_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def exec_value(command: Sequence[str]) -> str:
    """``command`` as an ``Exec=`` value: each argument quoted per the Exec rules, then the
    whole string escaped as a key-file string value (the spec applies that escape first)."""
    joined = " ".join(_quote_argument(arg) for arg in command)
    return _escape_string_value(joined)


def _quote_argument(arg: str) -> str:
    arg = arg.replace("%", "%%")  # a literal percent sign, never a field code
    if arg and not (RESERVED & set(arg)):
        return arg
    inner = "".join("\\" + ch if ch in _ESCAPED_IN_QUOTES else ch for ch in arg)
    return f'"{inner}"'


def _escape_string_value(value: str) -> str:
    return (
        value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    )
