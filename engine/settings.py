"""User settings, persisted as ``settings.json`` in the workspace (readable and hand-editable)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from engine.accounts.registry import AccountConfig
from engine.modeltypes import CapabilitySetting
from engine.tasks import one_line
from engine.workspace.atomic import atomic_write

log = logging.getLogger(__name__)


class Settings(BaseModel):
    tick_interval_minutes: int = Field(15, ge=1, le=24 * 60)
    batch_size: int = Field(50, ge=1, le=500)
    max_event_attempts: int = Field(3, ge=1, le=20)
    model_path: str | None = None  # a GGUF file, or an OpenAI-compatible server's URL
    server_model: str = "default"  # the model name to ask a server for
    # Tokens of context: TIC's prompts stay under ~3 000 (bench: RSS +90 MB per 4 096 more).
    context_size: int = Field(4096, ge=512, le=131072)
    model_threads: int | None = Field(None, ge=1, le=256)  # None: chosen for the load
    # False: the model's memory is freed after 5 idle minutes (loaded again when needed).
    keep_model_loaded: bool = True
    # "auto": the backend judges its model (GGUF under ~1B parameters: tiny; servers: capable)
    model_capability: CapabilitySetting = "auto"
    max_tool_steps: int = Field(6, ge=1, le=20)
    quiet_hours_start: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    quiet_hours_end: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    # Reminders the user set (and "Remind me in 1 hour") still toast while paused or quiet.
    reminders_through_pause: bool = True
    start_on_login: bool = False
    accounts: list[AccountConfig] = Field(default_factory=list)

    def with_account(self, account: AccountConfig) -> Settings:
        kept = [a for a in self.accounts if a.key != account.key]
        return self.model_copy(update={"accounts": [*kept, account]})

    def without_account(self, key: str) -> Settings:
        return self.model_copy(update={"accounts": [a for a in self.accounts if a.key != key]})

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read settings; a broken file is reported and defaults are used, never a crash."""
        if not path.exists():
            return cls()
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as exc:
            log.error("settings file %s is invalid (%s); using defaults", path, one_line(exc))
            return cls()

    def save(self, path: Path) -> None:
        atomic_write(path, self.model_dump_json(indent=2) + "\n")
