"""Stands in for a model that could not be loaded, so the app keeps running: every call fails
with the original one-line error (turns fail visibly, notifications fall back to plain
wording and are never dropped) until the user picks a working model."""

from __future__ import annotations

from engine.errors import ModelError
from engine.llm.base import Completion, JsonSchema, LanguageModel, Message, TokenCallback
from engine.modeltypes import Capability


class UnavailableModel(LanguageModel):
    name = "unavailable"

    def __init__(self, error: str):
        self.error = error

    @property
    def capability(self) -> Capability:
        """It writes nothing: whatever the user reads is composed from the facts."""
        return "tiny"

    async def load(self) -> None:
        raise ModelError(self.error)

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: JsonSchema | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        raise ModelError(self.error)
