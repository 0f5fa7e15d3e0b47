"""Plain wording: source labels, who a notification came from, and the words used when the
model cannot be used at all. (Notification replies composed from the facts are
:mod:`engine.chat.compose`'s.)"""

from __future__ import annotations

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


OUTSIDE_KINDS = {
    "email": "an email",
    "whatsapp": "a WhatsApp message",
    "calendar": "a calendar invitation",
    "cron": "a scheduled job",
}


def outside_source(notification: Notification) -> str:
    """Where a notification's content came from, as a mark names it ("an email by Anna
    Berg"; see ``engine.agent.taint``)."""
    kind = OUTSIDE_KINDS.get(notification.source, "a notification")
    sender = sender_of(notification)
    return f"{kind} by {sender}" if sender else kind


def fallback_text(batch: list[Notification]) -> str:
    lines = [f"- {SOURCE_LABELS.get(n.source, n.source)}: {n.summary}" for n in batch]
    head = "You have a new notification:" if len(batch) == 1 else "You have new notifications:"
    return "\n".join([head, *lines])
