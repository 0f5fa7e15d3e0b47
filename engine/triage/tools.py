"""``add_notification_rule`` and ``remove_notification_rule``: the safe, structured ways to
change the user's rules."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.errors import TicError, ToolError
from engine.store.recent import recent_events
from engine.triage.holds import (
    CONFIRMED_FILE,
    SAMPLE,
    accept,
    broad_lines,
    confirm,
    read_confirmed,
)
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.edit import SECTION_TITLES, add_rule, remove_rule
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.suggest import suggest
from engine.workspace.rulesfile import RulesFile

HELD = "held: "
"""How the tool's result says the rule added waits for the user's yes."""
SUGGESTED = "suggested "
"""How the tool's result offers a reading for a rule read only in part."""


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
        rules = RulesFile(ctx.workspace.rules_file)
        added = _changed(lambda: add_rule(rules, arguments["section"], arguments["rule"]))
        title = SECTION_TITLES[arguments["section"]]
        if not added:
            return f"that rule is already under {title}"
        rule = " ".join(str(arguments["rule"]).split()).lstrip("-*• ").strip()
        try:  # the line as it is read in the file: with the file's definitions
            text = rules.read()[0]
        except TicError:
            text = f"## {title}\n- {rule}\n"
        compiled = compile_rules_text(text)
        mine = next((c for c in compiled if c.rule.text == rule), None)
        read = f" (read as \u201c{explain_rule(mine).sentence}\u201d)" if mine else ""
        held = await _held(ctx, compiled, rule)
        offered = (
            next(((s.kind, explain_rule(s.rule).reading) for s in suggest(mine)), None)
            if mine
            else None
        )
        return (
            f"added under {title}: - {arguments['rule']}{read}"
            + (f"; {HELD}{held}" if held else "")
            + (f"; {SUGGESTED}{offered[0]}: {offered[1]}" if offered else "")
        )


def _changed(edit: Callable[[], bool]) -> bool:
    """Run an edit of the rules file; what goes wrong is the tool's error, said once."""
    try:
        return edit()
    except (ValueError, TicError) as exc:
        raise ToolError(f"could not change data/notifications.md: {exc}") from None
    except OSError as exc:
        reason = exc.strerror or exc
        raise ToolError(f"could not change data/notifications.md: {reason}") from None


async def _held(ctx: ToolContext, compiled: list[CompiledRule], rule: str) -> str:
    """Why the rule just added waits for the user's yes ("" when it does not): it would
    silence most of the latest messages (measured off the event loop)."""
    sample = [(s.event, s.decided_at or ctx.now) for s in recent_events(SAMPLE)]
    confirmed = read_confirmed(ctx.workspace.root / CONFIRMED_FILE)
    holds = await asyncio.to_thread(broad_lines, compiled, sample, confirmed)
    for hold in holds:
        if hold.text == rule:
            return f"it would silence {hold.silenced} of your last {hold.total} messages"
    return ""


class AcceptRuleReadingTool(Tool):
    name = "accept_rule_reading"
    description = (
        "Read a rule of data/notifications.md that is read only in part as the suggestion "
        "the user said yes to (kind: sender or topic)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "rule": {"type": "string", "minLength": 3, "maxLength": 500},
            "kind": {"type": "string", "enum": ["sender", "topic"]},
        },
        "required": ["rule", "kind"],
        "additionalProperties": False,
    }
    category = "Preferences"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        try:
            accept(ctx.workspace.root / CONFIRMED_FILE, str(arguments["rule"]), arguments["kind"])
        except OSError as exc:
            raise ToolError(f"could not keep the reading: {exc}") from None
        return f"read as suggested from the next check: {arguments['rule']}"


class ConfirmNotificationRuleTool(Tool):
    name = "confirm_notification_rule"
    description = (
        "Apply a rule of data/notifications.md that is held because it would silence most "
        "recent messages; only after the user said yes to it."
    )
    parameters = {
        "type": "object",
        "properties": {"rule": {"type": "string", "minLength": 3, "maxLength": 500}},
        "required": ["rule"],
        "additionalProperties": False,
    }
    category = "Preferences"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        try:
            confirm(ctx.workspace.root / CONFIRMED_FILE, str(arguments["rule"]))
        except OSError as exc:
            raise ToolError(f"could not keep the confirmation: {exc}") from None
        return f"applied from the next check: {arguments['rule']}"


class RemoveNotificationRuleTool(Tool):
    name = "remove_notification_rule"
    description = (
        "Remove one line of data/notifications.md, as it is written there, from its section "
        "(always, never or custom); only after the user said yes to it."
    )
    parameters = {
        "type": "object",
        "properties": {
            "section": {"type": "string", "enum": list(SECTION_TITLES)},
            "rule": {"type": "string", "minLength": 1, "maxLength": 500},
        },
        "required": ["section", "rule"],
        "additionalProperties": False,
    }
    category = "Preferences"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        rules = RulesFile(ctx.workspace.rules_file)
        removed = _changed(lambda: remove_rule(rules, arguments["section"], arguments["rule"]))
        title = SECTION_TITLES[arguments["section"]]
        if not removed:
            raise ToolError(f"there is no line \u201c{arguments['rule']}\u201d under {title}")
        return f"removed from {title}: - {arguments['rule']}"


def rule_tools() -> list[Tool]:
    """The rules tools, for the façade to hand to the agents' registry."""
    return [
        AddNotificationRuleTool(),
        ConfirmNotificationRuleTool(),
        AcceptRuleReadingTool(),
        RemoveNotificationRuleTool(),
    ]
