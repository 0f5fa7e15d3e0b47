"""Settings → Rules: the rules file in an editor with how TIC reads each line beside it, a
preview of the latest events under the edited rules, an atomic save that the next check uses,
and the tray's tooltip naming lines TIC could not read. A real engine and store, the
scripted model; the picture for the README is made under Xvfb."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import shutil
import subprocess
import sys
from collections.abc import Callable, Coroutine, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from desktop.app import DesktopApp
from desktop.qt import QtCore, QtGui
from desktop.settings.dialog import SettingsDialog
from desktop.settings.rules_page import RulesPage, flagged_note
from desktop.tray import TrayController
from engine.engine import LEFT_TO_MODEL, NOT_UNDERSTOOD
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store.models import EventRecord
from tests.cli_helpers import ROOT
from tests.factories import make_event

RULES = (
    "# Notification preferences\n\n"
    "## Always notify\n- Emails from Anna Berg\n\n"
    "## Never notify\n- Newsletters\n"
)
GARBAGE = "- when the moon is blue and bananas"
PROMO = {
    "sender": {"name": "Shopfair", "address": "deals@mail.shopfair.example"},
    "subject": "Flash sale: 40% off everything",
    "text": "Shop now, ends tonight.",
}
README_SHOT = ROOT / "docs" / "rules-page.png"


@pytest.fixture
def model() -> ScriptedModel:
    """Tiny (the embedded default's class): lines code cannot read are ignored, and the
    notifications of a check are worded in code."""
    return ScriptedModel(capability="tiny")


@pytest.fixture
def tasks() -> list[asyncio.Task[Any]]:
    return []


@pytest.fixture
def spawn(tasks):
    def spawn(coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        tasks.append(task)
        return task

    return spawn


@pytest.fixture
def make_page(qtbot, engine, workspace, spawn) -> Iterator[Callable[..., RulesPage]]:
    pages: list[RulesPage] = []

    def make(rules: str = RULES, **kwargs: Any) -> RulesPage:
        workspace.rules_file.write_text(rules, encoding="utf-8")
        page = RulesPage(engine, spawn, debounce_ms=50, **kwargs)
        qtbot.addWidget(page)
        pages.append(page)
        return page

    yield make
    for page in pages:  # no preview may start once the test's event loop is gone
        page.timer.stop()


async def settle(tasks: list[asyncio.Task[Any]], *pages: RulesPage) -> None:
    """Run the pages' waiting refreshes now, and let the previews they started finish."""
    for page in pages:
        if page.timer.isActive():
            page.refresh()
    while tasks:
        await tasks.pop(0)


def type_line(qtbot, page: RulesPage, line: str) -> None:
    """Type ``line`` at the end of the editor, as the user would."""
    cursor = page.editor.textCursor()
    cursor.movePosition(QtGui.QTextCursor.MoveOperation.End)
    page.editor.setTextCursor(cursor)
    qtbot.keyClicks(page.editor, line)


# --- understanding -------------------------------------------------------------------------


async def test_each_line_shows_how_tic_reads_it_and_updates_as_the_user_types(
    qtbot, make_page, tasks
):
    page = make_page()
    assert page.editor.toPlainText() == RULES
    text = page.understanding_text()
    assert "Line 4 · Always notify: emails from Anna Berg" in text
    assert "Line 7 · Never notify: newsletters and digests" in text
    assert page.editor.marks() == {4: True, 7: True}
    assert page.summary.text() == "2 rule lines: all understood."

    type_line(qtbot, page, "- Receipts")
    assert page.modified and page.save_button.isEnabled()
    qtbot.waitUntil(lambda: "Line 8 · Never notify: receipts" in page.understanding_text())
    assert page.editor.marks() == {4: True, 7: True, 8: True}
    await settle(tasks, page)


async def test_a_garbage_line_is_flagged_in_the_editor_and_beside_it(qtbot, make_page, tasks):
    page = make_page()
    type_line(qtbot, page, GARBAGE)
    qtbot.waitUntil(lambda: 8 in page.editor.marks())
    assert page.editor.marks()[8] is False
    assert f"Line 8 · {NOT_UNDERSTOOD}" in page.understanding_text()
    assert "1 not understood (line 8), ignored on the built-in model" in page.summary.text()
    flagged = [s for s in page.editor.extraSelections() if s.cursor.blockNumber() == 7]
    assert flagged  # the line itself is marked in the editor
    await settle(tasks, page)


async def test_on_a_capable_model_a_flagged_line_is_left_to_the_model(
    qtbot, make_page, engine, tasks
):
    await engine.swap_model(ScriptedModel())
    page = make_page(RULES + GARBAGE + "\n")
    assert f"Line 8 · {LEFT_TO_MODEL}" in page.understanding_text()
    assert "left to the model to judge" in page.summary.text()
    engine.ingest([make_event(**PROMO)])
    preview = await page.refresh_preview()
    assert preview is not None and preview.unjudged_lines == (8,)
    assert "the preview does not ask the model" in page.preview_title.text()
    await settle(tasks, page)


async def test_a_line_named_beside_the_editor_takes_the_cursor_to_it(make_page):
    page = make_page()
    page.understanding.anchorClicked.emit(QtCore.QUrl("line:7"))
    assert page.editor.textCursor().blockNumber() == 6
    assert "- Newsletters" in page.editor.textCursor().block().text()


async def test_prose_between_rules_is_said_not_to_be_a_rule(make_page):
    page = make_page(RULES + "Emails from Mario\n")
    assert "Line 8 · not read as a rule" in page.understanding_text()


async def test_a_line_read_in_part_offers_readings_and_one_click_keeps_one(
    make_page, engine, workspace, tasks
):
    page = make_page(RULES + "- Correos de la tintorería\n")
    text = page.understanding_text()
    assert "I can't read \u201ctintorería\u201d" in text
    assert "Did you mean: Never notify: emails from tintorería? Use this" in text
    page.understanding.anchorClicked.emit(QtCore.QUrl("suggest:0"))
    assert "Line 8 · read as you chose: Never notify: emails from tintorería" in (
        page.understanding_text()
    )
    assert page.editor.marks()[8] is True
    assert workspace.rules_file.read_text().endswith("- Correos de la tintorería\n")  # words kept
    await settle(tasks, page)


async def test_a_line_that_would_silence_most_messages_is_applied_with_one_click(
    make_page, engine, tasks
):
    engine.ingest(
        [
            make_event(sender={"name": f"Ana Lopez{i}", "address": f"ana{i}@a{i}.example"})
            for i in range(25)
        ]
    )
    page = make_page(RULES + "- Emails\n")
    preview = await page.refresh_preview()
    assert preview is not None and [h.text for h in preview.held] == ["Emails"]
    assert "held: this would silence 25 of your last 25 messages" in page.understanding_text()
    assert "Apply it" in page.understanding_text()
    page.understanding.anchorClicked.emit(QtCore.QUrl("confirm:0"))
    await settle(tasks, page)
    assert page.preview() is not None and page.preview().held == ()
    assert "held:" not in page.understanding_text()


# --- the preview ---------------------------------------------------------------------------


async def test_the_preview_lists_the_last_events_and_changes_when_a_line_is_added(
    qtbot, make_page, engine, tasks
):
    engine.ingest([make_event(subject="Call me?"), make_event(**PROMO)])
    page = make_page()
    await engine.check_now(timeout=5)
    await page.refresh_preview()
    rows = page.preview_rows()
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("Silent", "Email · Shopfair", "Flash sale: 40% off everything"),
        ("Notify", "Email · Anna Berg", "Call me?"),
    ]
    assert rows[0][4].startswith("built-in judgement: marketing")
    assert rows[1][4] == "line 4: Emails from Anna Berg"
    assert page.preview_title.text().startswith(
        "Your last 2 messages under these rules: 1 would notify you, 1 would stay silent."
    )
    assert "notified 1 of the last 2" in page.understanding_text()

    type_line(qtbot, page, "- Emails from Anna Berg")  # under Never: it wins
    qtbot.waitUntil(lambda: bool(tasks))
    await settle(tasks, page)
    rows = page.preview_rows()
    assert rows[1][0] == "Silent (was notified)"
    assert rows[1][4] == "line 8: Emails from Anna Berg"
    assert "1 decided differently from before" in page.preview_title.text()
    assert "silenced 1 of the last 2" in page.understanding_text()
    assert [r.decision_notify for r in EventRecord.select()] == [True, False]  # untouched


