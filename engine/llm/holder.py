"""The engine's current model, in one place. The agent loop and the triage decider are given
the holder, not the model, so swapping the model (a settings change) is one assignment.

A swap does not cut a call short: a call already running on the old model finishes there
(``retire`` waits for it) before the old model is closed; the next call goes to the new one."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from engine.llm.base import Completion, LanguageModel, Message, TokenCallback
from engine.llm.capability import effective
from engine.modeltypes import Capability, CapabilitySetting


class ModelHolder(LanguageModel):
    """A LanguageModel that forwards every call to the model it currently holds."""

    def __init__(self, model: LanguageModel, override: CapabilitySetting = "auto"):
        self.current = model
        self.name = model.name
        self.override: CapabilitySetting = override  # the user's setting wins over the model's
        self._running: Counter[int] = Counter()  # calls in flight, by id() of their model
        self._settled = asyncio.Condition()

    @property
    def capability(self) -> Capability:
        return effective(self.current.capability, self.override)

    def swap(self, model: LanguageModel) -> LanguageModel:
        """Hold ``model`` from now on; returns the previous one (the caller closes it)."""
        old, self.current = self.current, model
        self.name = model.name
        return old

    async def retire(self, model: LanguageModel) -> None:
        """Wait until no call is running on ``model`` (swapped out), so it can be closed."""
        async with self._settled:
            await self._settled.wait_for(lambda: self._running[id(model)] == 0)

    def context_tokens(self) -> int | None:
        return self.current.context_tokens()

    async def load(self) -> None:
        await self.current.load()

    @asynccontextmanager
    async def _calling(self) -> AsyncIterator[LanguageModel]:
        """The current model, counted as in use until the block ends (see ``retire``)."""
        model = self.current
        self._running[id(model)] += 1
        try:
            yield model
        finally:
            self._running[id(model)] -= 1
            async with self._settled:
                self._settled.notify_all()

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        async with self._calling() as model:
            return await model.complete(
                messages,
                schema=schema,
                max_tokens=max_tokens,
                temperature=temperature,
                on_token=on_token,
            )

    async def prefill(self, messages: list[Message]) -> None:
        async with self._calling() as model:
            await model.prefill(messages)

    async def close(self) -> None:
        await self.current.close()
