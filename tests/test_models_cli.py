"""``tic-desktop model list | pull | use | rm | servers``, as a user runs them: in a
subprocess against a fake Hugging Face endpoint (``HF_ENDPOINT``) that serves the embedded
model's GGUF file, including a ``pull`` killed halfway and run again."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.llm.library import part_path
from engine.llm.scripted import ScriptedModel
from engine.llm.select import default_model_path
from engine.modeltypes import GB, DownloadState, MachineInfo
from engine.settings import Settings
from engine.workspace import Workspace
from tests.cli_helpers import ROOT
from tests.llm.fake_hub import FakeHub, Served
from tests.llm.fake_servers import FakeModelServer
from tic_cli import cli
from tic_cli.models_cli import ProgressBar

REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
REVISION = "0123456789abcdef0123456789abcdef01234567"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SAMPLE = ROOT / "tests" / "llm" / "catalog_sample.toml"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        yield fake


@pytest.fixture
def served(hub: FakeHub) -> Served:
    return hub.serve(REPO, REVISION, FILE, default_model_path())


@pytest.fixture
def env(tmp_path: Path, hub: FakeHub, served: Served, monkeypatch) -> dict[str, str]:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        SAMPLE.read_text()
        .replace('sha256 = ""', f'sha256 = "{served.sha256}"')
        .replace("size = 100", f"size = {served.size}")
    )
    values = {
        "TIC_HOME": str(tmp_path / "home"),
        "TIC_MODEL_CATALOG": str(catalog),
        "HF_ENDPOINT": hub.url,
        "HF_HOME": str(tmp_path / "hf-home"),
        "TIC_ALLOW_MODEL_REQUESTS": "0",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return dict(os.environ, **values)


def tic(*args: str, env: dict[str, str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tic_desktop", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


def test_list_shows_the_catalog_for_a_faked_computer(tmp_path, monkeypatch, capsys):
    import engine.model_service as service

    laptop = MachineInfo(8 * GB, int(3 * GB), cores=2, disk_free=50 * GB)
    monkeypatch.setattr(service, "probe_machine", lambda _dir: laptop)
    home = tmp_path / "home"

    assert cli.main(["--home", str(home), "model", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    by_name = {m["name"]: m for m in listing["models"]}
    assert by_name["qwen2.5-3b"]["recommended"] is True
    assert by_name["llama3.2-3b"]["fits"] is False
    assert by_name["llama3.2-3b"]["status"] == "needs 3.3 GB of free memory, 3.0 GB is free"
    assert listing["current"] == "the embedded SmolLM2-135M"

    assert cli.main(["--home", str(home), "model", "list"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("This computer: 3.0 GB of 8.0 GB memory free, 2 CPU cores")
    assert "*  qwen2.5-3b" in text and "recommended for this computer" in text


def test_a_pull_killed_halfway_resumes_from_its_partial_file(env, hub, served, tmp_path):
    hub.stall_after = 50_000_000
    with subprocess.Popen(
        [sys.executable, "-m", "tic_desktop", "model", "pull", "smol", "--json"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as first:
        try:
            assert hub.stalled.wait(60), "the download never reached the stall"
            time.sleep(0.5)  # the last chunk before the stall reaches the disk
            first.send_signal(signal.SIGKILL)
        finally:
            hub.release.set()
            output, _errors = first.communicate(timeout=30)
    part = part_path(Path(env["TIC_HOME"]) / "models", FILE)
    kept = part.stat().st_size
    assert 40_000_000 < kept <= 50_000_000
    progress = [json.loads(line) for line in output.splitlines()]
    assert [p["event"] for p in progress[:2]] == ["starting", "downloading"]  # JSON lines

    again = tic("model", "pull", "smol", "--json", env=env)
    assert again.returncode == 0, again.stderr
    lines = [json.loads(line) for line in again.stdout.splitlines()]
    assert lines[-1] == {
        "event": "done",
        "name": "smol",
        "path": str(Path(env["TIC_HOME"]) / "models" / FILE),
    }
    assert hub.gets()[-1]["range"] == f"bytes={kept}-"  # it asked only for the rest
    assert not part.exists()


def test_pull_use_and_rm_without_the_app(env):
    pulled = tic("model", "pull", "smol", env=env)
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout.splitlines()[-1] == "Use it: tic-desktop model use smol"

    used = tic("model", "use", "smol", env=env)
    assert used.returncode == 0, used.stderr
    assert used.stdout.strip() == "TIC will use SmolLM2 135M (smol) from its next start"
    saved = Settings.load(Path(env["TIC_HOME"]) / "settings.json")
    assert saved.model_path == str(Path(env["TIC_HOME"]) / "models" / FILE)

    refused = tic("model", "rm", "smol", env=env)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        f"tic-desktop: error: {FILE} is the model in use: choose another one first"
    )
    assert tic("model", "use", "embedded", env=env).returncode == 0
    removed = tic("model", "rm", "smol", "--json", env=env)
    assert json.loads(removed.stdout) == {
        "ok": True,
        "deleted": [str(Path(env["TIC_HOME"]) / "models" / FILE)],
    }


def test_pull_of_an_unknown_model_or_without_internet_is_one_line(env, monkeypatch):
    unknown = tic("model", "pull", "gpt-9", env=env)
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("tic-desktop: error: no model 'gpt-9' in the catalog")
    offline = tic("model", "pull", "smol", env=dict(env, HF_ENDPOINT="http://127.0.0.1:9"))
    assert offline.returncode == 1
    assert "cannot reach 127.0.0.1:9" in offline.stderr and "Traceback" not in offline.stderr
    assert len(offline.stderr.strip().splitlines()) == 1


def test_the_progress_bar_is_drawn_in_place_on_a_terminal():
    out = io.StringIO()
    bar = ProgressBar(out, tty=True)
    bar.update(DownloadState("smol", "Smol", 49_000_000, 98_000_000, 5e6, 9.8, "downloading"))
    bar.close()
    drawn = out.getvalue()
    assert drawn.startswith("\r\x1b[K[############............] Smol: 50 % — 49.0 MB of 98.0 MB")
    assert "5.0 MB/s, 10 s left" in drawn and drawn.endswith("\r\x1b[K")
    quiet = io.StringIO()
    ProgressBar(quiet, tty=False).update(DownloadState("smol", "Smol", 1, 2, phase="downloading"))
    assert quiet.getvalue() == ""


def test_servers_lists_what_runs_here(env):
    with FakeModelServer("ollama") as ollama:
        out = tic("model", "servers", ollama.url, env=env)
    assert out.returncode == 0, out.stderr
    assert f"Ollama at {ollama.url}\n  llama3.2:latest (3.2B, Q4_K_M, 2.0 GB)\n" in out.stdout
    assert f"tic-desktop model use {ollama.url} --server-model llama3.2:latest" in out.stdout


@pytest.mark.real_model  # the running app loads the model it is handed
@pytest.mark.allow_log_warnings  # the refused rm is logged
async def test_use_and_rm_are_handed_to_the_running_app(env):
    workspace = Workspace.open(Path(env["TIC_HOME"]))
    pulled = await asyncio.to_thread(tic, "model", "pull", "smol", env=env)
    assert pulled.returncode == 0, pulled.stderr
    app = Engine(workspace, Settings(), ScriptedModel())
    await app.start(schedule=False)
    await app.serve({})
    try:
        used = await asyncio.to_thread(
            cli.main, ["--home", str(workspace.root), "model", "use", "smol"]
        )
        assert used == 0
        assert app.model_name == FILE.removesuffix(".gguf")  # swapped live
        assert app.settings.model_path == str(workspace.models_dir / FILE)
        refused = await asyncio.to_thread(
            cli.main, ["--home", str(workspace.root), "model", "rm", "smol"]
        )
        assert refused == 1 and (workspace.models_dir / FILE).exists()
    finally:
        await app.stop()
