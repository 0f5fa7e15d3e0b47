"""How big a GGUF model is, read from the file's header without loading it: its size label
("135M", "7B") when the file has one, else the parameters its tensors hold.

GGUF (v2/v3): magic, version, tensor count, metadata count, the metadata (key, type,
value), then one entry per tensor (name, dimensions, type, offset). Only the header is read."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import BinaryIO

_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_STRING, _ARRAY = 8, 9
_MAX_ITEMS = 50_000_000


class GGUFError(ValueError):
    pass


def _read(fh: BinaryIO, fmt: str) -> int | float | bool:
    size = struct.calcsize("<" + fmt)
    data = fh.read(size)
    if len(data) != size:
        raise GGUFError("truncated header")
    value: int | float | bool = struct.unpack("<" + fmt, data)[0]
    return value


def _string(fh: BinaryIO) -> str:
    length = int(_read(fh, "Q"))
    if length > 1 << 24:
        raise GGUFError("string too long")
    return fh.read(length).decode("utf-8", errors="replace")


def _value(fh: BinaryIO, kind: int) -> object:
    if kind in _SCALARS:
        return _read(fh, _SCALARS[kind])
    if kind == _STRING:
        return _string(fh)
    if kind == _ARRAY:
        item, count = int(_read(fh, "I")), int(_read(fh, "Q"))
        if count > _MAX_ITEMS:
            raise GGUFError("array too long")
        if item in _SCALARS:  # skip without decoding: token tables are long
            fh.seek(struct.calcsize("<" + _SCALARS[item]) * count, 1)
            return None
        for _ in range(count):
            _value(fh, item)
        return None
    raise GGUFError(f"unknown value type {kind}")


def parameter_count(path: Path) -> int | None:
    """The model's parameters: from ``general.size_label`` / ``general.parameter_count``
    when present, else summed over its tensors; None when the header cannot be read."""
    try:
        with Path(path).open("rb") as fh:
            if fh.read(4) != b"GGUF":
                return None
            version = int(_read(fh, "I"))
            if version < 2:
                return None
            tensors, entries = int(_read(fh, "Q")), int(_read(fh, "Q"))
            label: str | None = None
            for _ in range(entries):
                key = _string(fh)
                value = _value(fh, int(_read(fh, "I")))
                if key == "general.parameter_count" and isinstance(value, int):
                    return value
                if key == "general.size_label" and isinstance(value, str):
                    label = value
            if label and (count := from_size_label(label)) is not None:
                return count
            total = 0
            for _ in range(tensors):
                _string(fh)
                dims = int(_read(fh, "I"))
                product = 1
                for _ in range(dims):
                    product *= int(_read(fh, "Q"))
                _read(fh, "I")
                _read(fh, "Q")
                total += product
            return total or None
    except (OSError, GGUFError, struct.error, UnicodeDecodeError):
        return None


def from_size_label(label: str) -> int | None:
    """ "135M" → 135_000_000; "1.7B" → 1_700_000_000; "8x7B" → 56_000_000_000."""
    m = re.fullmatch(r"\s*(?:(\d+)x)?(\d+(?:\.\d+)?)\s*([KMBT])\s*", label, re.I)
    if not m:
        return None
    scale = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}[m.group(3).upper()]
    return int(float(m.group(2)) * scale * int(m.group(1) or 1))
