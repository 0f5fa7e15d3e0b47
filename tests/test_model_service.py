"""``Engine.models``: the catalog as it fits the computer, downloads reported on the bus,
using a model live (a download, a file, a server), deleting one, and a model server that is
down. Over real HTTP to fake servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.bus import (
    ModelDownloadEnded,
    ModelDownloadProgress,
    ModelFailed,
    ModelServerDown,
    ModelServerUp,
)
from engine.engine import Engine
from engine.errors import ModelError
from engine.llm.download import DownloadCancelled
from engine.llm.library import part_path
from engine.llm.scripted import ScriptedModel
from engine.llm.select import default_model_path
from engine.modeltypes import GB, MachineInfo
from engine.settings import Settings
from tests import keyring_memory
from tests.factories import notification, reply
from tests.llm.fake_hub import FakeHub, Served
from tests.llm.fake_servers import FakeModelServer
from tests.waits import until

memory_keyring = keyring_memory.memory_keyring
SAMPLE = Path(__file__).parent / "llm" / "catalog_sample.toml"
REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
REVISION = "0123456789abcdef0123456789abcdef01234567"


def recorded(engine: Engine) -> list[Any]:
    seen: list[Any] = []
    engine.bus.subscribe(seen.append)
    return seen


async def ended_download(seen: list[Any]) -> None:
    for _ in range(600):
        if any(isinstance(m, ModelDownloadEnded) for m in seen):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the download did not end")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_catalog(path: Path, served: Served) -> Path:
    text = SAMPLE.read_text()
    text = text.replace('sha256 = ""', f'sha256 = "{served.sha256}"')
    text = text.replace("size = 100", f"size = {served.size}")
    path.write_text(text)
    return path


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture
def smol(hub: FakeHub, engine: Engine, tmp_path: Path) -> Served:
    """The catalog has one model, the embedded SmolLM2 file, served by the fake hub."""
    served = hub.serve(
        "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", REVISION, FILE, default_model_path()
    )
    engine.models.catalog_path = write_catalog(tmp_path / "catalog.toml", served)
    return served


# --- the catalog ---------------------------------------------------------------------------


def test_choices_show_what_fits_a_faked_computer(engine):
    laptop = MachineInfo(8 * GB, int(3 * GB), cores=2, disk_free=100 * GB)
    choices = {c.name: c for c in engine.models.choices(laptop)}
    assert choices["qwen2.5-3b"].recommended and choices["qwen2.5-3b"].status == (
        "recommended for this computer"
    )
    assert choices["qwen2.5-7b"].status == (
        "needs 5.6 GB of free memory, 3.0 GB is free; "
        "needs 4 CPU cores to answer at a usable speed, this computer has 2"
    )
    assert not any(c.path or c.partial or c.in_use for c in choices.values())
    assert engine.models.describe_current() == "scripted"  # the model running now


# --- downloads -----------------------------------------------------------------------------


async def test_a_download_is_reported_on_the_bus_and_then_listed(engine, smol):
    seen = recorded(engine)
    path = await engine.models.download("smol")

    progress = [m.state for m in seen if isinstance(m, ModelDownloadProgress)]
    assert progress and progress[-1].done == smol.size
    (ended,) = [m.state for m in seen if isinstance(m, ModelDownloadEnded)]
    assert (ended.phase, ended.path, ended.describe()) == (
        "finished",
        path,
        "SmolLM2 135M: downloaded and verified",
    )
    (choice,) = engine.models.choices()
    assert choice.path == path and choice.status == "downloaded"
    (installed,) = engine.models.installed()
    assert (installed.name, installed.sha256) == ("smol", smol.sha256)


@pytest.mark.allow_log_warnings  # huggingface_hub may warn that it retries the held request
async def test_a_paused_download_keeps_its_bytes_and_resumes(engine, smol, hub):
    hub.stall_after = 40_000_000
    seen = recorded(engine)
    engine.models.start_download("smol")
    await asyncio.to_thread(hub.stalled.wait, 30)
    await asyncio.sleep(0.5)  # what arrived before the stall reaches the disk
    assert engine.models.downloading() == ["smol"]
    assert engine.models.cancel_download("smol")
    hub.release.set()
    await ended_download(seen)

    (ended,) = [m.state for m in seen if isinstance(m, ModelDownloadEnded)]
    assert ended.phase == "cancelled" and ended.done > 30_000_000
    assert ended.describe().startswith("SmolLM2 135M: download paused (")
    (choice,) = engine.models.choices()
    kept = part_path(engine.workspace.models_dir, FILE).stat().st_size
    assert choice.partial == kept and choice.status.endswith("downloaded")

    await engine.models.download("smol")
    assert hub.gets()[-1]["range"] == f"bytes={kept}-"


async def test_a_failed_download_says_why_and_the_model_stays(engine, smol, hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    seen = recorded(engine)
    with pytest.raises(ModelError, match="no internet connection"):
        await engine.models.download("smol")
    (ended,) = [m.state for m in seen if isinstance(m, ModelDownloadEnded)]
    assert ended.phase == "failed" and "TIC keeps its current model" in (ended.error or "")
    assert engine.model_error is None and engine.model_name == "scripted"


@pytest.mark.allow_log_warnings  # the background download's failure is logged
async def test_a_background_download_failure_is_a_bus_message(engine, smol, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    seen = recorded(engine)
    engine.models.start_download("smol")
    await ended_download(seen)
    assert engine.models.downloads["smol"].phase == "failed"


async def test_stopping_the_engine_pauses_a_download(workspace, smol, hub):
    hub.stall_after = 20_000_000
    engine = Engine(workspace, Settings(), ScriptedModel())
    engine.models.catalog_path = write_catalog(workspace.root / "catalog.toml", smol)
    task = asyncio.create_task(engine.models.download("smol"))
    await asyncio.to_thread(hub.stalled.wait, 30)
    await engine.stop()
    hub.release.set()
    with pytest.raises(DownloadCancelled):
        await task
    assert part_path(workspace.models_dir, FILE).stat().st_size > 10_000_000


# --- using and removing --------------------------------------------------------------------


@pytest.mark.real_model  # loads the downloaded (embedded) GGUF
async def test_a_downloaded_model_is_used_live_and_kept_in_the_settings(engine, model, smol):
    path = await engine.models.download("smol")
    applied = await engine.models.use("smol")
    assert applied.model_changed and applied.model_error is None
    assert model.closed and engine.model_name == path.stem
    assert Settings.load(engine.workspace.settings_file).model_path == str(path)
    assert engine.models.describe_current() == "SmolLM2 135M (smol)"
    (choice,) = engine.models.choices()
    assert choice.in_use and choice.status == "in use"

    with pytest.raises(ModelError, match="is the model in use: choose another one first"):
        engine.models.remove("smol")
    await engine.models.use("embedded")
    assert [p.name for p in engine.models.remove("smol")] == [FILE]
    assert engine.models.installed() == []


def test_using_what_is_not_there_is_one_line(engine, tmp_path):
    with pytest.raises(ModelError, match=r"Qwen2\.5 3B Instruct is not downloaded yet: "):
        engine.models.settings_for("qwen2.5-3b")
    with pytest.raises(ModelError, match="no model 'gpt-9': give a catalog name"):
        engine.models.settings_for("gpt-9")
    with pytest.raises(ModelError, match="model file not found"):
        engine.models.settings_for(str(tmp_path / "none.gguf"))
    with pytest.raises(ModelError, match="is not in"):
        engine.models.remove("qwen2.5-3b")
    settings = engine.models.settings_for("localhost:11434", "llama3.2")
    assert (settings.model_path, settings.server_model) == ("http://localhost:11434/v1", "llama3.2")


# --- servers -------------------------------------------------------------------------------


async def test_a_model_run_by_ollama_is_found_chosen_and_answers(engine):
    with FakeModelServer("ollama") as ollama:
        (found,) = [s for s in await engine.models.find_servers([ollama.url]) if s.kind == "Ollama"]
        assert [m.id for m in found.models] == ["llama3.2:latest"]

        applied = await engine.models.use(found.url)  # one chat model: it is the one
        assert applied.model_error is None
        assert (engine.settings.model_path, engine.settings.server_model) == (
            ollama.url,
            "llama3.2:latest",
        )
        ollama.answers.append(reply("Hello from Ollama."))
        assert (await engine.send("hi")).text == "Hello from Ollama."
        assert ollama.chats()[-1]["model"] == "llama3.2:latest"


async def test_a_model_run_by_lm_studio_is_chosen_by_name_with_its_key(engine, memory_keyring):
    with FakeModelServer("lmstudio", api_key="sk-lm") as lmstudio:
        (found,) = await engine.models.find_servers([lmstudio.url])
        assert found.needs_key and found.error == "it asks for an API key"
        engine.models.set_server_key(lmstudio.url, "sk-lm")
        (found,) = [s for s in await engine.models.find_servers([lmstudio.url]) if s.models]
        assert [m.id for m in found.models] == ["qwen2.5-7b-instruct"]

        await engine.models.use(lmstudio.url, "qwen2.5-7b-instruct")
        lmstudio.answers.append(reply("Hello from LM Studio."))
        assert (await engine.send("hi")).text == "Hello from LM Studio."


class SlowModel(ScriptedModel):
    """A model whose calls wait until the test releases them."""

    def __init__(self) -> None:
        super().__init__(default=reply("The whole answer from the old model."))
        self.started, self.release = asyncio.Event(), asyncio.Event()

    async def complete(self, messages, **kwargs):  # type: ignore[override]
        self.started.set()
        await self.release.wait()
        return await super().complete(messages, **kwargs)


async def test_the_live_swap_waits_for_the_turn_running_on_the_old_model(workspace):
    """A turn is running when the user picks another model: it ends on the old model, with
    its whole reply; the old model is closed after it; the next turn uses the new one."""
    old = SlowModel()
    engine = Engine(workspace, Settings(), old)
    await engine.start(schedule=False)
    try:
        with FakeModelServer("lmstudio") as lmstudio:
            turn = asyncio.create_task(engine.send("a long question"))
            await asyncio.wait_for(old.started.wait(), 5)
            swap = asyncio.create_task(engine.models.use(lmstudio.url, "qwen2.5-7b-instruct"))
            new_name = f"qwen2.5-7b-instruct at {lmstudio.url}"
            await until(lambda: engine.model_name == new_name, what="the swap")
            assert not swap.done() and not old.closed  # it waits for the running call

            old.release.set()
            assert (await turn).text == "The whole answer from the old model."
            applied = await asyncio.wait_for(swap, 5)
            assert applied.model_changed and applied.model_error is None and old.closed
            lmstudio.answers.append(reply("From the new model."))
            assert (await engine.send("and now?")).text == "From the new model."
    finally:
        await engine.stop()


async def test_a_server_that_is_down_is_said_and_its_return_too(engine):
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    seen = recorded(engine)
    applied = await engine.apply_settings(engine.settings.model_copy(update={"model_path": url}))
    assert applied.model_changed
    error = await engine.load_model()
    assert error == f"model server {url} unreachable: [Errno 111] Connection refused"
    assert ModelFailed(error) in seen

    await engine.models._check_server()
    assert seen[-1] == ModelServerDown(url, "nothing answers there (connection refused)")
    with FakeModelServer("llamacpp", port=port):
        await engine.models._check_server()
        assert seen[-1] == ModelServerUp(url)
        await engine.models._check_server()
        assert seen[-1] == ModelServerUp(url)  # said once


@pytest.mark.allow_log_warnings  # the failed wording attempts are logged
async def test_notifications_are_delivered_in_plain_words_while_the_server_is_down(engine):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    await engine.apply_settings(engine.settings.model_copy(update={"model_path": url}))
    await engine.hub.notify(
        notification(
            {
                "source": "whatsapp",
                "event_type": "whatsapp.message",
                "summary": "Anna Berg asks whether you are coming tonight.",
                "event_time": "2026-11-10T07:00:00+00:00",
                "refs": {"event_id": "wa:1"},
            }
        )
    )
    assert await engine.hub.drain(timeout=10)
    (row,) = [r for r in engine.history(5) if r["role"] == "assistant" and r["content"]]
    assert row["fallback"] is True
    assert row["content"] == "WhatsApp: Anna Berg asks whether you are coming tonight."
