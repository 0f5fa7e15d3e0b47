"""The ``digest`` look-up: what arrived in a stretch of time, by default since the user last
looked (``engine.store.digest.last_looked``), as ``engine.chat.digest.Digest``: the messages
TIC notified in full, the rest counted by kind and sender. Read-only."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.chat.digest import gather
from engine.clock import parse_instant
from engine.errors import ToolError
from engine.store.digest import events_between, last_looked

DEFAULT_HOURS = 24  # looked back when the user never looked before


class DigestTool(Tool):
    name = "digest"
    description = (
        "What arrived (emails, WhatsApp messages, calendar changes) between `since` and "
        "`until` (ISO times; by default since the user last looked, until now): the messages "
        "TIC notified, with who wrote and what they asked, and the others counted by kind "
        "and sender."
    )
    parameters = {
        "type": "object",
        "properties": {
            "since": {"type": "string", "maxLength": 40},
            "until": {"type": "string", "maxLength": 40},
            "source": {"type": "string", "enum": ["any", "email", "whatsapp", "calendar"]},
        },
        "additionalProperties": False,
    }
    category = "Lookup"
    outside_content = True
    outside_label = "a summary of your messages"
    result_type = "json"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        zone = ctx.now.astimezone().tzinfo  # a time without an offset is the user's
        until = _instant(arguments.get("until"), "until", zone) or ctx.now
        since = _instant(arguments.get("since"), "since", zone)
        looked = "period"
        if since is None:
            seen = last_looked(ctx.session_id, until)
            default = (until - timedelta(hours=DEFAULT_HOURS), "default")
            since, looked = seen if seen is not None else default
        if since > until:
            raise ToolError(f"digest: since ({since.isoformat()}) is after until")
        stored = events_between(since, until, source=arguments.get("source", "any"))
        return gather(stored, since, until, looked).to_json()


def _instant(value: object, name: str, zone: tzinfo | None) -> datetime | None:
    if value in (None, ""):
        return None
    moment = parse_instant(str(value), naive_zone=zone)
    if moment is None:
        raise ToolError(f"digest: {name} is not a time: {str(value)[:40]}")
    return moment
