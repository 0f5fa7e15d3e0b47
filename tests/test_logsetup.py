"""One log for the app and the command line: the workspace's rotating logs/tic.log, and on
the terminal one line per warning, never a traceback."""

from __future__ import annotations

import io
import logging
import logging.handlers

import pytest

from engine import logsetup


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
