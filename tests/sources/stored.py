"""What a source put into the store, for assertions."""

from __future__ import annotations

from engine.events import Event
from engine.store.models import EventRecord


def stored_ids() -> list[str]:
    return [r.event_id for r in EventRecord.select().order_by(EventRecord.id)]


def stored(event_id: str) -> Event:
    return Event.model_validate_json(EventRecord.get(EventRecord.event_id == event_id).payload)
