"""TIC's decisions on files, with no workspace store: what ``tic-desktop triage`` (events under
a rules file, sending nothing) and ``tic-desktop eval`` (the decisions measured on a labelled
set) run, and a rules file someone names, read as the workspace's is (``tic-desktop rules
--rules FILE``). A front end's way in beside the ``Engine`` façade, for work that needs no
engine: it opens no store, keyring or source, so ``triage`` stays quick
(tests/test_cli_imports.py)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from engine.errors import InputError
from engine.events import Event
from engine.llm.base import LanguageModel
from engine.llm.holder import ModelHolder
from engine.settings import Settings
from engine.triage.decider import Decision, TriageDecider, Undecided
from engine.triage.evaluate import Case, EvalReport, evaluate, read_cases
from engine.triage.rules.explain import FileNote, unreadable_notes
from engine.triage.rules.textfile import decode_rules
from engine.workspace import Workspace

__all__ = [
    "Case",
    "Decision",
    "EvalReport",
    "StandaloneTriage",
    "Undecided",
    "load_model",
    "read_cases",
    "read_rules_file",
]


def read_rules_file(path: Path) -> tuple[str, list[FileNote]]:
    """A rules file someone names: its text (a line that is not valid UTF-8 is left out, and
    logged, as in the workspace's file) and a note for each line left out. InputError when
    it cannot be read."""
    try:
        found = decode_rules(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    return found.text, unreadable_notes(found.unreadable)


def load_model(workspace: Workspace, settings: Settings, model_path: str | None) -> LanguageModel:
    """The model the decisions are asked of (imported only when one is made)."""
    from engine.llm.loading import load_model as load

    return load(workspace, settings, model_path)


class StandaloneTriage:
    """TIC's decider on the workspace's settings and model (``model_path`` chooses another),
    touching no store. ``close`` frees the model."""

    def __init__(self, workspace: Workspace, model_path: str | None = None):
        settings = Settings.load(workspace.settings_file)
        model = load_model(workspace, settings, model_path)
        self._model = ModelHolder(model, settings.model_capability)
        self._decider = TriageDecider(self._model, workspace)

    async def decide(
        self, events: list[Event], now: datetime, rules_text: str
    ) -> list[Decision | Undecided]:
        """Each event decided at ``now`` under ``rules_text``, on its own: one that cannot be
        decided is an ``Undecided`` with the reason, and holds up no other."""
        return await self._decider.decide_each(events, now, rules_text=rules_text)

    async def evaluate(self, cases: list[Case], rules_dir: Path) -> EvalReport:
        """The decisions on a labelled set (``read_cases``: the triage dev-set format), the
        rules files its cases name in ``rules_dir``."""
        return await evaluate(cases, rules_dir, self._decider)

    async def close(self) -> None:
        await self._model.close()
