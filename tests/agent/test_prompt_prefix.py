"""Prompts built for llama.cpp's prefix cache: the system message first and byte-identical
from turn to turn, the history trimmed by tokens in steps so its start stays put, and the
current time last."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

from engine.agent.loop import estimate_tokens
from engine.agent.transcript import HistoryWindow
from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store import chat
from engine.workspace import Workspace
from tests.factories import reply

START = datetime.fromisoformat("2026-11-10T08:00:00+00:00")


def without_time(message: dict[str, str]) -> dict[str, str]:
    content, _, last = message["content"].rpartition("\n\n")
    assert last.startswith("Current time: ")
    return {"role": message["role"], "content": content}


@pytest.fixture
async def capable(workspace: Workspace) -> AsyncIterator[Engine]:
    """A capable model, and a clock that moves on 90 s for each look (a person's pace)."""
    model = ScriptedModel([reply(f"Answer {n}.") for n in range(6)], capability="capable")
    ticks = iter(range(10_000))
    engine = Engine(
        workspace, Settings(), model, clock=lambda: START + timedelta(seconds=90 * next(ticks))
    )
    await engine.start(schedule=False)
    yield engine
    await engine.stop()


async def test_each_turns_prompt_begins_with_the_previous_one(capable: Engine) -> None:
    for n in range(4):
        await capable.send(f"Open question number {n}?")
    calls = capable.loop.model.current.calls  # type: ignore[attr-defined]
    assert len(calls) == 4
    for before, after in itertools.pairwise(calls):
        old, new = before["messages"], after["messages"]
        assert new[: len(old) - 1] == old[:-1]  # everything but the time line is reused
        assert new[len(old) - 1] == without_time(old[-1])
    systems = {c["messages"][0]["content"] for c in calls}
    assert len(systems) == 1
    (system,) = systems
    tools = system.split("## Tools\n", 1)[1]
    assert "Current time" not in system and "- read_notification(" not in tools
    assert "- search_events(" in tools
    assert calls[-1]["messages"][-1]["content"].startswith("Open question number 3?\n\n")


def _add_turn(session_id: int, n: int) -> None:
    chat.add_message(session_id, "user", f"question {n} " + "x" * 200)
    chat.add_message(session_id, "assistant", f"answer {n} " + "y" * 200)


def test_history_is_trimmed_by_tokens_in_steps_and_its_start_stays_put(db: object) -> None:
    session = chat.default_session().id
    window = HistoryWindow()
    budget = 600
    starts: list[str] = []
    for n in range(12):
        _add_turn(session, n)
        messages = window.messages(session, budget)
        assert sum(estimate_tokens(m["content"]) for m in messages) <= budget
        assert messages[0]["role"] == "user"
        starts.append(messages[0]["content"].split()[1])
    # it kept its start while the history grew back, then moved on in one step
    runs = [starts[i] for i in range(len(starts)) if i == 0 or starts[i] != starts[i - 1]]
    assert 1 < len(runs) < len(starts) // 2
    assert starts[-1] != "0"


def test_without_a_budget_nothing_is_trimmed(db: object) -> None:
    session = chat.default_session().id
    for n in range(5):
        _add_turn(session, n)
    assert len(HistoryWindow().messages(session, None)) == 10
