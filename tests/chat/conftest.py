"""Fixtures the chat's tests share."""

from __future__ import annotations

import pytest

from engine.engine import Engine
from engine.llm.scripted import ScriptedModel


@pytest.fixture
async def tiny_engine(workspace, settings):
    engine = Engine(workspace, settings, ScriptedModel(capability="tiny"))
    await engine.start(schedule=False)
    yield engine
    await engine.stop()
