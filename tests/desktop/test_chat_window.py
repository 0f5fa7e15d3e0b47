"""The chat window, driven like the app drives it: history, bus events, the keyboard."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

import desktop.chat.window as chat_window_module
from desktop.chat.window import ChatWindow, WhyDialog, format_timestamp, format_timing
from desktop.qt import Qt, QtCore, QtGui
from engine.bus import (
    DeliveredNotification,
    ReplyFinished,
    ReplyStarted,
    ReplyToken,
    ToolCalled,
    TurnFailed,
)

NOW = datetime.now(UTC)


def row(message_id: int, role: str, content: str, **extra: Any) -> dict[str, Any]:
    """One row shaped like ``engine.history.history_rows()`` returns it."""
    base: dict[str, Any] = {
        "id": message_id,
        "session_id": 1,
        "role": role,
        "content": content,
        "is_synthetic": False,
        "reasoning_content": None,
        "kind": None,
        "sources": [],
        "why": [],
        "fallback": False,
        "prompt_tokens": None,
        "completion_tokens": None,
        "duration_ms": None,
        "created_at": NOW.isoformat(),
        "tool_calls": [],
    }
    return base | extra


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "name": name,
        "arguments": arguments,
        "status": "done",
        "result_type": "json",
        "result": "[]",
    }


MARIO = DeliveredNotification(
    id=7,
    source="email",
    event_type="message",
    summary="Mario asks the user to sign the contract by Friday.",
    event_time=NOW.isoformat(),
    refs={"message_id": "m-1"},
    reason="Mario is someone the user always wants to hear from.",
    rule="Always notify: emails from Mario",
    sender="Mario Rossi",
)


@pytest.fixture
def window(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> ChatWindow:
    monkeypatch.setattr(chat_window_module, "HIGHLIGHT_MS", 50)
    w = ChatWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def conversation(n: int) -> list[dict[str, Any]]:
    return [
        row(i, "user" if i % 2 else "assistant", f"Message number {i} with a few words.")
        for i in range(1, n + 1)
    ]


# the input box --------------------------------------------------------------------------


def test_window_basics(window: ChatWindow) -> None:
    assert window.windowTitle() == "TIC"
    assert 480 <= window.width() <= 560 and 640 <= window.height() <= 720
    assert window.bubble_texts() == [] and window.message_ids() == []


def test_enter_sends_and_clears(qtbot: QtBot, window: ChatWindow) -> None:
    qtbot.keyClicks(window.input_box, "  hello TIC ")
    with qtbot.waitSignal(window.sendRequested, timeout=1000) as sent:
        qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
    assert sent.args == ["hello TIC"]
    assert window.input_box.toPlainText() == ""


def test_shift_enter_inserts_a_new_line(qtbot: QtBot, window: ChatWindow) -> None:
    one_line = window.input_box.height()
    qtbot.keyClicks(window.input_box, "first")
    with qtbot.assertNotEmitted(window.sendRequested):
        qtbot.keyClick(window.input_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.input_box, "second")
    assert window.input_box.toPlainText() == "first\nsecond"
    assert window.input_box.height() > one_line  # the box grows with its text
    with qtbot.waitSignal(window.sendRequested, timeout=1000) as sent:
        qtbot.keyClick(window.input_box, Qt.Key.Key_Enter)
    assert sent.args == ["first\nsecond"]


def test_empty_or_blank_input_is_ignored(qtbot: QtBot, window: ChatWindow) -> None:
    with qtbot.assertNotEmitted(window.sendRequested):
        qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
        qtbot.keyClicks(window.input_box, "   ")
        qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
    assert not window.send_button.isEnabled()


def test_sending_waits_for_the_reply_but_typing_does_not(qtbot: QtBot, window: ChatWindow) -> None:
    window.sendRequested.connect(window.add_user_message)
    qtbot.keyClicks(window.input_box, "question")
    qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
    assert window.bubble_texts() == ["question"]
    assert not window.can_send()

    qtbot.keyClicks(window.input_box, "follow-up")
    with qtbot.assertNotEmitted(window.sendRequested):
        qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
    assert window.input_box.isEnabled()
    assert window.input_box.toPlainText() == "follow-up"
    assert not window.send_button.isEnabled()

    # A notification arriving meanwhile does not end the user's turn.
    window.on_reply_finished(ReplyFinished(1, 20, "An email came in.", "notification", [MARIO]))
    assert not window.can_send()

    window.on_reply_finished(ReplyFinished(1, 21, "Answer.", "user"))
    assert window.can_send() and window.send_button.isEnabled()
    with qtbot.waitSignal(window.sendRequested, timeout=1000):
        window.send_button.click()


# history --------------------------------------------------------------------------------


def test_history_in_order_without_synthetic_or_tool_only_steps(window: ChatWindow) -> None:
    window.load_history(
        [
            row(1, "user", "What's on tomorrow?"),
            row(2, "assistant", "", tool_calls=[tool_call("search_events")]),
            row(3, "assistant", "", tool_calls=[tool_call("schedule_job", kind="reminder")]),
            row(4, "assistant", "Two meetings; I'll remind you of the first."),
            row(5, "assistant", "", is_synthetic=True, tool_calls=[tool_call("read_notification")]),
            row(6, "assistant", "Mario emailed you.", kind="notification", sources=["email"]),
            row(7, "user", "Thanks"),
        ]
    )
    assert window.message_ids() == [1, 4, 6, 7]
    assert window.bubble_texts() == [
        "What's on tomorrow?",
        "Two meetings; I'll remind you of the first.",
        "Mario emailed you.",
        "Thanks",
    ]
    user, reply, notification, _ = window.bubbles()
    assert reply.tools.text() == "Reminder set"  # what changed; the look-up says nothing
    assert not reply.tools.isHidden()
    assert notification.tools.isHidden()  # read_notification belongs to the synthetic step
    assert user.role == "user" and reply.role == "assistant"


def test_load_history_replaces_what_was_shown(window: ChatWindow) -> None:
    window.load_history(conversation(4))
    window.on_reply_started(ReplyStarted(1, "user"))
    window.load_history([row(9, "user", "fresh start")])
    assert window.message_ids() == [9]
    assert window.bubble_texts() == ["fresh start"]


def test_user_right_assistant_left(window: ChatWindow) -> None:
    window.load_history([row(1, "user", "hi"), row(2, "assistant", "hello")])
    user, reply = window.bubbles()
    user_box = QtCore.QRect(user.mapTo(window, QtCore.QPoint(0, 0)), user.size())
    reply_box = QtCore.QRect(reply.mapTo(window, QtCore.QPoint(0, 0)), reply.size())
    assert user_box.right() > window.width() * 0.8
    assert reply_box.left() < window.width() * 0.2
    assert user_box.left() > reply_box.right()


def test_assistant_markdown_is_rendered(window: ChatWindow) -> None:
    window.load_history([row(1, "assistant", "This is **bold**.\n\n- first item\n- second item")])
    (bubble,) = window.bubbles()
    document = bubble.document()
    assert "**" not in bubble.text() and "bold" in bubble.text()
    assert document.find("bold").charFormat().fontWeight() >= QtGui.QFont.Weight.Bold.value
    assert document.find("first item").block().textList() is not None


def test_user_text_stays_plain(window: ChatWindow) -> None:
    window.load_history([row(1, "user", "literally **this**")])
    assert window.bubble_texts() == ["literally **this**"]


def test_markdown_loads_no_images_and_renders_no_html(window: ChatWindow) -> None:
    text = "![tracker](http://example.com/pixel.png) and <img src='http://example.com/x.png'>"
    window.load_history([row(1, "assistant", text)])
    (bubble,) = window.bubbles()
    assert "\ufffc" not in bubble.text()  # no image object in the document
    assert "tracker" in bubble.text()
    assert "<img" in bubble.text()  # raw HTML is shown as text, never interpreted
    resource = QtGui.QTextDocument.ResourceType.ImageResource.value
    assert bubble.body.loadResource(resource, QtCore.QUrl("http://example.com/x.png")) is None


def test_timestamps_are_local_with_a_date_when_not_today(window: ChatWindow) -> None:
    earlier = NOW - timedelta(days=3)
    window.load_history(
        [row(1, "user", "old", created_at=earlier.isoformat()), row(2, "assistant", "new")]
    )
    old, new = window.bubbles()
    assert new.time_label.text() == f"{NOW.astimezone():%H:%M}"
    assert old.time_label.text() == format_timestamp(earlier)
    assert f"{earlier.astimezone():%H:%M}" in old.time_label.text()
    assert str(earlier.astimezone().day) in old.time_label.text()


def test_format_timestamp() -> None:
    now = datetime(2025, 6, 10, 18, 0).astimezone()
    assert format_timestamp(now.replace(hour=9, minute=5), now) == "09:05"
    assert format_timestamp(now - timedelta(days=1), now) == f"9 {now:%b}, 18:00"
    assert format_timestamp(now.replace(year=2024), now) == f"10 {now:%b} 2024, 18:00"


# streaming ------------------------------------------------------------------------------


def test_a_change_gets_a_human_line_under_its_reply(window: ChatWindow) -> None:
    window.add_user_message("stop telling me about LinkedIn")
    rule = {"section": "never", "rule": "LinkedIn"}
    window.on_tool_called(ToolCalled(1, "add_notification_rule", "done", rule))  # code ran it
    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_finished(
        ReplyFinished(1, 5, "Done — I won't notify you about LinkedIn.", "user")
    )
    reply = window.bubbles()[-1]
    assert reply.tools.text() == "Rule added to Never notify"
    assert reply.tools.isVisibleTo(window)
    window.load_history(
        [
            row(1, "user", "stop telling me about LinkedIn"),
            row(2, "assistant", "", tool_calls=[tool_call("add_notification_rule", **rule)]),
            row(3, "assistant", "Done — I won't notify you about LinkedIn."),
        ]
    )
    assert window.bubbles()[-1].tools.text() == "Rule added to Never notify"


def test_streaming_tokens_accumulate_then_finish(window: ChatWindow) -> None:
    window.add_user_message("hi")
    window.on_reply_started(ReplyStarted(1, "user"))
    pending = window.bubbles()[-1]
    assert pending.typing.isVisibleTo(window) and pending.text() == ""

    window.on_tool_called(ToolCalled(1, "search_events", "running"))
    for piece in ("Hello", ", ", "**there**"):
        window.on_reply_token(ReplyToken(1, piece))
    assert not pending.typing.isVisibleTo(window)
    assert window.bubble_texts() == ["hi", "Hello, **there**"]

    window.on_reply_finished(ReplyFinished(1, 42, "Hello, **there**!", "user"))
    assert window.bubble_texts() == ["hi", "Hello, there!"]
    assert window.message_ids() == [42]
    assert pending.tools.isHidden()  # a look-up gets no line: the reply is what it found
    assert pending.time_label.text() == f"{datetime.now().astimezone():%H:%M}"
    assert pending.badge_texts() == [] and pending.why_button.isHidden()


def test_a_reply_without_a_start_still_appears(window: ChatWindow) -> None:
    window.on_reply_finished(ReplyFinished(1, 5, "You have a new notification:", "notification"))
    assert window.bubble_texts() == ["You have a new notification:"]
    assert window.message_ids() == [5]


def test_turn_failure_shows_the_error(qtbot: QtBot, window: ChatWindow) -> None:
    qtbot.keyClicks(window.input_box, "hi")
    qtbot.keyClick(window.input_box, Qt.Key.Key_Return)
    window.add_user_message("hi")
    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_token(ReplyToken(1, "Let me"))
    assert not window.can_send()

    window.on_turn_failed(TurnFailed(1, "user", "model server unreachable"))
    assert window.bubble_texts() == ["hi", "Couldn't answer: model server unreachable"]
    assert window.can_send()
    assert window.bubbles()[-1].body.property("error") is True


# notifications --------------------------------------------------------------------------


def test_notification_reply_has_badge_and_why_dialog(qtbot: QtBot, window: ChatWindow) -> None:
    window.on_reply_started(ReplyStarted(1, "notification"))
    window.on_reply_token(ReplyToken(1, "Mario wrote"))
    cal = replace(MARIO, id=8, source="calendar", summary="Dentist moved to 15:00.", rule=None)
    window.on_reply_finished(
        ReplyFinished(1, 43, "Mario wrote about the contract.", "notification", [MARIO, cal])
    )
    (bubble,) = window.bubbles()
    assert bubble.badge_texts() == ["Calendar", "Email"]
    assert bubble.why_button.isVisibleTo(window)

    qtbot.mouseClick(bubble.why_button, Qt.MouseButton.LeftButton)
    dialog = window.findChild(WhyDialog)
    assert dialog is not None and dialog.isVisible()
    texts = dialog.texts()
    assert "Email: Mario asks the user to sign the contract by Friday." in texts
    assert f"Why: {MARIO.reason}" in texts
    assert "Rule: Always notify: emails from Mario" in texts
    assert "Calendar: Dentist moved to 15:00." in texts
    assert sum(text.startswith("Rule:") for text in texts) == 1
    dialog.close()


def test_history_notification_shows_badge_why_and_fallback_note(window: ChatWindow) -> None:
    why = [
        {
            "event_id": "wa-1",
            "summary": "Anna asks about dinner.",
            "reason": "Direct message",
            "rule": None,
        }
    ]
    window.load_history(
        [
            row(
                1,
                "assistant",
                "Anna asked about dinner.",
                kind="notification",
                sources=["whatsapp", "cron"],
                why=why,
                fallback=True,
            ),
            row(2, "assistant", "A plain reply."),
        ]
    )
    notified, plain = window.bubbles()
    assert notified.badge_texts() == ["Reminder", "WhatsApp"]
    assert notified.note.isVisibleTo(window)
    assert "without the model" in notified.note.text()
    dialog = notified.show_why()
    assert dialog.texts() == ["Anna asks about dinner.", "Why: Direct message"]
    dialog.close()
    assert plain.badge_texts() == [] and plain.note.isHidden() and plain.why_button.isHidden()


def test_why_says_when_tic_composed_the_reply(window: ChatWindow) -> None:
    why = [{"event_id": "wa-1", "summary": "Anna asks about dinner.", "reason": "Direct"}]
    window.load_history(
        [
            row(
                1,
                "assistant",
                "Anna wrote on WhatsApp.",
                kind="notification",
                why=why,
                composed=True,
            )
        ]
    )
    window.on_reply_finished(
        ReplyFinished(1, 44, "Mario wrote.", "notification", [MARIO], composed=True)
    )
    window.on_reply_finished(ReplyFinished(1, 45, "Mario wrote.", "notification", [MARIO]))
    stored, live, written = window.bubbles()
    for bubble in (stored, live):
        dialog = bubble.show_why()
        assert dialog.texts()[-1] == WhyDialog.COMPOSED
        dialog.close()
    dialog = written.show_why()
    assert WhyDialog.COMPOSED not in dialog.texts()
    dialog.close()


def test_why_says_what_was_cut_on_arrival(window: ChatWindow) -> None:
    cut = ["sender.name cut to 80 of 5014 characters"]
    why = [{"event_id": "gmail:9", "summary": "Spam.", "reason": "Direct", "notes": cut}]
    window.load_history([row(1, "assistant", "Spam.", kind="notification", why=why)])
    (bubble,) = window.bubbles()
    dialog = bubble.show_why()
    assert dialog.texts() == [
        "Spam.",
        "Why: Direct",
        "On arrival: sender.name cut to 80 of 5014 characters",
    ]
    dialog.close()


# scrolling, status ----------------------------------------------------------------------


def test_auto_scroll_unless_scrolled_up(qtbot: QtBot, window: ChatWindow) -> None:
    bar = window._scroll.verticalScrollBar()
    window.load_history(conversation(30))
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())

    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_token(ReplyToken(1, "A long streamed line. " * 40))
    before = bar.maximum()
    qtbot.waitUntil(lambda: bar.maximum() > before or bar.value() == bar.maximum())
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())

    bar.setValue(0)  # the user scrolls up to read
    window.on_reply_token(ReplyToken(1, "More text. " * 40))
    window.on_reply_finished(ReplyFinished(1, 99, "Done " * 80, "user"))
    qtbot.wait(50)
    assert bar.value() == 0

    window.add_user_message("back to the bottom")  # sending always shows your message
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())


def test_show_message_scrolls_and_highlights(qtbot: QtBot, window: ChatWindow) -> None:
    bar = window._scroll.verticalScrollBar()
    window.load_history(conversation(30))
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())

    assert window.show_message(1) is True
    first = window.bubbles()[0]
    assert bar.value() < bar.maximum()
    assert first.visibleRegion().boundingRect().height() == first.height()
    assert first.is_highlighted()
    qtbot.waitUntil(lambda: not first.is_highlighted(), timeout=2000)

    assert window.show_message(12345) is False


def test_status_line_busy_and_idle(window: ChatWindow) -> None:
    progress = window._status_busy
    assert window.status_text() == "" and not window._status.isVisible()

    window.set_status("Loading model…", busy=True)
    assert window.status_text() == "Loading model…"
    assert window._status.isVisible() and progress.isVisible()
    assert progress.minimum() == progress.maximum() == 0  # indeterminate

    window.set_status("Model ready", busy=False)
    assert window.status_text() == "Model ready" and not progress.isVisible()

    window.set_status("", busy=False)
    assert not window._status.isVisible()


# how it looks ---------------------------------------------------------------------------


def test_window_renders_a_conversation(qtbot: QtBot, window: ChatWindow, tmp_path: Path) -> None:
    why = [
        {
            "summary": "Mario asks for a signature.",
            "reason": "From Mario",
            "rule": "Always notify: Mario",
        }
    ]
    window.load_history(
        [
            row(
                1,
                "user",
                "What's on my calendar tomorrow?",
                created_at=(NOW - timedelta(days=1)).isoformat(),
            ),
            row(2, "assistant", "", tool_calls=[tool_call("search_events")]),
            row(
                3,
                "assistant",
                "You have **two** things tomorrow:\n\n- 09:30 Standup\n- 14:00 Dentist\n\n"
                "Want a reminder?",
            ),
            row(
                4,
                "assistant",
                "Mario just emailed: the **contract** needs your signature by Friday.",
                kind="notification",
                sources=["email"],
                why=why,
            ),
            row(5, "user", "Thanks! Remind me Thursday evening."),
        ]
    )
    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_token(ReplyToken(1, "Sure, I'll remind you"))
    window.set_status("Loading model…", busy=True)
    qtbot.wait(50)

    image = window.grab().toImage()
    assert image.save(str(tmp_path / "chat_window.png"))
    image.save("/tmp/chat_window.png")
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
    }
    assert len(colours) > 50


# the model, and how long a capable model takes ------------------------------------------------


def test_the_header_names_the_model(window: ChatWindow) -> None:
    assert window.model_text() == ""
    window.set_model(
        "SmolLM2-135M · small built-in model",
        "small built-in model: replies are composed from the facts",
        show_timing=False,
    )
    assert window.model_text() == "SmolLM2-135M · small built-in model"
    assert window._model_label.toolTip().startswith("small built-in model")


def test_a_capable_models_turn_shows_its_timing(qtbot: QtBot, window: ChatWindow) -> None:
    window.set_model("Qwen2.5-7B · capable model", "capable", show_timing=True)
    window.on_reply_started(ReplyStarted(1, "user"))
    assert window.timing_text().startswith("Waiting for the model… 0.")
    assert window._status.isVisible()
    qtbot.wait(150)
    window.on_reply_token(ReplyToken(1, "Pasta"))
    qtbot.waitUntil(lambda: window.timing_text().startswith("First token 0."), timeout=1000)
    assert " · " in window.timing_text()
    window.on_reply_finished(
        ReplyFinished(1, 5, "Pasta it is.", "user", first_token_ms=812, total_ms=2430)
    )
    assert window.timing_text() == "First token 0.8 s · total 2.4 s"
    assert window.status_text() == ""  # the status's own text is left alone


def test_a_composed_reply_or_a_small_model_shows_no_timing(window: ChatWindow) -> None:
    window.set_model("Qwen2.5-7B · capable model", "capable", show_timing=True)
    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_finished(
        ReplyFinished(1, 5, "Tomorrow: 15:00 Budget review.", "user", composed=True)
    )
    assert window.timing_text() == "" and not window._status.isVisible()

    window.set_model("SmolLM2-135M · small built-in model", "tiny", show_timing=False)
    window.on_reply_started(ReplyStarted(1, "user"))
    window.on_reply_finished(ReplyFinished(1, 6, "I can't answer that reliably.", "user"))
    assert window.timing_text() == ""


def test_format_timing() -> None:
    assert format_timing(812, 2430) == "First token 0.8 s · total 2.4 s"
    assert format_timing(None, 2430) == "Total 2.4 s"
    assert format_timing(None, None) == ""
