"""``--install-desktop-entry``: the app in the desktop's application menu, with its icon."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.qt import QtGui
from desktop.system import menu_entry, xdg
from engine.errors import TicError
from tests.cli_helpers import ROOT
from tests.desktop.test_settings_dialog import _parse_exec

pytestmark = pytest.mark.skipif(not xdg.is_xdg_platform(), reason="XDG desktops only")


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "xdg data"
    monkeypatch.setenv("XDG_DATA_HOME", str(path))
    return path


def read_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def validate(path: Path) -> None:
    """desktop-file-validate (Debian: desktop-file-utils) has the last word where present."""
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        return
    done = subprocess.run([tool, str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def distinct_colours(image: QtGui.QImage) -> int:
    return len({image.pixel(x, y) for x in range(image.width()) for y in range(image.height())})


def test_the_entry_launches_this_install_with_its_icon(qtbot, data_home, tmp_path):
    home = tmp_path / "my workspace"
    written = menu_entry.install(home)
    entry_file = data_home / "applications" / "tic-desktop.desktop"
    assert written[0] == entry_file

    entry = read_entry(entry_file)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "TIC Desktop"
    assert entry["Icon"] == "tic-desktop"
    assert entry["Terminal"] == "false"
    assert "Utility" in entry["Categories"].split(";")
    assert entry["StartupNotify"] == "false"
    assert _parse_exec(entry["Exec"]) == [
        sys.executable,
        "-m",
        "tic_desktop",
        "--home",
        str(home.resolve()),
    ]
    validate(entry_file)

    for size in menu_entry.ICON_SIZES:
        png = data_home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "tic-desktop.png"
        assert png in written
        image = QtGui.QImage(str(png))
        assert (image.width(), image.height()) == (size, size)
        assert distinct_colours(image) > 2  # drawn, not blank


def test_without_a_workspace_the_entry_runs_the_default_one(qtbot, data_home):
    menu_entry.install()
    exec_line = read_entry(data_home / "applications" / "tic-desktop.desktop")["Exec"]
    assert _parse_exec(exec_line) == [sys.executable, "-m", "tic_desktop"]


def test_uninstall_removes_what_install_wrote(qtbot, data_home):
    written = menu_entry.install()
    assert sorted(menu_entry.uninstall()) == sorted(written)
    assert not any(path.exists() for path in written)
    assert menu_entry.uninstall() == []


def test_the_autostart_entry_shares_the_format(tmp_path, monkeypatch):
    from desktop.system import autostart

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    autostart.set_start_on_login(True, xdg.launch_command())
    path = autostart.autostart_path()
    text = path.read_text()
    assert text.startswith("[Desktop Entry]\nType=Application\n")
    assert f"Exec={xdg.exec_value(xdg.launch_command())}\n" in text
    assert "X-GNOME-Autostart-enabled=true" in text
    validate(path)


def test_unsupported_systems_are_told_so(monkeypatch, data_home):
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(TicError, match="Linux and BSD"):
        menu_entry.install()


def test_xdg_data_home_defaults_to_local_share(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert menu_entry.entry_path() == tmp_path / ".local/share/applications/tic-desktop.desktop"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")
    assert menu_entry.entry_path() == tmp_path / ".local/share/applications/tic-desktop.desktop"


def test_the_command_line_flags_without_a_display(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "TIC_HOME")
    }
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    home = tmp_path / "home"

    def tic(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tic_desktop", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )

    done = tic("--home", str(home), "--install-desktop-entry")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    entry_file = tmp_path / "data" / "applications" / "tic-desktop.desktop"
    assert done.stdout.splitlines() == [
        f"TIC Desktop is now in your application menu: {entry_file} "
        f"(icons in {tmp_path / 'data' / 'icons' / 'hicolor'})"
    ]
    assert "--home" in read_entry(entry_file)["Exec"]
    validate(entry_file)
    assert (tmp_path / "data/icons/hicolor/256x256/apps/tic-desktop.png").is_file()

    done = tic("--uninstall-desktop-entry")
    assert done.returncode == 0, done.stderr
    assert "removed from your application menu" in done.stdout
    assert not entry_file.exists()

    both = tic("--install-desktop-entry", "--uninstall-desktop-entry")
    assert both.returncode == 2 and "not allowed with" in both.stderr
