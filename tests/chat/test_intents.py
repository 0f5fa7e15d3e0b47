"""What the user's words clearly ask for is done the same way with any model."""

from __future__ import annotations

import json

import pytest

from engine.chat.intents import lookup_request, preference_change, reminder_request
from engine.store.models import ChatToolCall, Job
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER
from engine.triage.runner import ingest
from tests.factories import make_event, reply, tool


@pytest.mark.parametrize(
    ("said", "section", "rule"),
    [
        ("Notify me when I get an email from Mario", ALWAYS, "Email from Mario"),
        ("Stop alerting me about group WhatsApp messages", NEVER, "Group WhatsApp messages"),
        (
            "Always tell me if a meeting starts in less than an hour",
            ALWAYS,
            "Meeting starts in less than an hour",
        ),
        ("Can you stop notifying me about LinkedIn?", NEVER, "LinkedIn"),
        ("Let me know when Papa writes", ALWAYS, "Messages from Papa"),
        (
            "Only notify me about WhatsApp groups if someone mentions me",
            CUSTOM,
            "Only notify me about WhatsApp groups if someone mentions me",
        ),
    ],
)
def test_preference_changes(said, section, rule):
    change = preference_change(said)
    assert change is not None and (change.section, change.rule) == (section, rule)


@pytest.mark.parametrize(
    "said",
    ["What did Mario write?", "Hello!", "Tell me a joke", "remind me at 17:00 to call Mario"],
)
def test_other_messages_change_no_rule(said):
    assert preference_change(said) is None


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "Remind me at 17:00 to call Mario",
            {"text": "Call Mario", "at": "17:00", "repeat": "none", "kind": "reminder"},
        ),
        (
            "remind me to call Mario tomorrow 9:00",
            {"text": "Call Mario", "at": "tomorrow 9:00", "repeat": "none", "kind": "reminder"},
        ),
        (
            "every Monday at 9 tell me what this week holds",
            {
                "text": "Tell me what this week holds",
                "at": "monday 9",
                "repeat": "weekly",
                "kind": "task",
            },
        ),
        (
            "Every day at 8am remind me to take my pills",
            {"text": "Take my pills", "at": "8am", "repeat": "daily", "kind": "reminder"},
        ),
    ],
)
def test_reminders(said, expected):
    assert reminder_request(said) == expected


def test_lookups():
    assert lookup_request("What did Mario write?") == (
        "search_events",
        {"query": "Mario", "source": "any", "limit": 5},
    )
    assert lookup_request("what's on my calendar this week?") == (
        "upcoming_calendar",
        {"hours": 168},
    )
    assert lookup_request("what did you do?") is None


async def test_a_reminder_is_scheduled_and_confirmed(engine, model):
    model.add(reply("I'll remind you to stretch in 20 minutes."))
    answer = await engine.hub.send("Remind me in 20 minutes to stretch")
    assert answer.content.startswith("I'll remind you")
    (job,) = Job.select()
    assert job.text == "Stretch" and job.status == "active" and job.recurrence == "none"
    call = ChatToolCall.get(ChatToolCall.name == "schedule_job")
    assert call.status == "done" and call.result_type == "json"
    assert '"schedule_job"' not in json.dumps(model.calls[0]["schema"])  # no second job


async def test_a_lookup_runs_before_the_model_answers(engine, model):
    ingest([make_event(subject="Dinner on Friday?")])
    model.add(reply("Anna Berg asked about dinner on Friday."))
    answer = await engine.hub.send("What did Anna Berg write?")
    assert answer.content == "Anna Berg asked about dinner on Friday."
    seen = model.calls[0]["messages"][-1]["content"]
    assert seen.startswith("[tool search_events returned]") and "Dinner on Friday?" in seen


async def test_a_confirmation_that_omits_the_change_gets_it_added(engine, model, workspace):
    model.add(reply("Okay."))
    answer = await engine.hub.send("Stop telling me about emails from Sven Larsen")
    assert answer.content == (
        "Okay.\n\n(Done: added under Never notify: - Emails from Sven Larsen (read as "
        "\u201cNever notify: emails from Sven Larsen\u201d).)"
    )
    assert model.calls[0]["schema"]["properties"]["action"] == {"const": "reply"}
    assert len(model.calls[0]["messages"]) == 4  # system, the request, the change, its result


async def test_the_same_tool_call_twice_makes_the_agent_answer(engine, model):
    model.add(tool("list_jobs"), tool("list_jobs"), reply("You have no reminders."))
    await engine.hub.send("any reminders?")
    assert "anyOf" in model.calls[1]["schema"]
    assert model.calls[2]["schema"]["properties"]["action"] == {"const": "reply"}
