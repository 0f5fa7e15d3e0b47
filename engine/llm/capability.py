"""What a GGUF model can be trusted with, judged from its header: "tiny" under about a
billion parameters (by its metadata, else by its file's size), else "capable". What the two
mean, and how they are named, is plain data (``engine.modeltypes.Capability``)."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import BinaryIO

from engine.modeltypes import Capability, CapabilitySetting

TINY_BELOW_PARAMETERS = 1_000_000_000
# Without metadata, judge by the file: a 1B model quantised to 4 bits is about 0.7 GB.
TINY_BELOW_BYTES = 800_000_000

_SIZE_LABEL = re.compile(r"^(?:(\d+)x)?(\d+(?:\.\d+)?)([KMBT])$", re.IGNORECASE)
_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_GGUF_MAGIC = b"GGUF"
_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q"}
_SCALAR |= {11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_KEYS = 4096  # a header with more is not one we should trust
_MAX_STRING = 1 << 20
_U64 = struct.Struct("<Q")


def parameters_from_label(label: str) -> int | None:
    """``"135M"`` → 135 000 000, ``"1.5B"``, ``"8x7B"`` (experts × size); None if unreadable."""
    m = _SIZE_LABEL.match(label.strip())
    if m is None:
        return None
    experts = int(m.group(1) or 1)
    return int(experts * float(m.group(2)) * _SCALE[m.group(3).lower()])


def _read(stream: BinaryIO, fmt: str) -> int | float | bool:
    size = struct.calcsize(fmt)
    data = stream.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF header")
    value: int | float | bool = struct.unpack(fmt, data)[0]
    return value


def _read_string(stream: BinaryIO) -> str:
    length = int(_read(stream, "<Q"))
    if length > _MAX_STRING:
        raise ValueError("implausible GGUF string length")
    return stream.read(length).decode("utf-8", "replace")


def _skip_strings(stream: BinaryIO, count: int) -> None:
    """What ``_read_string`` reads, ``count`` times, without decoding: a tokenizer's vocabulary
    is about 100 000 strings, read each time a GGUF model is opened (tic triage included)."""
    read, unpack = stream.read, _U64.unpack
    for _ in range(count):
        data = read(8)
        if len(data) != 8:
            raise ValueError("truncated GGUF header")
        length: int = unpack(data)[0]
        if length > _MAX_STRING:
            raise ValueError("implausible GGUF string length")
        read(length)


def _skip_or_read(stream: BinaryIO, kind: int) -> object:
    if kind == _STRING:
        return _read_string(stream)
    if kind == _ARRAY:
        item_kind, count = int(_read(stream, "<I")), int(_read(stream, "<Q"))
        if item_kind == _STRING:
            _skip_strings(stream, count)
        elif item_kind in _SCALAR:
            stream.seek(struct.calcsize(_SCALAR[item_kind]) * count, 1)
        else:
            raise ValueError(f"unknown GGUF array type {item_kind}")
        return None
    if kind not in _SCALAR:
        raise ValueError(f"unknown GGUF value type {kind}")
    return _read(stream, _SCALAR[kind])


def gguf_metadata(path: Path) -> dict[str, object]:
    """The scalar and string key/values of a GGUF file's header (arrays are skipped)."""
    with path.open("rb") as stream:
        if stream.read(4) != _GGUF_MAGIC:
            raise ValueError("not a GGUF file")
        version = int(_read(stream, "<I"))
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        _read(stream, "<Q")  # tensor count
        keys = int(_read(stream, "<Q"))
        if keys > _MAX_KEYS:
            raise ValueError("implausible GGUF key count")
        found: dict[str, object] = {}
        for _ in range(keys):
            key = _read_string(stream)
            value = _skip_or_read(stream, int(_read(stream, "<I")))
            if value is not None:
                found[key] = value
        return found


def gguf_parameters(path: Path) -> int | None:
    """The model's parameter count from its GGUF metadata, if it says."""
    try:
        meta = gguf_metadata(path)
    except (OSError, ValueError):
        return None
    count = meta.get("general.parameter_count")
    if isinstance(count, int) and count > 0:
        return count
    label = meta.get("general.size_label")
    return parameters_from_label(label) if isinstance(label, str) else None


def gguf_capability(path: Path) -> Capability:
    """ "tiny" under about 1B parameters (by metadata, else by file size)."""
    parameters = gguf_parameters(path)
    if parameters is not None:
        return "tiny" if parameters < TINY_BELOW_PARAMETERS else "capable"
    try:
        size = path.stat().st_size
    except OSError:
        return "tiny"
    return "tiny" if size < TINY_BELOW_BYTES else "capable"


def effective(model_capability: Capability, setting: CapabilitySetting) -> Capability:
    """The user's override wins over what the backend says of its model."""
    return model_capability if setting == "auto" else setting
