"""``add_notification_rule``: the safe, structured way to change the user's rules."""

from __future__ import annotations

from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.errors import ToolError
from engine.triage.rules.edit import SECTION_TITLES, add_rule
from engine.triage.rules.explain import explain


class AddNotificationRuleTool(Tool):
    name = "add_notification_rule"
    description = (
        "Add one rule to data/notifications.md. section: always (always tell me), never "
        "(stop / never tell me), custom (conditions: times, groups, 'only if'). rule: one "
        "short sentence, e.g. 'Emails from Mario Rossi'."
    )
    parameters = {
        "type": "object",
        "properties": {
            "section": {"type": "string", "enum": list(SECTION_TITLES)},
            "rule": {"type": "string", "minLength": 3, "maxLength": 200},
        },
        "required": ["section", "rule"],
        "additionalProperties": False,
    }
    category = "Preferences"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        try:
            added = add_rule(ctx.workspace.rules_file, arguments["section"], arguments["rule"])
        except (ValueError, OSError) as exc:
            raise ToolError(f"could not change data/notifications.md: {exc}") from None
        title = SECTION_TITLES[arguments["section"]]
        if not added:
            return f"that rule is already under {title}"
        lines = explain(f"## {title}\n- {arguments['rule']}\n")
        read = f" (read as \u201c{lines[0].sentence}\u201d)" if lines else ""
        return f"added under {title}: - {arguments['rule']}{read}"
