"""Strict test setup: warnings are errors (pyproject), unexpected log warnings fail a test,
real model use is forbidden unless a test is marked ``real_model`` (requests to a model
server on 127.0.0.1: ``server``), and each test gets the markers of what it uses
(tests/markers.py): ``pytest -m "not slow and not desktop and not real_model"`` is the
developer's fast run."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.llm.guard import allow_model_requests
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store.db import close_database, open_database
from engine.workspace import Workspace
from tests.markers import DESKTOP_DIR, deselects_every, markers_for


@pytest.hookimpl(tryfirst=True)  # before -m deselects by them
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for name in markers_for(item):
            item.add_marker(name)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m "not desktop"`` does not even import tests/desktop/ (nor Qt)."""
    if collection_path == DESKTOP_DIR and deselects_every("desktop", config.option.markexpr):
        return True
    return None


@pytest.fixture(autouse=True)
def _model_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    weights = request.node.get_closest_marker("real_model") is not None
    server = request.node.get_closest_marker("server") is not None
    allow_model_requests(weights, servers=weights or server)
    yield
    allow_model_requests(False)


@pytest.fixture(autouse=True)
def _fail_on_log_warnings(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> Iterator[None]:
    caplog.set_level(logging.INFO)
    yield
    if request.node.get_closest_marker("allow_log_warnings"):
        return
    bad = [r for r in caplog.get_records("call") if r.levelno >= logging.WARNING]
    if bad:
        lines = "\n".join(f"{r.levelname} {r.name}: {r.getMessage()}" for r in bad)
        pytest.fail(f"unexpected log warnings:\n{lines}", pytrace=False)


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Workspace:
    monkeypatch.setenv("TIC_HOME", str(tmp_path / "home"))
    return Workspace.open(tmp_path / "home")


@pytest.fixture
def db(workspace: Workspace) -> Iterator[object]:
    database = open_database(workspace.db_path)
    yield database
    close_database()


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
async def engine(workspace: Workspace, model: ScriptedModel, settings: Settings):
    from engine.engine import Engine

    eng = Engine(workspace, settings, model, retry_delays=(0.05, 0.1))
    await eng.start(schedule=False)
    yield eng
    await eng.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """llama-cpp-python opens /dev/null at import and never closes it; close it here so the
    interpreter's exit does not report it."""
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None and not handle.closed:
            handle.close()
