"""The chat history as plain rows (for ``tic history`` and any UI); each "why" entry says
what was cut from its event on arrival (``notes``; the originals stay in the store)."""

from __future__ import annotations

from typing import Any

from engine.events import Event
from engine.store import chat
from engine.store.inbox import stored_events


def history_rows(limit: int = 50, session_id: int | None = None) -> list[dict[str, Any]]:
    messages = chat.recent_messages(limit, session_id)
    # the events behind every "why", read in one query (the app loads 200 messages at start)
    events = stored_events(
        str(why["event_id"])
        for m, _calls in messages
        for why in (m.meta or {}).get("why", [])
        if why.get("event_id")
    )
    rows = []
    for m, calls in messages:
        meta = m.meta or {}
        rows.append(
            {
                "id": m.id,
                "session_id": m.session_id,
                "role": m.role,
                "content": m.content,
                "is_synthetic": m.is_synthetic,
                "reasoning_content": m.reasoning_content,
                "kind": meta.get("kind"),
                "sources": meta.get("sources", []),
                "why": [
                    {**why, "notes": _notes(events, why.get("event_id"))}
                    for why in meta.get("why", [])
                ],
                "fallback": bool(meta.get("fallback")),
                "composed": bool(meta.get("composed")),
                "replaced": meta.get("replaced") or [],
                "prompt_tokens": m.prompt_tokens,
                "completion_tokens": m.completion_tokens,
                "duration_ms": m.duration_ms,
                "created_at": m.created_at.isoformat(),
                "tool_calls": [
                    {
                        "name": c.name,
                        "arguments": c.arguments,
                        "status": c.status,
                        "result_type": c.result_type,
                        "result": c.result,
                    }
                    for c in calls
                ],
            }
        )
    return rows


def _notes(events: dict[str, Event], event_id: object) -> list[str]:
    event = events.get(str(event_id)) if event_id else None
    return list(event.notes) if event is not None else []
