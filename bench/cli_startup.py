"""Command-line start-up: ``tic-desktop --help``, ``tic-desktop triage`` on 8 events, and
``import tic_cli.cli`` alone (what every command pays before it does anything)."""

from __future__ import annotations

import json
import sys

from bench.common import ROOT, Options, Row, env_for, run_process, scratch_home

DEV = ROOT / "tests" / "triage" / "dev"


async def cli_figures(opts: Options) -> list[Row]:
    runs = opts.repeat(full=7, quick=3)
    rows: list[Row] = []
    with scratch_home() as home:
        events = home / "events.jsonl"
        cases = [json.loads(line) for line in (DEV / "cases.jsonl").read_text().splitlines()]
        family = [c for c in cases if c["rules"] == "family"][:8]
        events.write_text("".join(json.dumps(c["event"]) + "\n" for c in family))
        env = env_for(home)
        py = [sys.executable]
        commands = [
            ("import tic_cli.cli", [*py, "-c", "import tic_cli.cli"]),
            ("tic-desktop --help", [*py, "-m", "tic_desktop", "--help"]),
            (
                f"tic-desktop triage on {len(family)} events",
                [
                    *py,
                    "-m",
                    "tic_desktop",
                    "triage",
                    "--rules",
                    str(DEV / "rules-family.md"),
                    "--events",
                    str(events),
                    "--now",
                    family[0]["now"],
                ],
            ),
        ]
        for what, args in commands:
            took = []
            for _ in range(runs):
                ms, done = run_process(args, env=env, timeout=120)
                if done.returncode != 0:
                    raise RuntimeError(f"{what} failed: {done.stderr.strip()[-300:]}")
                took.append(ms)
            rows.append(Row("cli", what, "ms", took))
    return rows
