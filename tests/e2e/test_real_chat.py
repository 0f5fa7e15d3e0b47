"""Chat on the real embedded model (SmolLM2-135M, judged "tiny" from its GGUF header): the
replies the user reads are composed from the facts, and small talk changes nothing."""

from __future__ import annotations

import hashlib
import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.chat import answers
from engine.chat.calendar_answer import no_calendar
from engine.engine import Engine
from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path
from engine.settings import Settings
from engine.store.models import ChatToolCall, Job
from engine.workspace import Workspace
from tests.factories import make_event

pytestmark = pytest.mark.real_model

NUMBER = re.compile(r"\d+(?:[:.]\d+)*")
SMALL_TALK = (
    "What can you help me with?",
    "I like pasta.",
    "What is two plus two?",
    "How are you today?",
    "Tell me a joke.",
    "My favourite colour is blue.",
    "Do you like music?",
    "What's the weather like?",
    "I'm a bit tired.",
    "Can you write a poem about the sea?",
    "Who won the football yesterday?",
    "I had a long day at work.",
    "What do you think about cats?",
    "Say something nice.",
    "What is the capital of France?",
    "I'm going to the gym later.",
    "Thanks!",
    "Do you remember what I said about pasta?",
    "Let's chat for a bit.",
    "Good night!",
)


def numbers_not_in(reply: str, facts: str) -> list[str]:
    """Digits in the reply (times, dates, counts) that the facts do not contain; the quoted
    example requests of "what works" are fixed text, not claims."""
    said = reply
    for _what, example in answers.WHAT_WORKS:
        said = said.replace(f"“{example}”", "")
    return [n for n in NUMBER.findall(said) if n not in facts]


def tool_results() -> str:
    return "\n".join(c.result or "" for c in ChatToolCall.select())


def snapshot(workspace: Workspace) -> dict[str, str]:
    return {
        str(p.relative_to(workspace.root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(workspace.data_dir.rglob("*"))
        if p.is_file()
    }


def jobs() -> list[tuple[Any, ...]]:
    return [(j.id, j.text, j.status, j.next_run_at) for j in Job.select()]


@pytest.fixture
async def real_engine(workspace: Workspace):
    model = LlamaCppModel(default_model_path())
    engine = Engine(workspace, Settings(), model)
    await engine.start(schedule=False)
    assert engine.capability == "tiny"  # from the file's header, not a setting
    yield engine
    assert model._llama is None, "a user turn on the tiny model asked the model"
    await engine.stop()


async def test_the_issues_chat_requests_get_composed_replies(real_engine, workspace):
    start = (datetime.now().astimezone() + timedelta(days=1)).replace(
        hour=15, minute=0, second=0, microsecond=0
    )
    empty = await real_engine.hub.send("what's on my calendar tomorrow?")
    assert empty.content == no_calendar("en") and empty.meta["composed"]  # none connected

    real_engine.ingest(
        [
            make_event(
                id="gcal:budget",
                source="calendar",
                event_type="calendar.created",
                subject="Budget review",
                text="",
                calendar={"start": start.isoformat(), "location": None},
            )
        ]
    )
    cases: list[tuple[str, str, list[str]]] = [
        ("what's on my calendar tomorrow?", "Tomorrow: 15:00 Budget review.", ["Budget review"]),
        (
            "stop telling me about LinkedIn",
            "Done — I won't notify you about LinkedIn any more (Never notify: LinkedIn). "
            "I read it as “Never notify: from LinkedIn”.",
            ["LinkedIn"],
        ),
        ("hello, what can you do?", answers.help_answer(), ["Settings → Model"]),
    ]
    for said, expected, names in cases:
        began = time.monotonic()
        reply = await real_engine.hub.send(said)
        took = time.monotonic() - began
        print(f"{said!r} → {reply.content!r} in {took * 1000:.0f} ms")
        assert reply.content == expected and reply.meta["composed"] is True
        assert all(name in reply.content for name in names)
        assert numbers_not_in(reply.content, tool_results() + said) == []
        assert took < 1.0
    assert "- LinkedIn" in workspace.rules_file.read_text()


async def test_twenty_turns_of_small_talk_change_nothing(real_engine, workspace):
    files, scheduled = snapshot(workspace), jobs()
    replies = []
    began = time.monotonic()
    for said in SMALL_TALK:
        reply = await real_engine.hub.send(said)
        assert reply.meta["composed"] is True
        assert numbers_not_in(reply.content, said) == []
        replies.append(reply.content)
    took = time.monotonic() - began
    print(f"20 turns in {took * 1000:.0f} ms; distinct replies: {len(set(replies))}")
    assert snapshot(workspace) == files
    assert jobs() == scheduled
    assert ChatToolCall.select().count() == 0  # no tool ran, read-only or not
    assert replies[0] == answers.help_answer()  # "What can you help me with?"
    assert replies[1] == answers.cannot_answer()  # "I like pasta."
    assert replies[16] == answers.THANKS


async def test_a_capable_setting_lets_the_real_model_talk_but_not_change_things(
    workspace: Workspace,
):
    """With the capability overridden to "capable", the 135M model answers small talk itself
    (streaming, timed); any change it chooses is only proposed, so nothing changes."""
    from engine.bus import ReplyFinished

    model = LlamaCppModel(default_model_path())
    engine = Engine(workspace, Settings(model_capability="capable"), model)
    finished: list[ReplyFinished] = []
    engine.bus.subscribe(lambda e: finished.append(e) if isinstance(e, ReplyFinished) else None)
    await engine.start(schedule=False)
    files, scheduled = snapshot(workspace), jobs()
    try:
        for said in SMALL_TALK[:3]:
            reply = await engine.hub.send(said)
            proposed = (reply.meta or {}).get("proposed")
            print(f"{said!r} → {reply.content!r} (proposed: {proposed})")
            assert reply.content
    finally:
        await engine.stop()
    assert snapshot(workspace) == files and jobs() == scheduled
    timed = [f for f in finished if f.total_ms is not None]
    assert len(timed) == 3
    for f in timed:
        print(f"first token {f.first_token_ms} ms, total {f.total_ms} ms")


def test_the_embedded_model_is_named_as_built_in():
    from engine.modeltypes import model_label

    name = LlamaCppModel(default_model_path()).name
    assert model_label(name, "tiny") == "SmolLM2-135M · small built-in model"
    assert Path(default_model_path()).stem == name
