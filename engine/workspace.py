"""The user's workspace: rules, memory, models, settings and the store, in one folder.

Default location is the platform's user data dir; ``TIC_HOME`` overrides it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

from engine.resources import bundled_dir

APP_NAME = "tic-desktop"


def default_home() -> Path:
    env = os.environ.get("TIC_HOME")
    if env:
        return Path(env).expanduser()
    return Path(user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def open(cls, root: Path | None = None) -> Workspace:
        """Open (and on first use create) the workspace at ``root`` or the default home."""
        ws = cls(Path(root) if root is not None else default_home())
        ws.ensure()
        return ws

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def memory_dir(self) -> Path:
        return self.data_dir / "memory"

    @property
    def models_dir(self) -> Path:
        return self.root / "models"

    @property
    def rules_file(self) -> Path:
        return self.data_dir / "notifications.md"

    @property
    def db_path(self) -> Path:
        return self.root / "tic.db"

    @property
    def settings_file(self) -> Path:
        return self.root / "settings.json"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def agents_dir(self) -> Path:
        """Agent definitions: the workspace's own ``agents/`` overrides the bundled ones."""
        own = self.root / "agents"
        return own if own.is_dir() else bundled_dir("agents")

    def ensure(self) -> None:
        """Create the folders, and the user's data files from the template on first run."""
        for d in (self.root, self.data_dir, self.memory_dir, self.models_dir, self.logs_dir):
            d.mkdir(parents=True, exist_ok=True)
        template = bundled_dir("data")
        for src in template.rglob("*"):
            if not src.is_file() or src.name.startswith("."):
                continue
            dest = self.data_dir / src.relative_to(template)
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)

    def first_model_file(self) -> Path | None:
        if not self.models_dir.is_dir():
            return None
        found = sorted(p for p in self.models_dir.glob("*.gguf") if p.is_file())
        return found[0] if found else None
