"""How the chat header and Settings name a model and what it is trusted with."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.engine import Engine, check_choice
from engine.llm.scripted import ScriptedModel
from engine.llm.select import DEFAULT_FILE
from engine.modeltypes import is_builtin, model_label, short_name
from engine.settings import Settings


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("SmolLM2-135M-Instruct.Q4_1", "SmolLM2-135M"),
        ("qwen2.5-1.5b-instruct-q4_k_m", "qwen2.5-1.5b"),
        ("Llama-3.2-1B-Instruct-Q8_0", "Llama-3.2-1B"),
        ("gemma-2-2b-it.IQ4_XS", "gemma-2-2b"),
        ("mistral-7b.f16", "mistral-7b"),
        ("scripted", "scripted"),
    ],
)
def test_short_names(name, short):
    assert short_name(name) == short


def test_labels():
    builtin = Path(DEFAULT_FILE).stem
    assert is_builtin(builtin)
    assert model_label(builtin, "tiny") == "SmolLM2-135M · small built-in model"
    assert model_label("qwen2.5-0.5b-instruct-q4_k_m", "tiny") == "qwen2.5-0.5b · small model"
    assert model_label("Qwen2.5-7B-Instruct-Q4_K_M", "capable") == "Qwen2.5-7B · capable model"


async def test_the_engine_says_what_its_model_is_and_what_automatic_means(workspace):
    engine = Engine(
        workspace, Settings(model_capability="capable"), ScriptedModel(capability="tiny")
    )
    try:
        assert engine.capability == "capable"  # the user's setting
        assert engine.detected_capability == "tiny"  # what "Automatic" would be
    finally:
        await engine.stop()


def test_judging_a_model_choice(tmp_path):
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF" + bytes(64))
    assert check_choice(str(small)) == "tiny"
    assert check_choice("http://127.0.0.1:8080/v1") == "capable"
