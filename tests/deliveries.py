"""What a workspace's store says was delivered, for tests that run ``tic`` processes (and
kill them): every notification's event, counted over the chat replies that carried it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from engine.store.db import close_database, open_database
from engine.store.inbox import ingest
from engine.store.models import ChatToolCall, EventRecord, Notification
from tests.cli_helpers import ROOT
from tests.factories import make_event

ANNA_RULES = "## Always notify\n- Emails from Anna Berg\n\n## Never notify\n- Emails from Shop\n"
SHOP = {"sender": {"name": "Shop", "address": "news@shop.example"}}


@dataclass(frozen=True)
class Ledger:
    delivered: Counter[str]  # event id -> how many chat replies carried its notification
    notified: set[str]  # events TIC decided to notify
    statuses: Counter[str]  # event status -> how many
    undelivered: int  # notifications not (yet) delivered
    notifications: int  # notifications stored, delivered or not

    @property
    def progress(self) -> tuple[int, int, int]:
        """What a tick has done so far: events done, notifications stored, deliveries."""
        return self.statuses["done"], self.notifications, sum(self.delivered.values())


def new_workspace(home: Path, settings: dict[str, object] | None = None) -> Path:
    (home / "data").mkdir(parents=True)
    (home / "data" / "notifications.md").write_text(ANNA_RULES)
    if settings:
        (home / "settings.json").write_text(json.dumps(settings))
    return home


def add_events(home: Path, anna: int, shop: int = 0) -> list[str]:
    """Store events directly (no process holds the workspace meanwhile); their ids."""
    events = [make_event() for _ in range(anna)] + [make_event(**SHOP) for _ in range(shop)]
    open_database(home / "tic.db")
    try:
        ingest(events)
    finally:
        close_database()
    return [e.id for e in events]


def ledger(home: Path) -> Ledger:
    open_database(home / "tic.db")
    try:
        delivered: Counter[str] = Counter()
        calls = ChatToolCall.select().where(
            (ChatToolCall.name == "read_notification") & (ChatToolCall.status == "done")
        )
        for call in calls:
            for note in json.loads(call.result or "[]"):
                delivered[note["refs"]["event_id"]] += 1
        notified = {
            r.event_id
            for r in EventRecord.select().where(EventRecord.decision_notify == True)  # noqa: E712
        }
        statuses = Counter(str(r.status) for r in EventRecord.select())
        undelivered = Notification.select().where(Notification.state != "delivered").count()
        notifications = Notification.select().count()
    finally:
        close_database()
    return Ledger(delivered, notified, statuses, undelivered, notifications)


def tic_env(home: Path) -> dict[str, str]:
    return dict(os.environ, TIC_HOME=str(home), TIC_ALLOW_MODEL_REQUESTS="1")


def start_tic(home: Path, *args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tic_cli", *args],
        cwd=ROOT,
        env=tic_env(home),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
