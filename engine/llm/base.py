"""The model contract every backend implements, real or scripted."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from engine.modeltypes import Capability

Role = Literal["system", "user", "assistant"]
JsonSchema = dict[str, Any]
"""A JSON schema (a JSON object: its values are arbitrary JSON)."""


class Message(TypedDict):
    """One chat message, as every backend takes it."""

    role: Role
    content: str


TokenCallback = Callable[[str], None]


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: int = 0


def threadsafe(on_token: TokenCallback | None) -> TokenCallback | None:
    """Wrap a token callback so a model's worker thread can call it: it runs on the loop."""
    if on_token is None:
        return None
    loop = asyncio.get_running_loop()

    def emit(piece: str) -> None:
        loop.call_soon_threadsafe(on_token, piece)

    return emit


class LanguageModel(ABC):
    """A chat model. ``schema`` constrains the output to JSON valid against it (a grammar for
    llama.cpp), so structured decisions and tool actions always parse, even on tiny models."""

    name: str = "model"

    @property
    def capability(self) -> Capability:
        """What this model can be trusted with (see :mod:`engine.llm.capability`)."""
        return "capable"

    def context_tokens(self) -> int | None:
        """The context window in tokens, when the backend knows it (prompts fit in it)."""
        return None

    async def load(self) -> None:  # noqa: B027 - optional hook
        """Load weights ahead of the first call (for progress display). Optional."""

    @abstractmethod
    async def complete(
        self,
        messages: list[Message],
        *,
        schema: JsonSchema | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        """Generate one assistant message for ``messages``; stream text pieces to ``on_token``."""

    async def prefill(self, messages: list[Message]) -> None:  # noqa: B027 - optional hook
        """Read ``messages`` into the backend's prompt cache ahead of a call that will open
        with them (llama.cpp reuses an evaluated prompt up to its first differing token).
        Optional: backends without such a cache do nothing."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model."""
