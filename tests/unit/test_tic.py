"""The TIC runner: claims, decisions, notify, retries and no duplicates."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.errors import ModelError
from engine.store.models import AgentRun, EventRecord, Notification
from engine.tic import ingest, recover_events
from tests.factories import decision, make_event, reply


async def test_empty_tick_makes_no_model_call(engine, model):
    result = await engine.tic.tick()
    assert result.events == 0
    assert model.calls == []
    assert AgentRun.select().count() == 0


async def test_tick_notifies_what_tic_decides_and_marks_events_done(engine, model):
    a, b = make_event(), make_event(sender={"name": "Shop", "address": "news@shop.example"})
    ingest([a, b])
    model.add(
        decision(True, summary="Anna Berg asked for a call back today."),
        decision(False, reason="marketing"),
        reply("Anna Berg would like you to call her back today."),
    )
    result = await engine.tic.tick()
    assert (result.events, result.notified, result.error) == (2, 1, None)
    await engine.hub.drain(timeout=5)
    note = Notification.get()
    assert note.event_id == a.id
    assert note.summary == "Anna Berg asked for a call back today."
    assert note.reason == "a person asks for action"
    assert note.refs["thread_id"] == a.refs["thread_id"]
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[a.id].status == rows[b.id].status == "done"
    assert rows[b.id].decision_notify is False
    assert rows[b.id].decision_reason == "marketing"
    run = AgentRun.get()
    assert (run.status, run.events_in, run.notifications_out) == ("ok", 2, 1)


async def test_events_are_claimed_oldest_first_in_batches(engine, model, settings):
    engine.tic.batch_size = 2
    events = [make_event(time=f"2026-11-10T0{h}:00:00+00:00") for h in (5, 3, 4)]
    ingest(events)
    model.default = decision(False, reason="not important")
    result = await engine.tic.tick()
    assert result.events == 3
    first_prompts = [c["messages"][-1]["content"] for c in model.calls]
    assert "03:00" in first_prompts[0] and "04:00" in first_prompts[1]
    assert AgentRun.select().count() == 2


async def test_ticks_never_overlap(engine, model):
    ingest([make_event()])

    gate = asyncio.Event()
    original = engine.decider.decide

    async def gated(events, now, **kwargs):
        await gate.wait()
        return await original(events, now, **kwargs)

    engine.decider.decide = gated
    model.add(decision(False, reason="fine"))
    first = asyncio.create_task(engine.tic.tick())
    await asyncio.sleep(0.05)
    second = await engine.tic.tick()
    assert second.skipped is True
    gate.set()
    assert (await first).events == 1
    assert len(model.calls) == 1


@pytest.mark.allow_log_warnings
async def test_model_error_leaves_events_pending_for_retry(engine, model):
    ingest([make_event(), make_event()])

    def boom(messages, schema):
        raise ModelError("out of memory")

    model.add(decision(True), boom)
    result = await engine.tic.tick()
    assert result.error == "out of memory"
    assert {r.status for r in EventRecord.select()} == {"pending"}
    assert {r.attempts for r in EventRecord.select()} == {1}
    assert Notification.select().count() == 0

    model.add(decision(True), decision(False), reply("Anna asked you to call."))
    result = await engine.tic.tick()
    assert (result.events, result.notified, result.error) == (2, 1, None)
    assert {r.status for r in EventRecord.select()} == {"done"}
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_crash_after_notify_never_notifies_twice(engine, model):
    a, b = make_event(), make_event()
    ingest([a, b])
    calls = {"n": 0}
    real_notify = engine.tic.notify

    async def crash_on_second(payload, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("power cut")
        return await real_notify(payload, **kw)

    engine.tic.notify = crash_on_second
    model.add(decision(True), decision(True))
    model.default = reply("ok")
    result = await engine.tic.tick()
    assert result.error == "power cut"
    assert Notification.select().count() == 1

    engine.tic.notify = real_notify
    model.add(decision(True), decision(True))
    result = await engine.tic.tick()
    assert result.error is None
    assert result.notified == 1  # only b is new; a was already notified
    assert sorted(n.event_id for n in Notification.select()) == sorted([a.id, b.id])
    await engine.hub.drain(timeout=5)


async def test_events_left_processing_by_a_crash_are_retried(engine, model):
    ingest([make_event()])
    EventRecord.update(status="processing", attempts=1).execute()
    assert recover_events() == 1
    model.add(decision(False, reason="routine"))
    result = await engine.tic.tick()
    assert result.events == 1
    assert EventRecord.get().attempts == 2


@pytest.mark.allow_log_warnings
async def test_attempts_are_bounded(engine, model, settings):
    ingest([make_event()])

    def boom(messages, schema):
        raise ModelError("broken model")

    model.default = boom
    for _ in range(settings.max_event_attempts):
        await engine.tic.tick()
    record = EventRecord.get()
    assert record.status == "failed"
    assert record.last_error == "broken model"
    assert model.calls and len(model.calls) == settings.max_event_attempts
    assert (await engine.tic.tick()).events == 0


async def test_rules_file_is_reread_on_every_tick(engine, model, workspace):
    model.default = decision(False, reason="no")
    ingest([make_event()])
    await engine.tic.tick()
    workspace.rules_file.write_text(
        "# Notification preferences\n\n## Always notify\n- Emails from Anna Berg\n"
    )
    ingest([make_event()])
    await engine.tic.tick()
    before, after = (c["messages"][0]["content"] for c in model.calls)
    assert "Emails from Anna Berg" not in before
    assert "Emails from Anna Berg" in after
    assert "Emails from Anna Berg" in json.dumps(model.calls[1]["schema"])


async def test_decision_rule_and_summary_are_stored(engine, model, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Anna Berg\n")
    ingest([make_event()])
    model.add(decision(True, rule="Emails from Anna Berg", summary="x"), reply("ok"))
    await engine.tic.tick()
    await engine.hub.drain(timeout=5)
    record = EventRecord.get()
    assert record.decision_rule == "Emails from Anna Berg"
    note = Notification.get()
    assert note.rule == "Emails from Anna Berg"
    assert "Anna Berg" in note.summary  # a too-short summary is replaced by a factual one
