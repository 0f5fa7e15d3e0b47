"""``notify``: hand one structured notification to the chat agent (via ChatHub), and
``read_notification``: the introspection tool the synthetic delivery message completes."""

from __future__ import annotations

from typing import Any

from engine.agent.draft import NOTIFICATION_SCHEMA, NotificationDraft
from engine.agent.tools.base import Tool, ToolContext
from engine.errors import ToolError


class NotifyTool(Tool):
    """TIC's one tool, for an agent that calls it: TIC's runner, which decides in code,
    hands its drafts to ``ChatHub.notify`` directly."""

    name = "notify"
    description = (
        "Surface one event to the user. summary: a neutral third-person statement of fact "
        "(1-2 sentences) naming who and what. refs: ids needed to act on it later."
    )
    parameters = NOTIFICATION_SCHEMA
    category = "Notification"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.notify is None:
            raise ToolError("notify is not available here")
        if not arguments["summary"].strip():
            raise ToolError("notify: summary is empty")
        record = await ctx.notify(NotificationDraft.from_checked(arguments))
        return "queued" if record is not None else "already notified"


class ReadNotificationTool(Tool):
    name = "read_notification"
    description = "Read pending notifications (the system fills this in when some arrive)."
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    category = "Introspection"
    outside_content = True
    outside_label = "a notification"
    root_agent_only = True
    result_type = "json"
    offered = False  # the system fills it in (see engine.chat.delivery); called, it is []

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return []
