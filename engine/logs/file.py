"""The workspace's ``logs/tic.log`` as a handler that never fails what TIC is doing: when the
file cannot be written (a full disk above all) records are dropped quietly, the first drop
noted once on the terminal, and the file says how many it lost once it can write again."""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

from engine.workspace.disk import full_disk, is_full_error

MAX_BYTES = 1_000_000
BACKUPS = 5
TERMINAL_ONLY = {"terminal_only": True}
"""``extra=`` for a record about the log file itself, which that file could not take."""

log = logging.getLogger(__name__)


class LogFile(logging.handlers.RotatingFileHandler):
    """``logs/tic.log``. When it cannot be written (ENOSPC above all, but any OSError: a
    read-only or vanished folder) the record is dropped, the first drop noted once on the
    terminal, and the next record written after the fault is preceded by a line saying
    how many were lost. Closing or flushing it never raises either."""

    def __init__(self, path: Path):
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        self.dropped = 0
        self._fault: OSError | None = None  # why the last write failed
        self._noted = False
        self._emitting = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.dropped:
            note = logging.makeLogRecord(
                {
                    "name": __name__,
                    "levelno": logging.WARNING,
                    "levelname": "WARNING",
                    "msg": "%d log record(s) were dropped: %s",
                    "args": (self.dropped, self._reason()),
                }
            )
            if not self._write(note):
                self._lost()
                return
            self.dropped, self._noted = 0, False
        if not self._write(record):
            self._lost()

    def _write(self, record: logging.LogRecord) -> bool:
        """The record in the file; False when it could not be written (``_fault`` says why)."""
        self._fault = None
        self._emitting = True
        try:
            super().emit(record)  # a failure comes back through handleError
        finally:
            self._emitting = False
        return self._fault is None

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            self._fault = exc
            return
        super().handleError(record)  # not the disk: a bug in a log call, say it as logging does

    def flush(self) -> None:
        if self._emitting:  # inside emit a failure is the record's: handleError takes it
            super().flush()
            return
        try:
            super().flush()
        except OSError as exc:
            self._fault = exc
            self._lost()

    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:  # the last buffered lines could not be written
            self._fault = exc
            self._lost()

    def _lost(self) -> None:
        self.dropped += 1
        if self._noted:
            return
        self._noted = True
        log.warning(
            "cannot write the log %s: %s; log records are dropped until it can be written",
            self.baseFilename,
            self._reason(),
            extra=TERMINAL_ONLY,
        )

    def _reason(self) -> str:
        exc = self._fault
        if exc is None:
            return "it could not be written"
        if is_full_error(exc):
            return full_disk(Path(self.baseFilename).parent)
        return exc.strerror or str(exc)
