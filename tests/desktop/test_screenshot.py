"""The channel's ``screenshot`` takes a window's name, never a path: only the app's windows
(``Window``) are known, an unknown name and a window that is not open are one-line errors,
and the PNG is written only in the workspace's ``screenshots/``, under a name TIC composes.
The app's handler answers over the real channel (an ``IpcServer`` on the workspace)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import engine.ipc.client as ipc
from desktop.app import DesktopApp
from desktop.chat.window import ChatWindow
from desktop.qt import QtWidgets
from engine.ipc.server import IpcServer


@pytest.fixture
async def app(qtbot, workspace) -> AsyncIterator[DesktopApp]:
    """The app's channel handlers on a real socket, with its chat window (never shown)."""
    app = DesktopApp.__new__(DesktopApp)  # only the handler under test
    app.workspace = workspace
    app.chat = ChatWindow()
    qtbot.addWidget(app.chat)
    server = IpcServer(workspace, {"screenshot": app._on_screenshot})
    await server.start()
    yield app
    await server.stop()


async def ask(app: DesktopApp, **request: Any) -> dict[str, Any]:
    answer = await asyncio.to_thread(ipc.request, app.workspace, {"cmd": "screenshot", **request})
    assert answer is not None
    return answer


def pictures(root: Path, pattern: str = "**/*.png") -> list[Path]:
    return sorted(root.glob(pattern))


def size(path: Path) -> int:
    return path.stat().st_size


async def test_the_chat_window_by_default_in_the_workspaces_screenshots(app, workspace):
    answer = await ask(app)
    shot = Path(answer["path"])
    assert answer["ok"] and shot.parent == workspace.root / "screenshots"
    assert shot.name.startswith("chat-") and shot.suffix == ".png" and size(shot)
    answer = await ask(app, window="chat", path=str(workspace.rules_file))  # no path taken
    assert Path(answer["path"]).parent == shot.parent
    assert workspace.rules_file.read_text().startswith("#")


@pytest.mark.parametrize("window", ["../../escaped", "/tmp/shot", "chat/../../x", 7, ["chat"]])
async def test_a_window_name_that_is_not_one_of_the_apps_is_refused(
    app, workspace, tmp_path, window
):
    """The issue's case: ``"window"`` went into the file's name, so ``../../…`` wrote a PNG
    outside the workspace."""
    before = pictures(Path("/tmp"), "shot-*.png")  # other programs' pictures may be there
    answer = await ask(app, window=window)
    assert answer == {
        "ok": False,
        "error": f"no window called {window!r} (there are: chat, settings)",
    }
    assert pictures(tmp_path) == [] and pictures(Path("/tmp"), "shot-*.png") == before


async def test_settings_before_it_was_opened_is_one_line_not_an_attribute_error(app, qtbot):
    assert await ask(app, window="settings") == {
        "ok": False,
        "error": "the settings window is not open",
    }
    dialog = QtWidgets.QDialog()
    qtbot.addWidget(dialog)
    app._settings_dialog = dialog
    assert (await ask(app, window="settings"))["error"] == "the settings window is not open"
    dialog.show()
    answer = await ask(app, window="settings")
    assert answer["ok"] and Path(answer["path"]).name.startswith("settings-")


async def test_a_screenshots_folder_that_points_elsewhere_is_not_written(app, workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace.root / "screenshots").symlink_to(elsewhere)
    answer = await ask(app)
    assert answer["ok"] is False and "is not a folder of the workspace" in answer["error"]
    assert pictures(elsewhere) == []
