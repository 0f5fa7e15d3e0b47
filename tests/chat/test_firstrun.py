"""The first run: the built-in model's limits said plainly, and the recommended catalog
model for this computer offered with its size and download time (at a stated speed) —
through the façade (``Engine.models.offer``), never required."""

from __future__ import annotations

import pytest

from engine.bus import ModelDownloadEnded, ModelDownloadProgress
from engine.chat.firstrun import BUILTIN_CAN, BUILTIN_CANNOT, offer_text, terminal_welcome
from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.modeltypes import GB, TYPICAL_MBIT_S, MachineInfo, ModelOffer, human_bytes
from engine.settings import Settings
from tests import test_model_service

LAPTOP = MachineInfo(memory_total=8 * GB, memory_available=4 * GB, cores=2, disk_free=50 * GB)


async def engine_on(workspace, model: ScriptedModel) -> Engine:
    engine = Engine(workspace, Settings(), model)
    engine.models.machine_probe = lambda: LAPTOP
    return engine


async def test_a_tiny_model_is_offered_the_recommended_model(workspace):
    engine = await engine_on(workspace, ScriptedModel(capability="tiny"))
    try:
        offer = engine.models.offer()
        recommended = [c for c in engine.models.choices(LAPTOP) if c.recommended]
        assert offer is not None and [offer.name] == [c.name for c in recommended]
        assert offer.size == recommended[0].size and not offer.downloaded
        text = offer_text(offer)
        assert offer.title in text and human_bytes(offer.size) in text
        minutes = round(offer.size * 8 / (TYPICAL_MBIT_S * 1e6) / 60)
        assert f"about {minutes} minutes to download at {TYPICAL_MBIT_S} Mbit/s" in text
        assert "open questions" in text and "Optional" in text and "For a real assistant" in text
    finally:
        await engine.stop()


async def test_a_capable_model_is_offered_nothing(workspace):
    engine = await engine_on(workspace, ScriptedModel(capability="capable"))
    try:
        assert engine.models.offer() is None
    finally:
        await engine.stop()


def test_the_download_time_is_said_at_the_assumed_speed():
    offer = ModelOffer("m", "Model M", 2_000_000_000, "A model.")
    assert offer.seconds == 2_000_000_000 * 8 / (TYPICAL_MBIT_S * 1_000_000)
    assert offer.describe() == "Model M (2.0 GB, about 5 minutes to download at 50 Mbit/s)"
    small = ModelOffer("s", "Model S", 300_000_000, "A small one.")
    assert small.time_text() == "about a minute at 50 Mbit/s"
    here = ModelOffer("m", "Model M", 2_000_000_000, "A model.", downloaded=True)
    assert here.describe() == "Model M (2.0 GB, already downloaded)"


def test_the_terminal_welcome_says_what_the_built_in_model_can_and_cant_do():
    offer = ModelOffer("model-m", "Model M", 2_000_000_000, "A model.")
    lines = terminal_welcome(offer)
    assert lines[:2] == [BUILTIN_CAN, BUILTIN_CANNOT]
    assert "what you missed" in BUILTIN_CAN and "can't chat" in BUILTIN_CANNOT
    assert lines[-1] == "To get it: tic-desktop model pull model-m && tic-desktop model use model-m"
    assert terminal_welcome(None) == [BUILTIN_CAN, BUILTIN_CANNOT]


hub = test_model_service.hub  # the fake Hugging Face hub and its one catalog model
smol = test_model_service.smol


@pytest.mark.real_model  # loads the downloaded (embedded) GGUF
async def test_the_offers_one_click_downloads_the_model_and_uses_it(engine, smol):
    seen: list[object] = []
    engine.bus.subscribe(seen.append)
    applied = await engine.models.get_and_use("smol")
    assert applied.model_changed and applied.model_error is None
    path = engine.workspace.models_dir / test_model_service.FILE
    assert Settings.load(engine.workspace.settings_file).model_path == str(path.resolve())
    assert engine.models.describe_current() == "SmolLM2 135M (smol)"
    assert [m.state.phase for m in seen if isinstance(m, ModelDownloadEnded)] == ["finished"]
    seen.clear()
    await engine.models.get_and_use("smol")  # here already: used, not downloaded again
    assert not [m for m in seen if isinstance(m, ModelDownloadProgress | ModelDownloadEnded)]
