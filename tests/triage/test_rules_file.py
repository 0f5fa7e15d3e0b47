"""Every writer of ``data/notifications.md`` goes through ``RulesFile``: atomic, through the
user's link (a file kept in a dotfiles repository stays linked), with its permissions, and
never over a change another program made since the file was read. A chat rule, a mute, the
Rules page's save and the agent's file tools are each checked on a linked file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from engine.agent.tools.base import ToolContext
from engine.agent.tools.files import EditFileTool, WriteFileTool
from engine.clock import utcnow
from engine.engine import Engine
from engine.store.inbox import ingest
from engine.store.models import ChatMessage
from engine.triage.rules.edit import add_rule
from engine.triage.rules.parse import ALWAYS, NEVER, parse_rules
from engine.workspace import Workspace
from engine.workspace.rulesfile import ABSENT, RulesFile, RulesFileChanged, Version
from tests.factories import make_event, reply

RULES = (
    "# Notification preferences\n\n## Always notify\n- Emails from Anna Berg\n\n## Never notify\n"
)
EDITOR = RULES + "- Newsletters\n"  # what the user's editor saved meanwhile
VELLMOOR = {"name": "Vellmoor Deals", "address": "offers@vellmoor.example"}


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    """The rules file's real place: a dotfiles repository, 0640."""
    real = tmp_path / "dotfiles" / "tic" / "notifications.md"
    real.parent.mkdir(parents=True)
    real.write_text(RULES, encoding="utf-8")
    real.chmod(0o640)
    return real


@pytest.fixture
def linked(workspace: Workspace, kept: Path) -> Path:
    """``data/notifications.md`` as a link to ``kept``."""
    workspace.rules_file.unlink(missing_ok=True)
    workspace.rules_file.symlink_to(kept)
    return workspace.rules_file


def still_linked(link: Path, kept: Path) -> str:
    """The link is still a link to ``kept``, which kept its mode and holds no temporary file
    beside it; returns its text."""
    assert link.is_symlink() and link.resolve() == kept
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert [p.name for p in kept.parent.iterdir()] == ["notifications.md"]
    assert [p.name for p in link.parent.iterdir() if ".tmp" in p.name] == []
    return kept.read_text(encoding="utf-8")


def editor_saves_after_read(monkeypatch: pytest.MonkeyPatch, times: int = 1) -> list[int]:
    """Another program saves the file right after each of the next ``times`` reads (between
    a writer's read and its write): ``EDITOR`` first, then one more line each time. Returns
    the reads it interfered with."""
    real_read = RulesFile.read
    interfered: list[int] = []

    def read(self: RulesFile) -> tuple[str, Version]:
        found = real_read(self)
        if len(interfered) < times:
            self.target.write_text(EDITOR + "- Receipts\n" * len(interfered), encoding="utf-8")
            interfered.append(1)
        return found

    monkeypatch.setattr(RulesFile, "read", read)
    return interfered


# the file itself --------------------------------------------------------------------------


def test_a_write_goes_through_the_link_and_keeps_the_mode(linked, kept):
    rules = RulesFile(linked)
    text, version = rules.read()
    assert text == RULES and version.exists
    new = rules.write(text + "- Receipts\n", version)
    assert still_linked(linked, kept) == RULES + "- Receipts\n"
    assert rules.current() == new


def test_a_plain_file_keeps_its_mode_and_is_replaced_in_one_step(tmp_path):
    path = tmp_path / "notifications.md"
    path.write_text(RULES, encoding="utf-8")
    path.chmod(0o600)
    inode = path.stat().st_ino
    rules = RulesFile(path)
    rules.write("## Never notify\n- Receipts\n", rules.read()[1])
    assert path.read_text(encoding="utf-8") == "## Never notify\n- Receipts\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != inode  # a new file took its place: no reader sees half


def test_a_change_since_the_read_is_refused_not_overwritten(tmp_path):
    path = tmp_path / "notifications.md"
    path.write_text(RULES, encoding="utf-8")
    rules = RulesFile(path)
    _text, version = rules.read()
    path.write_text(EDITOR, encoding="utf-8")
    with pytest.raises(RulesFileChanged, match="changed since it was read"):
        rules.write(RULES + "- Receipts\n", version)
    assert path.read_text(encoding="utf-8") == EDITOR
    assert [p.name for p in tmp_path.iterdir()] == ["notifications.md"]


def test_a_file_created_meanwhile_is_not_overwritten_either(tmp_path):
    path = tmp_path / "notifications.md"
    rules = RulesFile(path)
    assert rules.read() == ("", ABSENT)
    path.write_text(EDITOR, encoding="utf-8")
    with pytest.raises(RulesFileChanged):
        rules.write(RULES, ABSENT)
    assert path.read_text(encoding="utf-8") == EDITOR


