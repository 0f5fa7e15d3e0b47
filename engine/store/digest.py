"""The store's side of "what did I miss?": the events that arrived in a stretch of time with
what TIC decided, when the user last looked, and whether any calendar was ever read.

"When the user last looked" is kept in the chat itself: each digest's reply records the
moment it covers up to (``DIGEST_UNTIL`` in its meta), and each user message is a look at
the chat. Read-only: nothing here changes an event or a message."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import peewee as pw

from engine.store.models import ChatMessage, EventRecord
from engine.store.recent import StoredEvent, stored_events

DIGEST_UNTIL = "digest_until"
MAX_EVENTS = 2000  # events one digest reads (newest kept); it says how many it counted
SOURCES = ("email", "whatsapp", "calendar")

Looked = Literal["digest", "message"]


def events_between(
    start: datetime, end: datetime, *, source: str = "any", limit: int = MAX_EVENTS
) -> list[StoredEvent]:
    """The events whose time is after ``start`` and not after ``end``, oldest first (the
    newest ``limit``), each with what TIC decided (None: not decided yet). An event that no
    longer parses is left out, as in ``recent_events``."""
    sources = SOURCES if source == "any" else (source,)
    rows = (
        EventRecord.select()
        .where(
            (EventRecord.time > start)
            & (EventRecord.time <= end)
            & EventRecord.source.in_(list(sources))
        )
        .order_by(EventRecord.time.desc(), EventRecord.id.desc())
        .limit(max(0, limit))
    )
    return stored_events(rows)[::-1]


def last_looked(session_id: int | None, now: datetime) -> tuple[datetime, Looked] | None:
    """When the user last looked: the later of the moment the last digest covered up to and
    the user's message before their latest one (the latest is the question being answered);
    None when there is neither. A moment after ``now`` is no look back."""
    seen: list[tuple[datetime, Looked]] = []
    digests = ChatMessage.select(ChatMessage.meta).where(
        pw.fn.json_extract(ChatMessage.meta, f"$.{DIGEST_UNTIL}").is_null(False)
    )
    users = ChatMessage.select(ChatMessage.created_at).where(ChatMessage.role == "user")
    if session_id is not None:
        digests = digests.where(ChatMessage.session == session_id)
        users = users.where(ChatMessage.session == session_id)
    last = digests.order_by(ChatMessage.id.desc()).first()
    if last is not None:
        try:
            seen.append((datetime.fromisoformat(str(last.meta[DIGEST_UNTIL])), "digest"))
        except (KeyError, TypeError, ValueError):
            pass
    before = list(users.order_by(ChatMessage.id.desc()).limit(2))
    if len(before) == 2:
        seen.append((before[1].created_at, "message"))
    seen = [(moment, how) for moment, how in seen if moment.tzinfo and moment <= now]
    return max(seen, key=lambda pair: pair[0]) if seen else None


def has_calendar_events() -> bool:
    """Whether any calendar event was ever stored (from an account or ``tic-desktop
    ingest``)."""
    return bool(EventRecord.select(EventRecord.id).where(EventRecord.source == "calendar").exists())
