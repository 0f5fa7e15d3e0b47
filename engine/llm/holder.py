"""The engine's current model, in one place. The agent loop and the triage decider are given
the holder, not the model, so swapping the model (a settings change) is one assignment."""

from __future__ import annotations

from typing import Any

from engine.llm.base import Capability, Completion, LanguageModel, Message, TokenCallback


class ModelHolder(LanguageModel):
    """A LanguageModel that forwards every call to the model it currently holds."""

    def __init__(self, model: LanguageModel):
        self.current = model
        self.name = model.name

    def swap(self, model: LanguageModel) -> LanguageModel:
        """Hold ``model`` from now on; returns the previous one (the caller closes it)."""
        old, self.current = self.current, model
        self.name = model.name
        return old

    @property
    def capability(self) -> Capability:
        return self.current.capability

    async def load(self) -> None:
        await self.current.load()

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        return await self.current.complete(
            messages,
            schema=schema,
            max_tokens=max_tokens,
            temperature=temperature,
            on_token=on_token,
        )

    async def close(self) -> None:
        await self.current.close()
