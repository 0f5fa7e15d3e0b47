"""One log for the app and the command line: the workspace's rotating logs/tic.log, and on
the terminal one line per warning, never a traceback; a full disk drops records quietly
(noted once), a flood of one warning is counted, and a URL's password is never logged."""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
from pathlib import Path

import pytest

from engine.logs import setup as logsetup
from engine.workspace import disk

FULL_DEVICE = Path("/dev/full")  # Linux: every write to it fails with ENOSPC


@pytest.fixture(autouse=True)
def _clean_logging():
    before = list(logging.getLogger().handlers), logging.getLogger().level
    yield
    logsetup.teardown_logging()
    assert (list(logging.getLogger().handlers), logging.getLogger().level) == before


def test_the_log_is_the_workspaces_rotating_tic_log(workspace):
    path = logsetup.setup_logging(workspace)
    assert path == workspace.root / "logs" / "tic.log"
    assert logsetup.current_log_file() == path
    (handler,) = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.handlers.RotatingFileHandler)
    ]
    assert (handler.maxBytes, handler.backupCount) == (1_000_000, 5)
    logging.getLogger("tic").info("hello from a test")
    logging.getLogger("peewee").debug("not at INFO")
    handler.flush()
    text = path.read_text()
    assert "INFO tic: hello from a test" in text and "not at INFO" not in text


def test_verbose_logs_debug_too(workspace):
    path = logsetup.setup_logging(workspace, verbose=True)
    logging.getLogger("tic").debug("fine detail")
    logsetup.teardown_logging()
    assert "DEBUG tic: fine detail" in path.read_text()
    assert logsetup.current_log_file() is None


@pytest.mark.allow_log_warnings
def test_the_terminal_gets_warnings_as_one_line_and_the_file_the_traceback(workspace):
    terminal = io.StringIO()
    logsetup.setup_console(stream=terminal)
    path = logsetup.setup_logging(workspace)
    log = logging.getLogger("engine.test")
    log.info("quiet on the terminal")
    try:
        raise ValueError("bad thing")
    except ValueError:
        log.exception("it broke")
    log.error("said already", extra=logsetup.FILE_ONLY)
    assert terminal.getvalue() == f"ERROR engine.test: it broke (details in {path})\n"
    text = path.read_text()
    assert "quiet on the terminal" in text and "said already" in text
    assert "Traceback" in text and "ValueError: bad thing" in text


@pytest.mark.allow_log_warnings
def test_verbose_terminal_shows_info_and_without_a_file_names_the_exception():
    terminal = io.StringIO()
    logsetup.setup_console(verbose=True, stream=terminal)
    log = logging.getLogger("tic")
    log.info("checking")
    try:
        raise KeyError("x")
    except KeyError:
        log.exception("failed")
    assert terminal.getvalue() == "INFO tic: checking\nERROR tic: failed (KeyError: 'x')\n"


def log_file_handler() -> logging.handlers.RotatingFileHandler:
    (handler,) = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.handlers.RotatingFileHandler)
    ]
    return handler


