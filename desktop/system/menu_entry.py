"""TIC Desktop in the desktop's application menu (``--install-desktop-entry``).

Writes an XDG ``.desktop`` file to ``$XDG_DATA_HOME/applications`` and the app's icon, drawn
by :mod:`desktop.widgets.icons` at the hicolor theme's usual sizes, to
``$XDG_DATA_HOME/icons/hicolor/<size>x<size>/apps``; ``--uninstall-desktop-entry`` removes
them. Drawing the icon needs Qt but no display (Qt's offscreen platform).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.system import xdg
from engine.errors import TicError

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)

_gui_app: Any = None  # a QGuiApplication made here to draw the icon, kept while in use


def entry_path() -> Path:
    return xdg.data_home() / "applications" / xdg.ENTRY_NAME


def icon_path(size: int) -> Path:
    return xdg.data_home() / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{xdg.APP_ID}.png"


def menu_entry(command: list[str]) -> str:
    """The application-menu ``.desktop`` file that runs ``command``."""
    return xdg.desktop_entry(
        command,
        {
            "GenericName": "Notification Assistant",
            "Icon": xdg.APP_ID,
            "Categories": "Utility;",
            "Keywords": "notifications;mail;messages;calendar;assistant;tray;",
            # The app usually starts in the tray with no window, so a launch-feedback
            # cursor would spin until it timed out.
            "StartupNotify": "false",
            "StartupWMClass": "TIC",  # Qt's X11 window class: the application name
        },
    )


def install(home: Path | None = None) -> list[Path]:
    """Write the entry (running this install's app, on ``home`` if given) and its icons."""
    _require_xdg()
    written = [icon_path(size) for size in ICON_SIZES]
    try:
        _write_icons(written)
        xdg.write_text_atomically(entry_path(), menu_entry(xdg.launch_command(home)))
    except OSError as exc:
        raise TicError(f"cannot write the desktop entry: {exc}") from None
    return [entry_path(), *written]


def uninstall() -> list[Path]:
    """Remove the entry and its icons; returns what was there."""
    _require_xdg()
    removed = []
    for path in (entry_path(), *(icon_path(size) for size in ICON_SIZES)):
        if path.is_file():
            try:
                path.unlink()
            except OSError as exc:
                raise TicError(f"cannot remove {path}: {exc}") from None
            removed.append(path)
    return removed


def run(*, install_entry: bool, home: Path | None = None) -> int:
    """The command-line flags: do it and say what was done, in one line."""
    if install_entry:
        paths = install(home)
        print(
            f"TIC Desktop is now in your application menu: {paths[0]} "
            f"(icons in {xdg.data_home() / 'icons' / 'hicolor'})"
        )
        return 0
    removed = uninstall()
    if removed:
        print(f"TIC Desktop was removed from your application menu ({len(removed)} files)")
    else:
        print("TIC Desktop was not in your application menu: nothing to remove")
    return 0


def _require_xdg() -> None:
    if not xdg.is_xdg_platform():
        raise TicError("the application-menu entry is for Linux and BSD desktops (XDG) only")


def _write_icons(paths: list[Path]) -> None:
    global _gui_app
    try:
        from desktop.qt import QtGui
        from desktop.widgets.icons import app_pixmap
    except ImportError as exc:
        raise TicError(f"cannot draw the app's icon: {exc}") from None
    if QtGui.QGuiApplication.instance() is None:  # no display needed to draw
        _gui_app = QtGui.QGuiApplication([xdg.APP_ID, "-platform", "offscreen"])
    for size, path in zip(ICON_SIZES, paths, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        if not app_pixmap(size).save(str(tmp), "PNG"):
            raise TicError(f"cannot write the app's icon to {path}")
        tmp.replace(path)
