"""``delegate``: the main agent hands a self-contained task to a sub-agent (depth + 1)."""

from __future__ import annotations

from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.errors import ToolError


class DelegateTool(Tool):
    name = "delegate"
    description = (
        "Give a self-contained task to a helper agent (it can look things up but cannot "
        "delegate further) and get its answer."
    )
    parameters = {
        "type": "object",
        "properties": {"task": {"type": "string", "minLength": 1, "maxLength": 600}},
        "required": ["task"],
        "additionalProperties": False,
    }
    category = "Agents"
    outside_content = True  # the helper may have read some
    outside_label = "a helper agent's answer"
    root_agent_only = True

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        if ctx.delegate is None:
            raise ToolError("delegation is not available here")
        return await ctx.delegate(arguments["task"], ctx.depth + 1)
