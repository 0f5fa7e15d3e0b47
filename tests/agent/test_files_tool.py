"""engine.agent.tools.files: read/write/edit confined to the workspace's data/ folder."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.agent.tools.base import Tool, ToolContext
from engine.agent.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from engine.errors import ToolError
from engine.workspace import Workspace

NOW = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
NON_EMPTY = "(should be non-empty|is too short)"  # jsonschema wording varies by version


async def run(tool: Tool, workspace: Workspace, **arguments: Any) -> Any:
    return await tool.call(arguments, ToolContext(workspace=workspace, now=NOW))


async def refused(tool: Tool, workspace: Workspace, **arguments: Any) -> str:
    """Run the tool expecting a ToolError; returns its message."""
    with pytest.raises(ToolError) as info:
        await run(tool, workspace, **arguments)
    return str(info.value)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace holding a secret the tools must never touch."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret", encoding="utf-8")
    return folder


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".tmp" in p.name)


# normal use ----------------------------------------------------------------------------


async def test_write_then_read_a_relative_path(workspace: Workspace) -> None:
    result = await run(WriteFileTool(), workspace, path="memory/people.md", content="Mario: boss")

    assert result == "wrote data/memory/people.md (11 chars)"
    assert (workspace.data_dir / "memory" / "people.md").read_text() == "Mario: boss"
    assert await run(ReadFileTool(), workspace, path="memory/people.md") == "Mario: boss"


@pytest.mark.parametrize("path", ["data/notes/todo.md", "./notes/todo.md", "notes\\todo.md"])
async def test_the_data_prefix_and_other_spellings_name_the_same_file(
    workspace: Workspace, path: str
) -> None:
    await run(WriteFileTool(), workspace, path=path, content="buy milk")

    assert (workspace.data_dir / "notes" / "todo.md").read_text() == "buy milk"
    assert await run(ReadFileTool(), workspace, path="notes/todo.md") == "buy milk"
    assert not (workspace.data_dir / "data").exists()


async def test_read_the_rules_file_from_the_template(workspace: Workspace) -> None:
    text = await run(ReadFileTool(), workspace, path="data/notifications.md")

    assert text == workspace.rules_file.read_text(encoding="utf-8")
    assert "## Never notify" in text


async def test_reading_a_missing_file_says_so(workspace: Workspace) -> None:
    message = await refused(ReadFileTool(), workspace, path="nope.md")

    assert message == "data/nope.md does not exist"


async def test_edit_replaces_one_unique_piece_of_text(workspace: Workspace) -> None:
    rules = workspace.rules_file
    rules.write_text("## Always notify\n\n## Never notify\n", encoding="utf-8")

    result = await run(
        EditFileTool(),
        workspace,
        path="notifications.md",
        old_text="## Always notify\n",
        new_text="## Always notify\n- emails from Mario\n",
    )

    assert result == "edited data/notifications.md"
    assert rules.read_text() == "## Always notify\n- emails from Mario\n\n## Never notify\n"


async def test_edit_with_missing_old_text_changes_nothing(workspace: Workspace) -> None:
    rules = workspace.rules_file
    before = rules.read_text()

    message = await refused(
        EditFileTool(), workspace, path="notifications.md", old_text="## Sometimes", new_text="x"
    )

    assert message == "old_text not found in data/notifications.md; read the file first"
    assert rules.read_text() == before


async def test_edit_with_ambiguous_old_text_changes_nothing(workspace: Workspace) -> None:
    rules = workspace.rules_file
    rules.write_text("## Always notify\n- a\n## Never notify\n- a\n", encoding="utf-8")

    message = await refused(
        EditFileTool(), workspace, path="notifications.md", old_text="- a\n", new_text="- b\n"
    )

    assert message == "old_text occurs 2 times in data/notifications.md; give more context"
    assert rules.read_text() == "## Always notify\n- a\n## Never notify\n- a\n"


async def test_edit_of_a_missing_file_points_to_write_file(workspace: Workspace) -> None:
    message = await refused(EditFileTool(), workspace, path="new.md", old_text="a", new_text="b")

    assert message == "data/new.md does not exist; use write_file to create it"
    assert not (workspace.data_dir / "new.md").exists()


async def test_write_replaces_the_file_atomically(workspace: Workspace) -> None:
    target = workspace.data_dir / "memory" / "notes.md"
    await run(WriteFileTool(), workspace, path="memory/notes.md", content="version one")

    with target.open(encoding="utf-8") as reader:
        await run(WriteFileTool(), workspace, path="memory/notes.md", content="version two")
        # The old file was swapped out, not truncated and rewritten in place.
        assert reader.read() == "version one"
        assert os.fstat(reader.fileno()).st_ino != target.stat().st_ino

    assert target.read_text() == "version two"
    await run(EditFileTool(), workspace, path="memory/notes.md", old_text="two", new_text="three")
    assert target.read_text() == "version three"
    assert leftovers(workspace.root) == []


# confinement --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["../tic.db", "data/../../outside/secret.txt", "memory/../../settings.json", "..\\tic.db"],
)
async def test_dot_dot_escapes_are_refused(workspace: Workspace, path: str) -> None:
    for tool, extra in (
        (ReadFileTool(), {}),
        (WriteFileTool(), {"content": "pwned"}),
        (EditFileTool(), {"old_text": "a", "new_text": "b"}),
    ):
        message = await refused(tool, workspace, path=path, **extra)
        assert message == f"refused: {path!r} leaves data/"
    assert not (workspace.root / "settings.json").exists()


@pytest.mark.parametrize("path", ["/etc/passwd", "C:/Windows/win.ini", "c:\\secret.txt"])
async def test_absolute_paths_are_refused(workspace: Workspace, path: str) -> None:
    message = await refused(ReadFileTool(), workspace, path=path)

    assert message == f"refused: {path!r} is an absolute path; use a path inside data/"


async def test_an_absolute_path_into_data_itself_is_still_refused(workspace: Workspace) -> None:
    path = str(workspace.rules_file)

    message = await refused(WriteFileTool(), workspace, path=path, content="wiped")

    assert "absolute path" in message
    assert workspace.rules_file.read_text() != "wiped"


@pytest.mark.parametrize("path", ["~/.bashrc", "~", "~root/.ssh/id_rsa"])
async def test_home_paths_are_refused(workspace: Workspace, path: str) -> None:
    message = await refused(WriteFileTool(), workspace, path=path, content="x")

    assert message.startswith("refused:")
    assert leftovers(workspace.root) == []
    assert not any(p.name.startswith("~") for p in workspace.data_dir.rglob("*"))


async def test_a_symlinked_file_leading_outside_is_refused(
    workspace: Workspace, outside: Path
) -> None:
    (workspace.data_dir / "innocent.md").symlink_to(outside / "secret.txt")

    read = await refused(ReadFileTool(), workspace, path="innocent.md")
    write = await refused(WriteFileTool(), workspace, path="data/innocent.md", content="pwned")
    edit = await refused(
        EditFileTool(), workspace, path="innocent.md", old_text="top", new_text="no"
    )

    for message in (read, write, edit):
        assert "leads outside data/" in message
    assert (outside / "secret.txt").read_text() == "top secret"


async def test_a_dangling_symlink_leading_outside_is_refused(
    workspace: Workspace, outside: Path
) -> None:
    (workspace.data_dir / "new.md").symlink_to(outside / "created.txt")

    message = await refused(WriteFileTool(), workspace, path="new.md", content="pwned")

    assert "leads outside data/" in message
    assert not (outside / "created.txt").exists()


async def test_a_symlinked_folder_leading_outside_is_refused(
    workspace: Workspace, outside: Path
) -> None:
    (workspace.data_dir / "shared").symlink_to(outside, target_is_directory=True)

    read = await refused(ReadFileTool(), workspace, path="shared/secret.txt")
    write = await refused(WriteFileTool(), workspace, path="shared/new.txt", content="pwned")

    for message in (read, write):
        assert "leads outside data/" in message
    assert names(outside) == ["secret.txt"]


async def test_a_symlink_that_stays_inside_data_is_allowed(workspace: Workspace) -> None:
    (workspace.data_dir / "rules.md").symlink_to(workspace.rules_file)

    text = await run(ReadFileTool(), workspace, path="rules.md")

    assert text == workspace.rules_file.read_text()


@pytest.mark.parametrize("path", ["data", "data/", "."])
async def test_the_data_folder_itself_is_not_a_file(workspace: Workspace, path: str) -> None:
    message = await refused(WriteFileTool(), workspace, path=path, content="x")

    assert message == "path names the data/ folder itself, not a file"


async def test_a_blank_path_is_refused(workspace: Workspace) -> None:
    assert await refused(ReadFileTool(), workspace, path="   ") == "path is empty"


# schema validation --------------------------------------------------------------------


async def test_unknown_arguments_are_rejected(workspace: Workspace) -> None:
    message = await refused(ReadFileTool(), workspace, path="notifications.md", mode="rb")

    assert message.startswith("read_file: invalid arguments:")
    assert "'mode'" in message


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        (WriteFileTool(), {"path": "a.md"}, "'content' is a required property"),
        (WriteFileTool(), {"path": "a.md", "content": 42}, "42 is not of type 'string'"),
        (EditFileTool(), {"path": "a.md", "old_text": "", "new_text": "x"}, NON_EMPTY),
        (ReadFileTool(), {"path": ""}, NON_EMPTY),
    ],
)
async def test_invalid_arguments_are_rejected_before_running(
    workspace: Workspace, tool: Tool, arguments: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ToolError, match=f"^{tool.name}: invalid arguments: .*{expected}"):
        await tool.call(arguments, ToolContext(workspace=workspace, now=NOW))
    assert not (workspace.data_dir / "a.md").exists()


async def test_arguments_must_be_an_object(workspace: Workspace) -> None:
    with pytest.raises(ToolError, match=r"^read_file: arguments must be an object$"):
        await ReadFileTool().call(["notifications.md"], ToolContext(workspace=workspace, now=NOW))


# hostile and broken inputs: one line each, nothing left behind (issue 12) ------------------


@pytest.mark.parametrize("path", ["notes\x00.md", "no\x00tes/x.md", "a\nb.md", "tab\t.md"])
async def test_a_nul_byte_or_control_character_in_a_path_is_one_line(
    workspace: Workspace, path: str
) -> None:
    for tool, extra in (
        (ReadFileTool(), {}),
        (WriteFileTool(), {"content": "x"}),
        (EditFileTool(), {"old_text": "a", "new_text": "b"}),
    ):
        message = await refused(tool, workspace, path=path, **extra)
        assert message == "refused: the path holds a NUL byte or another control character"
    assert leftovers(workspace.data_dir) == []


async def test_a_name_too_long_is_one_line(workspace: Workspace) -> None:
    path = "notes/" + "é" * 130  # 260 bytes in 130 characters
    for tool, extra in ((WriteFileTool(), {"content": "x"}), (ReadFileTool(), {})):
        message = await refused(tool, workspace, path=path, **extra)
        assert message == "a name in the path is longer than 255 bytes"
    assert leftovers(workspace.data_dir) == []


async def test_the_longest_name_can_be_written(workspace: Workspace) -> None:
    path = "é" * 127  # 254 bytes: its temporary file's name must fit too
    assert await run(WriteFileTool(), workspace, path=path, content="x") == (
        f"wrote data/{path} (1 chars)"
    )
    assert leftovers(workspace.data_dir) == []


async def test_write_file_onto_a_folder_leaves_no_temporary_file(workspace: Workspace) -> None:
    (workspace.data_dir / "memory").mkdir(exist_ok=True)
    message = await refused(WriteFileTool(), workspace, path="memory", content="x")
    assert message == "data/memory is a folder; give a file name inside it"
    assert leftovers(workspace.data_dir) == []
    message = await refused(EditFileTool(), workspace, path="memory", old_text="a", new_text="b")
    assert message == "data/memory is a folder, not a file"
    assert await refused(ReadFileTool(), workspace, path="memory") == (
        "data/memory is a folder, not a file"
    )


async def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = workspace.data_dir / "notes.md"
    target.write_text("old", encoding="utf-8")

    def full_disk(self: Path, *args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", full_disk)
    message = await refused(WriteFileTool(), workspace, path="notes.md", content="new")
    assert message == "cannot write data/notes.md: no space left on device"
    assert target.read_text() == "old"
    assert leftovers(workspace.data_dir) == []


async def test_edit_file_on_a_file_that_is_not_utf8_is_one_line(workspace: Workspace) -> None:
    (workspace.data_dir / "photo.md").write_bytes(b"caf\xe9 \xff\xfe")
    message = await refused(
        EditFileTool(), workspace, path="photo.md", old_text="caf", new_text="x"
    )
    assert message == "data/photo.md is not UTF-8 text; only text files can be read or edited"
    assert await refused(ReadFileTool(), workspace, path="photo.md") == message
    assert (workspace.data_dir / "photo.md").read_bytes() == b"caf\xe9 \xff\xfe"


@pytest.mark.allow_log_warnings
async def test_a_tool_that_fails_unexpectedly_fails_its_step_not_the_turn(
    workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    from engine.agent.actions import Action
    from engine.agent.loop import AgentLoop
    from engine.agent.tools.base import ToolRegistry
    from engine.llm.scripted import ScriptedModel

    class Broken(ReadFileTool):
        async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
            raise ValueError("embedded null byte")

    loop = AgentLoop(ScriptedModel(), ToolRegistry([Broken()]), workspace)
    step = await loop._run_tool(
        Action("tool", tool="read_file", arguments={"path": "x.md"}),
        [Broken()],
        ToolContext(workspace=workspace, now=NOW),
    )
    assert (step.status, step.result) == ("failed", "read_file failed: embedded null byte")
    (record,) = [r for r in caplog.records if r.levelname == "ERROR"]
    assert record.exc_info is not None  # logged with its traceback: it is a bug
