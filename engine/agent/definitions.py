"""Agent definitions: ``agents/<name>/AGENT.md`` (the prompt) and ``meta.json`` (name,
description, type, tools and ``inject_memory``). Read afresh on every run, so editing them,
or the injected memory files, takes effect without a restart."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TicError
from engine.workspace import Workspace

NOT_CREATED = "(not created yet)"


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    type: str
    prompt: str
    inject_memory: tuple[str, ...]
    tools: tuple[str, ...] | None


def load_agent(agents_dir: Path, name: str) -> AgentDefinition:
    folder = agents_dir / name
    meta_path, prompt_path = folder / "meta.json", folder / "AGENT.md"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        prompt = prompt_path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise TicError(f"agent {name!r}: {exc.filename} is missing") from None
    except (OSError, ValueError) as exc:
        raise TicError(f"agent {name!r}: cannot read its definition ({exc})") from None
    if not isinstance(meta, dict):
        raise TicError(f"agent {name!r}: {meta_path} must hold a JSON object")
    tools = meta.get("tools")
    return AgentDefinition(
        name=str(meta.get("name", name)),
        description=str(meta.get("description", "")),
        type=str(meta.get("type", "chat")),
        prompt=prompt.strip(),
        inject_memory=tuple(str(p) for p in meta.get("inject_memory", [])),
        tools=tuple(str(t) for t in tools) if isinstance(tools, list) else None,
    )


def read_memory_file(workspace: Workspace, rel: str) -> str:
    """Content of an injected file, or NOT_CREATED; never reads outside the workspace."""
    root = workspace.root.resolve()
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        return NOT_CREATED
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return NOT_CREATED
    return text.strip() or "(empty)"


def system_prompt(
    definition: AgentDefinition,
    workspace: Workspace,
    overrides: dict[str, str] | None = None,
) -> str:
    """The agent's prompt followed by the current content of each ``inject_memory`` file.
    Byte-identical while the files are unchanged, so llama.cpp reuses the evaluated prefix."""
    parts = [definition.prompt]
    for rel in definition.inject_memory:
        if overrides is not None and rel in overrides:
            content = overrides[rel].strip() or "(empty)"
        else:
            content = read_memory_file(workspace, rel)
        parts.append(f"\n\n## Memory file: {rel}\n\n{content}")
    return "".join(parts)
