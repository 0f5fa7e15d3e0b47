"""The closed sets of words the store keeps in its state, status, role and kind columns.

Each member's value is exactly the string in the database (the columns stay plain text, so
existing stores read unchanged); :class:`engine.store.fields.EnumField` turns them into
members on the way out and checks them on the way in.
"""

from __future__ import annotations

from enum import StrEnum


class EventStatus(StrEnum):
    """An ingested event: pending → processing → done, or failed after too many attempts."""

    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class NotificationState(StrEnum):
    """A notification waits (pending) until its chat message is written (delivered)."""

    PENDING = "pending"
    DELIVERED = "delivered"


class SourceState(StrEnum):
    """A source's health as the Accounts page shows it."""

    OK = "ok"
    RETRYING = "retrying"
    ERROR = "error"
    NEEDS_SIGN_IN = "needs_sign_in"


class ChatRole(StrEnum):
    """Who wrote a stored chat message (system prompts are never stored)."""

    USER = "user"
    ASSISTANT = "assistant"


class ToolCallStatus(StrEnum):
    RUNNING = "running"
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REJECTED = "rejected"


class ToolResultType(StrEnum):
    STRING = "string"
    JSON = "json"


class RunStatus(StrEnum):
    """One TIC run over a batch of events."""

    RUNNING = "running"
    OK = "ok"
    ERROR = "error"


class JobKind(StrEnum):
    REMINDER = "reminder"
    TASK = "task"
    LATER = "later"  # "Remind me in 1 hour" on a notification: its text holds the notifications


class JobStatus(StrEnum):
    ACTIVE = "active"
    DONE = "done"
    CANCELLED = "cancelled"


class Recurrence(StrEnum):
    NONE = "none"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKDAYS = "weekdays"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
