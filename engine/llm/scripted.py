"""A scripted model for tests and demos: replies come from a list, in order.

Each script entry is a string, a JSON-able dict, or a callable ``(messages, schema) -> str|dict``.
Outputs are checked against the requested schema, like a grammar would guarantee.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypedDict

import jsonschema

from engine.llm.base import Completion, JsonSchema, LanguageModel, Message, TokenCallback
from engine.modeltypes import Capability

Reply = str | dict[str, Any]
"""Reply text, or a JSON object that is sent as its text."""
ScriptEntry = Reply | Callable[[list[Message], JsonSchema | None], Reply]


class ScriptedCall(TypedDict):
    """What one ``complete`` call was given (a copy of its messages)."""

    messages: list[Message]
    schema: JsonSchema | None


class ScriptExhausted(AssertionError):
    pass


class ScriptedModel(LanguageModel):
    name = "scripted"

    def __init__(
        self,
        script: Iterable[ScriptEntry] = (),
        *,
        default: ScriptEntry | None = None,
        capability: Capability = "capable",
    ):
        self._capability: Capability = capability
        self.script: list[ScriptEntry] = list(script)
        self.default = default
        self.calls: list[ScriptedCall] = []
        self.prefills: list[list[Message]] = []  # what ``prefill`` was given, in order
        self.closed = False

    @property
    def capability(self) -> Capability:
        return self._capability

    def add(self, *entries: ScriptEntry) -> None:
        self.script.extend(entries)

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: JsonSchema | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        self.calls.append({"messages": [m.copy() for m in messages], "schema": schema})
        if self.script:
            entry = self.script.pop(0)
        elif self.default is not None:
            entry = self.default
        else:
            raise ScriptExhausted(f"scripted model has no reply for call {len(self.calls)}")
        value = entry(messages, schema) if callable(entry) else entry
        text = value if isinstance(value, str) else json.dumps(value)
        if schema is not None:
            jsonschema.validate(json.loads(text), schema)
        if on_token is not None:
            for piece in _pieces(text):
                on_token(piece)
        return Completion(
            text=text,
            prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
            completion_tokens=max(1, len(text) // 4),
        )

    async def prefill(self, messages: list[Message]) -> None:
        self.prefills.append([m.copy() for m in messages])

    async def close(self) -> None:
        self.closed = True


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]
