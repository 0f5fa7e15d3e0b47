"""Builders for test data in the canonical event format."""

from __future__ import annotations

import itertools
from typing import Any

from engine.agent.draft import NotificationDraft
from engine.events import Event

_ids = itertools.count(1)


def event_dict(**overrides: Any) -> dict[str, Any]:
    n = next(_ids)
    base: dict[str, Any] = {
        "id": f"gmail:test-{n}",
        "source": "email",
        "event_type": "email.received",
        "time": f"2026-11-10T07:{n % 60:02d}:00+00:00",
        "sender": {"name": "Anna Berg", "address": "anna@example.org"},
        "subject": f"Question {n}",
        "text": "Could you call me back today?",
        "chat": None,
        "mentions_me": False,
        "labels": [],
        "headers": {},
        "calendar": None,
        "refs": {"thread_id": f"t{n}"},
    }
    base.update(overrides)
    return base


def make_event(**overrides: Any) -> Event:
    return Event.model_validate(event_dict(**overrides))


def notification(
    payload: dict[str, Any], *, reason: str | None = None, rule: str | None = None
) -> NotificationDraft:
    """A notification as a job or a model hands it over: an untyped payload, checked once."""
    return NotificationDraft.from_payload(payload, reason=reason, rule=rule)


def reply(text: str) -> dict:
    return {"action": "reply", "text": text}


def tool(name: str, **arguments: Any) -> dict:
    return {"action": "tool", "tool": name, "arguments": arguments}


LEFT_TO_EACH_MESSAGE = {
    "about": {
        "kinds": [],
        "sources": [],
        "sender_names": [],
        "sender_domains": [],
        "sender_addresses": [],
        "topics": [],
        "group_chat": None,
        "mentions_me": None,
        "asks_me_something": None,
    },
    "only_if": None,
    "words_not_covered": [],
    "needs_each_message": True,
}
"""A capable model's reading of a rules line that leaves it to be judged per message."""


def judged_per_message(answer: Any) -> Any:
    """A scripted model's entry that reads every rules line as one to judge per message
    (``LEFT_TO_EACH_MESSAGE``) and answers everything else with ``answer``."""
    from engine.triage.rules.model_reading import READING_SCHEMA

    def entry(messages: Any, schema: Any) -> Any:
        if schema == READING_SCHEMA:
            return LEFT_TO_EACH_MESSAGE
        return answer(messages, schema) if callable(answer) else answer

    return entry
