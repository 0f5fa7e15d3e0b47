"""Score a labelled set's narrow probe lines: each line alone in a rules file, over the whole
pool of the set's events. Prints, per line, how many events it decides (a rule, not the
heuristics, decided them) and how many of those it should decide.

Usage: python -m tests.triage.eval.probes DIR   (DIR holds cases.jsonl and probes.jsonl)
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

from engine.events import Event
from engine.triage.decider import TriageDecider

HEADINGS = {"always": "## Always notify\n- ", "never": "## Never notify\n- "}
"""A probe of any other section ("custom", "none") is a line outside the sections."""


def main(folder: Path) -> None:
    cases = [json.loads(line) for line in (folder / "cases.jsonl").open(encoding="utf-8")]
    pool = [(Event.model_validate(c["event"]), datetime.fromisoformat(c["now"])) for c in cases]
    worst = 0.0
    for line in (folder / "probes.jsonl").open(encoding="utf-8"):
        probe = json.loads(line)
        rules = HEADINGS.get(probe["section"], "") + probe["line"] + "\n"
        verdicts = TriageDecider.decide_in_code(pool, rules)
        decided = {e.id for (e, _), v in zip(pool, verdicts, strict=True) if v.rule}
        wanted = set(probe["should_decide"])
        share = len(decided) / len(pool)
        worst = max(worst, share)
        hits = len(decided & wanted)
        print(
            f"{100 * share:5.1f} %  decides {len(decided):3}, of them wanted {hits}/{len(wanted)}"
            f"  {probe['line'][:70]}"
        )
    print(f"largest share decided by one probe line: {100 * worst:.1f} % of {len(pool)} events")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
