"""The small line under a reply that says what it changed ("Rule added to Never notify"),
for the desktop chat and the terminal chat alike. Only where it helps: a change the reply
made, or failed to make. A look-up (the calendar, a search, a digest) or reading the
notifications gets none: the reply itself is what it found, and a tool's name means nothing
to the user."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.triage.rules.edit import SECTION_TITLES


def _file(arguments: Mapping[str, Any]) -> str:
    return str(arguments.get("path") or "a file")


def tool_label(name: str, arguments: Mapping[str, Any], status: str) -> str | None:
    """The line for one tool call (None: no line), once it has finished."""
    if status in ("running", "pending"):
        return None
    done = status == "done"
    if name == "add_notification_rule":
        titles = {str(key): title for key, title in SECTION_TITLES.items()}
        section = titles.get(str(arguments.get("section")), "your rules")
        return f"Rule added to {section}" if done else "Rule not added"
    if name == "confirm_notification_rule":
        return "Rule applied" if done else "Rule not applied"
    if name == "accept_rule_reading":
        return "Rule's reading kept" if done else "Rule's reading not kept"
    if name == "schedule_job":
        what = "Task" if arguments.get("kind") == "task" else "Reminder"
        return f"{what} set" if done else f"{what} not set"
    if name == "cancel_job":
        return "Reminder cancelled" if done else "Reminder not cancelled"
    if name in ("write_file", "edit_file"):
        return f"Changed {_file(arguments)}" if done else f"{_file(arguments)} not changed"
    return None


def tool_labels(calls: Iterable[tuple[str, Mapping[str, Any], str]]) -> list[str]:
    """The lines for a reply's tool calls (name, arguments, status), each once, in order."""
    found = (tool_label(name, arguments, status) for name, arguments, status in calls)
    return list(dict.fromkeys(label for label in found if label))
