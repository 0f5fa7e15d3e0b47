"""The latest events in the store and what TIC decided about them, for looking back (the
rules preview). Read-only: nothing here changes an event's status or decision."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from engine.events import Event
from engine.store.models import EventRecord
from engine.store.values import EventStatus


@dataclass(frozen=True)
class StoredEvent:
    event: Event
    decided_at: datetime | None
    """When TIC decided it (None: not decided yet, or given up on)."""
    notified: bool | None
    """What TIC decided (None: not decided yet)."""


def recent_events(limit: int) -> list[StoredEvent]:
    """The ``limit`` latest events by their time, newest first. One that no longer parses is
    left out (the tick that meets it sets it aside and says so)."""
    rows = (
        EventRecord.select()
        .order_by(EventRecord.time.desc(), EventRecord.id.desc())
        .limit(max(0, limit))
    )
    return stored_events(rows)


def stored_events(rows: Iterable[EventRecord]) -> list[StoredEvent]:
    """Each row as its event with what TIC decided; a row that no longer parses is left
    out (the tick that meets it sets it aside and says so)."""
    out = []
    for row in rows:
        try:
            event = Event.model_validate_json(row.payload)
        except ValueError:
            continue
        done = row.status == EventStatus.DONE
        out.append(
            StoredEvent(
                event,
                row.processed_at if done else None,
                row.decision_notify if done else None,
            )
        )
    return out
