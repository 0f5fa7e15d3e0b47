"""Downloading a model over real HTTP from a fake Hugging Face endpoint on 127.0.0.1
(``HF_ENDPOINT``) that serves the embedded model's real GGUF file with range requests."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.llm.catalog import CatalogEntry
from engine.llm.download import DownloadCancelled, DownloadError, download
from engine.llm.library import MANIFEST, part_path
from engine.llm.select import default_model_path
from engine.modeltypes import DownloadState
from tests.llm.fake_hub import FakeHub, Served

REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
REVISION = "0123456789abcdef0123456789abcdef01234567"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Qwen2.5-0.5B's published sha256: not the file the fake hub serves.
OTHER_SHA256 = "6eb923e7d26e9cea28811e1a8e852009b21242fb157b26149d3b188f3a8c8653"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeHub]:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    with FakeHub() as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


@pytest.fixture
def served(hub: FakeHub) -> Served:
    return hub.serve(REPO, REVISION, FILE, default_model_path())


def entry_for(served: Served, **changes: object) -> CatalogEntry:
    entry = CatalogEntry(
        name="smol",
        title="SmolLM2 135M",
        repo=served.repo,
        file=served.file,
        revision=served.revision,
        size=served.size,
        size_exact=True,
        sha256=served.sha256,
        parameters="135M",
        context_length=8192,
        ram_gb=0.5,
        min_cores=1,
        licence="Apache-2.0",
        capability="tiny",
        preference=1,
        summary="the embedded model, served back",
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


def visible(models: Path) -> list[str]:
    """The files a user sees in models/ (not the lock or the manifest)."""
    return sorted(p.name for p in models.iterdir() if not p.name.startswith("."))


def manifest(models: Path) -> dict:
    return json.loads((models / MANIFEST).read_text())[FILE]


def test_a_download_reports_progress_and_is_verified_before_it_appears(hub, served, tmp_path):
    models = tmp_path / "models"
    states: list[DownloadState] = []

    path = download(entry_for(served), models, on_progress=states.append)

    assert path == models / FILE and path.stat().st_size == served.size
    assert not part_path(models, FILE).exists()
    phases = [s.phase for s in states]
    assert phases[0] == "starting" and phases[-2:] == ["verifying", "finished"]
    moving = [s for s in states if s.phase == "downloading"]
    assert moving[-1].done == served.size and all(s.total == served.size for s in moving)
    assert [s.done for s in moving] == sorted(s.done for s in moving)
    assert "of 98.4 MB" in moving[-1].describe()
    record = manifest(models)
    assert record["sha256"] == served.sha256 and record["sha256_checked_against"] == "catalog"
    assert (record["repo"], record["revision"]) == (REPO, REVISION)
    (get,) = hub.gets()
    assert get["host"] == "cdn" and get["range"] is None


def test_the_rate_and_time_left_are_measured(hub, served, tmp_path, monkeypatch):
    import engine.llm.download as module

    monkeypatch.setattr(module, "REPORT_EVERY", 0.0)
    states: list[DownloadState] = []
    download(entry_for(served), tmp_path / "models", on_progress=states.append)
    measured = [s for s in states if s.phase == "downloading" and s.rate > 0]
    assert measured and all(s.eta is not None and s.eta >= 0 for s in measured)
    assert "/s" in measured[0].describe() and "left" in measured[0].describe()


@pytest.mark.allow_log_warnings  # huggingface_hub warns that it resumes
def test_a_dropped_connection_resumes_from_the_bytes_already_there(hub, served, tmp_path):
    hub.drop_after = 30_000_000
    path = download(entry_for(served), tmp_path / "models")

    first, second = hub.gets()
    assert first["range"] is None
    offset = int(second["range"].removeprefix("bytes=").removesuffix("-"))
    assert 20_000_000 < offset <= 30_000_000  # what had reached the disk
    assert manifest(tmp_path / "models")["sha256"] == served.sha256
    assert path.stat().st_size == served.size


@pytest.mark.allow_log_warnings  # huggingface_hub may warn that it retries the held request
def test_cancel_keeps_the_partial_file_and_the_next_download_resumes(hub, served, tmp_path):
    models = tmp_path / "models"
    hub.stall_after = 40_000_000
    cancel = threading.Event()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            download(entry_for(served), models, cancel=cancel)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert hub.stalled.wait(30)
    cancel.set()
    hub.release.set()  # the next bytes arrive: the cancelled download stops there
    worker.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], DownloadCancelled)
    kept = part_path(models, FILE).stat().st_size
    assert kept > 30_000_000 and not (models / FILE).exists()

    download(entry_for(served), models)
    assert hub.gets()[-1]["range"] == f"bytes={kept}-"
    assert (models / FILE).stat().st_size == served.size


def test_a_corrupt_file_is_rejected_by_its_sha256_and_deleted(hub, served, tmp_path):
    models = tmp_path / "models"
    with pytest.raises(DownloadError) as info:
        download(entry_for(served, sha256=OTHER_SHA256), models)
    assert str(info.value) == (
        f"{FILE} is corrupt: its sha256 {served.sha256[:12]}… differs from the catalog's "
        f"{OTHER_SHA256[:12]}…; the download was deleted, try again"
    )
    assert visible(models) == []


def test_without_a_catalog_sha256_the_hubs_is_checked(hub, served, tmp_path):
    download(entry_for(served, sha256=None), tmp_path / "models")
    assert manifest(tmp_path / "models")["sha256_checked_against"] == "hub"


def test_without_any_published_sha256_the_size_and_header_are_checked_and_the_hash_kept(
    hub, tmp_path
):
    served = hub.serve(REPO, REVISION, FILE, default_model_path(), publish_sha256=False)
    download(entry_for(served, sha256=None), tmp_path / "models")
    record = manifest(tmp_path / "models")
    assert record["sha256_checked_against"] == "none" and record["sha256"] == served.sha256


def test_a_file_that_is_not_gguf_is_refused(hub, tmp_path):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"<html>rate limited</html>" * 1000)
    served = hub.serve(REPO, REVISION, FILE, fake)
    with pytest.raises(DownloadError, match=r"is not a valid GGUF file \(not a GGUF file\)"):
        download(entry_for(served, sha256=None), tmp_path / "models")
    assert visible(tmp_path / "models") == []


def test_a_catalog_size_that_differs_from_the_hubs_is_refused(hub, served, tmp_path):
    with pytest.raises(DownloadError, match="the catalog entry needs updating"):
        download(entry_for(served, size=123), tmp_path / "models")


def test_no_internet_is_one_clear_line(monkeypatch, tmp_path, served):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(DownloadError) as info:
        download(entry_for(served), tmp_path / "models")
    message = str(info.value)
    assert message.startswith(f"cannot reach 127.0.0.1:{port}: ")
    assert message.endswith(" — no internet connection? TIC keeps its current model")
    assert "\n" not in message and time.monotonic() - started < 10


def test_offline_says_so_in_words_not_an_errno(monkeypatch, tmp_path, served):
    """With no network the hub's name cannot be looked up: "[Errno -2] Name or service not
    known" became a sentence."""

    def no_dns(*_args: object, **_kwargs: object) -> list[object]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setenv("HF_ENDPOINT", "https://hub.tic-offline.test")
    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    with pytest.raises(DownloadError) as info:
        download(entry_for(served), tmp_path / "models")
    assert str(info.value) == (
        "no internet connection: cannot reach hub.tic-offline.test (its address could not be "
        "looked up); TIC keeps its current model"
    )


