""" "Edit notification rules…" from the tray and the welcome opens Settings → Rules; its "Open
in your editor" hands the rules file to the user's editor, or says in one line where it is."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from types import SimpleNamespace

import pytest

from desktop.app import DesktopApp
from desktop.chat import welcome
from desktop.qt import QtCore, QtGui
from desktop.settings.rules_editor import open_rules_file
from engine.workspace import Workspace


class Desktop(list):
    """The URLs handed to the desktop to open, and what it answers."""

    answer = True


@pytest.fixture
def desktop(monkeypatch) -> Desktop:
    opened = Desktop()

    def open_url(url: QtCore.QUrl) -> bool:
        opened.append(url.toLocalFile())
        return opened.answer

    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", open_url)
    return opened


def test_the_file_goes_to_the_desktops_default_app(workspace: Workspace, desktop):
    assert open_rules_file(workspace.rules_file) is None
    assert desktop == [str(workspace.rules_file)]


def test_when_nothing_opens_it_the_line_names_the_file(workspace: Workspace, desktop):
    desktop.answer = False
    line = open_rules_file(workspace.rules_file)
    assert line is not None and "\n" not in line
    assert line.endswith(str(workspace.rules_file))


def test_the_tray_action_opens_settings_on_the_rules_recreating_a_deleted_file(
    workspace: Workspace,
):
    workspace.rules_file.unlink()
    opened: list[dict[str, bool]] = []
    app = SimpleNamespace(workspace=workspace, open_settings=lambda **kw: opened.append(kw))
    DesktopApp.edit_rules(app)  # type: ignore[arg-type]
    assert opened == [{"rules": True}]  # Settings → Rules (tests/desktop/test_rules_page.py)
    assert workspace.rules_file.read_text().startswith("# Notification preferences")


def test_the_welcome_links_open_the_accounts_page_and_the_rules():
    calls: list[object] = []
    app = SimpleNamespace(
        open_settings=lambda accounts=False: calls.append(("settings", accounts)),
        edit_rules=lambda: calls.append("rules"),
    )
    DesktopApp._on_welcome_link(app, welcome.ACCOUNTS_LINK)  # type: ignore[arg-type]
    DesktopApp._on_welcome_link(app, welcome.RULES_LINK)  # type: ignore[arg-type]
    DesktopApp._on_welcome_link(app, "tic:unknown")  # type: ignore[arg-type]
    assert calls == [("settings", True), "rules"]