async def test_with_no_events_the_preview_says_what_it_will_show(make_page, tasks):
    page = make_page()
    await page.refresh_preview()
    assert page.preview_rows() == []
    assert page.preview_title.text().startswith("No messages yet.")


# --- saving --------------------------------------------------------------------------------


async def test_save_writes_the_file_and_the_next_check_uses_it(
    qtbot, make_page, engine, workspace, tasks
):
    page = make_page()
    engine.ingest([make_event(**PROMO)])
    page.editor.setPlainText(RULES.replace("- Emails from Anna Berg", "- Emails from Shopfair"))
    with qtbot.waitSignal(page.saved):
        qtbot.mouseClick(page.save_button, QtCore.Qt.MouseButton.LeftButton)
    assert workspace.rules_file.read_text(encoding="utf-8") == page.text()
    assert not page.modified and not page.save_button.isEnabled()
    assert page.message.text() == "Saved. TIC uses these rules from the next check."
    leftovers = [p.name for p in workspace.data_dir.iterdir() if p.name.startswith(".")]
    assert leftovers == []

    result = await engine.check_now(timeout=5)
    assert (result.events, result.notified) == (1, 1)
    assert EventRecord.get().decision_rule == "Emails from Shopfair"
    await settle(tasks, page)


async def test_a_save_keeps_a_linked_rules_file_linked(
    qtbot, make_page, workspace, tasks, tmp_path
):
    kept = tmp_path / "dotfiles" / "notifications.md"
    kept.parent.mkdir()
    kept.write_text(RULES, encoding="utf-8")
    kept.chmod(0o640)
    workspace.rules_file.unlink()
    workspace.rules_file.symlink_to(kept)
    page = make_page()
    type_line(qtbot, page, "- Receipts")
    with qtbot.waitSignal(page.saved):
        qtbot.mouseClick(page.save_button, QtCore.Qt.MouseButton.LeftButton)
    assert workspace.rules_file.is_symlink() and workspace.rules_file.resolve() == kept
    assert kept.read_text(encoding="utf-8") == RULES + "- Receipts"
    assert kept.stat().st_mode & 0o777 == 0o640
    await settle(tasks, page)


