""" "Don't notify me about this" on a toast shows the rule it adds and what it would have
silenced in the last 30 days, and adds it only on "Add rule"."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from desktop.app import DesktopApp
from desktop.notify.confirm import ADD_LABEL, TITLE, confirmation_text
from desktop.qt import QtWidgets
from engine.errors import TicError
from engine.types import MutePreview, SilencedEvent

RULE = "Emails from offers@cheap-pills.example"


def preview(total: int = 3, rules: list[str] | None = None) -> MutePreview:
    silenced = [
        SilencedEvent(
            f"gmail:{n}",
            "email",
            "Tomas Herrera <offers@cheap-pills.example>",
            datetime(2026, 11, 10 - n, 7, 1, tzinfo=UTC),
            f"Tomas Herrera sent an email about \u201cPills {n}\u201d.",
        )
        for n in range(total)
    ]
    return MutePreview(
        rules=[RULE] if rules is None else rules,
        cancelled_jobs=[],
        silenced=silenced,
        silenced_total=total,
        unidentified=[],
    )


class FakeEngine:
    def __init__(self, shown: MutePreview | Exception):
        self.shown = shown
        self.muted: list[int] = []

    def mute_preview(self, message_id: int) -> MutePreview:
        if isinstance(self.shown, Exception):
            raise self.shown
        return self.shown

    async def mute(self, message_id: int) -> None:
        self.muted.append(message_id)


def fake_app(engine: FakeEngine) -> Any:
    spawned: list[str] = []

    def spawn(coro: Any, name: str) -> None:
        spawned.append(name)
        coro.close()
        engine.muted.append(-1)  # the mute was started

    status: list[str] = []
    chat = SimpleNamespace(set_status=lambda text, busy: status.append(text))
    return SimpleNamespace(engine=engine, spawn=spawn, chat=chat, spawned=spawned, status=status)


def test_the_text_names_the_rule_and_what_it_would_have_silenced():
    text = confirmation_text(preview(7))
    assert text.startswith(f"TIC will add this rule under Never notify:\n  \u2022 {RULE}\n")
    assert "In the last 30 days it would have silenced 7 notifications:" in text
    assert "Tomas Herrera sent an email about \u201cPills 0\u201d." in text
    assert text.endswith("\u2026 and 2 more")
    assert "silenced nothing in the last 30 days" in confirmation_text(preview(0))


def test_the_rule_is_added_only_on_add_rule(qtbot):
    engine = FakeEngine(preview())
    app = fake_app(engine)
    DesktopApp.confirm_mute(app, 42)  # type: ignore[arg-type]
    box = app._mute_box
    qtbot.addWidget(box)
    assert box.windowTitle() == TITLE and box.isVisible()
    assert RULE in box.text()
    assert app.spawned == []  # nothing changes before the user says so
    box.add_button.click()
    assert app.spawned == ["mute"]


def test_cancel_adds_nothing(qtbot):
    engine = FakeEngine(preview())
    app = fake_app(engine)
    DesktopApp.confirm_mute(app, 42)  # type: ignore[arg-type]
    box = app._mute_box
    qtbot.addWidget(box)
    box.button(QtWidgets.QMessageBox.StandardButton.Cancel).click()
    assert app.spawned == []
    assert [b.text() for b in box.buttons()].count(ADD_LABEL) == 1


def test_nothing_to_confirm_mutes_at_once_and_an_error_is_one_line(qtbot):
    app = fake_app(FakeEngine(preview(rules=[])))  # a reminder, or nothing identifies it
    DesktopApp.confirm_mute(app, 7)  # type: ignore[arg-type]
    assert app.spawned == ["mute"] and not hasattr(app, "_mute_box")
    broken = fake_app(FakeEngine(TicError("message 7 is not a notification")))
    DesktopApp.confirm_mute(broken, 7)  # type: ignore[arg-type]
    assert broken.status == ["message 7 is not a notification"] and broken.spawned == []
