"""The chat history as plain rows (for ``tic history`` and any UI); each "why" entry says
what was cut from its event on arrival (``notes``; the originals stay in the store)."""

from __future__ import annotations

from typing import Any

from engine.store import chat
from engine.store.inbox import event_notes


def history_rows(limit: int = 50, session_id: int | None = None) -> list[dict[str, Any]]:
    rows = []
    for m, calls in chat.recent_messages(limit, session_id):
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
                    {**why, "notes": event_notes(why.get("event_id"))}
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
