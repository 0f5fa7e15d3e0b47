"""Plain data about models that the front ends show: the catalog as it fits this computer,
the files in the workspace's ``models/``, the model servers found on this machine, how a
download is going, and what a model can be trusted with (its capability) and how it is
named. No behaviour beyond wording; the front ends may import this module (see
tests/test_layering.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

GB = 1_000_000_000
MB = 1_000_000

Capability = Literal["tiny", "capable"]
"""What a model can be trusted with. "tiny" models (the embedded 135M default, and GGUF
models under about a billion parameters, ``engine.llm.capability``) cannot write a sentence a
user can rely on, nor choose an action that changes anything: on them, replies shown as fact
are composed in code and writes happen only on the user's word. "capable" models (bigger
local models, model servers) write replies, which are checked against the facts."""
CapabilitySetting = Literal["auto", "tiny", "capable"]
"""The user's override in Settings ("auto": what the backend judges its model to be)."""
CAPABILITIES: tuple[Capability, ...] = get_args(Capability)


def human_bytes(count: float) -> str:
    """``1.9 GB``, ``870 MB``, ``12 kB``: decimal units, as the Hugging Face hub shows sizes."""
    for unit, size in (("GB", GB), ("MB", MB), ("kB", 1000)):
        if count >= size:
            value = count / size
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(count)} B"


def human_duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 05 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


TYPICAL_MBIT_S = 50
"""The download speed the first-run offer assumes, in megabits a second: a typical home
broadband line (fibre is often faster, mobile data slower). Said wherever a time is."""


@dataclass(frozen=True)
class ModelOffer:
    """The catalog model the first-run welcome offers: the recommended one for this computer,
    with what getting it takes (``downloaded``: it is here already, only to be used)."""

    name: str
    title: str
    size: int
    summary: str
    downloaded: bool = False

    @property
    def seconds(self) -> float:
        """How long its download takes at ``TYPICAL_MBIT_S``."""
        return self.size * 8 / (TYPICAL_MBIT_S * 1_000_000)

    def time_text(self) -> str:
        """ "about 5 minutes at 50 Mbit/s"."""
        minutes = max(1, round(self.seconds / 60))
        said = "about a minute" if minutes == 1 else f"about {minutes} minutes"
        return f"{said} at {TYPICAL_MBIT_S} Mbit/s"

    def describe(self) -> str:
        """ "Llama 3.2 3B Instruct (2.0 GB, about 5 minutes to download at 50 Mbit/s)"."""
        if self.downloaded:
            return f"{self.title} ({human_bytes(self.size)}, already downloaded)"
        minutes = self.time_text().replace(" at ", " to download at ", 1)
        return f"{self.title} ({human_bytes(self.size)}, {minutes})"


@dataclass(frozen=True)
class MachineInfo:
    """What this computer has for a model: memory (bytes), CPU cores, free disk space."""

    memory_total: int
    memory_available: int
    cores: int
    disk_free: int | None = None

    def describe(self) -> str:
        disk = f", {human_bytes(self.disk_free)} free disk" if self.disk_free is not None else ""
        return (
            f"This computer: {human_bytes(self.memory_available)} of "
            f"{human_bytes(self.memory_total)} memory free, {self.cores} CPU "
            f"core{'s' if self.cores != 1 else ''}{disk}"
        )


@dataclass(frozen=True)
class CatalogChoice:
    """One catalog model as this computer sees it."""

    name: str
    title: str
    parameters: str
    size: int
    ram_gb: float
    context_length: int
    licence: str
    capability: str
    summary: str
    repo: str
    fits: bool
    reasons: tuple[str, ...] = ()  # why it does not fit, one line each
    recommended: bool = False
    path: Path | None = None  # downloaded here
    partial: int = 0  # bytes of an unfinished download kept for resuming
    in_use: bool = False

    @property
    def status(self) -> str:
        """One line: in use / downloaded / partly downloaded / fits / why it does not."""
        if self.in_use:
            return "in use"
        if self.path is not None:
            return "downloaded"
        if self.partial:
            return f"{human_bytes(self.partial)} of {human_bytes(self.size)} downloaded"
        if not self.fits:
            return "; ".join(self.reasons)
        return "recommended for this computer" if self.recommended else "fits this computer"


