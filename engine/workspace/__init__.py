"""The user's workspace: rules, memory, models, settings and the store, in one folder.

Default location is the platform's user data dir; ``TIC_HOME`` overrides it. Beside
:class:`Workspace`, this package holds how files are written into it (``atomic``), how a full
disk under it is said (``disk``) and where the files TIC ships with are (``bundled``).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

from engine.workspace.bundled import bundled_dir

APP_NAME = "tic-desktop"
OWN_PREFIXES = ("tic.", "settings.json")  # TIC's files in the workspace's top folder


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
        """Open (and on first use create) the workspace at ``root`` or the default home. A
        workspace TIC may not write (``writable``) is opened as it is: nothing is created or
        changed in it, and only what reads can use it."""
        ws = cls(Path(root) if root is not None else default_home())
        if ws.root.is_dir() and not ws.writable:
            return ws
        ws.ensure()
        ws.make_owner_only()
        return ws

    @property
    def writable(self) -> bool:
        """Whether TIC may write in the workspace (not on a read-only mount, nor in a folder
        whose permissions forbid it)."""
        return os.access(self.root, os.W_OK)

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
    def states_dir(self) -> Path:
        """The model's saved prompt states (they hold what the prompts held: owner-only)."""
        return self.root / "cache" / "model-states"

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

    def make_owner_only(self) -> None:
        """The user's messages, settings and rules are readable by the user only: the
        workspace 0700, TIC's files in it 0600, and ``data/``, ``logs/`` and the backups
        with all they hold, and the model's saved states in ``cache/`` (files made before
        TIC set its umask, or copied in since).
        Symbolic links, ``models/`` and anything not the user's own are left alone."""
        _chmod(self.root, 0o700)
        for path in self.root.iterdir():
            if path.name.startswith(OWN_PREFIXES) and path.is_file() and not path.is_symlink():
                _chmod(path, 0o600)
        for folder in (self.data_dir, self.logs_dir, self.root / "backups", self.root / "cache"):
            if not folder.is_dir() or folder.is_symlink():
                continue
            _chmod(folder, 0o700)
            for path in folder.rglob("*"):
                if path.is_symlink():
                    continue
                _chmod(path, 0o700 if path.is_dir() else 0o600)

    def first_model_file(self) -> Path | None:
        if not self.models_dir.is_dir():
            return None
        found = sorted(p for p in self.models_dir.glob("*.gguf") if p.is_file())
        return found[0] if found else None


def _chmod(path: Path, mode: int) -> None:
    """Only what the user owns; never a shared folder (sticky, like /tmp)."""
    try:
        st = path.stat()
        if st.st_uid != os.getuid() or st.st_mode & stat.S_ISVTX:
            return
        if stat.S_IMODE(st.st_mode) != mode and (path.is_file() or path.is_dir()):
            path.chmod(mode)
    except OSError:
        pass  # not ours to change (a read-only mount, gone meanwhile): leave it
