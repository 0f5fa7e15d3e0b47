"""The model contract every backend implements, real or scripted."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

Role = Literal["system", "user", "assistant"]
Capability = Literal["tiny", "capable"]
"""What a model may be trusted with: a tiny one (the embedded 135M) writes no sentence shown
as fact and applies no rule line code could not read; a capable one may."""
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
    capability_override: Capability | None = None
    """Set from the ``model_capability`` setting when it is not "auto"."""

    @property
    def capability(self) -> Capability:
        """The override if set, else what the backend knows of its model."""
        return self.capability_override or self.detect_capability()

    def detect_capability(self) -> Capability:
        """A remote or unknown model is taken as capable; backends that can tell say so."""
        return "capable"

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

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model."""
