"""The terminal chat's screen, with a fake terminal and a fake readline."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable

import pytest

from engine.bus import ReplyFinished, ReplyStarted, ReplyToken, ToolCalled, TurnFailed
from tests.factories import reply, tool
from tic_cli.chatconsole import CLEAR_LINE, ChatConsole, describe_tool_call


class FakeReadline:
    def __init__(self) -> None:
        self.buffer = ""
        self.redisplays = 0
        self.hook: Callable[[], object] | None = None

    def get_line_buffer(self) -> str:
        return self.buffer

    def redisplay(self) -> None:
        self.redisplays += 1

    def set_pre_input_hook(self, function: Callable[[], object] | None = None, /) -> None:
        self.hook = function


def reply_events(kind: str, text: str, pieces: int = 3) -> list[object]:
    size = max(1, len(text) // pieces)
    tokens = [ReplyToken(1, text[i : i + size]) for i in range(0, len(text), size)]
    return [ReplyStarted(1, kind), *tokens, ReplyFinished(1, 7, text, kind)]


def show(console: ChatConsole, events: list[object]) -> None:
    for event in events:
        console.on_event(event)


@pytest.fixture
def editor() -> FakeReadline:
    return FakeReadline()


@pytest.fixture
def screen() -> io.StringIO:
    return io.StringIO()


def test_a_tool_call_gets_a_human_line_only_where_it_helps():
    rule = {"section": "never", "rule": "LinkedIn"}
    assert describe_tool_call("add_notification_rule", rule, "done") == (
        "  · Rule added to Never notify"
    )
    assert describe_tool_call("add_notification_rule", rule, "failed") == "  · Rule not added"
    assert describe_tool_call("schedule_job", {"kind": "reminder"}, "done") == "  · Reminder set"
    assert describe_tool_call("schedule_job", {"kind": "task"}, "failed") == "  · Task not set"
    assert describe_tool_call("write_file", {"path": "a.md", "text": "x" * 500}, "done") == (
        "  · Changed a.md"
    )
    for lookup in ("list_jobs", "search_events", "upcoming_calendar", "digest"):
        assert describe_tool_call(lookup, {}, "done") is None  # the answer says what it found
    assert describe_tool_call("add_notification_rule", rule, "running") is None


def test_the_users_own_reply_streams_on_one_line(screen):
    console = ChatConsole(screen, io.StringIO())
    show(console, reply_events("user", "Hello Mario, nothing new today."))
    assert screen.getvalue() == "assistant: Hello Mario, nothing new today.\n"


def test_a_completed_reply_adds_what_the_stream_left_out(screen):
    console = ChatConsole(screen, io.StringIO())
    show(console, [ReplyStarted(1, "user"), ReplyToken(1, "Done.")])
    console.on_event(ReplyFinished(1, 7, "Done.\n\n(Done: added to Never notify: X.)", "user"))
    assert screen.getvalue() == "assistant: Done.\n\n(Done: added to Never notify: X.)\n"


def test_a_notification_at_the_prompt_is_printed_above_it_and_the_line_is_redrawn(screen, editor):
    console = ChatConsole(screen, io.StringIO(), editor)
    assert editor.hook is not None
    editor.hook()  # readline shows the prompt
    editor.buffer = "what did Ann"
    screen.write("> what did Ann")  # what readline echoed
    show(console, reply_events("notification", "Anna Berg asks you to call her back."))
    assert screen.getvalue() == (
        "> what did Ann"
        + CLEAR_LINE
        + "assistant (notification): Anna Berg asks you to call her back.\n"
        + "> what did Ann"
    )
    assert editor.redisplays == 1


def test_tool_calls_at_the_prompt_keep_the_line_too(screen, editor):
    console = ChatConsole(screen, io.StringIO(), editor)
    editor.hook()
    editor.buffer = "hi"
    console.on_event(ToolCalled(1, "schedule_job", "running", {"at": "09:00"}))
    assert screen.getvalue() == ""  # only how it ended is shown
    console.on_event(ToolCalled(1, "schedule_job", "done", {"at": "09:00"}))
    assert screen.getvalue() == f"{CLEAR_LINE}  · Reminder set\n> hi"


def test_a_failed_turn_goes_to_stderr_above_the_prompt(screen, editor):
    errors = io.StringIO()
    console = ChatConsole(screen, errors, editor)
    editor.hook()
    console.on_event(TurnFailed(1, "notification", "model server unreachable"))
    assert errors.getvalue() == "[notification turn failed: model server unreachable]\n"
    assert screen.getvalue() == f"{CLEAR_LINE}> "


def test_without_a_terminal_everything_is_plain(screen):
    console = ChatConsole(screen, io.StringIO(), None, input_fn=lambda prompt: prompt + "hi")
    assert console.prompt == ""
    assert console.read_line() == "hi"
    show(console, reply_events("notification", "Anna wrote."))
    console.on_event(ToolCalled(1, "cancel_job", "done", {"job_id": 3}))
    assert screen.getvalue() == ("assistant (notification): Anna wrote.\n  · Reminder cancelled\n")
    assert "\x1b" not in screen.getvalue()


def test_after_the_user_pressed_enter_replies_stream_again(screen, editor):
    console = ChatConsole(screen, io.StringIO(), editor, input_fn=lambda prompt: "hello")
    editor.hook()
    assert console.read_line() == "hello"  # the prompt is gone
    show(console, reply_events("user", "Hi there."))
    assert screen.getvalue() == "assistant: Hi there.\n"
    assert editor.redisplays == 0


def test_a_reply_interrupted_by_a_tool_line_is_shown_whole_at_the_end(screen):
    console = ChatConsole(screen, io.StringIO())
    show(console, [ReplyStarted(1, "user"), ReplyToken(1, "Let me")])
    console.on_event(ToolCalled(1, "edit_file", "done", {"path": "data/memory/me.md"}))
    console.on_event(ReplyFinished(1, 7, "Noted.", "user"))
    assert screen.getvalue() == (
        "assistant: Let me\n  · Changed data/memory/me.md\nassistant: Noted.\n"
    )


async def test_next_line_reads_in_a_thread_and_passes_end_of_input_on():
    lines = iter(["first"])

    def fake_input(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    console = ChatConsole(io.StringIO(), io.StringIO(), None, input_fn=fake_input)
    assert await asyncio.wait_for(console.next_line(), 5) == "first"
    with pytest.raises(EOFError):
        await asyncio.wait_for(console.next_line(), 5)


def test_close_removes_the_readline_hook(editor):
    console = ChatConsole(io.StringIO(), io.StringIO(), editor)
    with console.session():
        assert editor.hook is not None
    assert editor.hook is None


async def test_tool_calls_on_the_bus_carry_their_arguments(engine, model):
    seen: list[object] = []
    engine.bus.subscribe(seen.append)
    model.add(tool("search_events", query="Anna"), reply("Anna wrote nothing yet."))
    await engine.hub.send("hello there")
    calls = [e for e in seen if isinstance(e, ToolCalled)]
    assert [(c.name, c.status, c.arguments) for c in calls] == [
        ("search_events", "running", {"query": "Anna"}),
        ("search_events", "done", {"query": "Anna"}),
    ]


async def test_a_preference_change_on_the_bus_carries_the_rule(engine, model):
    seen: list[object] = []
    engine.bus.subscribe(seen.append)
    await engine.hub.send("stop telling me about LinkedIn")
    (call,) = [e for e in seen if isinstance(e, ToolCalled)]
    assert call.name == "add_notification_rule" and call.status == "done"
    assert call.arguments == {"section": "never", "rule": "LinkedIn"}


async def test_composed_replies_print_whole_after_their_tool_line(engine, screen):
    console = ChatConsole(screen, io.StringIO())
    engine.bus.subscribe(console.on_event)
    await engine.hub.send("stop telling me about LinkedIn")
    await engine.hub.send("What reminders do I have?")
    assert screen.getvalue().splitlines() == [
        "  · Rule added to Never notify",
        "assistant: Done — I won't notify you about LinkedIn any more (Never notify: LinkedIn). "
        "I read it as “Never notify: from LinkedIn”.",
        "assistant: You have no reminders or scheduled tasks.",  # a look-up: no line
    ]


async def test_a_small_models_honest_answer_prints_all_its_lines(workspace, settings, screen):
    from engine.chat.answers import cannot_answer
    from engine.engine import Engine
    from engine.llm.scripted import ScriptedModel

    engine = Engine(workspace, settings, ScriptedModel(capability="tiny"))
    await engine.start(schedule=False)
    try:
        console = ChatConsole(screen, io.StringIO())
        engine.bus.subscribe(console.on_event)
        await engine.hub.send("What is two plus two?")
    finally:
        await engine.stop()
    assert screen.getvalue() == f"assistant: {cannot_answer(builtin=False)}\n"