@dataclass(frozen=True)
class InstalledModel:
    """A GGUF file in the workspace's ``models/``: from the catalog (``name``) or not."""

    path: Path
    size: int
    name: str | None = None
    sha256: str | None = None
    in_use: bool = False


@dataclass(frozen=True)
class ServerModel:
    id: str
    details: str = ""  # what the server says of it: "3.2B, Q4_K_M, 2.0 GB"


@dataclass(frozen=True)
class LocalServer:
    """An OpenAI-compatible model server (Ollama, LM Studio, llama.cpp's server, ...)."""

    url: str  # its OpenAI base URL, ending in /v1: what the model setting takes
    kind: str  # "Ollama", "LM Studio", "llama.cpp server", or "OpenAI-compatible server"
    models: tuple[ServerModel, ...] = ()
    error: str | None = None  # it did not answer, or refused (one line)
    needs_key: bool = False


@dataclass(frozen=True)
class DownloadState:
    """How a download is going, as a front end shows it."""

    name: str
    title: str
    done: int = 0
    total: int | None = None
    rate: float = 0.0  # bytes per second, over the last seconds
    eta: float | None = None  # seconds left
    phase: str = "starting"  # starting | downloading | verifying | finished | failed | cancelled
    error: str | None = None
    path: Path | None = None

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None

    def describe(self) -> str:
        """``Qwen2.5 3B: 45 % — 870 MB of 1.9 GB, 12.3 MB/s, 1 min 20 s left``."""
        if self.phase == "failed":
            return f"{self.title}: download failed: {self.error}"
        if self.phase == "cancelled":
            kept = f" ({human_bytes(self.done)} kept to resume)" if self.done else ""
            return f"{self.title}: download paused{kept}"
        if self.phase == "finished":
            return f"{self.title}: downloaded and verified"
        if self.phase == "verifying":
            return f"{self.title}: checking the file…"
        if self.phase == "starting":
            return f"{self.title}: connecting…"
        parts = [f"{human_bytes(self.done)} of {human_bytes(self.total)}" if self.total else ""]
        if self.rate > 0:
            parts.append(f"{human_bytes(self.rate)}/s")
        if self.eta is not None:
            parts.append(f"{human_duration(self.eta)} left")
        percent = f"{100 * self.done // self.total} % — " if self.total else ""
        return f"{self.title}: {percent}{', '.join(p for p in parts if p)}"


def describe_capability(capability: Capability) -> str:
    """How Settings and the chat header name it."""
    if capability == "tiny":
        return "small built-in model: replies are composed from the facts"
    return "capable model: it writes replies, checked against the facts"


# The embedded default model (``engine.llm.select.DEFAULT_FILE``), named after its file.
BUILTIN_NAME = "SmolLM2-135M-Instruct"
_QUANTISATION = re.compile(r"[.-](?:i?q\d\w*|f16|f32|bf16|gguf)$", re.IGNORECASE)
_TUNING = re.compile(r"[-_.](?:instruct|chat|it)$", re.IGNORECASE)


def is_builtin(model_name: str) -> bool:
    """Whether ``model_name`` (a GGUF file's stem) is the embedded default model."""
    return model_name.startswith(BUILTIN_NAME)


def short_name(model_name: str) -> str:
    """A model's name without its quantisation and tuning suffixes: "SmolLM2-135M"."""
    name = model_name
    while (shorter := _QUANTISATION.sub("", name)) != name:
        name = shorter
    return _TUNING.sub("", name) or model_name


def model_label(model_name: str, capability: Capability) -> str:
    """How the chat header and Settings name the model: "SmolLM2-135M · small built-in model"."""
    if capability == "tiny":
        kind = "small built-in model" if is_builtin(model_name) else "small model"
    else:
        kind = "capable model"
    return f"{short_name(model_name)} · {kind}"
