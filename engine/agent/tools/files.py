"""File tools confined to the workspace's ``data/`` folder.

Paths are relative to ``data/`` (a leading ``data/`` is accepted too). Absolute paths, ``..``
escapes and symlinks that lead outside are refused with a clear error.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from engine.agent.tools.base import MAX_STRING, Tool, ToolContext
from engine.errors import ToolError
from engine.fsutil import atomic_write

MAX_FILE_CHARS = 200_000
_PATH = {"type": "string", "minLength": 1, "maxLength": 200}


def resolve_data_path(data_dir: Path, raw: str) -> Path:
    text = raw.strip().replace("\\", "/")
    if not text:
        raise ToolError("path is empty")
    if text.startswith(("/", "~")) or PurePosixPath(text).is_absolute() or ":" in text[:3]:
        raise ToolError(f"refused: {raw!r} is an absolute path; use a path inside data/")
    parts = PurePosixPath(text).parts
    if parts and parts[0] == "data":
        parts = parts[1:]
    if not parts:
        raise ToolError("path names the data/ folder itself, not a file")
    if ".." in parts:
        raise ToolError(f"refused: {raw!r} leaves data/")
    root = data_dir.resolve()
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        raise ToolError(f"refused: {raw!r} leads outside data/ (through a link)")
    return target


def _display(data_dir: Path, path: Path) -> str:
    return "data/" + path.relative_to(data_dir.resolve()).as_posix()


class ReadFileTool(Tool):
    name = "read_file"
    description = "Read a text file from the user's data/ folder (e.g. notifications.md)."
    parameters = {
        "type": "object",
        "properties": {"path": _PATH},
        "required": ["path"],
        "additionalProperties": False,
    }
    category = "Files"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
        if not path.is_file():
            raise ToolError(f"{_display(ctx.workspace.data_dir, path)} does not exist")
        try:
            return path.read_text(encoding="utf-8")[:MAX_FILE_CHARS]
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolError(f"cannot read {arguments['path']}: {exc}") from None


class WriteFileTool(Tool):
    name = "write_file"
    description = "Create or replace a text file in the user's data/ folder."
    parameters = {
        "type": "object",
        "properties": {"path": _PATH, "content": {"type": "string", "maxLength": MAX_STRING}},
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    category = "Files"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
        atomic_write(path, arguments["content"])
        return f"wrote {_display(ctx.workspace.data_dir, path)} ({len(arguments['content'])} chars)"


class EditFileTool(Tool):
    name = "edit_file"
    description = (
        "Replace one exact, unique piece of text in a file of the data/ folder with new text "
        "(to add a line, replace a heading with the heading plus the new line)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": _PATH,
            "old_text": {"type": "string", "minLength": 1, "maxLength": 500},
            "new_text": {"type": "string", "maxLength": MAX_STRING},
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    }
    category = "Files"
    read_only = False

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
        shown = _display(ctx.workspace.data_dir, path)
        if not path.is_file():
            raise ToolError(f"{shown} does not exist; use write_file to create it")
        content = path.read_text(encoding="utf-8")
        old = arguments["old_text"]
        count = content.count(old)
        if count == 0:
            raise ToolError(f"old_text not found in {shown}; read the file first")
        if count > 1:
            raise ToolError(f"old_text occurs {count} times in {shown}; give more context")
        atomic_write(path, content.replace(old, arguments["new_text"], 1))
        return f"edited {shown}"
