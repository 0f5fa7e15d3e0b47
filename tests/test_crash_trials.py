"""Crash trials: ``tic tick`` processes killed with SIGKILL at random moments (a fixed seed)
while they claim, decide, notify and deliver, each over new events; then one clean tick.
Every notification must be delivered exactly once: 0 lost, 0 doubled.

The moments come from a tick that is not killed, timed first: when it had done its first
piece of work and when it ended. Every other moment is drawn over the whole tick (start-up
and recovery), the others over its working part (decisions, notify, delivery), so that the
share of kills that land mid-work does not depend on how slow this machine starts Python. A
trial counts as killed mid-work when the tick had done some of its work (an event decided, a
notification stored or delivered) but not all of it; trials go on (to at most three times as
many) until a third of the planned number were."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from tests.deliveries import add_events, ledger, new_workspace, start_tic
from tests.factories import reply
from tests.model_server import ScriptedServer

TRIALS = 24
SEED = 12
ANNA, SHOP = 4, 2  # new events per trial: notified, dropped by a Never rule


# Slow: 24 to 72 ticks started and killed. The limit is generous: how many trials it takes
# depends on this machine's start-up time (see below).
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_kill_9_at_random_points_loses_and_doubles_nothing(tmp_path):
    rng = random.Random(SEED)
    home = new_workspace(tmp_path / "home", {"batch_size": 2})
    expected: set[str] = set()
    mid_work = 0
    with ScriptedServer(default=reply("Anna Berg wrote to you."), delay=0.3) as server:
        expected |= set(add_events(home, anna=ANNA, shop=SHOP)[:ANNA])
        working, whole = calibrate(home, server.url)
        trials = 0
        # at least TRIALS kills, and more (up to 3×) until a third of TRIALS landed mid-work:
        # how many do depends on this machine's start-up time, which varies under load
        while trials < TRIALS or (mid_work < TRIALS // 3 and trials < 3 * TRIALS):
            trials += 1
            before = ledger(home).progress
            expected |= set(add_events(home, anna=ANNA, shop=SHOP)[:ANNA])
            tick = start_tic(home, "--model", server.url, "tick")
            time.sleep(rng.uniform(0.0 if trials % 2 else working, whole))
            tick.send_signal(signal.SIGKILL)
            tick.communicate(timeout=60)
            after = ledger(home)
            finished = after.statuses["done"] == len(expected) * 3 // 2 and not after.undelivered
            mid_work += after.progress != before and not finished
        clean = start_tic(home, "--model", server.url, "tick")
        out, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, (out, err)
    assert mid_work >= TRIALS // 3, mid_work  # many kills landed in the middle of the work
    book = ledger(home)
    assert book.notified == expected
    lost = expected - set(book.delivered)
    doubled = {event_id for event_id, n in book.delivered.items() if n > 1}
    assert (lost, doubled) == (set(), set())
    assert book.statuses == {"done": (trials + 1) * (ANNA + SHOP)} and book.undelivered == 0


def calibrate(home: Path, model_url: str) -> tuple[float, float]:
    """Seconds from a tick's start to its first piece of work, and to its end."""
    before = ledger(home).progress
    start = time.monotonic()
    tick = start_tic(home, "--model", model_url, "tick")
    working = None
    while tick.poll() is None:
        if working is None and ledger(home).progress != before:
            working = time.monotonic() - start
        time.sleep(0.02)  # polling a child process's progress in its database
    whole = time.monotonic() - start
    tick.communicate(timeout=60)
    assert tick.returncode == 0
    return (whole if working is None else working), whole
