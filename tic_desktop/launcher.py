"""Decides between the desktop app and the command line: no subcommand starts the app, any
subcommand runs in ``engine.cli``. It sits above both, so the engine never imports the
desktop, and the desktop (Qt) is imported only when the app starts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.cli import main as cli_main
from engine.errors import TicError


def run_desktop(home: Path | None, model_path: str | None, verbose: bool) -> int:
    try:
        from desktop.app import main as desktop_main
    except ImportError as exc:
        raise TicError(f"the desktop app cannot start: {exc} (pip install -e .)") from None
    return int(desktop_main(home, model_path, verbose))


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, desktop=run_desktop)
