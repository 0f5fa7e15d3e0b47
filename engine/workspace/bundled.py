"""Locate files shipped with TIC: agent definitions and the data/ template."""

from __future__ import annotations

from pathlib import Path

_ENGINE_DIR = Path(__file__).resolve().parents[1]  # engine/, this file is in engine/workspace/


def bundled_dir(name: str) -> Path:
    """The repo's top-level ``name`` folder (source checkout, editable install) or the copy
    bundled into the wheel under ``engine/_bundled``."""
    bundled = _ENGINE_DIR / "_bundled" / name
    if bundled.is_dir():
        return bundled
    return _ENGINE_DIR.parent / name
