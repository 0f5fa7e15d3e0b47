"""Owner-only files: whatever a front end writes is the user's alone (umask 077), and the
files and folders an older TIC left readable by others are fixed at start."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.cli_helpers import run_tic, write_jsonl
from tests.factories import event_dict


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_front_end_makes_the_workspace_owner_only(tmp_path):
    home = tmp_path / "home"
    assert run_tic("history", home=home).returncode == 0  # an older TIC's workspace...
    (home / "settings.json").write_text("{}")
    (home / "data" / "memory" / "me.md").write_text("I like tea")
    (home / "models" / "model.gguf").write_bytes(b"GGUF")
    outside = tmp_path / "my-rules.md"
    outside.write_text("## Always notify\n- Emails from Anna Berg\n")
    (home / "data" / "kept-elsewhere.md").symlink_to(outside)
    for path in home.rglob("*"):  # ...as open as it used to be
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    home.chmod(0o755)
    outside.chmod(0o644)

    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    assert run_tic("ingest", str(events), home=home).returncode == 0

    for folder in (home, home / "data", home / "data" / "memory", home / "logs"):
        assert mode(folder) == 0o700, folder
    owner_only = [
        home / "tic.db",
        home / "tic.db.created",
        home / "tic.lock",
        home / "settings.json",
        home / "data" / "notifications.md",
        home / "data" / "memory" / "me.md",
        home / "logs" / "tic.log",
    ]
    for path in owner_only:
        assert mode(path) == 0o600, path
    assert mode(home / "models" / "model.gguf") == 0o644  # not TIC's to guard
    assert mode(outside) == 0o644  # a link is not followed out of the workspace


def test_what_a_front_end_creates_is_owner_only_from_the_start(tmp_path):
    home = tmp_path / "home"
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    assert run_tic("ingest", str(events), home=home).returncode == 0
    created = [p for p in home.rglob("*") if "models" not in p.parts]
    assert created
    loose = {str(p.relative_to(home)): oct(mode(p)) for p in created if mode(p) & 0o077}
    assert loose == {}
