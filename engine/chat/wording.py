"""Plain wording the engine adds around the model's: confirmations, and the words used when
the model cannot be used at all. (Notification replies composed from the facts are
:mod:`engine.chat.compose`'s.)"""

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
