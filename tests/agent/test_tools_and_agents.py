"""Registry filtering, sub-agents, agent definitions and inject_memory."""

from __future__ import annotations

import json

import pytest

from engine.agent.definitions import NOT_CREATED, load_agent, system_prompt
from engine.agent.draft import NotificationDraft
from engine.agent.loop import MemoryTranscript
from engine.agent.tools.notify import ReadNotificationTool
from engine.errors import ToolError
from engine.triage.rules.parse import ALWAYS, NEVER, parse_rules
from tests.factories import reply, tool


def test_sub_agents_never_see_root_only_tools(engine):
    root = {t.name for t in engine.registry.tools_for(None, depth=0)}
    sub = {t.name for t in engine.registry.tools_for(None, depth=1)}
    assert {"read_notification", "delegate"} <= root
    root_only = {t.name for t in engine.registry.tools_for(None, depth=0) if t.root_agent_only}
    assert root_only and not (root_only & sub)
    assert ReadNotificationTool.category == "Introspection"


async def test_notify_hands_a_typed_draft_to_whoever_takes_it(engine, workspace):
    from engine.agent.tools.base import ToolContext

    taken: list[NotificationDraft] = []

    async def take(draft: NotificationDraft) -> object:
        taken.append(draft)
        return draft

    ctx = ToolContext(workspace=workspace, now=engine.clock(), notify=take)
    args = {
        "source": "email",
        "event_type": "email.received",
        "summary": " Anna Berg asked for a call. ",
        "event_time": "2026-11-10T07:00:00+00:00",
        "refs": {"event_id": "gmail:7"},
    }
    assert await engine.registry.get("notify").call(args, ctx) == "queued"
    (draft,) = taken
    assert (draft.summary, draft.event_id, draft.dedup_key) == (
        "Anna Berg asked for a call.",
        "gmail:7",
        "gmail:7",
    )
    assert draft.event_time is not None and draft.event_time.isoformat() == args["event_time"]
    with pytest.raises(ToolError, match="invalid arguments"):
        await engine.registry.get("notify").call({**args, "source": "fax"}, ctx)
    assert len(taken) == 1


async def test_read_notification_called_normally_returns_empty(engine, workspace):
    from engine.agent.tools.base import ToolContext

    ctx = ToolContext(workspace=workspace, now=engine.clock())
    assert await engine.registry.get("read_notification").call({}, ctx) == []


async def test_delegate_runs_a_sub_agent_without_root_only_tools(engine, model):
    model.add(
        tool("delegate", task="Find what Anna wrote"),
        tool("search_events", query="Anna"),
        reply("Anna wrote nothing yet."),
        reply("Your helper found nothing from Anna yet."),
    )
    answer = await engine.hub.send("Ask a helper to find out what Anna wants")
    assert answer.content == "Your helper found nothing from Anna yet."
    sub_schema = json.dumps(model.calls[1]["schema"])
    assert '"read_notification"' not in sub_schema and '"delegate"' not in sub_schema
    assert '"search_events"' in sub_schema
    task = model.calls[1]["messages"][1]
    assert task["role"] == "user" and task["content"].startswith("Find what Anna wrote\n\n")


async def test_last_step_may_only_reply(engine, model):
    engine.loop.max_steps = 2
    model.add(tool("list_jobs"), reply("You have no reminders."))
    await engine.hub.send("how are my jobs doing")
    assert "anyOf" in model.calls[0]["schema"]
    assert model.calls[1]["schema"]["properties"]["action"] == {"const": "reply"}


def test_agent_definitions_load(workspace):
    tic = load_agent(workspace.agents_dir, "tic")
    main = load_agent(workspace.agents_dir, "main")
    assert "data/notifications.md" in tic.inject_memory
    assert tic.tools is not None and "notify" in tic.tools
    assert not {"write_file", "edit_file"} & set(tic.tools)
    assert main.tools is not None and "edit_file" in main.tools


def test_inject_memory_is_read_fresh_and_missing_files_say_so(workspace):
    main = load_agent(workspace.agents_dir, "main")
    (workspace.memory_dir / "about-me.md").unlink()
    prompt = system_prompt(main, workspace)
    assert f"## Memory file: data/memory/about-me.md\n\n{NOT_CREATED}" in prompt
    workspace.rules_file.write_text("## Never notify\n- Anything from Bob\n")
    assert "- Anything from Bob" in system_prompt(main, workspace)
    workspace.rules_file.write_text("## Never notify\n- Anything from Carol\n")
    again = system_prompt(main, workspace)
    assert "Carol" in again and "Bob" not in again