def test_a_gated_repository_needs_the_token_which_never_leaves_the_hub(hub, tmp_path):
    served = hub.serve(REPO, REVISION, FILE, default_model_path(), gated=True)
    # huggingface_hub finds no token of its own here (HF_HOME is empty)
    with pytest.raises(DownloadError, match=f"{REPO} is gated: accept its licence at"):
        download(entry_for(served), tmp_path / "models")
    hub.requests.clear()
    download(entry_for(served), tmp_path / "models", token="hf_secret")
    head = next(r for r in hub.requests if r["method"] == "HEAD")
    assert head["authorization"] == "Bearer hf_secret"
    assert [g["authorization"] for g in hub.gets()] == [None]  # not sent to the CDN


def test_the_token_is_asked_for_only_when_the_hub_wants_one(hub, served, tmp_path):
    asked: list[str] = []

    def token_for() -> str:
        asked.append("token")
        return "hf_secret"

    download(entry_for(served), tmp_path / "public", token_for=token_for)
    assert asked == []  # a public model: the keyring stays closed
    assert all(r["authorization"] is None for r in hub.requests)
    gated = hub.serve("acme-lab/Gated-GGUF", REVISION, FILE, default_model_path(), gated=True)
    hub.requests.clear()
    download(entry_for(gated), tmp_path / "gated", token_for=token_for)
    assert asked == ["token"]
    heads = [r["authorization"] for r in hub.requests if r["method"] == "HEAD"]
    assert heads == [None, "Bearer hf_secret"]  # asked without, then with the token


def test_a_gated_repository_without_a_stored_token_says_how_to_get_one(hub, tmp_path):
    served = hub.serve(REPO, REVISION, FILE, default_model_path(), gated=True)
    with pytest.raises(DownloadError, match=f"{REPO} is gated: accept its licence at"):
        download(entry_for(served), tmp_path / "models", token_for=lambda: None)


def test_an_existing_file_is_not_downloaded_again(hub, served, tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / FILE).write_bytes(b"GGUF")
    assert download(entry_for(served), models) == models / FILE
    assert hub.gets() == [] and not any(r["method"] == "HEAD" for r in hub.requests)
