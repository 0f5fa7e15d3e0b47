"""TIC's agent files describe what TIC does, and its one model call is built from them."""

from __future__ import annotations

from datetime import datetime

from engine.agent.definitions import load_agent
from engine.agent.tools.builtin import build_registry
from engine.llm.scripted import ScriptedModel
from engine.triage.decider import TriageDecider
from engine.triage.rules.model_reading import READING_SCHEMA
from engine.triage.summary import summarize
from engine.workspace import Workspace
from tests.factories import LEFT_TO_EACH_MESSAGE, make_event

NOW = datetime.fromisoformat("2026-11-10T08:00:00+00:00")
RULES = (
    "## Always notify\n- Emails from Anna Berg\n"
    "## Never notify\n- whatever feels unimportant\n- Newsletters\n"
)
BOB = {"sender": {"name": "Bob Stone", "address": "bob@stone.example"}}


def test_tic_lists_only_notify_which_exists(workspace: Workspace) -> None:
    tic = load_agent(workspace.agents_dir, "tic")
    assert tic.tools == ("notify",)
    assert build_registry().get("notify").name == "notify"
    assert tic.inject_memory == ("data/notifications.md",)


async def test_the_model_is_asked_only_about_rule_lines_code_cannot_read(
    workspace: Workspace,
) -> None:
    model = ScriptedModel([LEFT_TO_EACH_MESSAGE, {"rule": None, "reason": "not about it"}])
    event = make_event(**BOB)
    (decision,) = await TriageDecider(model, workspace).decide([event], NOW, rules_text=RULES)

    reading, call = model.calls  # the line is read once, then the message judged
    assert reading["schema"] == READING_SCHEMA
    system, user = call["messages"]
    tic = load_agent(workspace.agents_dir, "tic")
    assert system["role"] == "system" and system["content"].startswith(tic.prompt)
    assert system["content"].endswith(f"## Memory file: data/notifications.md\n\n{RULES.strip()}")
    assert "- whatever feels unimportant" in user["content"]
    assert "Newsletters" not in user["content"]
    schema = call["schema"]
    assert set(schema["properties"]) == {"rule", "reason"}  # no summary: code writes it
    assert schema["properties"]["rule"]["anyOf"][0]["enum"] == ["whatever feels unimportant"]
    assert decision.notify and decision.rule is None  # the heuristics decided
    assert decision.summary == summarize(event)


async def test_no_model_call_when_code_reads_every_rule(workspace: Workspace) -> None:
    model = ScriptedModel()
    readable = "## Always notify\n- Emails from Anna Berg\n"
    decisions = await TriageDecider(model, workspace).decide(
        [make_event(), make_event(**BOB)], NOW, rules_text=readable
    )
    assert [d.notify for d in decisions] == [True, True]
    assert model.calls == []
