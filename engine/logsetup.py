"""Where log records go, for the tray app and the command line alike.

Everything is written to the workspace's rotating ``logs/tic.log``. The command line also
writes warnings (everything with ``-v``) to the terminal, one line each: a traceback only
ever goes to the file, and the terminal line says where to find it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TextIO

from engine.workspace import Workspace

LOG_NAME = "tic.log"
MAX_BYTES = 1_000_000
BACKUPS = 5
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

FILE_ONLY = {"file_only": True}
"""``extra=`` for a record the terminal has already shown in its own words (an error line)."""

_installed: list[logging.Handler] = []
_saved_level: list[int] = []


def log_file(workspace: Workspace) -> Path:
    return workspace.logs_dir / LOG_NAME


def setup_logging(workspace: Workspace, verbose: bool = False) -> Path:
    """Send log records at INFO (DEBUG when ``verbose``) to the workspace's ``logs/tic.log``,
    rotated at 1 MB with five old files kept. Returns the file's path."""
    import logging.handlers  # here, not at the top: a command without a workspace needs none

    path = log_file(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    _install(handler, logging.DEBUG if verbose else logging.INFO)
    return path


def setup_console(verbose: bool = False, stream: TextIO | None = None) -> None:
    """Warnings and errors (INFO too when ``verbose``) on the terminal, one line each."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setLevel(logging.INFO if verbose else logging.WARNING)
    handler.setFormatter(OneLineFormatter())
    handler.addFilter(lambda record: not getattr(record, "file_only", False))
    _install(handler, logging.INFO)


def current_log_file() -> Path | None:
    """The log file set up by :func:`setup_logging` in this process, if any."""
    for handler in _installed:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def teardown_logging() -> None:
    """Remove and close what this module installed, and restore the root logger's level."""
    root = logging.getLogger()
    while _installed:
        handler = _installed.pop()
        root.removeHandler(handler)
        handler.close()
    if _saved_level:
        root.setLevel(_saved_level.pop())


def _install(handler: logging.Handler, level: int) -> None:
    root = logging.getLogger()
    if not _saved_level:
        _saved_level.append(root.level)
        root.setLevel(level)
    else:
        root.setLevel(min(root.level, level))
    root.addHandler(handler)
    _installed.append(handler)


class OneLineFormatter(logging.Formatter):
    """``LEVEL logger: message``; a traceback is replaced by where the log file is."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            where = current_log_file()
            line += f" (details in {where})" if where else f" ({_exception_line(record)})"
        return line


def _exception_line(record: logging.LogRecord) -> str:
    exc = record.exc_info[1] if record.exc_info else None
    return f"{type(exc).__name__}: {exc}" if exc is not None else "no details"
