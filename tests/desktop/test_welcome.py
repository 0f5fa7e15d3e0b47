"""The first-run welcome: written in code, shown once per workspace and in an empty chat,
with example prompts that the engine really understands."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from datetime import UTC, datetime

import pytest

from desktop.chat import welcome
from desktop.chat.window import ChatWindow
from desktop.qt import Qt, QtWidgets
from engine.bus import ReplyFinished, ReplyStarted
from engine.chat.calendar_answer import calendar_question
from engine.chat.digest import DigestRequest, digest_request
from engine.chat.firstrun import BUILTIN_CAN, BUILTIN_CANNOT, offer_text
from engine.chat.intents import Lookup, lookup_request, preference_change, reminder_request
from engine.modeltypes import DownloadState, ModelOffer
from engine.triage.rules.parse import NEVER
from engine.workspace import Workspace


@pytest.fixture
def chat(qtbot) -> ChatWindow:
    window = ChatWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def row(message_id: int, role: str, content: str) -> dict:
    return {
        "id": message_id,
        "role": role,
        "content": content,
        "is_synthetic": False,
        "tool_calls": [],
        "created_at": datetime.now(UTC).isoformat(),
    }


# --- the words -----------------------------------------------------------------------


def test_the_examples_are_ones_the_engine_recognises():
    stop, calendar, remind, missed = welcome.EXAMPLE_PROMPTS
    change = preference_change(stop)
    assert change is not None and change.section == NEVER and change.rule == "LinkedIn"
    assert preference_change(calendar) is None and reminder_request(calendar) is None
    now = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
    question = calendar_question(calendar, now)
    assert question is not None and question.period.name == "tomorrow"
    assert lookup_request(calendar) == Lookup("upcoming_calendar", {"hours": 48}, "tomorrow")
    assert digest_request(missed, now) == DigestRequest("en")
    assert reminder_request(remind) == {
        "text": "Call Mario",
        "at": "17:00",
        "repeat": "none",
        "kind": "reminder",
    }


def test_the_welcome_says_what_tic_is_and_how_to_start(chat):
    text = " ".join(chat.welcome.texts())
    assert welcome.TITLE in text
    assert "runs on this computer" in text and "no cloud AI" in text
    assert "Settings → Accounts" in text
    assert "notification rules" in text
    for prompt in welcome.EXAMPLE_PROMPTS:
        assert prompt in text


OFFER = ModelOffer("model-m", "Model M 3B", 2_020_000_000, "A good all-rounder.")


def test_on_the_built_in_model_it_says_what_it_can_and_cant_do_and_offers_more(chat, qtbot):
    chat.welcome.set_model(tiny=True, offer=OFFER)
    text = " ".join(chat.welcome.texts())
    assert BUILTIN_CAN in text and BUILTIN_CANNOT in text
    assert "offline" in text and "built-in model" in text
    assert offer_text(OFFER) in text
    assert "2.0 GB, about 5 minutes to download at 50 Mbit/s" in text and "Optional" in text
    button = chat.welcome.offer_button
    assert button.text() == "Download and use Model M 3B" and button.isVisibleTo(chat)
    with qtbot.waitSignal(chat.modelOfferAccepted, timeout=1000) as accepted:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert accepted.args == ["model-m"]
    assert not button.isEnabled()  # one click: the app downloads it and switches to it
    going = DownloadState("model-m", "Model M 3B", 505_000_000, 2_020_000_000, phase="downloading")
    chat.welcome.set_download(going)
    assert chat.welcome.offer_status.text().startswith("Model M 3B: 25 % — 505 MB of 2.0 GB")
    failed = DownloadState("model-m", "Model M 3B", phase="failed", error="no internet")
    chat.welcome.set_download(failed)
    assert chat.welcome.offer_status.text() == "Model M 3B: download failed: no internet"
    assert button.isEnabled()  # it may be tried again


def test_on_a_capable_model_the_welcome_offers_nothing(chat):
    chat.welcome.set_model(tiny=False, offer=None)
    text = " ".join(chat.welcome.texts())
    assert BUILTIN_CAN not in text and "Download" not in text
    chat.welcome.set_model(tiny=True, offer=None)  # nothing fits this computer: said, not offered
    text = " ".join(chat.welcome.texts())
    assert BUILTIN_CANNOT in text and not chat.welcome.offer_button.isVisibleTo(chat)


# --- once per workspace --------------------------------------------------------------


def test_the_first_start_is_remembered_in_the_workspace(workspace: Workspace):
    assert welcome.is_first_start(workspace)
    welcome.remember_first_start(workspace)
    assert not welcome.is_first_start(workspace)
    assert welcome.marker_path(workspace).parent == workspace.root
    assert not welcome.is_first_start(Workspace.open(workspace.root))  # a later start


# --- in the chat window --------------------------------------------------------------


def test_an_empty_chat_shows_the_welcome_until_the_first_message(chat):
    assert chat.welcome_visible()
    chat.add_user_message("hello")
    assert not chat.welcome_visible()


def test_a_chat_with_history_does_not_show_it(chat):
    chat.load_history([row(1, "user", "hi"), row(2, "assistant", "Hello!")])
    assert not chat.welcome_visible()
    chat.load_history([])
    assert chat.welcome_visible()


def test_on_the_first_start_it_stays_above_the_conversation(chat):
    chat.pin_welcome()
    chat.add_user_message("hello")
    chat.on_reply_started(ReplyStarted(1, "user"))
    chat.on_reply_finished(ReplyFinished(1, 2, "Hi!", "user"))
    assert chat.welcome_visible()
    assert chat.welcome.y() < chat.bubbles()[0].parentWidget().y()


def test_clicking_an_example_puts_it_in_the_message_box(chat, qtbot):
    button = chat.welcome.prompt_buttons[2]
    with qtbot.assertNotEmitted(chat.sendRequested):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert chat.input_box.toPlainText() == welcome.EXAMPLE_PROMPTS[2]
    assert chat.send_button.isEnabled()
    assert chat.input_box.hasFocus()
    with qtbot.waitSignal(chat.sendRequested, timeout=1000) as sent:
        qtbot.keyClick(chat.input_box, Qt.Key.Key_Return)
    assert sent.args == [welcome.EXAMPLE_PROMPTS[2]]


def link_labels(chat: ChatWindow) -> dict[str, QtWidgets.QLabel]:
    """The welcome's rich-text labels, by the link each carries."""
    found = {}
    for label in chat.welcome.findChildren(QtWidgets.QLabel):
        if label.textFormat() == Qt.TextFormat.RichText:
            for link in (welcome.ACCOUNTS_LINK, welcome.RULES_LINK):
                if f'href="{link}"' in label.text():
                    found[link] = label
    return found


@pytest.mark.parametrize("link", [welcome.ACCOUNTS_LINK, welcome.RULES_LINK])
def test_the_welcome_links_ask_the_app(chat, qtbot, link):
    label = link_labels(chat)[link]
    assert not label.openExternalLinks()
    with qtbot.waitSignal(chat.welcomeLinkActivated, timeout=1000) as clicked:
        label.linkActivated.emit(link)
    assert clicked.args == [link]
