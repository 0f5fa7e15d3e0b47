"""Read-only look-ups over the events in the store ("what did Mario write?")."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.store.models import EventRecord

MAX_ROWS = 500  # stored versions of calendar events read for one look-up (newest first)
MAX_LISTED = 50  # events a look-up lists (its result is cut at 4 000 characters anyway)


def event_brief(rec: EventRecord) -> dict[str, Any]:
    payload = json.loads(rec.payload)
    cal = payload.get("calendar") or {}
    out: dict[str, Any] = {
        "id": rec.event_id,
        "source": rec.source,
        "event_type": rec.event_type,
        "time": rec.time.isoformat(),
        "from": rec.sender_name or rec.sender_address,
        "subject": rec.subject,
        "text": (rec.text or "")[:300],
    }
    if rec.chat_name:
        out["chat"] = rec.chat_name
    if cal:
        out["start"] = cal.get("start")
        out["location"] = cal.get("location")
    return {k: v for k, v in out.items() if v not in (None, "")}


class SearchEventsTool(Tool):
    name = "search_events"
    description = (
        "Search received emails, WhatsApp messages and calendar events by words in the "
        "sender, subject or text. Newest first."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 100},
            "source": {"type": "string", "enum": ["any", "email", "whatsapp", "calendar"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    category = "Lookup"
    outside_content = True
    outside_label = "a search of your messages"
    result_type = "json"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        query = EventRecord.select()
        for word in arguments["query"].split():
            like = f"%{word}%"
            query = query.where(
                EventRecord.sender_name**like
                | EventRecord.sender_address**like
                | EventRecord.subject**like
                | EventRecord.text**like
                | EventRecord.chat_name**like
            )
        source = arguments.get("source", "any")
        if source != "any":
            query = query.where(EventRecord.source == source)
        limit = arguments.get("limit", 5)
        rows = query.order_by(EventRecord.time.desc()).limit(limit)
        return [event_brief(r) for r in rows]


class UpcomingCalendarTool(Tool):
    name = "upcoming_calendar"
    description = "List calendar events starting within the next `hours` hours (default 48)."
    parameters = {
        "type": "object",
        "properties": {"hours": {"type": "integer", "minimum": 1, "maximum": 24 * 366}},
        "additionalProperties": False,
    }
    category = "Lookup"
    outside_content = True
    outside_label = "your calendar"
    result_type = "json"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        hours = arguments.get("hours", 48)
        rows = (
            EventRecord.select()
            .where(
                (EventRecord.source == "calendar")
                & EventRecord.calendar_start.between(ctx.now, ctx.now + timedelta(hours=hours))
            )
            .order_by(EventRecord.time.desc())
            .limit(MAX_ROWS)
        )
        latest: dict[str, EventRecord] = {}
        for rec in rows:
            key = str(json.loads(rec.payload).get("refs", {}).get("event_id") or rec.event_id)
            latest.setdefault(key, rec)
        alive = [r for r in latest.values() if r.event_type != "calendar.cancelled"]
        alive.sort(key=lambda r: r.calendar_start or ctx.now)
        return [event_brief(r) for r in alive[:MAX_LISTED]]