async def test_a_change_the_model_chooses_is_asked_about_and_runs_on_yes(engine, model, workspace):
    """A capable model edits data/notifications.md unasked: the edit is put to the user, not
    run; the user's "yes" runs it (and the model is not asked again)."""
    before = workspace.rules_file.read_text()
    edit = {
        "path": "data/notifications.md",
        "old_text": "## Always notify\n",
        "new_text": "## Always notify\n- Emails from Mario\n",
    }
    model.add(tool("read_file", path="data/notifications.md"), tool("edit_file", **edit))
    question = await engine.hub.send("Please make sure Mario's emails always reach me")
    assert question.content == (
        "I'd like to change data/notifications.md: replace “## Always notify” with "
        "“## Always notify - Emails from Mario”. Shall I? (yes/no)"
    )
    assert question.meta["proposed"] == {"tool": "edit_file", "arguments": edit}
    assert workspace.rules_file.read_text() == before  # not run
    assert "## Always notify" in model.calls[1]["messages"][-1]["content"]  # read it first

    answer = await engine.hub.send("yes")
    assert answer.content == "Done — edited data/notifications.md."
    rules = parse_rules(workspace.rules_file.read_text())
    assert [r.text for r in rules.section(ALWAYS)] == ["Emails from Mario"]
    assert rules.section(NEVER) == []
    assert len(model.calls) == 2

    from engine.chat.history import history_rows

    calls = [c for r in history_rows() for c in r["tool_calls"]]
    assert [(c["name"], c["status"]) for c in calls] == [
        ("read_file", "done"),
        ("edit_file", "done"),
    ]
    model.add(reply("Glad that's sorted."))
    again = await engine.hub.send("yes")  # nothing is waiting any more: the model answers
    assert again.content == "Glad that's sorted." and len(model.calls) == 3


async def test_a_proposed_change_is_dropped_on_no(engine, model, workspace):
    before = workspace.rules_file.read_text()
    model.add(tool("add_notification_rule", section="never", rule="Newsletters"))
    question = await engine.hub.send("I get too many newsletters")
    assert question.content == (
        "I'd like to add the rule “Newsletters” under Never notify. Shall I? (yes/no)"
    )
    answer = await engine.hub.send("no")
    assert answer.content == "Okay — I left everything as it was."
    assert workspace.rules_file.read_text() == before
    assert len(model.calls) == 1


async def test_a_refused_tool_call_is_reported_to_the_model(engine, model):
    model.add(
        tool("read_file", path="../escape.md"),
        reply("I can't read outside your data folder."),
    )
    await engine.hub.send("read a file")
    assert "refused" in model.calls[1]["messages"][-1]["content"]
    from engine.chat.history import history_rows

    (call,) = [c for r in history_rows() for c in r["tool_calls"]]
    assert call["status"] == "failed"


async def test_sub_agent_transcript_is_kept_in_memory():
    transcript = MemoryTranscript("task")
    assert transcript.messages() == [{"role": "user", "content": "task"}]


def _string_bounds(schema: object) -> list[int | None]:
    found: list[int | None] = []
    if isinstance(schema, dict):
        if schema.get("type") == "string" and "enum" not in schema:
            found.append(schema.get("maxLength"))
        for value in schema.values():
            found.extend(_string_bounds(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_string_bounds(value))
    return found


def test_every_string_a_model_writes_is_bounded_for_the_grammar(engine):
    from engine.agent.actions import action_schema
    from engine.agent.tools.base import MAX_STRING
    from engine.triage.decider import rule_choice_schema

    schemas = [
        action_schema(engine.registry.tools_for(None, depth=0)),
        rule_choice_schema(["a rule"]),
    ]
    bounds = [b for s in schemas for b in _string_bounds(s)]
    assert bounds and all(b is not None and b <= MAX_STRING for b in bounds)


@pytest.mark.parametrize("capability", ["tiny", "capable"])
async def test_a_recognised_preference_change_is_applied_for_any_model(
    workspace, settings, capability
):
    from engine.engine import Engine
    from engine.llm.scripted import ScriptedModel

    model = ScriptedModel(capability=capability)
    engine = Engine(workspace, settings, model)
    await engine.start(schedule=False)
    try:
        answer = await engine.hub.send("Notify me when I get an email from Mario")
    finally:
        await engine.stop()
    assert answer.content == (
        "Done — I'll always tell you about email from Mario (Always notify: Email from Mario). "
        "I read it as “Always notify: emails from Mario”."
    )
    rules = parse_rules(workspace.rules_file.read_text())
    assert [r.text for r in rules.section(ALWAYS)] == ["Email from Mario"]
    assert model.calls == []


@pytest.mark.allow_log_warnings
async def test_stop_telling_me_lands_under_never_even_when_the_model_is_broken(
    engine, model, workspace
):
    from engine.errors import ModelError

    def boom(messages, schema):
        raise ModelError("model crashed")

    model.default = boom
    answer = await engine.hub.send("Stop alerting me about group WhatsApp messages")
    assert answer.content.startswith("Done — I won't notify you about group WhatsApp messages")
    rules = parse_rules(workspace.rules_file.read_text())
    assert [r.text for r in rules.section(NEVER)] == ["Group WhatsApp messages"]
