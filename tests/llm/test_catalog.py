"""The model catalog: the bundled list is valid, and it is filtered by what a (faked)
computer has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.errors import ModelError
from engine.llm.catalog import CATALOG_ENV, assess, find_entry, load_catalog
from engine.llm.machine import _meminfo, memory
from engine.modeltypes import GB, MachineInfo


def machine(free_gb: float, cores: int = 8, disk_gb: float | None = 500) -> MachineInfo:
    return MachineInfo(
        memory_total=int(max(free_gb, 8) * GB),
        memory_available=int(free_gb * GB),
        cores=cores,
        disk_free=None if disk_gb is None else int(disk_gb * GB),
    )


def test_the_bundled_catalog_is_valid_and_spans_half_a_billion_to_eight():
    entries = load_catalog()
    assert 6 <= len(entries) <= 12
    names = [e.name for e in entries]
    assert len(set(names)) == len(names)
    assert {"tiny", "capable"} == {e.capability for e in entries}
    for entry in entries:
        assert entry.file.endswith(".gguf") and "/" in entry.repo
        assert len(entry.revision) == 40
        assert entry.sha256 is None or len(entry.sha256) == 64
        assert entry.licence and entry.summary and entry.context_length >= 8192
        assert entry.ram_gb * GB > entry.size  # the weights and a KV cache
    sizes = [e.size for e in entries]
    assert min(sizes) < 0.5 * GB and max(sizes) > 4 * GB


def test_what_fits_a_small_laptop_and_why_the_rest_does_not():
    fits = {f.entry.name: f for f in assess(load_catalog(), machine(3.0, cores=2))}

    assert fits["qwen2.5-0.5b"].fits and fits["qwen2.5-3b"].fits
    assert not fits["llama3.2-3b"].fits
    assert fits["llama3.2-3b"].reasons == ("needs 3.3 GB of free memory, 3.0 GB is free",)
    assert fits["qwen2.5-7b"].reasons == (
        "needs 5.6 GB of free memory, 3.0 GB is free",
        "needs 4 CPU cores to answer at a usable speed, this computer has 2",
    )
    assert [n for n, f in fits.items() if f.recommended] == ["qwen2.5-3b"]


def test_a_big_desktop_gets_the_7b_and_a_tiny_one_no_recommendation():
    big = assess(load_catalog(), machine(16, cores=8))
    assert all(f.fits for f in big)
    assert [f.entry.name for f in big if f.recommended] == ["qwen2.5-7b"]

    tiny = assess(load_catalog(), machine(1.0, cores=1))
    assert [f.entry.name for f in tiny if f.fits] == ["qwen2.5-0.5b"]
    assert not any(f.recommended for f in tiny)  # a tiny model is no upgrade to recommend


def test_disk_space_counts_only_for_what_is_not_downloaded_yet():
    entries = load_catalog()
    full_disk = machine(16, disk_gb=1.0)
    fits = {f.entry.name: f for f in assess(entries, full_disk)}
    assert fits["qwen2.5-7b"].reasons == ("needs 4.7 GB of disk space, 1.0 GB is free",)
    again = {
        f.entry.name: f for f in assess(entries, full_disk, downloaded=frozenset({"qwen2.5-7b"}))
    }
    assert again["qwen2.5-7b"].fits


def test_find_entry_names_the_catalog_when_it_is_not_there():
    entries = load_catalog()
    assert find_entry(entries, "Qwen2.5-3B").file == "Qwen2.5-3B-Instruct-Q4_K_M.gguf"
    with pytest.raises(ModelError, match="no model 'gpt-9' in the catalog"):
        find_entry(entries, "gpt-9")


def test_another_catalog_comes_from_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "catalog.toml"
    path.write_text(
        """
[[model]]
name = "smol"
title = "Smol"
repo = "me/smol"
file = "smol.gguf"
revision = "0123456789abcdef0123456789abcdef01234567"
size = 100
size_exact = true
sha256 = ""
parameters = "135M"
context_length = 8192
ram_gb = 0.5
min_cores = 1
licence = "Apache-2.0"
capability = "tiny"
preference = 1
summary = "test"
"""
    )
    monkeypatch.setenv(CATALOG_ENV, str(path))
    (entry,) = load_catalog()
    assert entry.sha256 is None  # "" means "not published"


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            ('revision = "0123456789abcdef0123456789abcdef01234567"', 'revision = "main"'),
            "40-digit",
        ),
        (('capability = "tiny"', 'capability = "huge"'), "capability must be one of"),
        (('sha256 = ""', 'sha256 = "abc"'), "64 hex digits"),
        (("size = 100", 'size = "big"'), "'size' must be a int"),
        (("[[model]]", "[[modell]]"), "lists no"),
    ],
)
def test_an_invalid_catalog_is_one_line(tmp_path, change, error):
    text = (Path(__file__).parent / "catalog_sample.toml").read_text()
    assert change[0] in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(change[0], change[1]))
    with pytest.raises(ModelError, match=re.escape(error)) as info:
        load_catalog(bad)
    assert "\n" not in str(info.value)


def test_memory_comes_from_proc_meminfo(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(
        "MemTotal:       16000000 kB\nMemFree: 100 kB\nMemAvailable:    4000000 kB\n"
    )
    assert _meminfo(meminfo)["MemAvailable"] == 4_096_000_000
    assert memory(meminfo) == (16_384_000_000, 4_096_000_000)
    total, available = memory(tmp_path / "none")  # elsewhere: sysconf
    assert total > 0 and 0 < available <= total
