"""Notification replies on the real embedded model (tiny): for every event of the dev set that
is to be notified, the tick (with its rules file, at its moment) notifies it and the reply is
composed with no model call, names who and what, and states no time, date, number or name
the facts do not hold."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.bus import NotificationQueued, ReplyFinished
from engine.chat.compose import compose_facts
from engine.chat.factcheck import check_reply
from engine.chat.facts import batch_facts, events_of
from engine.clock import zone
from engine.engine import Engine
from engine.events import parse_event
from engine.llm.llama import LlamaCppModel
from engine.llm.select import default_model_path
from engine.settings import Settings
from engine.store.models import ChatMessage, Notification
from engine.workspace import Workspace
from tests.cli_helpers import TRIAGE_DEV

pytestmark = pytest.mark.real_model

USER_ZONE = "Europe/Berlin"


def groups() -> dict[tuple[str, str], list[dict[str, Any]]]:
    found: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for line in (TRIAGE_DEV / "cases.jsonl").read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            found[(case["rules"], case["now"])].append(case)
    return dict(found)


def running_from(start: datetime) -> Callable[[], datetime]:
    began = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - began)


@pytest.fixture
def model() -> LlamaCppModel:
    return LlamaCppModel(default_model_path())  # the engine closes it when it stops


@pytest.mark.parametrize(("rules", "now"), list(groups()), ids=lambda v: str(v)[:16])
async def test_every_notified_dev_event_gets_a_composed_reply_true_to_the_facts(
    rules: str, now: str, model: LlamaCppModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("TZ", USER_ZONE)
    cases = groups()[(rules, now)]
    workspace = Workspace.open(tmp_path / "home")
    workspace.rules_file.write_text((TRIAGE_DEV / f"rules-{rules}.md").read_text())
    moment = datetime.fromisoformat(now)
    engine = Engine(workspace, Settings(), model, clock=running_from(moment))
    assert engine.capability == "tiny"
    calls: list[str] = []
    delivering = False
    original = model.complete

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("delivery" if delivering else "triage")
        return await original(*args, **kwargs)

    def on_bus(message: object) -> None:
        nonlocal delivering
        if isinstance(message, NotificationQueued):
            delivering = True  # TIC decided every event of the batch before notifying
        if isinstance(message, ReplyFinished):
            replies.append(message)

    replies: list[ReplyFinished] = []
    engine.bus.subscribe(on_bus)
    monkeypatch.setattr(model, "complete", counted)
    await engine.start(schedule=False)
    try:
        engine.ingest([parse_event(c["event"]) for c in cases])
        result = await engine.check_now(timeout=60)
        assert result.error is None and result.delivered

        wanted = {c["event"]["id"] for c in cases if c["notify"]}
        notified = {n.event_id: n for n in Notification.select()}
        assert wanted <= set(notified), f"not notified: {sorted(wanted - set(notified))}"
        assert "delivery" not in calls  # no model call for any notification reply
        assert replies and all(r.composed for r in replies)

        tz = zone(USER_ZONE)
        by_reply: dict[int, list[Notification]] = defaultdict(list)
        for note in notified.values():
            assert note.state == "delivered"
            assert note.reply_message_id is not None
            by_reply[note.reply_message_id].append(note)
        for reply_id, batch in by_reply.items():
            reply = ChatMessage.get_by_id(reply_id)
            assert reply.meta["composed"] is True and reply.completion_tokens == 0
            facts = batch_facts(batch, events_of(batch))
            assert check_reply(reply.content, facts, now=moment, tz=tz) == [], reply.content
            for one in facts:  # and each alone, as a single notification's reply
                text = compose_facts([one], moment, tz)
                assert check_reply(text, [one], now=moment, tz=tz) == [], text
                assert one.who is None or text.startswith(one.who) or one.who in text
    finally:
        await engine.stop()
