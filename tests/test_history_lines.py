"""``tic-desktop history`` reads like a person's account of what happened: under each
notification what arrived and why TIC told you, under a reply what it changed; none of the
machinery (the synthetic turn's canned reasoning, tool calls and results as JSON).
``--json`` keeps every field."""

from __future__ import annotations

import json

import pytest

from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.workspace import Workspace
from tests.factories import make_event
from tic_cli.cli import cmd_history

SENDER = {"name": "Ines Varga", "address": "ines@quillmoor.test"}


@pytest.fixture
async def tiny(workspace: Workspace):
    engine = Engine(workspace, Settings(), ScriptedModel(capability="tiny"))
    await engine.start(schedule=False)
    yield engine
    await engine.stop()


async def test_each_entry_is_a_human_line(tiny, capsys) -> None:
    tiny.workspace.rules_file.write_text("## Always notify\n- Emails from Ines Varga\n")
    tiny.ingest([make_event(sender=SENDER, subject="Lease renewal", text="Can you sign it?")])
    await tiny.check_now(timeout=5)
    await tiny.send("stop telling me about LinkedIn")
    await cmd_history(tiny.workspace, as_json=False, limit=20)
    shown = capsys.readouterr().out
    lines = shown.splitlines()

    reply = next(line for line in lines if "(composed from the facts)" in line)
    assert reply.startswith("[") and "] assistant (composed from the facts): " in reply
    assert (
        "    Ines Varga sent an email about \u201cLease renewal\u201d. Notified: matches the "
        "Always rule \u201cEmails from Ines Varga\u201d"
    ) in lines
    assert any(line.endswith("] user: stop telling me about LinkedIn") for line in lines)
    (changed,) = [line for line in lines if "Rule added" in line]
    assert changed.endswith("] assistant: Rule added to Never notify")
    for machinery in ("reasoning:", "read_notification", "(synthetic)", '{"', "[done]"):
        assert machinery not in shown, machinery


async def test_json_keeps_every_field(tiny, capsys) -> None:
    tiny.workspace.rules_file.write_text("## Always notify\n- Emails from Ines Varga\n")
    tiny.ingest([make_event(sender=SENDER, subject="Lease renewal")])
    await tiny.check_now(timeout=5)
    await cmd_history(tiny.workspace, as_json=True, limit=20)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    synthetic = [r for r in rows if r["is_synthetic"]]
    assert synthetic and synthetic[0]["tool_calls"][0]["name"] == "read_notification"
    assert rows[-1]["why"][0]["rule"] == "Emails from Ines Varga"
