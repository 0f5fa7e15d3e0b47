"""A notification on its way from whoever decided it (TIC's runner, a scheduled job, a model
calling ``notify``) to the store and the toast: :class:`NotificationDraft`, made once. From
TIC's decision on an event it has parsed (``for_event``, bounded by construction), or from an
untyped payload, checked against ``NOTIFICATION_SCHEMA`` that one time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine import schemas
from engine.clock import parse_instant
from engine.errors import TicError
from engine.events import Event
from engine.events.bounds import cut
from engine.jobs.scheduler import AGAIN

NOTIFICATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "source": {"type": "string", "enum": ["email", "whatsapp", "calendar", "cron"]},
        "event_type": {"type": "string", "minLength": 1, "maxLength": 60},
        "summary": {"type": "string", "minLength": 1, "maxLength": 400},
        "event_time": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]},
        "refs": {"type": "object"},
    },
    "required": ["source", "event_type", "summary"],
    "additionalProperties": False,
}
_FIELDS = NOTIFICATION_SCHEMA["properties"]
EVENT_TYPE_LIMIT: int = _FIELDS["event_type"]["maxLength"]
SUMMARY_LIMIT: int = _FIELDS["summary"]["maxLength"]


@dataclass(frozen=True)
class NotificationDraft:
    """One notification on its way to the store: ``notify``'s structure, why it was chosen
    (``reason``, and the user's ``rule`` that decided), and the event it is about when the
    caller has it parsed already (the delivery then composes from it without reading the
    event from the store again)."""

    source: str
    event_type: str
    summary: str
    event_time: datetime | None = None  # None: no time (or none that names an instant)
    refs: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    rule: str | None = None
    event: Event | None = field(default=None, compare=False, repr=False)

    @classmethod
    def for_event(
        cls, event: Event, summary: str, *, reason: str | None, rule: str | None
    ) -> NotificationDraft:
        """TIC's notification of ``event``: every field within the schema's bounds."""
        text = summary.strip()
        if not text:
            raise TicError(f"TIC wrote no summary for event {event.id}")
        return cls(
            source=event.source,
            event_type=cut(event.event_type, EVENT_TYPE_LIMIT),
            summary=cut(text, SUMMARY_LIMIT),
            event_time=event.time,
            refs={**event.refs, "event_id": event.id},
            reason=reason,
            rule=rule,
            event=event,
        )

    @classmethod
    def from_payload(
        cls, payload: Mapping[str, Any], *, reason: str | None = None, rule: str | None = None
    ) -> NotificationDraft:
        """An untyped payload, checked against ``NOTIFICATION_SCHEMA`` (raises
        ``schemas.ValidationError``)."""
        schemas.validate(payload, NOTIFICATION_SCHEMA)
        return cls.from_checked(payload, reason=reason, rule=rule)

    @classmethod
    def from_checked(
        cls, payload: Mapping[str, Any], *, reason: str | None = None, rule: str | None = None
    ) -> NotificationDraft:
        """A payload already checked against ``NOTIFICATION_SCHEMA`` (a tool's arguments)."""
        return cls(
            source=payload["source"],
            event_type=payload["event_type"],
            summary=payload["summary"].strip(),
            event_time=parse_instant(payload.get("event_time")),
            refs=dict(payload.get("refs") or {}),
            reason=reason,
            rule=rule,
        )

    @property
    def event_id(self) -> str | None:
        event_id = self.refs.get("event_id")
        return str(event_id) if event_id else None

    @property
    def dedup_key(self) -> str | None:
        """What makes it one notification: the event's id, or for a notification delivered
        again on the user's "later" that delivery's own key (None: nothing, it is new)."""
        key = self.refs.get(AGAIN) or self.event_id
        return str(key) if key else None