async def test_a_file_changed_meanwhile_is_kept_until_the_user_saves_again(
    qtbot, make_page, workspace, tasks
):
    page = make_page()
    type_line(qtbot, page, "- Receipts")
    from_chat = RULES + "- Emails from Mario\n"
    workspace.rules_file.write_text(from_chat, encoding="utf-8")
    assert page.save() is False
    assert workspace.rules_file.read_text(encoding="utf-8") == from_chat
    assert "changed since you opened it" in page.message.text()
    assert page.save() is True
    assert workspace.rules_file.read_text(encoding="utf-8").endswith("- Receipts")
    await settle(tasks, page)


async def test_a_file_changed_on_disk_is_shown_when_nothing_is_unsaved(qtbot, make_page, workspace):
    page = make_page()
    from engine.workspace.atomic import atomic_write

    atomic_write(workspace.rules_file, RULES + "- Emails from Mario\n")
    qtbot.waitUntil(lambda: page.text().endswith("- Emails from Mario\n"), timeout=3000)
    assert not page.modified
    assert "Line 8 · Never notify: emails from Mario" in page.understanding_text()


async def test_revert_drops_the_edits(qtbot, make_page):
    page = make_page()
    type_line(qtbot, page, "- Receipts")
    qtbot.mouseClick(page.revert_button, QtCore.Qt.MouseButton.LeftButton)
    assert page.text() == RULES and not page.modified


async def test_open_in_your_editor_hands_the_file_to_the_desktop(
    qtbot, make_page, workspace, monkeypatch
):
    opened: list[str] = []
    answer = [True]

    def open_url(url: QtCore.QUrl) -> bool:
        opened.append(url.toLocalFile())
        return answer[0]

    monkeypatch.setattr(QtGui.QDesktopServices, "openUrl", open_url)
    page = make_page()
    qtbot.mouseClick(page.open_button, QtCore.Qt.MouseButton.LeftButton)
    assert opened == [str(workspace.rules_file)] and page.message.text() == ""
    answer[0] = False
    page.open_in_editor()
    assert page.message.text().endswith(str(workspace.rules_file))


# --- Settings, the tray menu, the welcome --------------------------------------------------


