"""Delivering notifications: composed with no model call on a tiny model; a capable model's
reply checked against the facts, and replaced by the composed one when it fails."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from engine.agent.actions import reply_schema
from engine.bus import ReplyFinished, ReplyStarted, TickFinished
from engine.chat.history import history_rows
from engine.engine import Engine
from engine.errors import ModelError
from engine.events import Event
from engine.llm.scripted import ScriptedModel
from engine.modeltypes import Capability
from engine.settings import Settings
from engine.store.inbox import ingest
from engine.store.models import Notification
from engine.workspace import Workspace
from tests.cli_helpers import run_tic
from tests.factories import make_event, notification, reply

NOW = datetime.fromisoformat("2026-11-08T09:00:00+00:00")  # Sunday, 10:00 in Berlin

REVIEW = {
    "id": "gcal:review",
    "source": "calendar",
    "event_type": "calendar.reminder",
    "time": "2026-11-08T08:50:00+00:00",
    "sender": None,
    "subject": "Budget review",
    "text": "",
    "calendar": {
        "start": "2026-11-08T14:00:00+00:00",
        "end": "2026-11-08T15:00:00+00:00",
        "location": "Room 2",
        "organizer": {"name": "Ian Wright", "address": "ian@fabrikam.io"},
    },
    "refs": {},
}
COMPOSED_REVIEW = (
    "Reminder: \u201cBudget review\u201d starts at 15:00 in Room 2 (organised by Ian Wright)."
)


@pytest.fixture(autouse=True)
def _berlin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Europe/Berlin")


def running_from(start: datetime) -> Callable[[], datetime]:
    """A clock that reads ``start`` now and runs on as time passes (so retries fall due)."""
    began = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - began)


async def started(workspace: Workspace, capability: Capability, *script: Any) -> Engine:
    model = ScriptedModel(script, capability=capability)
    engine = Engine(workspace, Settings(), model, clock=running_from(NOW), retry_delays=(0.05, 0.1))
    await engine.start(schedule=False)
    return engine


@pytest.fixture
async def tiny(workspace: Workspace) -> AsyncIterator[Engine]:
    engine = await started(workspace, "tiny")
    yield engine
    await engine.stop()


async def notify(engine: Engine, **event: Any) -> Notification | None:
    stored = make_event(**event)
    ingest([stored])
    return await engine.hub.notify(
        notification(
            {
                "source": stored.source,
                "event_type": stored.event_type,
                "summary": "(the neutral summary)",
                "event_time": stored.time.isoformat(),
                "refs": {"event_id": stored.id},
            },
            reason="an event starts soon",
        ),
    )


def model_of(engine: Engine) -> ScriptedModel:
    model = engine.loop.model.current  # type: ignore[attr-defined]
    assert isinstance(model, ScriptedModel)
    return model


async def test_on_a_tiny_model_the_reply_is_composed_and_no_model_is_asked(tiny):
    seen: list[Any] = []
    tiny.bus.subscribe(seen.append)
    await notify(tiny, **REVIEW)
    assert await tiny.hub.drain(timeout=5)

    assert model_of(tiny).calls == []
    synthetic, answer = history_rows()
    assert synthetic["is_synthetic"] and synthetic["tool_calls"][0]["name"] == "read_notification"
    assert answer["content"] == COMPOSED_REVIEW
    assert answer["composed"] is True and answer["kind"] == "notification"
    assert answer["completion_tokens"] == 0 and not answer["fallback"]
    assert answer["why"][0]["reason"] == "an event starts soon"
    started_, finished = [e for e in seen if isinstance(e, ReplyStarted | ReplyFinished)]
    assert started_.kind == "notification"
    assert finished.composed is True and finished.text == COMPOSED_REVIEW
    assert [n.source for n in finished.notifications] == ["calendar"]
    assert Notification.get().state == "delivered"


async def test_a_burst_on_a_tiny_model_is_one_composed_reply(tiny):
    await notify(
        tiny,
        id="gmail:1",
        sender={"name": "Tomas Herrera", "address": "tomas@herrera-lutz.es"},
        subject="Q3 VAT return",
        text="Please sign it.",
        time="2026-11-08T08:30:00+00:00",
    )
    await notify(tiny, **REVIEW)
    assert await tiny.hub.drain(timeout=5)
    answer = history_rows()[-1]["content"]
    assert answer.splitlines()[0] == "2 new: 1 email, 1 calendar change."
    assert answer.splitlines()[2] == f"- {COMPOSED_REVIEW}"  # time-sensitive first
    assert answer.splitlines()[3].startswith("- Tomas Herrera emailed you at 09:30")


async def test_tic_history_says_a_reply_was_composed(workspace):
    engine = await started(workspace, "tiny")
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=5)
    finally:
        await engine.stop()
    shown = run_tic("history", home=workspace.root)
    assert shown.returncode == 0, shown.stderr
    (line,) = [x for x in shown.stdout.splitlines() if "Budget review" in x and "] assistant" in x]
    assert "assistant (composed from the facts): Reminder:" in line
    rows = [
        json.loads(x)
        for x in run_tic("history", "--json", home=workspace.root).stdout.split("\n")
        if x
    ]
    assert rows[-1]["composed"] is True


async def test_a_capable_models_invented_time_is_replaced_by_the_composed_reply(workspace, caplog):
    engine = await started(
        workspace, "capable", reply("Ian Wright's budget review starts at 17:30 in Room 2.")
    )
    seen: list[Any] = []
    engine.bus.subscribe(seen.append)
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=5)
    finally:
        await engine.stop()
    answer = history_rows()[-1]
    assert answer["content"] == COMPOSED_REVIEW
    assert answer["composed"] is True and answer["replaced"] == ["invented time 17:30"]
    (finished,) = [e for e in seen if isinstance(e, ReplyFinished)]
    assert finished.composed is True and finished.text == COMPOSED_REVIEW
    (line,) = [r.getMessage() for r in caplog.records if r.name == "engine.chat.delivery"]
    assert line == (
        "the model's notification reply was replaced by the composed one: invented time 17:30"
    )
    shown = run_tic("history", home=workspace.root).stdout
    assert "assistant (composed from the facts): Reminder:" in shown
    assert "    replaced the model's reply: invented time 17:30" in shown


async def test_a_capable_models_correct_reply_is_kept(workspace):
    written = "Heads up: Ian Wright's budget review starts at 3pm today, in Room 2."
    engine = await started(workspace, "capable", reply(written))
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=5)
    finally:
        await engine.stop()
    answer = history_rows()[-1]
    assert answer["content"] == written
    assert answer["composed"] is False and answer["replaced"] == []
    assert answer["completion_tokens"] > 0


async def test_a_capable_models_notification_turn_is_one_call_that_may_only_reply(workspace):
    """Everything the reply needs is in the completed read_notification: one model call per
    batch, offered no tool (none listed in the prompt, the schema allows only a reply)."""
    written = "Heads up: Ian Wright's budget review starts at 3pm today, in Room 2."
    engine = await started(workspace, "capable", reply(written))
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=5)
    finally:
        await engine.stop()
    assert history_rows()[-1]["content"] == written
    (call,) = model_of(engine).calls
    assert call["schema"] == reply_schema()
    system, *_, synthetic, result = call["messages"]
    assert system["content"].split("## Tools\n", 1)[1].startswith("(none)")
    assert json.loads(synthetic["content"])["tool"] == "read_notification"
    assert result["content"].startswith("[tool read_notification returned]")


@pytest.mark.allow_log_warnings
async def test_a_capable_model_that_keeps_failing_gets_the_composed_words(workspace):
    def boom(messages: Any, schema: Any) -> str:
        raise ModelError("model file is gone")

    engine = await started(workspace, "capable")
    model_of(engine).default = boom
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=10)
    finally:
        await engine.stop()
    (answer,) = history_rows()
    assert answer["content"] == COMPOSED_REVIEW
    assert answer["fallback"] is True and answer["composed"] is True
    assert Notification.get().attempts == 3


async def test_a_tiny_models_delivery_never_waits_for_the_model(workspace, caplog):
    """Even a model that would fail every call: the tiny path asks it nothing."""
    caplog.set_level(logging.INFO)

    def boom(messages: Any, schema: Any) -> str:
        raise AssertionError("the model was called")

    engine = await started(workspace, "tiny")
    model_of(engine).default = boom
    try:
        await notify(engine, **REVIEW)
        assert await engine.hub.drain(timeout=5)
    finally:
        await engine.stop()
    assert history_rows()[-1]["content"] == COMPOSED_REVIEW


async def test_on_a_tiny_model_the_reply_is_there_within_a_second_of_the_tick(tiny):
    """The toast waits for no model: tick commit → ReplyFinished is about the 200 ms batch
    window (``python -m bench.tick_to_toast`` measures it on the embedded model)."""
    marks: dict[str, float] = {}

    def on_bus(message: object) -> None:
        if isinstance(message, TickFinished):
            marks["committed"] = time.perf_counter()
        elif isinstance(message, ReplyFinished):
            marks["replied"] = time.perf_counter()

    tiny.bus.subscribe(on_bus)
    tiny.ingest([make_event(**REVIEW)])
    result = await tiny.check_now(timeout=5)
    assert result.notified == 1 and result.delivered
    assert 0 < marks["replied"] - marks["committed"] < 1.0


async def test_800_pending_notifications_go_out_20_a_reply_oldest_first(tiny):
    """A reply carries at most MAX_BATCH notifications; the rest follow in the next ones."""
    from engine.chat.delivery import MAX_BATCH
    from engine.store import chat

    for n in range(800):
        chat.add_notification(
            dedup_key=f"bulk:{n}",
            source="email",
            event_type="email.received",
            summary=f"Anna Berg sent message number {n}.",
            created_at=NOW,
        )
    delivery = tiny.hub.delivery
    carried: list[list[int]] = []
    while chat.pending_count():
        reply_message = await delivery.deliver_pending()
        assert reply_message is not None
        carried.append([n.id for n in chat.notifications_of_reply(reply_message.id)])
    assert MAX_BATCH == 20 and len(carried) == 40
    assert all(len(ids) == 20 for ids in carried)
    assert [i for ids in carried for i in ids] == sorted(n.id for n in Notification.select())


async def test_the_consumer_comes_back_at_once_while_more_are_due(tiny):
    from engine.store import chat

    for n in range(25):
        chat.add_notification(
            dedup_key=f"bulk:{n}",
            source="email",
            event_type="email.received",
            summary=f"Anna Berg sent message number {n}.",
            created_at=NOW,
        )
    assert await tiny.hub.delivery._deliver_and_wait() == 0.0  # 5 still due
    assert chat.pending_count() == 5
    assert await tiny.hub.delivery._deliver_and_wait() is None  # all out: wait for notify
    assert chat.pending_count() == 0


async def test_a_capable_models_long_reply_for_a_batch_of_20_is_delivered_at_once(workspace):
    """The reply's bound grows with the batch it covers: a server that does not enforce the
    schema may write past the 1 000 characters of a reply to the user, and that is no error
    (no retry, no plain fallback)."""
    from engine.chat.delivery import MAX_BATCH
    from engine.llm.openai_compat import OpenAICompatModel
    from engine.store import chat
    from tests.model_server import ScriptedServer

    people = [f"Person {chr(65 + n)}" for n in range(MAX_BATCH)]
    written = " ".join(
        f"{who} sent you a message about the quarterly figures, which is worth a look "
        f"today; it is one of the {MAX_BATCH} that came in while you were away."
        for who in people
    )
    assert len(written) > 2500
    with ScriptedServer(default=reply(written)) as server:
        model = OpenAICompatModel(server.url, timeout=10)
        engine = Engine(workspace, Settings(), model, clock=running_from(NOW), retry_delays=(5,))
        await engine.start(schedule=False)
        try:
            for who in people:
                chat.add_notification(
                    dedup_key=f"bulk:{who}",
                    source="email",
                    event_type="email.received",
                    summary=f"{who} sent a message about the quarterly figures.",
                    created_at=NOW,
                )
            answer = await engine.hub.delivery.deliver_pending()
        finally:
            await engine.stop()
    assert answer is not None and answer.content == written
    (request,) = server.requests
    bound = request["response_format"]["json_schema"]["schema"]["properties"]["text"]
    assert bound["maxLength"] == 300 * MAX_BATCH and request["max_tokens"] > len(written) // 3
    notes = list(Notification.select())
    assert len(notes) == MAX_BATCH and {n.attempts for n in notes} == {0}
    assert all(n.delivered_at is not None for n in notes)


@pytest.mark.parametrize("capability", ["tiny", "capable"])
async def test_a_notified_event_is_parsed_once_on_its_way_to_the_reply(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, capability: Capability
):
    """TIC parses the stored event; its draft carries it to the delivery, which composes or
    checks the reply from it and announces it, reading it from the store no more."""
    workspace.rules_file.write_text("## Always notify\n- Emails from Anna Berg\n")
    engine = await started(workspace, capability)
    model_of(engine).default = reply("Anna Berg asked you to call her back today.")
    finished: list[ReplyFinished] = []
    engine.bus.subscribe(lambda m: finished.append(m) if isinstance(m, ReplyFinished) else None)
    try:
        engine.ingest([make_event()])
        assert (await engine.check_now(timeout=5)).delivered  # the rule lines' measure, made
        later = make_event()
        engine.ingest([later])
        parsed: list[str] = []
        parse = Event.model_validate_json

        def counted(cls: type[Event], data: str | bytes, **kwargs: Any) -> Event:
            parsed.append(str(data))
            return parse(data, **kwargs)

        monkeypatch.setattr(Event, "model_validate_json", classmethod(counted))
        result = await engine.check_now(timeout=5)
    finally:
        await engine.stop()
    assert (result.notified, result.delivered) == (1, True)
    assert [json.loads(p)["id"] for p in parsed] == [later.id]
    assert [n.refs["event_id"] for n in finished[-1].notifications] == [later.id]
