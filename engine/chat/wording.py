"""Plain wording the engine adds around the model's: what a reply left out, confirmations,
and the words used when the model cannot be used at all."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from engine.store.inbox import event_sender
from engine.store.models import Notification

SOURCE_LABELS = {
    "email": "Email",
    "whatsapp": "WhatsApp",
    "calendar": "Calendar",
    "cron": "Reminder",
}


def sender_of(notification: Notification) -> str | None:
    """Who the notified event came from (for toast titles), if it came from an event."""
    return event_sender(notification.event_id) if notification.event_id is not None else None


def _mentioned(notification: Notification, text: str) -> bool:
    low = text.casefold()
    sender = sender_of(notification)
    title = (notification.refs or {}).get("title")
    keys = [k for k in (sender, title) if k]
    if not keys:
        keys = [w for w in notification.summary.split() if len(w) > 3 and w[0].isupper()][:2]
    return any(k.casefold() in low for k in keys)


def completed_reply(batch: list[Notification]) -> Callable[[str], str]:
    """A small model may word a reply that never says what arrived. Whatever the reply leaves
    out is added as a plain line, so no notification is lost in the wording."""

    def complete(text: str) -> str:
        missing = [n for n in batch if not _mentioned(n, text)]
        if not missing:
            return text
        lines = [f"- {SOURCE_LABELS.get(n.source, n.source)}: {n.summary}" for n in missing]
        return "\n\n".join(p for p in (text.strip(), "\n".join(lines)) if p)

    return complete


def fallback_text(batch: list[Notification]) -> str:
    lines = [f"- {SOURCE_LABELS.get(n.source, n.source)}: {n.summary}" for n in batch]
    head = "You have a new notification:" if len(batch) == 1 else "You have new notifications:"
    return "\n".join([head, *lines])


def describe_job_outcome(result: str) -> str:
    """schedule_job's JSON result in words (an error message stays as it is)."""
    try:
        job = json.loads(result)
    except ValueError:
        return result
    if not isinstance(job, dict) or "text" not in job:
        return result
    repeat = "" if job.get("repeat") in (None, "none") else f", repeating {job['repeat']}"
    what = "Reminder" if job.get("kind") == "reminder" else "Task"
    when = str(job.get("next_run") or "").replace("T", " ")
    return f"{what} \u201c{job['text']}\u201d set for {when}{repeat}"


def confirmed_reply(outcomes: tuple[str, ...]) -> Callable[[str], str]:
    def complete(text: str) -> str:
        low = text.casefold()
        missing = []
        for outcome in outcomes:
            keys = [w for w in re.findall(r"[\w'’-]{3,}", outcome) if w[0].isupper()]
            said = any(k.casefold() in low for k in keys[1:] or keys)
            if not said or len(text.split()) < 4:  # a bare echo confirms nothing
                missing.append(outcome)
        if not missing:
            return text
        return "\n\n".join(p for p in (text.strip(), f"(Done: {'; '.join(missing)}.)") if p)

    return complete
