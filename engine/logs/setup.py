"""Where log records go, for the tray app and the command line alike.

Everything is written to the workspace's rotating ``logs/tic.log``. The command line also
writes warnings (everything with ``-v``) to the terminal, one line each: a traceback only
ever goes to the file, and the terminal line says where to find it.

Logging never fails what TIC is doing: a log file that cannot be written (a full disk above
all) drops its records quietly, noting it once, and says how many it lost when it can write
again; neither handler ever prints logging's own "--- Logging error ---" traceback for an
OSError. The same message over and over (a flood of bad requests) is logged at most
``REPEATS`` times a minute, then counted in one line. A password in a URL never reaches the
log (``engine.urls``).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from engine.urls import mask_credentials
from engine.workspace import Workspace

LOG_NAME = "tic.log"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REPEATS = 10  # records of one message template let through per window
REPEAT_WINDOW = 60.0  # seconds

FILE_ONLY = {"file_only": True}
"""``extra=`` for a record the terminal has already shown in its own words (an error line)."""

_installed: list[logging.Handler] = []
_saved_level: list[int] = []


def log_file(workspace: Workspace) -> Path:
    return workspace.logs_dir / LOG_NAME


def setup_logging(workspace: Workspace, verbose: bool = False) -> Path:
    """Send log records at INFO (DEBUG when ``verbose``) to the workspace's ``logs/tic.log``,
    rotated at 1 MB with five old files kept. Returns the file's path."""
    from engine.logs.file import LogFile  # here: a command without a workspace needs none

    path = log_file(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = LogFile(path)
    handler.setFormatter(MaskingFormatter(FILE_FORMAT))
    handler.addFilter(lambda record: not getattr(record, "terminal_only", False))
    handler.addFilter(RepeatLimit(handler))
    _install(handler, logging.DEBUG if verbose else logging.INFO)
    return path


def setup_console(verbose: bool = False, stream: TextIO | None = None) -> None:
    """Warnings and errors (INFO too when ``verbose``) on the terminal, one line each."""
    handler = Terminal(stream if stream is not None else sys.stderr)
    handler.setLevel(logging.INFO if verbose else logging.WARNING)
    handler.setFormatter(OneLineFormatter())
    handler.addFilter(lambda record: not getattr(record, "file_only", False))
    handler.addFilter(RepeatLimit(handler))
    _install(handler, logging.INFO)


def current_log_file() -> Path | None:
    """The log file set up by :func:`setup_logging` in this process, if any."""
    for handler in _installed:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def teardown_logging() -> None:
    """Say what the repeat limits held back, then remove and close what this module
    installed, and restore the root logger's level."""
    for handler in _installed:
        for limit in handler.filters:
            if isinstance(limit, RepeatLimit):
                limit.finish()
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


class Terminal(logging.StreamHandler[TextIO]):
    """The terminal's handler: a terminal that cannot be written (closed, or a file on a full
    disk) loses the line quietly, with no "--- Logging error ---" traceback."""

    def handleError(self, record: logging.LogRecord) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handleError(record)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError:
            pass


@dataclass
class _Window:
    started: float
    passed: int = 1
    held: int = 0
    last: logging.LogRecord | None = None


class RepeatLimit(logging.Filter):
    """At most ``limit`` warnings (or errors) of one message template (the same logger, level
    and format string) per ``window`` seconds reach ``handler``; the rest are counted, and
    when the window is over (at the next warning, or at ``finish``) one line says so: the
    last of them, with "(N more like this)"."""

    def __init__(
        self,
        handler: logging.Handler,
        limit: int = REPEATS,
        window: float = REPEAT_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ):
        super().__init__()
        self.handler = handler
        self.limit = limit
        self.window = window
        self.clock = clock
        self._windows: dict[tuple[str, int, str], _Window] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "repeats_said", False):
            return True
        now = self.clock()
        with self._lock:  # records come from worker threads too
            ended = self._ended(now)
            key = (record.name, record.levelno, str(record.msg))
            seen = self._windows.get(key)
            if seen is None:
                self._windows[key] = _Window(now)
                passes = True
            elif seen.passed < self.limit:
                seen.passed += 1
                passes = True
            else:
                seen.held += 1
                seen.last = record
                passes = False
        self._say(ended)
        return passes

    def finish(self) -> None:
        """Say what every window still holds back (the process is about to stop logging)."""
        with self._lock:
            ended = self._ended(None)
        self._say(ended)

    def _ended(self, now: float | None) -> list[_Window]:
        """The windows over at ``now`` (all, for None), taken out."""
        over = [
            k for k, w in self._windows.items() if now is None or now - w.started >= self.window
        ]
        return [self._windows.pop(key) for key in over]

    def _say(self, ended: list[_Window]) -> None:
        for seen in ended:
            if seen.held and seen.last is not None:
                self.handler.handle(_repeats_line(seen.last, seen.held))


def _repeats_line(last: logging.LogRecord, held: int) -> logging.LogRecord:
    line = logging.makeLogRecord(last.__dict__)
    line.msg, line.args = f"{last.getMessage()} ({held} more like this)", None
    line.exc_info, line.exc_text, line.stack_info = None, None, None
    line.repeats_said = True
    return line


class MaskingFormatter(logging.Formatter):
    """The file's lines, tracebacks included, with every URL's password masked."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_credentials(super().format(record))


class OneLineFormatter(logging.Formatter):
    """``LEVEL logger: message``; a traceback is replaced by where the log file is."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            where = current_log_file()
            line += f" (details in {where})" if where else f" ({_exception_line(record)})"
        return mask_credentials(line)


def _exception_line(record: logging.LogRecord) -> str:
    exc = record.exc_info[1] if record.exc_info else None
    return f"{type(exc).__name__}: {exc}" if exc is not None else "no details"
