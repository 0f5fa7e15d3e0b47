"""Writing the user's files safely: a reader sees the old content or the new, never half."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: Path, content: str) -> None:
    """Write ``content`` to ``path`` through a temporary file that replaces it; on failure
    the old file stays and the temporary file is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name[:100]}.tmp-{os.getpid()}")  # short: any name fits
    try:
        tmp.write_text(content, encoding="utf-8")
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
