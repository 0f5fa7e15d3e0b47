"""User turns by what the model can be trusted with: a tiny model is never asked to answer a
user or to choose a change; a capable model's unasked changes wait for the user's yes."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from engine.agent.definitions import load_agent
from engine.agent.loop import MemoryTranscript
from engine.bus import ReplyFinished, ReplyStarted
from engine.chat import answers
from engine.chat.calendar_answer import no_calendar
from engine.chat.history import history_rows
from engine.clock import utcnow
from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.store.inbox import ingest
from engine.store.models import Job
from tests.factories import make_event, notification, reply, tool

WRITE_TOOLS = ("write_file", "edit_file", "add_notification_rule", "schedule_job", "cancel_job")


@pytest.fixture
async def tiny_engine(workspace, settings):
    model = ScriptedModel(capability="tiny")
    engine = Engine(workspace, settings, model, retry_delays=(0.05, 0.1))
    await engine.start(schedule=False)
    yield engine
    await engine.stop()


def recorded(engine: Engine) -> list[Any]:
    seen: list[Any] = []
    engine.bus.subscribe(seen.append)
    return seen


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I like pasta.", answers.cannot_answer(builtin=False)),
        ("What is two plus two?", answers.cannot_answer(builtin=False)),
        ("Draft a reply to Mario saying I'm late", answers.cannot_answer(builtin=False)),
        ("hello, what can you do?", answers.help_answer(builtin=False)),
        ("What can you help me with?", answers.help_answer(builtin=False)),
        ("thanks!", answers.THANKS),
        ("yes", answers.NOTHING_PENDING),
    ],
)
async def test_a_tiny_model_is_never_asked_to_answer_the_user(tiny_engine, said, expected):
    seen = recorded(tiny_engine)
    answer = await tiny_engine.hub.send(said)
    assert answer.content == expected
    assert tiny_engine.loop.model.current.calls == []  # type: ignore[attr-defined]
    started = [e for e in seen if isinstance(e, ReplyStarted)]
    (finished,) = [e for e in seen if isinstance(e, ReplyFinished)]
    assert len(started) == 1 and finished.composed and finished.text == expected
    assert finished.total_ms is None  # no model wrote it
    assert history_rows()[-1]["composed"] is True


async def test_a_tiny_model_answers_a_calendar_question_from_the_calendar(tiny_engine):
    start = (utcnow() + timedelta(days=1)).astimezone().replace(hour=15, minute=0)
    ingest(
        [
            make_event(
                id="gcal:budget",
                source="calendar",
                event_type="calendar.created",
                subject="Budget review",
                calendar={"start": start.isoformat()},
            )
        ]
    )
    answer = await tiny_engine.hub.send("What's on my calendar tomorrow?")
    assert answer.content == "Tomorrow: 15:00 Budget review."


async def test_a_tiny_model_confirms_a_mute_from_what_changed(tiny_engine, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Shop\n\n## Never notify\n")
    model = tiny_engine.loop.model.current
    model.default = reply("Shop has a sale.")  # however the notification itself is worded
    shop = make_event(sender={"name": "Shop", "address": "news@shop.example"}, subject="Sale")
    tiny_engine.ingest([shop])
    await tiny_engine.hub.notify(
        notification(
            {
                "source": "email",
                "event_type": "email.received",
                "summary": "Shop announced a sale.",
                "refs": {"event_id": shop.id},
            }
        )
    )
    assert await tiny_engine.hub.drain(timeout=5)
    (note,) = [r for r in history_rows() if r["kind"] == "notification" and r["content"]]
    calls = len(model.calls)

    confirmation = await tiny_engine.hub.mute(note["id"])
    assert confirmation.content == (
        "Done — I won't notify you about emails from news@shop.example any more "
        "(Never notify: Emails from news@shop.example). "
        "I read it as \u201cNever notify: emails from news@shop.example\u201d.\n"
        "In the last 30 days it would have silenced 1 notification."
    )
    assert len(model.calls) == calls  # the model was not asked to confirm


async def test_a_tiny_model_is_offered_no_tool_that_changes_anything(workspace, settings):
    model = ScriptedModel([reply("ok")], capability="tiny")
    engine = Engine(workspace, settings, model)
    await engine.start(schedule=False)
    try:
        main = load_agent(workspace.agents_dir, "main")
        await engine.loop.run(main, MemoryTranscript("edit my rules"), read_only=False)
    finally:
        await engine.stop()
    offered = json.dumps(model.calls[0]["schema"])
    assert '"search_events"' in offered
    for name in WRITE_TOOLS:
        assert f'"{name}"' not in offered


async def test_a_tiny_model_sets_a_reminder_only_on_the_users_word(tiny_engine):
    answer = await tiny_engine.hub.send("Remind me at 23:59 to call Mario")
    (job,) = Job.select()
    assert job.text == "Call Mario"
    assert answer.content in (
        "I'll remind you at 23:59 to call Mario.",
        "I'll remind you tomorrow at 23:59 to call Mario.",  # run in the last minute of a day
    )


async def test_small_talk_on_a_tiny_model_changes_nothing(tiny_engine, workspace):
    before = {p: p.read_bytes() for p in workspace.data_dir.rglob("*") if p.is_file()}
    for said in ("What can you help me with?", "I like pasta.", "What is two plus two?"):
        await tiny_engine.hub.send(said)
    after = {p: p.read_bytes() for p in workspace.data_dir.rglob("*") if p.is_file()}
    assert after == before and Job.select().count() == 0


async def test_a_capable_turn_reports_its_timing(engine, model):
    seen = recorded(engine)
    model.add(reply("Pasta is a fine choice."))
    await engine.hub.send("I like pasta.")
    (finished,) = [e for e in seen if isinstance(e, ReplyFinished)]
    assert not finished.composed
    assert finished.first_token_ms is not None and finished.total_ms is not None
    assert 0 <= finished.first_token_ms <= finished.total_ms


async def test_a_recognised_turn_on_a_capable_model_is_composed_too(engine, model):
    answer = await engine.hub.send("What's on my calendar tomorrow?")
    assert answer.content == no_calendar("en")  # none is connected: it says how to
    assert model.calls == []


async def test_a_proposal_survives_a_notification_in_between(engine, model, workspace):
    model.add(tool("add_notification_rule", section="never", rule="Newsletters"))
    await engine.hub.send("I get too many newsletters")
    model.add(reply("Anna wrote."))
    await engine.hub.notify(
        notification(
            {
                "source": "email",
                "event_type": "email.received",
                "summary": "Anna Berg asked for a call.",
                "refs": {"event_id": "gmail:anna"},
            }
        )
    )
    assert await engine.hub.drain(timeout=5)
    answer = await engine.hub.send("yes please")
    assert answer.content == (
        "Done — I won't notify you about newsletters any more (Never notify: Newsletters). "
        "I read it as “Never notify: newsletters and digests”."
    )
    assert "- Newsletters" in workspace.rules_file.read_text()


async def test_a_proposal_is_dropped_when_the_user_says_something_else(engine, model, workspace):
    before = workspace.rules_file.read_text()
    model.add(tool("add_notification_rule", section="never", rule="Newsletters"))
    await engine.hub.send("I get too many newsletters")
    model.add(reply("Sure."), reply("Yes to what?"))
    await engine.hub.send("tell me a joke")
    answer = await engine.hub.send("yes")
    assert answer.content == "Yes to what?"
    assert workspace.rules_file.read_text() == before
