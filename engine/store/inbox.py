"""The inbox of events: what sources add (``ingest``) and what TIC claims, decides and marks.

An event is ``pending`` until TIC claims it (``processing``), then ``done`` with the
decision, back to ``pending`` after a failed run (an attempt counted), or ``failed`` once its
attempts are spent (or it no longer parses). Attempts count real failures only: a crash
(kill -9, power cut) leaves the event ``processing``, and recovery puts it back as it was,
so crashes never use up what a later error is allowed."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime
from typing import Any, cast

import peewee as pw

from engine.clock import utcnow
from engine.events import Event
from engine.store.base import database
from engine.store.models import AgentRun, EventRecord, Notification


def ingest(events: list[Event]) -> int:
    """Add events to the store in one transaction; ids already there are ignored.
    Returns how many were new."""
    added = 0
    with database.atomic():
        for event in events:
            cal = event.calendar
            rows = (
                EventRecord.insert(
                    event_id=event.id,
                    source=event.source,
                    event_type=event.event_type,
                    time=event.time,
                    sender_name=event.sender.name if event.sender else None,
                    sender_address=event.sender.address if event.sender else None,
                    subject=event.subject,
                    text=event.text,
                    chat_name=event.chat.name if event.chat else None,
                    calendar_start=cal.start if cal else None,
                    payload=event.to_json(),
                    ingested_at=utcnow(),
                )
                .on_conflict_ignore()
                .as_rowcount()
                .execute()
            )
            added += rows
    return added


def recover_events() -> int:
    """Events left 'processing' by a crash go back to pending (no attempt counted)."""
    query = EventRecord.update(status="pending").where(EventRecord.status == "processing")
    return int(query.execute())


def claim(limit: int, exclude: Collection[int] = ()) -> list[EventRecord]:
    """The oldest pending events, at most ``limit``, now 'processing' (an attempt is counted
    only when a run fails, in ``release``); ``exclude``: record ids not to claim (those that
    already failed in this tick)."""
    with database.atomic():
        query = EventRecord.select().where(EventRecord.status == "pending")
        if exclude:
            query = query.where(EventRecord.id.not_in(list(exclude)))
        batch = list(query.order_by(EventRecord.time, EventRecord.id).limit(limit))
        if batch:
            EventRecord.update(status="processing").where(
                EventRecord.id.in_([r.id for r in batch])
            ).execute()
    return batch


def mark_done(
    record: EventRecord, now: datetime, notify: bool, reason: str, rule: str | None
) -> None:
    """The event is decided (the caller holds the transaction that also closes the run)."""
    EventRecord.update(
        status="done",
        processed_at=now,
        last_error=None,
        decision_notify=notify,
        decision_reason=reason,
        decision_rule=rule,
    ).where(EventRecord.id == record.id).execute()


Decided = tuple[EventRecord, bool, str, str | None]
"""An event and its decision: notify, reason, rule."""


def mark_all_done(decided: Iterable[Decided], now: datetime) -> None:
    """The events are decided (the caller holds the transaction). One UPDATE per distinct
    decision, not per event: a batch's decisions repeat ("a newsletter or digest"), and
    building a statement costs more than running it."""
    groups: dict[tuple[bool, str, str | None], list[int]] = {}
    for record, notify, reason, rule in decided:
        groups.setdefault((notify, reason, rule), []).append(record.id)
    for (notify, reason, rule), ids in groups.items():
        EventRecord.update(
            status="done",
            processed_at=now,
            last_error=None,
            decision_notify=notify,
            decision_reason=reason,
            decision_rule=rule,
        ).where(EventRecord.id.in_(ids)).execute()


def release(ids: Iterable[int], error: str, max_attempts: int) -> int:
    """After a failed run: each event's attempt is counted; those with attempts left go back
    to pending, the others are marked failed. Returns how many failed for good."""
    ids = list(ids)
    with database.atomic():
        EventRecord.update(attempts=EventRecord.attempts + 1, last_error=error).where(
            EventRecord.id.in_(ids)
        ).execute()
        EventRecord.update(status="pending").where(
            EventRecord.id.in_(ids) & (EventRecord.attempts < max_attempts)
        ).execute()
        failed = EventRecord.update(status="failed").where(
            EventRecord.id.in_(ids) & (EventRecord.attempts >= max_attempts)
        )
        return int(failed.execute())


def set_aside(record: EventRecord, reason: str) -> None:
    """An event that cannot be handled at all (it no longer parses) fails with the reason."""
    EventRecord.update(status="failed", last_error=reason).where(
        EventRecord.id == record.id
    ).execute()


def start_run(agent: str, events: int, now: datetime) -> AgentRun:
    return AgentRun.create(agent=agent, events_in=events, started_at=now)


def finish_run(run: AgentRun, now: datetime, notified: int, error: str | None = None) -> None:
    run.status = "error" if error else "ok"
    run.ended_at, run.notifications_out, run.error = now, notified, error
    run.save()


def stored_event(event_id: str) -> Event | None:
    row = EventRecord.get_or_none(EventRecord.event_id == event_id)
    return Event.model_validate_json(row.payload) if row is not None else None


def event_notes(event_id: str | None) -> list[str]:
    """What bounding changed in a stored event on ingest (its originals are kept with it)."""
    event = stored_event(event_id) if event_id else None
    return list(event.notes) if event is not None else []


def stored_events(event_ids: Iterable[str]) -> dict[str, Event]:
    """The stored events with these ids, in one query (a delivery reads up to 20)."""
    wanted = list(dict.fromkeys(event_ids))
    rows = EventRecord.select(EventRecord.event_id, EventRecord.payload).where(
        EventRecord.event_id.in_(wanted)
    )
    return {row.event_id: Event.model_validate_json(row.payload) for row in rows}


def event_sender(event_id: str) -> str | None:
    """Who a stored event came from: the sender's name or address, else its chat's name."""
    row = (
        EventRecord.select(
            EventRecord.sender_name, EventRecord.sender_address, EventRecord.chat_name
        )
        .where(EventRecord.event_id == event_id)
        .first()
    )
    if row is None:
        return None
    name: str | None = row.sender_name or row.sender_address or row.chat_name
    return name


def notified_since(since: datetime, limit: int = 2000) -> list[Event]:
    """The events the user was notified about since ``since`` (newest first, at most
    ``limit``)."""
    notified = (
        Notification.select(Notification.event_id)
        .where((Notification.created_at >= since) & Notification.event_id.is_null(False))
        .order_by(Notification.created_at.desc())
        .limit(limit)
    )
    rows = (
        EventRecord.select(EventRecord.payload)
        .where(EventRecord.event_id.in_(notified))
        .order_by(EventRecord.time.desc())
    )
    return [Event.model_validate_json(r.payload) for r in rows]


def sender_history(names: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, int]]:
    """For each ``(source, display name)``, how many stored events came under that name
    from each address: the history a name's trusted address is chosen by (the one with the
    most, never the first to arrive). One grouped look-up per name on the
    ``(sender_name, id)`` index."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    for source, name in {(s, n) for s, n in names if n}:
        count = pw.fn.COUNT(EventRecord.id)
        query = (
            EventRecord.select(EventRecord.sender_address, count.alias("n"))
            .where(
                (EventRecord.sender_name == name)
                & (EventRecord.source == source)
                & EventRecord.sender_address.is_null(False)
            )
            .group_by(EventRecord.sender_address)
        )
        rows = cast("Iterable[dict[str, Any]]", query.dicts())  # the stubs type rows as models
        addresses = {r["sender_address"]: int(r["n"]) for r in rows if r["sender_address"]}
        if addresses:
            found[(source, name)] = addresses
    return found
