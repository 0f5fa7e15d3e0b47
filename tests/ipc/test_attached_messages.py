"""A chat attached to another process's engine gets its bus messages as JSON: a reply's
notifications come back as the typed notifications they were, not as plain objects."""

from __future__ import annotations

import dataclasses
import json

from engine.bus import DeliveredNotification, ReplyFinished
from engine.ipc.attach import _rebuild


def test_a_notification_reply_is_rebuilt_with_typed_notifications():
    sent = ReplyFinished(
        1,
        9,
        "Anna Berg asked for a call.",
        "notification",
        [
            DeliveredNotification(
                4,
                "email",
                "email.received",
                "Anna Berg asked for a call.",
                event_time="2026-11-10T07:00:00+00:00",
                refs={"event_id": "gmail:4"},
                reason="a person asks something",
                sender="Anna Berg",
                notes=["subject cut to 200 characters"],
            )
        ],
        composed=True,
    )
    wire = json.loads(json.dumps({"event": "ReplyFinished", "data": dataclasses.asdict(sent)}))
    assert _rebuild(wire) == sent


def test_a_notification_that_does_not_fit_drops_the_message():
    data = dataclasses.asdict(ReplyFinished(1, 9, "x", "notification"))
    data["notifications"] = [{"id": 4, "colour": "red"}]
    assert _rebuild({"event": "ReplyFinished", "data": data}) is None
