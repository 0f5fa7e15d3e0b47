"""Decides between the desktop app and the command line: no subcommand starts the app, any
subcommand runs in ``tic_cli.cli``. It sits above both front ends, so neither imports the
other (nor the engine either), and the desktop (Qt) is imported only when the app starts."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from engine.errors import TicError
from tic_cli.cli import PROG
from tic_cli.cli import main as cli_main


def run_desktop(home: Path | None, model_path: str | None, verbose: bool) -> int:
    """Where Qt cannot start it would abort with a core dump: say why in one line instead."""
    from desktop.system.preflight import startup_problem

    problem = startup_problem()
    if problem is not None:
        print(f"{PROG}: cannot start the desktop app: {problem}", file=sys.stderr)
        return 2
    try:
        from desktop.app import main as desktop_main
    except ImportError as exc:
        raise TicError(f"the desktop app cannot start: {exc} (pip install -e .)") from None
    return int(desktop_main(home, model_path, verbose))


def run_menu_entry(install: bool, home: Path | None) -> int:
    """The app in the desktop's menu, launching this install (on ``home`` if given)."""
    from desktop.system import menu_entry

    return int(menu_entry.run(install_entry=install, home=home))


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, desktop=run_desktop, menu_entry=run_menu_entry)
