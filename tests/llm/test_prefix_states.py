"""Saved prompt states on the real embedded model: switching between two kinds of call reads
back the other's evaluated prompt instead of reading it again, across a restart too, with
the same output as a cold call; a state file that cannot be read is removed and the call
goes on."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from engine.llm.base import Message
from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path

pytestmark = pytest.mark.real_model

CHAT = "You are a helpful assistant for a busy person. " + " ".join(
    f"Guideline {i}: be brief and kind about topic {i}." for i in range(25)
)
TRIAGE = "You decide whether a message deserves an interruption. " + " ".join(
    f"Rule {i}: messages about subject {i} can wait." for i in range(25)
)


def prompt(system: str, user: str) -> list[Message]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def evaluated(model: LlamaCppModel) -> int:
    """Prompt tokens llama.cpp has evaluated so far in this model's context."""
    import llama_cpp

    llama: Any = model._llama
    return int(llama_cpp.llama_perf_context(llama.ctx).n_p_eval)


async def call(model: LlamaCppModel, messages: list[Message]) -> tuple[str, int]:
    """The reply, and how many prompt tokens the call had to evaluate."""
    before = evaluated(model) if model._llama is not None else 0
    completion = await model.complete(messages, max_tokens=6)
    return completion.text, evaluated(model) - before


def state_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.state"))


def owner_only(directory: Path) -> bool:
    return all(f.stat().st_mode & 0o077 == 0 for f in directory.iterdir())


def backend(states: Path | None) -> LlamaCppModel:
    return LlamaCppModel(default_model_path(), context_size=2048, threads=2, state_dir=states)


async def test_switching_back_reads_the_saved_state_not_the_prompt(tmp_path: Path) -> None:
    cold = backend(None)
    try:
        expected, _ = await call(cold, prompt(CHAT, "What should I eat tonight?"))
    finally:
        await cold.close()

    model = backend(tmp_path)
    try:
        _, first = await call(model, prompt(CHAT, "Hello there."))
        await call(model, prompt(TRIAGE, "Is a bank statement urgent?"))
        text, again = await call(model, prompt(CHAT, "What should I eat tonight?"))
    finally:
        await model.close()
    assert model.states is not None and model.states.restored == 1
    assert text == expected
    assert first > 300 and again < 40, (first, again)
    assert owner_only(tmp_path)


async def test_a_restart_starts_warm(tmp_path: Path) -> None:
    model = backend(tmp_path)
    try:
        await call(model, prompt(CHAT, "Hello there."))
    finally:
        await model.close()  # saves the state
    again = backend(tmp_path)
    try:
        _, evaluated_tokens = await call(again, prompt(CHAT, "Good morning."))
    finally:
        await again.close()
    assert evaluated_tokens < 40


async def test_a_prefill_leaves_only_the_new_message_to_read(tmp_path: Path) -> None:
    model = backend(tmp_path)
    try:
        await model.prefill([prompt(CHAT, "")[0]])
        _, evaluated_tokens = await call(model, prompt(CHAT, "Any plans for lunch?"))
    finally:
        await model.close()
    assert evaluated_tokens < 40


async def test_an_unreadable_state_is_removed_and_the_prompt_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = backend(tmp_path)
    try:
        await call(model, prompt(CHAT, "Hello there."))
        await call(model, prompt(TRIAGE, "Is a bank statement urgent?"))  # saves CHAT's
        (saved,) = state_files(tmp_path)
        saved.write_bytes(b"not a llama.cpp state")
        with caplog.at_level(logging.INFO, logger="engine.llm.prefix_states"):
            text, again = await call(model, prompt(CHAT, "What should I eat tonight?"))
    finally:
        await model.close()
    assert text and again > 300
    assert "could not be read" in caplog.text


async def test_a_prompt_without_a_system_message_is_saved_under_no_name(tmp_path: Path) -> None:
    model = backend(tmp_path)
    try:
        await call(model, prompt(CHAT, "Hello there."))
        await call(model, [{"role": "user", "content": "Say hi."}])
        _, again = await call(model, prompt(CHAT, "Good morning."))
    finally:
        await model.close()
    assert model.states is not None and model.states.restored == 1
    assert again < 40
    assert len(state_files(tmp_path)) == 1  # the chat's; the bare prompt has no file