async def test_the_rules_page_is_a_tab_of_settings_and_notifications_links_to_it(qtbot, make_page):
    page = make_page()
    dialog = SettingsDialog(Settings(), rules_page=page)
    qtbot.addWidget(dialog)
    titles = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert titles == ["General", "Model", "Notifications", "Rules"]
    dialog.notifications_page.edit_rules_button.click()
    assert dialog.tabs.currentWidget() is page


async def test_edit_rules_opens_settings_on_the_rules_page_once(
    qtbot, engine, workspace, spawn, tasks
):
    workspace.rules_file.unlink()
    app = SimpleNamespace(
        engine=engine,
        spawn=spawn,
        workspace=workspace,
        check_accounts=lambda: None,
        check_rules=lambda: None,
        apply_settings=lambda new: asyncio.sleep(0),
    )
    app.open_settings = lambda accounts=False, rules=False: DesktopApp.open_settings(
        app,  # type: ignore[arg-type]
        accounts,
        rules,
    )
    DesktopApp.edit_rules(app)  # type: ignore[arg-type]
    dialog = app._settings_dialog  # deletes itself on close: not qtbot's to close
    assert dialog.isVisible() and dialog.tabs.currentWidget() is dialog.rules_page
    assert dialog.rules_page.text().startswith("# Notification preferences")  # recreated
    dialog.tabs.setCurrentIndex(0)
    DesktopApp.edit_rules(app)  # type: ignore[arg-type]
    assert app._settings_dialog is dialog  # brought forward, not a second window
    assert dialog.tabs.currentWidget() is dialog.rules_page

    page = dialog.rules_page
    page.editor.setPlainText(RULES)
    dialog.accept()  # OK saves the rules edits too
    assert workspace.rules_file.read_text(encoding="utf-8") == RULES
    await settle(tasks, page)
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    DesktopApp.edit_rules(app)  # type: ignore[arg-type]  # the old window is gone: a new one
    assert app._settings_dialog is not dialog and app._settings_dialog.isVisible()
    await settle(tasks, app._settings_dialog.rules_page)
    app._settings_dialog.close()


# --- the tray ------------------------------------------------------------------------------


async def test_the_tray_tooltip_names_flagged_lines(qtbot, engine, workspace, make_page, tasks):
    tray = TrayController()
    app = SimpleNamespace(engine=engine, tray=tray)
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    DesktopApp.check_rules(app)  # type: ignore[arg-type]
    assert tray.tooltip() == "TIC — all quiet"

    page = make_page()
    page.saved.connect(lambda: DesktopApp.check_rules(app))  # type: ignore[arg-type]
    type_line(qtbot, page, GARBAGE)
    page.save()
    assert tray.tooltip() == ("TIC — all quiet\n1 rule line not understood — see Settings → Rules")
    tray.set_state("checking")
    assert tray.tooltip().endswith("\n1 rule line not understood — see Settings → Rules")
    tray.set_state("idle")

    await engine.swap_model(ScriptedModel())  # capable: the model judges it
    DesktopApp.check_rules(app)  # type: ignore[arg-type]
    assert tray.tooltip().endswith("\n1 rule line left to the model — see Settings → Rules")

    page.editor.setPlainText(RULES)
    page.save()
    assert tray.tooltip() == "TIC — all quiet"
    await settle(tasks, page)


def test_flagged_note_counts_the_lines():
    from engine.triage.rules.explain import explain

    assert flagged_note(explain(RULES)) is None
    two = explain(RULES + GARBAGE + "\n- purple monkey dishwasher\n")
    assert flagged_note(two) == "2 rule lines not understood — see Settings → Rules"


# --- the picture ---------------------------------------------------------------------------


@pytest.mark.skipif(
    not all(shutil.which(t) for t in ("Xvfb", "dbus-daemon")),
    reason="needs Xvfb and dbus-daemon (.ci/run installs them)",
)
def test_a_picture_of_the_page_under_xvfb(tmp_path):
    from tests.desktop.session import isolated_session
    from tests.desktop.test_real_desktop import distinct_colours

    shot = tmp_path / "rules-page.png"
    with isolated_session() as session:
        env = dict(session.env, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
        done = subprocess.run(
            [sys.executable, "-m", "tests.desktop.rules_page_shot", str(tmp_path / "h"), str(shot)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert distinct_colours(shot) > 20
    if os.environ.get("TIC_UPDATE_SCREENSHOT"):  # refresh the README's picture on purpose
        shutil.copyfile(shot, README_SHOT)