def test_a_dangling_link_is_written_where_it_points(tmp_path):
    real = tmp_path / "dotfiles" / "notifications.md"
    real.parent.mkdir()
    link = tmp_path / "data" / "notifications.md"
    link.parent.mkdir()
    link.symlink_to(real)
    assert add_rule(RulesFile(link), NEVER, "Newsletters")
    assert link.is_symlink()
    assert [r.text for r in parse_rules(real.read_text(encoding="utf-8")).section(NEVER)] == [
        "Newsletters"
    ]


def test_an_addition_is_applied_again_to_what_another_program_saved(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "notifications.md"
    path.write_text(RULES, encoding="utf-8")
    interfered = editor_saves_after_read(monkeypatch)
    assert add_rule(RulesFile(path), ALWAYS, "Emails from Mario")
    assert interfered == [1]
    rules = parse_rules(path.read_text(encoding="utf-8"))
    assert [r.text for r in rules.section(NEVER)] == ["Newsletters"]  # the editor's line
    assert [r.text for r in rules.section(ALWAYS)] == ["Emails from Anna Berg", "Emails from Mario"]


def test_a_file_that_keeps_changing_is_left_as_it_is(tmp_path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "notifications.md"
    path.write_text(RULES, encoding="utf-8")
    editor_saves_after_read(monkeypatch, times=10)
    with pytest.raises(RulesFileChanged, match="kept changing"):
        add_rule(RulesFile(path), ALWAYS, "Emails from Mario")
    assert path.read_text(encoding="utf-8") == EDITOR + "- Receipts\n" * 2  # its last save


# every writer, on a linked file ----------------------------------------------------------


async def test_a_rule_added_in_the_chat_keeps_the_link(engine: Engine, linked, kept):
    answer = await engine.hub.send("Never notify me about emails from offers@vellmoor.example")
    assert answer.content.startswith("Done")
    never = parse_rules(still_linked(linked, kept)).section(NEVER)
    assert [r.text for r in never] == ["Emails from offers@vellmoor.example"]


async def test_a_mute_keeps_the_link(engine: Engine, model, linked, kept):
    kept.write_text(RULES.replace("Anna Berg", "Vellmoor Deals"), encoding="utf-8")
    ingest([make_event(sender=VELLMOOR, subject="Winter sale")])
    model.default = reply("Vellmoor Deals has a winter sale.")
    await engine.check_now(timeout=5)
    note = ChatMessage.select().where(ChatMessage.content != "").get()
    confirmation = await engine.hub.mute(note.id)
    assert confirmation.content.startswith("Done")
    never = parse_rules(still_linked(linked, kept)).section(NEVER)
    assert [r.text for r in never] == ["Emails from offers@vellmoor.example"]


async def test_a_mute_while_the_editor_saves_keeps_both(
    engine: Engine, model, linked, kept, monkeypatch: pytest.MonkeyPatch
):
    ingest([make_event(sender=VELLMOOR, subject="Winter sale")])
    model.default = reply("Vellmoor Deals has a winter sale.")
    kept.write_text(RULES.replace("Anna Berg", "Vellmoor Deals"), encoding="utf-8")
    await engine.check_now(timeout=5)
    note = ChatMessage.select().where(ChatMessage.content != "").get()
    interfered = editor_saves_after_read(monkeypatch)
    await engine.hub.mute(note.id)
    assert interfered == [1]
    never = parse_rules(still_linked(linked, kept)).section(NEVER)
    assert [r.text for r in never] == ["Newsletters", "Emails from offers@vellmoor.example"]


async def test_a_rules_page_save_keeps_the_link(engine: Engine, linked, kept):
    assert engine.save_rules(RULES + "- Receipts\n", replacing=RULES) is True
    assert still_linked(linked, kept) == RULES + "- Receipts\n"


async def test_a_save_racing_another_program_is_refused_not_overwritten(
    engine: Engine, linked, kept, monkeypatch: pytest.MonkeyPatch
):
    editor_saves_after_read(monkeypatch)
    assert engine.save_rules(RULES + "- Receipts\n", replacing=RULES) is False
    assert still_linked(linked, kept) == EDITOR


async def test_the_file_tools_write_a_linked_rules_file_through_its_link(
    workspace: Workspace, linked, kept
):
    ctx = ToolContext(workspace=workspace, now=utcnow())
    edit = {"path": "notifications.md", "old_text": "## Never notify\n", "new_text": "## Never "}
    edit["new_text"] += "notify\n- Receipts\n"
    assert await EditFileTool().call(edit, ctx) == "edited data/notifications.md"
    assert still_linked(linked, kept) == RULES + "- Receipts\n"
    written = await WriteFileTool().call({"path": "data/notifications.md", "content": RULES}, ctx)
    assert written == f"wrote data/notifications.md ({len(RULES)} chars)"
    assert still_linked(linked, kept) == RULES
