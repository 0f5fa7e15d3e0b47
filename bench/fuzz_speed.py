"""Triage on hostile rules files: milliseconds to decide 12 events under each of the fuzzed
rules files ``tests/test_fuzz.py`` writes (the same seed and variants), on a scripted model.
The fuzz test asserts what must hold on them; the time is measured here. A rule line that
made a regular expression backtrack would show as the slowest file (the first one also
pays for compiling the regular expressions).

    python bench/fuzz_speed.py [--files 300]

A file's bytes that are not UTF-8 are replaced here (``tic-desktop triage`` leaves such a
line out)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if sys.path[0] != str(ROOT):  # first: a dependency installs a ``tests`` package of its own
    sys.path.insert(0, str(ROOT))


async def main(files: int) -> None:
    from engine.events import parse_event
    from engine.llm.scripted import ScriptedModel
    from engine.triage.decider import TriageDecider
    from engine.workspace import Workspace
    from tests.factories import judged_per_message
    from tests.test_fuzz import NOW, SEED, rules_bases, rules_variant, seed_events

    logging.disable(logging.ERROR)  # each line that cannot be read is logged: not the point
    model = ScriptedModel(default=judged_per_message({"rule": None, "reason": "not about it"}))
    decider = TriageDecider(model, Workspace(Path(tempfile.mkdtemp())))
    events = [parse_event(e) for e in seed_events()[:12]]
    now = datetime.fromisoformat(NOW)
    rng, bases = random.Random(SEED), rules_bases()
    times: list[float] = []
    for _ in range(files):
        text = rules_variant(rng, bases).decode("utf-8", "replace")
        started = time.perf_counter()
        await decider.decide_each(events, now, rules_text=text)
        times.append((time.perf_counter() - started) * 1000)
    ranked = sorted(times)
    print(
        f"{files} fuzzed rules files, {len(events)} events each: median "
        f"{statistics.median(times):.1f} ms, 95th {ranked[int(len(ranked) * 0.95)]:.1f} ms, "
        f"slowest {ranked[-1]:.1f} ms (file {times.index(ranked[-1])})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300, help="how many rules files")
    asyncio.run(main(parser.parse_args().files))
