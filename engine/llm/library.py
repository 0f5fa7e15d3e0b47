"""The workspace's ``models/`` folder: the GGUF files in it, the unfinished downloads kept for
resuming (``<file>.part``), and what TIC knows of each downloaded file (``.tic-models.json``:
its catalog name, repository, revision and sha256)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from engine.modeltypes import InstalledModel
from engine.workspace.atomic import atomic_write

log = logging.getLogger(__name__)

MANIFEST = ".tic-models.json"
PART_SUFFIX = ".part"


def part_path(models_dir: Path, file: str) -> Path:
    """Where an unfinished download of ``file`` waits: invisible to ``*.gguf`` globs."""
    return models_dir / f"{file}{PART_SUFFIX}"


def read_manifest(models_dir: Path) -> dict[str, dict[str, Any]]:
    path = models_dir / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); it is rebuilt as models are downloaded", path, exc)
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def record(models_dir: Path, file: str, info: dict[str, Any] | None) -> None:
    """Remember (or, with None, forget) what is known of ``file``."""
    manifest = read_manifest(models_dir)
    if info is None:
        if manifest.pop(file, None) is None:
            return
    else:
        manifest[file] = info
    atomic_write(models_dir / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def installed(models_dir: Path, in_use: Path | None = None) -> list[InstalledModel]:
    """The GGUF files in ``models_dir``, by name, with what the manifest knows of them."""
    if not models_dir.is_dir():
        return []
    manifest = read_manifest(models_dir)
    found = []
    for path in sorted(p for p in models_dir.glob("*.gguf") if p.is_file()):
        info = manifest.get(path.name, {})
        name, sha256 = info.get("name"), info.get("sha256")
        found.append(
            InstalledModel(
                path=path,
                size=path.stat().st_size,
                name=name if isinstance(name, str) else None,
                sha256=sha256 if isinstance(sha256, str) else None,
                in_use=in_use is not None and _same(path, in_use),
            )
        )
    return found


def partial_size(models_dir: Path, file: str) -> int:
    try:
        return part_path(models_dir, file).stat().st_size
    except OSError:
        return 0


def remove(models_dir: Path, file: str) -> list[Path]:
    """Delete ``file``, its unfinished download and its lock; returns what was deleted."""
    deleted = []
    for path in (models_dir / file, part_path(models_dir, file), models_dir / f".{file}.lock"):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        if not path.name.startswith("."):
            deleted.append(path)
    record(models_dir, file, None)
    return deleted


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.expanduser().resolve()
    except OSError:
        return False
