"""``tic-desktop tick`` prints each notification reply once, killed or not: a reply is printed
only once it is stored (never its tokens while the model writes), and each reply is stored
marked unprinted in the same transaction that marks its notifications delivered; the mark
goes once it is printed. So a tick killed before the store has a reply prints nothing of it
(the next tick delivers and prints it), and a reply stored but not yet printed is printed by
the next tick: nothing is lost and nothing is printed twice (a kill between printing and
unmarking, a few microseconds, would reprint that one reply)."""

from __future__ import annotations

import asyncio
import json
import signal
import time

from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.store import chat
from engine.store.db import close_database, open_database
from engine.store.models import ChatMessage
from tests.deliveries import ANNA_RULES, add_events, new_workspace, start_tic
from tests.factories import make_event, reply
from tests.model_server import ScriptedServer
from tic_cli import cli

LABEL = "assistant (notification):"


def stored_replies(home) -> list[str]:
    open_database(home / "tic.db")
    try:
        return [
            m.content
            for m in ChatMessage.select().order_by(ChatMessage.id)
            if (m.meta or {}).get("kind") == "notification" and not m.is_synthetic
        ]
    finally:
        close_database()


async def store_a_reply_and_die(workspace) -> None:
    """A tick killed between storing a reply and printing it: the reply is stored marked
    unprinted, and nothing prints it, as if the process died then."""
    workspace.rules_file.write_text(ANNA_RULES)
    killed = Engine(workspace, Settings(), ScriptedModel(capability="tiny"))
    killed.print_replies_here()
    await killed.start(schedule=False)
    killed.ingest([make_event(), make_event()])
    assert (await killed.check_now()).delivered
    await killed.stop()


def test_a_reply_stored_but_never_printed_is_printed_by_the_next_tick(workspace, capsys):
    asyncio.run(store_a_reply_and_die(workspace))
    (stored,) = stored_replies(workspace.root)
    tick = ["--home", str(workspace.root), "tick"]
    assert cli.main(tick) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{LABEL} {stored.splitlines()[0]}"
    assert out.count(LABEL) == 1  # and nothing new to check
    assert cli.main(tick) == 0
    assert LABEL not in capsys.readouterr().out  # printed once: its mark is gone
    open_database(workspace.db_path)
    try:
        assert chat.unprinted_replies() == []
    finally:
        close_database()


def notification_turn(request: dict) -> bool:
    return "read_notification" in json.dumps(request)


def test_a_tick_killed_while_the_model_writes_its_reply_prints_it_once_in_all(tmp_path):
    """The issue's case: the reply's tokens were printed while the model wrote them; killed
    before the reply was stored, the next tick delivered it again and printed it again.
    The model here streams a chunk every 0.2 s; the tick is killed in the middle of the
    notification reply, once three chunks have been sent."""
    home = new_workspace(tmp_path / "home")
    add_events(home, anna=2)
    with ScriptedServer(default=reply("Anna Berg wrote to you."), pace=0.2) as server:
        killed = start_tic(home, "--model", server.url, "tick")

        def mid_reply() -> bool:
            sent = server.chunks_sent
            return bool(sent) and sent[-1] >= 3 and notification_turn(server.requests[-1])

        deadline = time.monotonic() + 120
        while not mid_reply():
            assert killed.poll() is None and time.monotonic() < deadline, killed.communicate()
            time.sleep(0.01)
        killed.send_signal(signal.SIGKILL)
        first, _ = killed.communicate(timeout=60)
        assert stored_replies(home) == []  # killed before the reply was stored
        clean = start_tic(home, "--model", server.url, "tick")
        second, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err
    (stored,) = stored_replies(home)
    printed = first + second
    assert LABEL not in first  # nothing of a reply that was never stored
    assert printed.count(LABEL) == 1 and f"{LABEL} {stored.splitlines()[0]}" in printed
