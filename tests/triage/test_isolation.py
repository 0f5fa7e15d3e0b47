"""An event fails alone: nothing one event carries holds up or gives up another of its batch."""

from __future__ import annotations

import pytest

from engine.agent.draft import NotificationDraft
from engine.errors import ModelError
from engine.store.inbox import ingest
from engine.store.models import EventRecord, Notification
from engine.triage import decider as decider_module
from engine.triage.decider import MODEL_FAILURES, Undecided
from tests.factories import make_event, reply

HOSTILE = [  # each of these used to fail its whole batch (issue 12)
    {"sender": {"name": "Tomas Herrera " + "x" * 400, "address": "offers@cheap-pills.example"}},
    {"event_type": "email." + "x" * 80},
    {
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "sender": {"name": "Marco"},
        "chat": {"id": "g1", "name": "G" * 500, "is_group": True},
        "mentions_me": True,
    },
    {
        "source": "calendar",
        "event_type": "calendar.created",
        "sender": None,
        "calendar": {"start": "2026-11-11T10:00:00"},
    },
    {
        "source": "calendar",
        "event_type": "calendar.cancelled",
        "sender": None,
        "calendar": {"start": "9999-12-31T23:00:00-05:00", "status": "cancelled"},
    },
    {"text": "before \ud800 after"},
]


async def test_hostile_events_are_decided_with_the_good_ones(engine, model):
    good = [make_event() for _ in range(3)]
    hostile = [make_event(**fields) for fields in HOSTILE]
    ingest([*good, *hostile])
    model.default = reply("ok")
    result = await engine.tic.tick()
    assert (result.events, result.failed, result.error) == (9, 0, None)
    assert {r.status for r in EventRecord.select()} == {"done"}
    notified = {n.event_id for n in Notification.select()}
    assert {e.id for e in good} <= notified
    assert result.notified == len(notified)
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_an_event_whose_notify_fails_fails_alone_with_its_reason(engine, model, settings):
    events = [make_event() for _ in range(5)]
    bad = events[2]
    ingest(events)
    real_notify = engine.tic.notify

    async def refuse_one(draft: NotificationDraft) -> object:
        if draft.event_id == bad.id:
            raise ModelError("the chat could not take it")
        return await real_notify(draft)

    engine.tic.notify = refuse_one
    model.default = reply("ok")
    result = await engine.tic.tick()
    assert (result.events, result.notified, result.failed) == (5, 4, 0)
    assert result.error == "the chat could not take it"
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[bad.id].status == "pending" and rows[bad.id].attempts == 1
    assert rows[bad.id].last_error == "the chat could not take it"
    assert all(rows[e.id].status == "done" for e in events if e is not bad)

    for _ in range(settings.max_event_attempts - 1):  # only the bad one is tried again
        again = await engine.tic.tick()
        assert again.events == 1
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[bad.id].status == "failed"
    assert all(rows[e.id].status == "done" for e in events if e is not bad)
    assert Notification.select().count() == 4
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_a_bug_deciding_one_event_fails_only_that_event(engine, model, monkeypatch):
    events = [make_event() for _ in range(4)]
    bad = events[1]
    ingest(events)
    real = decider_module.summarize

    def broken_for_one(event):
        if event.id == bad.id:
            raise KeyError("surprise")
        return real(event)

    monkeypatch.setattr(decider_module, "summarize", broken_for_one)
    model.default = reply("ok")
    result = await engine.tic.tick()
    assert (result.events, result.notified) == (4, 3)
    assert engine.unexpected_errors == 1
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[bad.id].status == "pending" and "surprise" in rows[bad.id].last_error
    assert sum(r.status == "done" for r in rows.values()) == 3
    await engine.hub.drain(timeout=5)


@pytest.mark.allow_log_warnings
async def test_a_failed_event_is_not_claimed_again_in_the_same_tick(engine, model, workspace):
    engine.tic.batch_size = 2
    workspace.rules_file.write_text("## Custom rules\n- whatever my boss would care about\n")
    ingest([make_event() for _ in range(5)])
    model.default = lambda messages, schema: (_ for _ in ()).throw(ModelError("model down"))
    result = await engine.tic.tick()
    assert result.events == 5
    assert {r.attempts for r in EventRecord.select()} == {1}
    assert {r.status for r in EventRecord.select()} == {"pending"}


async def test_after_repeated_model_failures_the_model_is_not_asked_again(workspace, model):
    from datetime import UTC, datetime

    from engine.triage.decider import TriageDecider

    calls = {"n": 0}

    def down(messages, schema):
        calls["n"] += 1
        raise ModelError("model down")

    model.default = down
    events = [make_event() for _ in range(6)]
    newsletter = make_event(
        sender={"name": "The Weekly Digest", "address": "news@digest.example"},
        subject="This week's digest",
        text="Top stories this week. Unsubscribe at any time.",
        headers={"List-Unsubscribe": "<mailto:u@x>", "Precedence": "bulk"},
    )
    rules = "## Never notify\n- Newsletters\n## Custom rules\n- whatever my boss would care about\n"
    outcomes = await TriageDecider(model, workspace).decide_each(
        [*events, newsletter], datetime(2026, 11, 10, 8, tzinfo=UTC), rules_text=rules
    )
    assert calls["n"] == MODEL_FAILURES
    assert all(isinstance(o, Undecided) and o.reason == "model down" for o in outcomes[:6])
    assert not isinstance(outcomes[6], Undecided) and outcomes[6].notify is False
