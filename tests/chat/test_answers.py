"""Answers composed from tool results: each row is a tool's result and the exact words."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.chat import answers
from engine.chat.answers import (
    EXAMPLE_PROMPTS,
    calendar_answer,
    cannot_answer,
    help_answer,
    jobs_answer,
    lookup_answer,
    proposal,
    reminder_answer,
    rule_answer,
    search_answer,
    tool_answer,
)
from engine.chat.calendar_answer import calendar_question
from engine.chat.digest import digest_request
from engine.chat.intents import lookup_request, preference_change, reminder_request

ZONE = timezone(timedelta(hours=1))
NOW = datetime(2026, 11, 9, 10, 0, tzinfo=ZONE)  # a Monday


def at(day: int, hour: int, minute: int = 0) -> str:
    return datetime(2026, 11, day, hour, minute, tzinfo=ZONE).isoformat()


def meeting(title: str, day: int, hour: int, **extra: Any) -> dict[str, Any]:
    return {"source": "calendar", "subject": title, "start": at(day, hour), **extra}


def message(sender: str, day: int, hour: int, subject: str = "", text: str = "", **extra: Any):
    return {
        "source": "email",
        "from": sender,
        "time": at(day, hour),
        "subject": subject,
        "text": text,
        **extra,
    }


def job(text: str, next_run: str, repeat: str = "none", kind: str = "reminder", job_id: int = 1):
    return {
        "job_id": job_id,
        "kind": kind,
        "text": text,
        "next_run": next_run,
        "repeat": repeat,
        "status": "active",
    }


# --- rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "rule", "status", "result", "expected"),
    [
        (
            "never",
            "LinkedIn",
            "done",
            "added under Never notify: - LinkedIn",
            "Done — I won't notify you about LinkedIn any more (Never notify: LinkedIn).",
        ),
        (
            "never",
            "Emails from Sven Larsen",
            "done",
            "added under Never notify: - Emails from Sven Larsen",
            "Done — I won't notify you about emails from Sven Larsen any more "
            "(Never notify: Emails from Sven Larsen).",
        ),
        (
            "always",
            "Messages from Papa",
            "done",
            "added under Always notify: - Messages from Papa",
            "Done — I'll always tell you about messages from Papa "
            "(Always notify: Messages from Papa).",
        ),
        (
            "custom",
            "Only notify me about WhatsApp groups if someone mentions me",
            "done",
            "added under Custom rules: - Only notify me …",
            "Done — I added your rule "
            "(Custom rules: Only notify me about WhatsApp groups if someone mentions me).",
        ),
        (
            "never",
            "LinkedIn",
            "done",
            "that rule is already under Never notify",
            "That rule is already in your rules (Never notify: LinkedIn).",
        ),
        (
            "never",
            "LinkedIn",
            "failed",
            "could not change data/notifications.md: disk full",
            "I couldn't add the rule “LinkedIn”: could not change data/notifications.md: "
            "disk full.",
        ),
    ],
)
def test_rule_answers(section, rule, status, result, expected):
    assert rule_answer({"section": section, "rule": rule}, status, result) == expected


# --- reminders -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "result", "expected"),
    [
        (
            "Remind me at 17:00 to call Mario",
            job("Call Mario", at(9, 17)),
            "I'll remind you at 17:00 to call Mario.",
        ),
        (
            "remind me to call my mother tomorrow 9:00",
            job("Call my mother", at(10, 9)),
            "I'll remind you tomorrow at 09:00 to call your mother.",
        ),
        (
            "Remind me on friday at 8 about the dentist",
            job("About the dentist", at(13, 8)),
            "I'll remind you on Friday at 08:00 about the dentist.",
        ),
        (
            "Remind me at 9 to Mario's birthday",
            job("Mario's birthday", at(9, 21)),
            "I'll remind you at 21:00: “Mario's birthday”.",
        ),
        (
            "remind me in 20 minutes to stretch",
            job("Stretch", at(9, 10, 20)),
            "I'll remind you at 10:20 to stretch.",
        ),
        (
            "Every day at 8am remind me to take my pills",
            job("Take my pills", at(10, 8), repeat="daily"),
            "I'll remind you every day at 08:00 to take your pills.",
        ),
        (
            "every Monday at 9 tell me what this week holds",
            job("Tell me what this week holds", at(16, 9), repeat="weekly", kind="task"),
            "Done — every Monday at 09:00 I'll do this and tell you the result: "
            "“Tell me what this week holds”.",
        ),
        (
            "remind me on 1 December to renew the car insurance",
            job("Renew the car insurance", datetime(2026, 12, 1, 9, tzinfo=ZONE).isoformat()),
            "I'll remind you on Tue 1 Dec at 09:00 to renew the car insurance.",
        ),
    ],
)
def test_reminder_answers(said, result, expected):
    assert reminder_answer({}, "done", json.dumps(result), NOW, said) == expected


def test_a_reminder_that_failed_says_why():
    assert (
        reminder_answer({}, "failed", "'17:00' is in the past", NOW)
        == "I couldn't schedule that: '17:00' is in the past."
    )


def test_a_reminder_confirmed_without_the_users_words_quotes_a_single_word():
    assert reminder_answer({}, "done", json.dumps(job("Stretch", at(9, 17))), NOW) == (
        "I'll remind you at 17:00: “Stretch”."
    )


# --- calendar --------------------------------------------------------------------------------

BUDGET = meeting("Budget review", 10, 15)
STANDUP = meeting("Standup", 10, 9, location="Room 2")
LUNCH = meeting("Lunch with Carla", 9, 13)
DENTIST = meeting("Dentist", 12, 8)
OFFSITE = meeting("Offsite", 17, 9)


@pytest.mark.parametrize(
    ("period", "events", "expected"),
    [
        ("tomorrow", [], "Nothing on your calendar tomorrow."),
        ("tomorrow", [BUDGET], "Tomorrow: 15:00 Budget review."),
        ("tomorrow", [LUNCH], "Nothing on your calendar tomorrow."),
        (
            "tomorrow",
            [BUDGET, STANDUP, LUNCH],
            "Tomorrow:\n- 09:00 Standup (Room 2)\n- 15:00 Budget review",
        ),
        ("today", [LUNCH, BUDGET], "Today: 13:00 Lunch with Carla."),
        ("today", [], "Nothing on your calendar today."),
        (
            "this week",
            [DENTIST, BUDGET, OFFSITE],
            "This week:\n- Tomorrow 15:00 Budget review\n- Thursday 08:00 Dentist",
        ),
        ("next week", [DENTIST, OFFSITE], "Next week: Tue 17 Nov 09:00 Offsite."),
        ("next", [DENTIST, BUDGET], "Next: Tomorrow 15:00 Budget review."),
        ("", [], "Nothing on your calendar in the next two days."),
        ("", [BUDGET], "Coming up: Tomorrow 15:00 Budget review."),
        ("tomorrow", [meeting("", 10, 11)], "Tomorrow: 11:00 an event without a title."),
    ],
)
def test_calendar_answers(period, events, expected):
    assert calendar_answer(period, events, NOW) == expected


def test_calendar_times_are_said_in_the_users_zone():
    utc = meeting("Budget review", 10, 15)
    utc["start"] = "2026-11-10T14:00:00+00:00"  # 15:00 at +01:00
    assert calendar_answer("tomorrow", [utc], NOW) == "Tomorrow: 15:00 Budget review."


# --- search ----------------------------------------------------------------------------------

MARIO_1 = message("Mario Rossi", 9, 8, "Invoice", "Here is the invoice for October.")
MARIO_2 = message("Mario Rossi", 9, 9, "", "Did you get it?", source="whatsapp")
MARIO_OLD = message("Mario Rossi", 6, 18, "Weekend", "See you Saturday")


@pytest.mark.parametrize(
    ("about", "events", "expected"),
    [
        (
            "Mario",
            [MARIO_2, MARIO_1],
            "Mario Rossi wrote twice today:\n"
            "- 09:00 WhatsApp: Did you get it?\n"
            "- 08:00 Email: “Invoice” — Here is the invoice for October.",
        ),
        (
            "Mario",
            [MARIO_2, MARIO_OLD],
            "Mario Rossi wrote twice:\n"
            "- 09:00 WhatsApp: Did you get it?\n"
            "- Fri 6 Nov 18:00 Email: “Weekend” — See you Saturday",
        ),
        ("Mario", [], "I found nothing from or about Mario."),
        (
            "invoice",
            [MARIO_1],
            "What I found about invoice:\n"
            "- 08:00 Email from Mario Rossi: “Invoice” — Here is the invoice for October.",
        ),
        (
            "",
            [MARIO_2],
            "The latest:\n- 09:00 WhatsApp from Mario Rossi: Did you get it?",
        ),
        ("", [], "Nothing has arrived yet."),
    ],
)
def test_search_answers(about, events, expected):
    assert search_answer(about, events, NOW) == expected


def test_a_full_page_of_results_is_not_counted():
    five = [MARIO_1] * 5
    assert search_answer("Mario", five, NOW).startswith("Mario Rossi's latest messages:\n")


def test_a_long_text_is_quoted_in_part():
    long = message("Anna Berg", 9, 7, "", "word " * 100)
    line = search_answer("Anna", [long], NOW).splitlines()[1]
    assert line.endswith("…") and len(line) < 150


# --- jobs and failures -------------------------------------------------------------------------


def test_jobs_answers():
    assert jobs_answer([], NOW) == "You have no reminders or scheduled tasks."
    assert jobs_answer([job("Call Mario", at(9, 17))], NOW) == (
        "Your reminder:\n- today at 17:00: Call Mario"
    )
    weekly = job("Tell me what this week holds", at(16, 9), repeat="weekly", kind="task")
    assert jobs_answer([job("Call Mario", at(10, 17)), weekly], NOW) == (
        "Your reminders:\n- tomorrow at 17:00: Call Mario\n"
        "- every Monday at 09:00: Tell me what this week holds (task)"
    )


@pytest.mark.parametrize(
    ("tool", "about", "status", "result", "expected"),
    [
        ("upcoming_calendar", "tomorrow", "done", "[]", "Nothing on your calendar tomorrow."),
        ("list_jobs", "", "done", "[]", "You have no reminders or scheduled tasks."),
        ("search_events", "Mario", "done", "[]", "I found nothing from or about Mario."),
        ("search_events", "Mario", "failed", "database is locked", None),
        ("search_events", "Mario", "done", "not json", None),
    ],
)
def test_lookup_answers(tool, about, status, result, expected):
    answer = lookup_answer(tool, about, status, result, NOW)
    if expected is None:
        assert answer.startswith("I couldn't") and result in answer
    else:
        assert answer == expected


@pytest.mark.parametrize(
    ("name", "arguments", "status", "result", "expected"),
    [
        (
            "cancel_job",
            {"job_id": 3},
            "done",
            "cancelled job 3",
            "Done — scheduled job 3 is cancelled.",
        ),
        (
            "cancel_job",
            {"job_id": 9},
            "failed",
            "no active job 9",
            "I couldn't cancel it: no active job 9.",
        ),
        (
            "edit_file",
            {},
            "done",
            "edited data/notifications.md",
            "Done — edited data/notifications.md.",
        ),
        (
            "write_file",
            {},
            "failed",
            "refused: '../x' leaves data/",
            "I couldn't change the file: refused: '../x' leaves data/.",
        ),
        ("delegate", {}, "done", "ok", "Done — delegate: ok."),
    ],
)
def test_tool_answers(name, arguments, status, result, expected):
    assert tool_answer(name, arguments, status, result, NOW) == expected


# --- proposals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        (
            "add_notification_rule",
            {"section": "always", "rule": "Emails from Mario"},
            "I'd like to add the rule “Emails from Mario” under Always notify.",
        ),
        (
            "edit_file",
            {"path": "data/notifications.md", "old_text": "## Always notify\n", "new_text": "x"},
            "I'd like to change data/notifications.md: replace “## Always notify” with “x”.",
        ),
        (
            "write_file",
            {"path": "notes.md", "content": "Buy milk"},
            "I'd like to write notes.md (8 characters): “Buy milk”.",
        ),
        (
            "schedule_job",
            {"text": "Call Mario", "at": "17:00", "repeat": "daily"},
            "I'd like to set a reminder “Call Mario” for 17:00, repeating daily.",
        ),
        ("cancel_job", {"job_id": 4}, "I'd like to cancel scheduled job 4."),
        ("some_tool", {"x": 1}, 'I\'d like to use some_tool with {"x": 1}.'),
    ],
)
def test_proposals_ask_first(name, arguments, expected):
    assert proposal(name, arguments) == expected + " Shall I? (yes/no)"


def test_a_proposal_whose_words_came_from_outside_says_where_from():
    rule = {"section": "never", "rule": "Emails from my bank"}
    assert proposal("add_notification_rule", rule, ("an email by Bank Security",)) == (
        "This came from an email by Bank Security. I'd like to add the rule “Emails from my "
        "bank” under Never notify. Shall I? (yes/no)"
    )
    two, three = ("an email by A", "a WhatsApp message by B"), ("an email by A", "x", "y")
    assert answers.came_from(two) == "This came from an email by A and a WhatsApp message by B."
    assert answers.came_from(three) == "This came from an email by A, x and 1 more."
    assert answers.came_from(()) == ""


# --- what a small model cannot do ---------------------------------------------------------------


def test_help_lists_what_works_with_the_welcomes_examples():
    text = help_answer()
    for example in EXAMPLE_PROMPTS:
        assert f"“{example}”" in text
    assert "small built-in model" in text and "Settings → Model" in text


def test_the_honest_answer_gives_the_way_out_and_what_works():
    text = cannot_answer()
    assert text.startswith("I can't answer that reliably: I run on the small built-in model")
    assert "Settings → Model" in text
    assert all(f"“{example}”" in text for _what, example in answers.WHAT_WORKS)
    assert "a small model" in cannot_answer(builtin=False)


def test_every_example_offered_is_recognised_in_code():
    for _what, example in answers.WHAT_WORKS:
        recognised = (
            preference_change(example)
            or reminder_request(example)
            or digest_request(example, NOW)
            or calendar_question(example, NOW)
            or lookup_request(example)
        )
        assert recognised, example


def test_fixed_words_carry_no_number_of_their_own():
    """Digits in a composed answer come from the facts (or the quoted examples) only."""
    fixed = [
        re.sub(r"“[^”]*”", "", cannot_answer()),
        re.sub(r"“[^”]*”", "", help_answer()),
        answers.DECLINED,
        answers.NOTHING_PENDING,
        answers.THANKS,
    ]
    assert not any(re.search(r"\d", text) for text in fixed)
