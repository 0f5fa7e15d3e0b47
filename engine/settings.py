"""User settings, persisted as ``settings.json`` in the workspace (readable and hand-editable)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from engine.accounts.registry import AccountConfig
from engine.fsutil import atomic_write

log = logging.getLogger(__name__)


class Settings(BaseModel):
    tick_interval_minutes: int = Field(15, ge=1, le=24 * 60)
    batch_size: int = Field(50, ge=1, le=500)
    max_event_attempts: int = Field(3, ge=1, le=20)
    model_path: str | None = None  # a GGUF file, or an OpenAI-compatible server's URL
    server_model: str = "default"  # the model name to ask a server for
    model_capability: Literal["auto", "tiny", "capable"] = "auto"
    """What the model may be trusted with; "auto" asks the model (its size, or a server)."""
    context_size: int = Field(8192, ge=512, le=131072)
    model_threads: int | None = Field(None, ge=1, le=256)
    max_tool_steps: int = Field(6, ge=1, le=20)
    quiet_hours_start: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    quiet_hours_end: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
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
            first = str(exc).splitlines()[0]
            log.error("settings file %s is invalid (%s); using defaults", path, first)
            return cls()

    def save(self, path: Path) -> None:
        atomic_write(path, self.model_dump_json(indent=2) + "\n")
