"""Turning the model settings into a model: a GGUF on llama.cpp, or a model server's URL.

``load_model`` fails with one clear line; ``load_model_or_stand_in`` never fails, for the
long-running app, which must start even when the model setting is broken."""

from __future__ import annotations

from pathlib import Path

from engine.errors import ModelError
from engine.llm.base import LanguageModel
from engine.llm.llama import LlamaCppModel, validate_model_file
from engine.llm.openai_compat import OpenAICompatModel, is_server_url
from engine.llm.select import resolve_model_path
from engine.llm.servers import server_api_key
from engine.llm.unavailable import UnavailableModel
from engine.settings import Settings
from engine.workspace import Workspace

# The settings a model is built from: a change to any of them needs a new model.
MODEL_SETTINGS = (
    "model_path",
    "server_model",
    "context_size",
    "model_threads",
    "model_capability",
    "keep_model_loaded",
)


def load_model(
    workspace: Workspace, settings: Settings, explicit: str | Path | None
) -> LanguageModel:
    """The configured GGUF on llama.cpp, or a model server when given its URL; raises
    ModelError with one clear line."""
    chosen = explicit or settings.model_path
    if is_server_url(str(chosen) if chosen else None):
        url = str(chosen)
        # The key is read when the server asks for it, not here: this may hold the workspace.
        return OpenAICompatModel(url, model=settings.server_model, key_for=server_api_key)
    path = resolve_model_path(explicit, settings, workspace)
    return LlamaCppModel(
        path,
        context_size=settings.context_size,
        threads=settings.model_threads,
        keep_loaded=settings.keep_model_loaded,
        state_dir=workspace.states_dir,
    )


def load_model_or_stand_in(
    workspace: Workspace, settings: Settings, explicit: str | Path | None
) -> tuple[LanguageModel, str | None]:
    """The model, or a stand-in that fails every call with the reason, and that reason."""
    try:
        return load_model(workspace, settings, explicit), None
    except ModelError as exc:
        return UnavailableModel(str(exc)), str(exc)


def check_model_choice(choice: str) -> None:
    """Raise ModelError unless ``choice`` is a readable GGUF file or a model server's URL
    (a URL is taken as given: the server is asked only when the model is used)."""
    if not is_server_url(choice):
        validate_model_file(Path(choice))


def model_settings_changed(old: Settings, new: Settings) -> bool:
    return any(getattr(old, name) != getattr(new, name) for name in MODEL_SETTINGS)
