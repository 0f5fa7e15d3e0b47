"""What a model can be trusted with: read from the GGUF header, overridable in Settings."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.llm.capability import (
    effective,
    gguf_capability,
    gguf_metadata,
    parameters_from_label,
)
from engine.llm.holder import ModelHolder
from engine.llm.scripted import ScriptedModel
from engine.llm.select import default_model_path
from engine.llm.unavailable import UnavailableModel
from engine.settings import Settings


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path: Path, pairs: dict[str, str | int], padding: int = 0) -> Path:
    """A minimal GGUF v3 header with string (type 8) and uint64 (type 10) values."""
    body = b""
    for key, value in pairs.items():
        if isinstance(value, str):
            body += _string(key) + struct.pack("<I", 8) + _string(value)
        else:
            body += _string(key) + struct.pack("<I", 10) + struct.pack("<Q", value)
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs))
    path.write_bytes(header + body + b"\0" * padding)
    return path


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("135M", 135_000_000),
        ("1.5B", 1_500_000_000),
        ("8x7B", 56_000_000_000),
        ("70b", 70_000_000_000),
        ("big", None),
        ("", None),
    ],
)
def test_parameters_from_size_labels(label: str, expected: int | None) -> None:
    assert parameters_from_label(label) == expected


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ({"general.size_label": "135M"}, "tiny"),
        ({"general.size_label": "0.5B"}, "tiny"),
        ({"general.size_label": "3B"}, "capable"),
        ({"general.parameter_count": 7_241_732_096}, "capable"),
        ({"general.parameter_count": 494_000_000, "general.size_label": "7B"}, "tiny"),
    ],
)
def test_capability_from_metadata(tmp_path: Path, pairs: dict[str, str | int], expected: str):
    assert gguf_capability(write_gguf(tmp_path / "m.gguf", pairs)) == expected


def test_without_metadata_the_file_size_decides(tmp_path: Path) -> None:
    small = write_gguf(tmp_path / "small.gguf", {"general.name": "x"})
    assert gguf_capability(small) == "tiny"
    big = tmp_path / "big.gguf"
    write_gguf(big, {"general.name": "x"})
    with big.open("r+b") as f:  # a sparse file: large without taking the disk
        f.truncate(900_000_000)
    assert gguf_capability(big) == "capable"


def test_a_broken_header_is_not_trusted(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 10**9))
    with pytest.raises(ValueError):
        gguf_metadata(broken)
    assert gguf_capability(broken) == "tiny"


def test_the_embedded_model_is_tiny() -> None:
    assert gguf_metadata(default_model_path())["general.size_label"] == "135M"
    assert gguf_capability(default_model_path()) == "tiny"


def test_the_user_setting_overrides_the_model() -> None:
    assert effective("tiny", "auto") == "tiny"
    assert effective("tiny", "capable") == "capable"
    assert effective("capable", "tiny") == "tiny"
    holder = ModelHolder(ScriptedModel(capability="capable"), "tiny")
    assert holder.capability == "tiny"
    holder.override = "auto"
    assert holder.capability == "capable"
    assert UnavailableModel("gone").capability == "tiny"


async def test_the_engine_reports_it_and_applies_a_new_setting(workspace) -> None:
    engine = Engine(workspace, Settings(), ScriptedModel(capability="tiny"))
    try:
        assert engine.capability == "tiny"
        await engine.apply_settings(
            engine.settings.model_copy(update={"model_capability": "capable"})
        )
        assert engine.capability == "capable"
        assert Settings.load(workspace.settings_file).model_capability == "capable"
    finally:
        await engine.stop()
