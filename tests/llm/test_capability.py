"""What a model may be trusted with, read from the GGUF header without loading it, and the
``model_capability`` setting that overrides it."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from engine.llm.gguf import from_size_label, parameter_count
from engine.llm.llama import LlamaCppModel
from engine.llm.loading import load_model
from engine.settings import Settings
from engine.workspace import Workspace


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def gguf(path: Path, *, label: str | None = None, tensors: list[tuple[int, ...]] = ()) -> Path:
    """A GGUF v3 header: a string value, a token array (skipped), maybe a size label, and
    tensor entries with the given shapes."""
    kvs = [
        _string("general.architecture") + struct.pack("<I", 8) + _string("llama"),
        _string("tokenizer.ggml.scores")
        + struct.pack("<I", 9)
        + struct.pack("<IQ", 6, 3)
        + struct.pack("<3f", 0.1, 0.2, 0.3),
    ]
    if label is not None:
        kvs.append(_string("general.size_label") + struct.pack("<I", 8) + _string(label))
    body = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    for i, shape in enumerate(tensors):
        body += _string(f"blk.{i}.weight") + struct.pack("<I", len(shape))
        body += b"".join(struct.pack("<Q", d) for d in shape) + struct.pack("<IQ", 2, 0)
    path.write_bytes(body)
    return path


@pytest.mark.parametrize(
    ("label", "count"),
    [("135M", 135_000_000), ("1.7B", 1_700_000_000), ("8x7B", 56_000_000_000), ("big", None)],
)
def test_size_labels(label: str, count: int | None) -> None:
    assert from_size_label(label) == count


def test_the_header_tells_the_size(tmp_path: Path) -> None:
    assert parameter_count(gguf(tmp_path / "a.gguf", label="135M")) == 135_000_000
    shapes = [(4096, 4096)] * 70  # ~1.17B parameters, no label
    assert parameter_count(gguf(tmp_path / "b.gguf", tensors=shapes)) == 4096 * 4096 * 70
    (tmp_path / "c.gguf").write_bytes(b"GGUF\x03\x00\x00\x00trunc")
    assert parameter_count(tmp_path / "c.gguf") is None


@pytest.mark.parametrize(
    ("label", "tensors", "capability"),
    [
        ("135M", [], "tiny"),
        ("7B", [], "capable"),
        (None, [(4096, 4096)] * 70, "capable"),
        (None, [(576, 576)] * 10, "tiny"),
    ],
)
def test_a_gguf_model_is_tiny_under_a_billion_parameters(
    tmp_path: Path, label: str | None, tensors: list[tuple[int, ...]], capability: str
) -> None:
    model = LlamaCppModel(gguf(tmp_path / "m.gguf", label=label, tensors=tensors))
    assert model.capability == capability


def test_an_unreadable_header_falls_back_on_the_file_size(tmp_path: Path) -> None:
    path = tmp_path / "odd.gguf"
    path.write_bytes(b"GGUF\x01\x00\x00\x00")  # version 1: not read
    assert LlamaCppModel(path).capability == "tiny"  # a small file


def test_the_setting_overrides_what_the_model_says(tmp_path: Path) -> None:
    path = gguf(tmp_path / "m.gguf", label="135M")
    workspace = Workspace(tmp_path / "home")
    assert load_model(workspace, Settings(model_path=str(path)), None).capability == "tiny"
    forced = Settings(model_path=str(path), model_capability="capable")
    assert load_model(workspace, forced, None).capability == "capable"
    server = Settings(model_path="http://localhost:9/v1", model_capability="tiny")
    assert load_model(workspace, server, None).capability == "tiny"
