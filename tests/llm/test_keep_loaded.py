"""The "keep the model in memory" setting: off, the weights are freed once the model has
been idle for a while, and loaded again by the next call."""

from __future__ import annotations

import asyncio

import pytest

import engine.llm.llama as llama_backend
from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path

pytestmark = pytest.mark.real_model
HELLO = [{"role": "user", "content": "Say hi."}]


async def _until_freed(model: LlamaCppModel) -> bool:
    for _ in range(100):
        if model._llama is None:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_idle_model_is_freed_and_loaded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_backend, "IDLE_UNLOAD_SECONDS", 0.05)
    model = LlamaCppModel(default_model_path(), context_size=512, keep_loaded=False)
    try:
        first = await model.complete(HELLO, max_tokens=4)  # type: ignore[arg-type]
        assert model._idle is not None  # the timer that frees it
        assert await _until_freed(model)
        again = await model.complete(HELLO, max_tokens=4)  # type: ignore[arg-type]
        assert again.text == first.text and model.threads_in_use is not None
    finally:
        await model.close()


async def test_a_kept_model_stays_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_backend, "IDLE_UNLOAD_SECONDS", 0.05)
    model = LlamaCppModel(default_model_path(), context_size=512)
    try:
        await model.complete(HELLO, max_tokens=4)  # type: ignore[arg-type]
        assert model._llama is not None
        assert model._idle is None  # no timer set to free it, however long it stays idle
    finally:
        await model.close()
