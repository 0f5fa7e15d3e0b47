"""File tools confined to the workspace's ``data/`` folder.

Paths are relative to ``data/`` (a leading ``data/`` is accepted too). Absolute paths, ``..``
escapes and symlinks that lead outside are refused with a clear error (but for the rules file
the user linked elsewhere themselves: see ``rules_file_at``). Every failure is a
one-line ToolError the agent reads (a NUL byte or control character in a path, a name too
long, a folder where a file is expected, a file that is not UTF-8 text, a full disk); a
failed write leaves the old file and no temporary file behind.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from engine.agent.tools.base import MAX_STRING, Tool, ToolContext
from engine.errors import ToolError
from engine.workspace import Workspace
from engine.workspace.atomic import atomic_write
from engine.workspace.rulesfile import RulesFile, RulesFileChanged, RulesFileUnreadable, Version

MAX_FILE_CHARS = 200_000
_PATH = {"type": "string", "minLength": 1, "maxLength": 200}
RULES_SHOWN = "data/notifications.md"


NAME_MAX = 255  # bytes in one file name, on every file system TIC runs on


def data_parts(raw: str) -> tuple[str, ...]:
    """The names in a path inside ``data/``, checked (no escape, no control character, no
    name too long) but not yet resolved."""
    text = raw.strip().replace("\\", "/")
    if not text:
        raise ToolError("path is empty")
    if any(ch < " " or ch == "\x7f" for ch in text):
        raise ToolError("refused: the path holds a NUL byte or another control character")
    if text.startswith(("/", "~")) or PurePosixPath(text).is_absolute() or ":" in text[:3]:
        raise ToolError(f"refused: {raw!r} is an absolute path; use a path inside data/")
    parts = PurePosixPath(text).parts
    if parts and parts[0] == "data":
        parts = parts[1:]
    if not parts:
        raise ToolError("path names the data/ folder itself, not a file")
    if ".." in parts:
        raise ToolError(f"refused: {raw!r} leaves data/")
    if any(len(os.fsencode(part)) > NAME_MAX for part in parts):
        raise ToolError(f"a name in the path is longer than {NAME_MAX} bytes")
    return tuple(parts)


def resolve_data_path(data_dir: Path, raw: str) -> Path:
    parts = data_parts(raw)
    try:
        root = data_dir.resolve()
        target = root.joinpath(*parts).resolve()
    except (OSError, ValueError, RuntimeError) as exc:  # a link loop, an unencodable name
        raise ToolError(f"cannot use the path {raw!r}: {_reason(exc)}") from None
    if not target.is_relative_to(root):
        raise ToolError(f"refused: {raw!r} leads outside data/ (through a link)")
    return target


def rules_file_at(workspace: Workspace, raw: str) -> RulesFile | None:
    """The rules file, when the path names it (as ``notifications.md`` or through a link
    inside ``data/``): it is read and written as every writer of it does (``RulesFile``),
    through its own link wherever the user keeps the file (that link is theirs, and may
    lead outside ``data/``)."""
    rules = RulesFile(workspace.rules_file)
    if data_parts(raw) == (workspace.rules_file.name,):
        return rules
    try:
        path = resolve_data_path(workspace.data_dir, raw)
    except ToolError:
        return None
    return rules if path == rules.target.resolve() else None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _read_text(path: Path, shown: str) -> str:
    if path.is_dir():
        raise ToolError(f"{shown} is a folder, not a file")
    if not path.is_file():
        raise ToolError(f"{shown} does not exist")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolError(
            f"{shown} is not UTF-8 text; only text files can be read or edited"
        ) from None
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {_reason(exc)}") from None


def _read_rules(rules: RulesFile, shown: str) -> tuple[str, Version]:
    try:
        text, version = rules.read()
    except RulesFileUnreadable as exc:
        raise ToolError(str(exc).replace(rules.path.name, shown, 1)) from None
    if not version.exists:
        raise ToolError(f"{shown} does not exist; use write_file to create it")
    return text, version


def _write_text(
    path: Path,
    shown: str,
    content: str,
    rules: RulesFile | None = None,
    version: Version | None = None,
) -> None:
    """Write ``path`` atomically; the rules file through ``rules``, refused when it changed
    since ``version`` was read (None: whatever it holds now is replaced)."""
    if path.is_dir():
        raise ToolError(f"{shown} is a folder; give a file name inside it")
    try:
        if rules is None:
            atomic_write(path, content)
        else:
            rules.write(content, version if version is not None else rules.current())
    except RulesFileChanged:
        raise ToolError(f"{shown} changed since it was read; read it again") from None
    except OSError as exc:
        raise ToolError(f"cannot write {shown}: {_reason(exc)}") from None
    except UnicodeEncodeError:
        raise ToolError(f"cannot write {shown}: the text holds an invalid character") from None


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
        rules = rules_file_at(ctx.workspace, arguments["path"])
        if rules is not None:
            return _read_text(rules.path, RULES_SHOWN)[:MAX_FILE_CHARS]
        path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
        shown = _display(ctx.workspace.data_dir, path)
        return _read_text(path, shown)[:MAX_FILE_CHARS]


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
        rules = rules_file_at(ctx.workspace, arguments["path"])
        if rules is not None:
            path, shown = rules.target, RULES_SHOWN
        else:
            path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
            shown = _display(ctx.workspace.data_dir, path)
        _write_text(path, shown, arguments["content"], rules)
        return f"wrote {shown} ({len(arguments['content'])} chars)"


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
        rules = rules_file_at(ctx.workspace, arguments["path"])
        version: Version | None = None
        if rules is not None:
            path, shown = rules.target, RULES_SHOWN
            content, version = _read_rules(rules, shown)
        else:
            path = resolve_data_path(ctx.workspace.data_dir, arguments["path"])
            shown = _display(ctx.workspace.data_dir, path)
            if not path.exists():
                raise ToolError(f"{shown} does not exist; use write_file to create it")
            content = _read_text(path, shown)
        old = arguments["old_text"]
        count = content.count(old)
        if count == 0:
            raise ToolError(f"old_text not found in {shown}; read the file first")
        if count > 1:
            raise ToolError(f"old_text occurs {count} times in {shown}; give more context")
        _write_text(path, shown, content.replace(old, arguments["new_text"], 1), rules, version)
        return f"edited {shown}"