@pytest.fixture
def tiny_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk holding the log reports 32 KB free."""
    monkeypatch.setattr(disk, "disk_usage", lambda _path: disk.Usage(10**9, 10**9, 32 * 1024))


@pytest.mark.allow_log_warnings
@pytest.mark.skipif(not FULL_DEVICE.exists(), reason="no /dev/full to write ENOSPC into")
def test_a_full_disk_drops_log_records_quietly_and_says_so_once(workspace, tiny_disk, capsys):
    """The issue's case: at 192 KB free `ingest` ended in an uncaught ENOSPC from the log's
    teardown, and `tick` printed logging's "--- Logging error ---" tracebacks. /dev/full
    answers every write with the real ENOSPC."""
    terminal = io.StringIO()
    logsetup.setup_console(stream=terminal)
    path = logsetup.setup_logging(workspace)
    handler = log_file_handler()
    handler.stream.close()
    handler.stream = FULL_DEVICE.open("w", encoding="utf-8")
    log = logging.getLogger("engine.test")
    for n in range(30):
        log.info("step %d", n)
        log.warning("event %d failed", n)
    logsetup.teardown_logging()  # flushing and closing on the full disk raise nothing
    assert terminal.getvalue().splitlines() == [
        f"WARNING engine.logs.file: cannot write the log {path}: the disk is full (32 KB free); "
        "log records are dropped until it can be written",  # at the first record, "step 0"
        *(f"WARNING engine.test: event {n} failed" for n in range(10)),
        "WARNING engine.test: event 29 failed (20 more like this)",
    ]
    assert "Logging error" not in capsys.readouterr().err
    assert "step" not in path.read_text()


@pytest.mark.allow_log_warnings
@pytest.mark.skipif(not FULL_DEVICE.exists(), reason="no /dev/full to write ENOSPC into")
def test_once_the_disk_has_room_the_log_says_how_many_records_it_lost(workspace, tiny_disk):
    path = logsetup.setup_logging(workspace)
    handler = log_file_handler()
    good = handler.stream
    handler.stream = FULL_DEVICE.open("w", encoding="utf-8")
    log = logging.getLogger("engine.test")
    for n in range(3):
        log.info("lost %d", n)
    with contextlib.suppress(OSError):  # what it still buffers cannot be written either
        handler.stream.close()
    handler.stream = good  # space again
    log.info("written again")
    logsetup.teardown_logging()
    lines = path.read_text().splitlines()
    assert (
        "WARNING engine.logs.file: 3 log record(s) were dropped: the disk is full (32 KB free)"
        in (lines[-2])
    )
    assert lines[-1].endswith("INFO engine.test: written again")
    assert "lost" not in path.read_text()


@pytest.mark.allow_log_warnings
def test_a_log_folder_that_cannot_be_written_never_shows_a_logging_traceback(workspace, capsys):
    path = logsetup.setup_logging(workspace)
    handler = log_file_handler()
    handler.stream.close()
    handler.stream = path.open("r", encoding="utf-8")  # every write: OSError (not writable)
    logging.getLogger("engine.test").warning("not written")
    logsetup.teardown_logging()
    assert "Logging error" not in capsys.readouterr().err


def test_a_repeated_warning_is_logged_ten_times_a_minute_then_counted_in_one_line():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    now = [0.0]
    handler.addFilter(logsetup.RepeatLimit(handler, clock=lambda: now[0]))
    log = logging.getLogger("engine.flood")
    log.addHandler(handler)
    log.propagate = False
    try:
        for n in range(1100):
            log.warning("IPC request failed: %s", f"garbage {n}")
        log.warning("a different warning")  # its own template: not held back
        assert out.getvalue().splitlines() == [
            *(f"IPC request failed: garbage {n}" for n in range(10)),
            "a different warning",
        ]
        now[0] = 61.0  # the minute is over: the next warning says what was held back
        log.warning("IPC request failed: %s", "once more")
        assert out.getvalue().splitlines()[-2:] == [
            "IPC request failed: garbage 1099 (1090 more like this)",
            "IPC request failed: once more",
        ]
        log.info("info is never held back")
    finally:
        log.removeHandler(handler)
        log.propagate = True


@pytest.mark.allow_log_warnings
def test_a_password_in_a_url_never_reaches_the_log_file_or_the_terminal(workspace):
    terminal = io.StringIO()
    logsetup.setup_console(stream=terminal)
    path = logsetup.setup_logging(workspace)
    log = logging.getLogger("engine.test")
    url = "http://alice:s3cr3t@llm-box.example:8080/v1"
    log.warning("model server %s unreachable", url)
    try:
        raise ConnectionError(f"cannot reach {url}")
    except ConnectionError:
        log.exception("it broke")
    logsetup.teardown_logging()
    text = path.read_text()
    assert "s3cr3t" not in text + terminal.getvalue()
    assert "model server http://alice:***@llm-box.example:8080/v1 unreachable" in text
    assert "ConnectionError: cannot reach http://alice:***@llm-box.example:8080/v1" in text
    assert "http://alice:***@llm-box.example:8080/v1" in terminal.getvalue()
