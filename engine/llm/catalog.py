"""The curated list of downloadable models (``catalog.toml`` beside this module, or the file
``TIC_MODEL_CATALOG`` names), and which of them fit this computer.

A model fits when its memory need is free now, the computer has the cores it needs to answer
at a usable speed, and the disk has room for it. Among those that fit, the capable one with
the highest ``preference`` is recommended."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from engine.errors import ModelError
from engine.modeltypes import CAPABILITIES, GB, Capability, MachineInfo, human_bytes

CATALOG_ENV = "TIC_MODEL_CATALOG"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    title: str
    repo: str
    file: str
    revision: str
    size: int
    size_exact: bool
    sha256: str | None
    parameters: str
    context_length: int
    ram_gb: float
    min_cores: int
    licence: str
    capability: Capability
    preference: int
    summary: str

    @property
    def ram_bytes(self) -> int:
        return int(self.ram_gb * GB)


@dataclass(frozen=True)
class Fit:
    entry: CatalogEntry
    fits: bool
    reasons: tuple[str, ...] = ()
    recommended: bool = False


def _field(raw: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = raw.get(key)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ModelError(f"model catalog {where}: {key!r} must be a {kind.__name__}")
    return value


def _entry(raw: dict[str, Any], where: str) -> CatalogEntry:
    name = _field(raw, "name", str, where)
    where = f"{where} ({name})"
    if not _NAME.match(name):
        raise ModelError(f"model catalog {where}: a name is lower case, without spaces")
    revision = _field(raw, "revision", str, where)
    if not _COMMIT.match(revision):
        raise ModelError(f"model catalog {where}: revision must be a 40-digit commit hash")
    sha256 = _field(raw, "sha256", str, where).lower() or None
    if sha256 is not None and not _SHA256.match(sha256):
        raise ModelError(f"model catalog {where}: sha256 must be 64 hex digits, or empty")
    capability = _field(raw, "capability", str, where)
    if capability not in CAPABILITIES:
        raise ModelError(f"model catalog {where}: capability must be one of {CAPABILITIES}")
    file = _field(raw, "file", str, where)
    if "/" in file or not file.endswith(".gguf"):
        raise ModelError(f"model catalog {where}: file must be a .gguf name, without folders")
    return CatalogEntry(
        name=name,
        title=_field(raw, "title", str, where),
        repo=_field(raw, "repo", str, where),
        file=file,
        revision=revision,
        size=_field(raw, "size", int, where),
        size_exact=_field(raw, "size_exact", bool, where),
        sha256=sha256,
        parameters=_field(raw, "parameters", str, where),
        context_length=_field(raw, "context_length", int, where),
        ram_gb=_field(raw, "ram_gb", float, where),
        min_cores=_field(raw, "min_cores", int, where),
        licence=_field(raw, "licence", str, where),
        capability=capability,
        preference=_field(raw, "preference", int, where),
        summary=_field(raw, "summary", str, where),
    )


def catalog_text(path: Path | None = None) -> tuple[str, str]:
    """(the catalog's TOML, where it came from): ``path``, $TIC_MODEL_CATALOG, or the bundled."""
    chosen = path or (Path(os.environ[CATALOG_ENV]) if os.environ.get(CATALOG_ENV) else None)
    if chosen is None:
        bundled = resources.files("engine.llm").joinpath("catalog.toml")
        return bundled.read_text(encoding="utf-8"), "catalog.toml"
    try:
        return chosen.read_text(encoding="utf-8"), str(chosen)
    except OSError as exc:
        raise ModelError(f"model catalog {chosen}: {exc.strerror or exc}") from None


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """The catalog's entries in its order; ModelError (one line) when it is invalid."""
    text, where = catalog_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"model catalog {where} is not valid TOML: {exc}") from None
    models = data.get("model")
    if not isinstance(models, list):
        raise ModelError(f"model catalog {where} lists no [[model]]")
    entries = [_entry(raw, f"{where} entry {i + 1}") for i, raw in enumerate(models)]
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ModelError(f"model catalog {where} names a model twice")
    return entries


def find_entry(entries: list[CatalogEntry], name: str) -> CatalogEntry:
    for entry in entries:
        if entry.name == name.strip().lower():
            return entry
    known = ", ".join(e.name for e in entries)
    raise ModelError(f"no model {name!r} in the catalog (it has: {known})")


def _reasons(entry: CatalogEntry, machine: MachineInfo) -> tuple[str, ...]:
    reasons = []
    if entry.ram_bytes > machine.memory_available:
        reasons.append(
            f"needs {entry.ram_gb:.1f} GB of free memory, "
            f"{human_bytes(machine.memory_available)} is free"
        )
    if entry.min_cores > machine.cores:
        reasons.append(
            f"needs {entry.min_cores} CPU cores to answer at a usable speed, "
            f"this computer has {machine.cores}"
        )
    if machine.disk_free is not None and entry.size > machine.disk_free:
        reasons.append(
            f"needs {human_bytes(entry.size)} of disk space, "
            f"{human_bytes(machine.disk_free)} is free"
        )
    return tuple(reasons)


def assess(
    entries: list[CatalogEntry],
    machine: MachineInfo,
    *,
    downloaded: frozenset[str] = frozenset(),
) -> list[Fit]:
    """Each entry with whether it fits ``machine`` and why not (the disk does not count for
    the ``downloaded`` ones); the best capable one that fits is recommended."""
    fits = []
    for entry in entries:
        seen_by = replace(machine, disk_free=None) if entry.name in downloaded else machine
        reasons = _reasons(entry, seen_by)
        fits.append(Fit(entry, fits=not reasons, reasons=reasons))
    candidates = [f for f in fits if f.fits and f.entry.capability == "capable"]
    if not candidates:
        return fits
    best = max(candidates, key=lambda f: f.entry.preference)
    return [replace(f, recommended=True) if f is best else f for f in fits]
