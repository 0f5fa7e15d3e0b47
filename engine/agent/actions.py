"""Tool use as a schema-constrained JSON action of the engine's own.

Chat templates of small GGUF models ignore native tool calling, so each step of an agent is
one JSON object: ``{"action": "reply", "text": ...}`` or
``{"action": "tool", "tool": NAME, "arguments": {...}}``, constrained by a JSON schema that
lists exactly the tools the agent may use. Works with any GGUF.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine import schemas
from engine.agent.tools.base import MAX_STRING, Tool

REPLY_MAX_CHARS = MAX_STRING
REPLY_CHARS_PER_NOTIFICATION = 300
"""What a reply announcing notifications may spend on each: a reply covers a whole batch, so
its bound grows with it (a capable model writes a sentence or two for each)."""


def reply_chars(notifications: int = 0) -> int:
    """The bound of a reply that covers ``notifications`` (0: a reply to the user)."""
    return max(REPLY_MAX_CHARS, REPLY_CHARS_PER_NOTIFICATION * notifications)


@dataclass(frozen=True)
class Action:
    kind: str
    text: str = ""
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        if self.kind == "reply":
            return json.dumps({"action": "reply", "text": self.text}, ensure_ascii=False)
        return json.dumps(
            {"action": "tool", "tool": self.tool, "arguments": self.arguments},
            ensure_ascii=False,
        )


def reply_schema(max_chars: int = REPLY_MAX_CHARS) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "action": {"const": "reply"},
            "text": {"type": "string", "minLength": 1, "maxLength": max_chars},
        },
        "required": ["action", "text"],
        "additionalProperties": False,
    }


def action_schema(
    tools: list[Tool], *, allow_reply: bool = True, reply_max_chars: int = REPLY_MAX_CHARS
) -> dict[str, Any]:
    options = [reply_schema(reply_max_chars)] if allow_reply else []
    for tool in tools:
        options.append(
            {
                "type": "object",
                "properties": {
                    "action": {"const": "tool"},
                    "tool": {"const": tool.name},
                    "arguments": tool.parameters,
                },
                "required": ["action", "tool", "arguments"],
                "additionalProperties": False,
            }
        )
    return options[0] if len(options) == 1 else {"anyOf": options}


def parse_action(text: str, schema: dict[str, Any]) -> Action:
    """Parse and validate a model's step. Raises ValueError with a short reason."""
    try:
        obj = json.loads(text, strict=False)  # a grammar lets raw newlines into strings
        schemas.validate(obj, schema)
    except json.JSONDecodeError as exc:
        raise ValueError(f"model output is not JSON ({exc.msg})") from None
    except schemas.ValidationError as exc:
        raise ValueError(f"model output does not fit the action schema ({exc.message})") from None
    if obj["action"] == "reply":
        return Action(kind="reply", text=obj["text"].strip())
    return Action(kind="tool", tool=obj["tool"], arguments=obj.get("arguments") or {})


def tool_catalogue(tools: list[Tool]) -> str:
    """The tool list shown in the prompt (the schema enforces the exact argument shapes)."""
    lines = []
    for tool in tools:
        args = ", ".join(tool.parameters.get("properties", {})) or "no arguments"
        lines.append(f"- {tool.name}({args}): {tool.description}")
    return "\n".join(lines)


class ReplyStreamer:
    """Feeds on the raw JSON an action streams and emits only the decoded ``text`` of a reply,
    as it is written, so the user sees the reply token by token."""

    _ESCAPES = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        "b": "\b",
        "f": "\f",
        "n": "\n",
        "r": "\r",
        "t": "\t",
    }

    def __init__(self, emit: Any):
        self._emit = emit
        self._raw = ""
        self._pos: int | None = None
        self._done = False

    def feed(self, piece: str) -> None:
        if self._done:
            return
        self._raw += piece
        if self._pos is None:
            self._pos = self._find_text_start()
            if self._pos is None:
                return
        out: list[str] = []
        raw, i = self._raw, self._pos
        while i < len(raw):
            ch = raw[i]
            if ch == '"':
                self._done = True
                break
            if ch == "\\":
                if i + 1 >= len(raw):
                    break
                nxt = raw[i + 1]
                if nxt == "u":
                    if i + 6 > len(raw):
                        break
                    try:
                        out.append(chr(int(raw[i + 2 : i + 6], 16)))
                    except ValueError:
                        pass
                    i += 6
                    continue
                out.append(self._ESCAPES.get(nxt, nxt))
                i += 2
                continue
            out.append(ch)
            i += 1
        self._pos = i
        if out:
            self._emit("".join(out))

    def _find_text_start(self) -> int | None:
        if not re.search(r'"action"\s*:\s*"reply"', self._raw):
            return None
        m = re.search(r'"text"\s*:\s*"', self._raw)
        return m.end() if m else None
