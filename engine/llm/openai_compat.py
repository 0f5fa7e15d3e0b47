"""A model behind an OpenAI-compatible server (llama.cpp's llama-server, LM Studio, vLLM,
Ollama's /v1, ...). Only used when the user points TIC at one: ``--model http://host:port/v1``
or the ``model_path`` setting. Structured steps use ``response_format`` with a JSON schema;
replies stream over server-sent events.

The server's API key is read (``key_for``) only when the server refuses a request without
one (401 or 403), on the request's worker thread, and the request is then made again with
it: making the model, or loading it, never waits on the keyring."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from engine.errors import ModelError
from engine.llm.base import (
    Completion,
    JsonSchema,
    LanguageModel,
    Message,
    TokenCallback,
    threadsafe,
)
from engine.llm.guard import check_allowed
from engine.urls import masked_url


def is_server_url(value: str | None) -> bool:
    return bool(value) and str(value).startswith(("http://", "https://"))


class OpenAICompatModel(LanguageModel):
    def __init__(
        self,
        base_url: str,
        *,
        model: str = "default",
        api_key: str | None = None,
        key_for: Callable[[str], str | None] | None = None,
        timeout: float = 120.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.key_for = key_for
        self.timeout = timeout
        self.shown_url = masked_url(self.base_url)  # what messages and logs say: no password
        self.name = f"{model} at {self.shown_url}"

    def _read_key(self) -> bool:
        """The server refused access: whether there is a key to try again with (read now,
        once found; ModelError, one line, when it cannot be read now)."""
        if self.api_key or self.key_for is None:
            return False
        try:
            self.api_key = self.key_for(self.base_url)
        except ModelError as exc:
            raise ModelError(f"model server {self.shown_url} asks for its API key: {exc}") from None
        return bool(self.api_key)

    def _request(self, body: dict[str, Any]) -> urllib.request.Request:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers=headers,
            method="POST",
        )

    def _ping(self) -> None:
        """Raise ModelError unless the server answers (a listing of its models)."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        request = urllib.request.Request(f"{self.base_url}/models", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=min(self.timeout, 10.0)):
                return
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code in (401, 403) and self._read_key():
                return self._ping()
            if exc.code in (401, 403):
                raise ModelError(
                    f"model server {self.shown_url} refused access ({exc.code}): "
                    "its API key is missing or wrong"
                ) from None
            return  # it answers; some servers have no model listing
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelError(f"model server {self.shown_url} unreachable: {reason}") from None

    async def load(self) -> None:
        """Nothing to load here: check that the server answers, so one that is down is
        reported at once rather than at the first turn."""
        check_allowed(f"reach {self.shown_url}", server=True)
        await asyncio.to_thread(self._ping)

    def _stream(self, body: dict[str, Any], emit: TokenCallback | None) -> Completion:
        started = time.monotonic()
        pieces: list[str] = []
        usage: dict[str, Any] = {}
        try:
            with urllib.request.urlopen(self._request(body), timeout=self.timeout) as response:
                for raw in response:
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    chunk = json.loads(data)
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices", []):
                        piece = (choice.get("delta") or {}).get("content")
                        if piece:
                            pieces.append(piece)
                            if emit is not None:
                                emit(piece)
        except urllib.error.HTTPError as exc:
            with exc:
                detail = exc.read().decode("utf-8", "replace")[:200].strip()
            if exc.code in (401, 403) and not pieces and self._read_key():
                return self._stream(body, emit)
            raise ModelError(
                f"model server {self.shown_url} answered {exc.code}: {detail or exc.reason}"
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelError(f"model server {self.shown_url} unreachable: {reason}") from None
        except ValueError as exc:
            raise ModelError(f"model server {self.shown_url} sent invalid data: {exc}") from None
        return Completion(
            text="".join(pieces),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", len(pieces))),
            duration_ms=int((time.monotonic() - started) * 1000),
        )

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: JsonSchema | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        check_allowed(f"generate with {self.name}", server=True)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
        }
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "step", "schema": schema, "strict": True},
            }
        return await asyncio.to_thread(self._stream, body, threadsafe(on_token))
