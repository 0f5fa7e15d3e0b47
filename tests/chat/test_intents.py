"""What the user's words clearly ask for is done the same way with any model."""

from __future__ import annotations

import json

import pytest

from engine.chat.intents import (
    Lookup,
    lookup_request,
    preference_change,
    reminder_request,
    social_request,
    yes_or_no,
)
from engine.store.inbox import ingest
from engine.store.models import ChatToolCall, Job
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER
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
    [
        "What did Mario write?",
        "Hello!",
        "Tell me a joke",
        "remind me at 17:00 to call Mario",
        "Tell me about the weather",  # a question, not a rule
        "Tell me about yourself",
        "remind me about the dentist tomorrow",  # a reminder
        "Show me emails from Mario",  # a look-up
    ],
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
            "remind me about the dentist tomorrow",
            {"text": "About the dentist", "at": "tomorrow", "repeat": "none", "kind": "reminder"},
        ),
        (
            "Every day at 8am remind me to take my pills",
            {"text": "Take my pills", "at": "8am", "repeat": "daily", "kind": "reminder"},
        ),
    ],
)
def test_reminders(said, expected):
    assert reminder_request(said) == expected


SEARCH = {"source": "any", "limit": 5}


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("What did Mario write?", Lookup("search_events", {"query": "Mario", **SEARCH}, "Mario")),
        ("did Mario write today?", Lookup("search_events", {"query": "Mario", **SEARCH}, "Mario")),
        (
            "Has Anna Berg written?",
            Lookup("search_events", {"query": "Anna Berg", **SEARCH}, "Anna Berg"),
        ),
        ("any emails from Mario?", Lookup("search_events", {"query": "Mario", **SEARCH}, "Mario")),
        ("anything from Carla?", Lookup("search_events", {"query": "Carla", **SEARCH}, "Carla")),
        ("What's new?", Lookup("search_events", {"query": "", **SEARCH})),
        ("what did I miss?", Lookup("search_events", {"query": "", **SEARCH})),
        ("what's on my calendar tomorrow?", Lookup("upcoming_calendar", {"hours": 48}, "tomorrow")),
        ("What's on tomorrow?", Lookup("upcoming_calendar", {"hours": 48}, "tomorrow")),
        ("what do I have today?", Lookup("upcoming_calendar", {"hours": 24}, "today")),
        ("what's on my calendar?", Lookup("upcoming_calendar", {"hours": 48}, "")),
        (
            "what's on my calendar this week?",
            Lookup("upcoming_calendar", {"hours": 168}, "this week"),
        ),
        ("any meetings next week?", Lookup("upcoming_calendar", {"hours": 336}, "next week")),
        ("When is my next meeting?", Lookup("upcoming_calendar", {"hours": 336}, "next")),
        ("any reminders?", Lookup("list_jobs", {})),
        ("What reminders do I have?", Lookup("list_jobs", {})),
    ],
)
def test_lookups(said, expected):
    assert lookup_request(said) == expected


@pytest.mark.parametrize(
    "said",
    ["what did you do?", "What is two plus two?", "I like pasta.", "Tell me a joke", "hello"],
)
def test_other_questions_need_no_lookup(said):
    assert lookup_request(said) is None


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("yes", True),
        ("Yes please", True),
        ("sure, go ahead", True),
        ("OK!", True),
        ("yes, add it", True),
        ("ok, do it", True),
        ("sí", True),
        ("ja", True),
        ("oui", True),
        ("sim", True),
        ("ja bitte", True),
        ("no", False),
        ("No thanks.", False),
        ("cancel", False),
        ("nein", False),
        ("yes, but only for Mario", None),
        ("no idea what you mean", None),
        ("What is two plus two?", None),
        # an acknowledgement agrees to nothing
        ("ok thanks", None),
        ("ok, thanks!", None),
        ("okay thank you", None),
        ("thanks", None),
        ("great, thanks", None),
        ("simple", None),
    ],
)
def test_yes_or_no(said, expected):
    assert yes_or_no(said) is expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("hello, what can you do?", "help"),
        ("Hello! Who are you?", "help"),
        ("What can you help me with?", "help"),
        ("hi", "help"),
        ("help", "help"),
        ("Thanks!", "thanks"),
        ("ok thanks", "thanks"),
        ("I like pasta.", None),
        ("What is two plus two?", None),
        ("hello, draft a reply to Mario", None),
    ],
)
def test_social_requests(said, expected):
    assert social_request(said) == expected


async def test_a_reminder_is_scheduled_and_confirmed_from_the_job(engine, model, workspace):
    answer = await engine.hub.send("Remind me in 20 minutes to stretch")
    (job,) = Job.select()
    assert job.text == "Stretch" and job.status == "active" and job.recurrence == "none"
    call = ChatToolCall.get(ChatToolCall.name == "schedule_job")
    assert call.status == "done" and call.result_type == "json"
    when = json.loads(call.result)["next_run"][11:16]
    assert answer.content == f"I'll remind you at {when} to stretch."
    assert answer.meta["composed"] is True
    assert model.calls == []  # recognised: no model call, whatever the model


async def test_a_lookup_is_answered_from_its_result(engine, model):
    ingest([make_event(subject="Dinner on Friday?", text="Shall we book a table?")])
    answer = await engine.hub.send("What did Anna Berg write?")
    assert answer.content.startswith("Anna Berg wrote once")
    assert "“Dinner on Friday?” — Shall we book a table?" in answer.content
    (call,) = ChatToolCall.select()
    assert (call.name, call.status) == ("search_events", "done")
    assert model.calls == []


async def test_a_rule_change_is_confirmed_quoting_the_rule(engine, model, workspace):
    answer = await engine.hub.send("Stop telling me about emails from Sven Larsen")
    assert answer.content == (
        "Done — I won't notify you about emails from Sven Larsen any more "
        "(Never notify: Emails from Sven Larsen). "
        "I read it as “Never notify: emails from Sven Larsen”."
    )
    assert "- Emails from Sven Larsen" in workspace.rules_file.read_text()
    assert model.calls == []


async def test_the_same_tool_call_twice_makes_the_agent_answer(engine, model):
    model.add(tool("list_jobs"), tool("list_jobs"), reply("You have no reminders."))
    await engine.hub.send("how are my jobs doing")
    assert "anyOf" in model.calls[1]["schema"]
    assert model.calls[2]["schema"]["properties"]["action"] == {"const": "reply"}
