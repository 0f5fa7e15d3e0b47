"""The warm-up reads into the model's cache exactly what the next calls open with: a
notification reply's system message, and the next user turn's system message and history.
If a turn's prompt stopped starting with what was warmed, the warm-up would be wasted work."""

from __future__ import annotations

from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from tests.factories import notification, reply

ANNA = {
    "source": "email",
    "event_type": "email.received",
    "summary": "Anna Berg asked for a call.",
    "refs": {"event_id": "gmail:anna"},
}


async def test_the_next_user_turn_opens_with_what_was_warmed(engine: Engine, model):
    model.add(reply("Pasta is a fine choice."), reply("So is risotto."))
    await engine.hub.send("I like pasta.")
    await engine.warm_up()
    notification_opening, user_opening = model.prefills
    await engine.hub.send("And risotto?")
    prompt = model.calls[-1]["messages"]
    assert len(user_opening) == 3  # the system message, the first turn and its reply
    assert prompt[: len(user_opening)] == user_opening
    assert prompt[len(user_opening)]["content"].startswith("And risotto?")
    assert notification_opening[0]["content"] != user_opening[0]["content"]


async def test_a_notification_reply_opens_with_what_was_warmed(engine: Engine, model):
    await engine.warm_up()
    (system,), _user_opening = model.prefills
    model.add(reply("Anna Berg asked for a call."))
    await engine.hub.notify(notification(ANNA))
    assert await engine.hub.drain(timeout=5)
    assert model.calls[-1]["messages"][0] == system


async def test_after_a_notification_the_user_turn_opening_is_still_the_warmed_one(
    engine: Engine, model
):
    """A delivered notification is outside content: the next user turn is read-only, which
    its end says; its system message is the one it had before, so the history before the
    notification stays in the model's cache."""
    model.add(reply("Sure."), reply("Anna Berg asked for a call."), reply("You're welcome."))
    await engine.hub.send("I like pasta.")
    await engine.hub.notify(notification(ANNA))
    assert await engine.hub.drain(timeout=5)
    await engine.warm_up()
    _notification, user_opening = model.prefills
    await engine.hub.send("thanks, noted that")
    before, _notification_reply, after = (c["messages"] for c in model.calls)
    assert after[: len(user_opening)] == user_opening
    assert after[0] == before[0]  # the system message
    assert after[1]["content"] == "I like pasta."
    assert after[-1]["content"].startswith("thanks, noted that\n\n(Outside content")


async def test_a_tiny_model_is_not_warmed(workspace, settings):
    model = ScriptedModel(capability="tiny")
    engine = Engine(workspace, settings, model)
    await engine.start(schedule=False)
    try:
        await engine.warm_up()
    finally:
        await engine.stop()
    assert model.prefills == []
