"""``python -m bench``: every figure a user feels, measured on the model given (the embedded
SmolLM2-135M by default), each as median [min–max] over repeated runs; where llama-cpp-python
alone can do the same work (same model, prompt, context, threads and grammar) it runs
interleaved with the app and the table shows the ratio app / raw.

    python -m bench [--quick] [--only NAME[,NAME]] [--model PATH] [--runs N] [--json PATH]

``--quick`` runs fewer repetitions, a 10 s idle-CPU window and no 50 000-event store, so it
finishes in a few minutes on 2 cores. Every figure is bounded in time: one that overruns is
reported as such and the others still run. Results go to ``bench/results/`` (not committed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from bench.common import RESULTS, Options, Row, bounded, fmt, machine

Figure = Callable[[Options], Awaitable[list[Row]]]


def _figures() -> dict[str, tuple[Figure, float, float]]:
    """name → (figure, time limit in s with --quick, without)."""
    from bench.arrival_to_toast import arrival_figures
    from bench.chat_turns import chat_figures
    from bench.cli_startup import cli_figures
    from bench.desktop_start import desktop_figures
    from bench.memory import memory_figures
    from bench.notify_calls import notify_call_figures
    from bench.responsiveness import ping_figures
    from bench.scale import scale_figures
    from bench.threads import thread_figures
    from bench.tick_to_toast import figures as tick_to_toast_figures
    from bench.triage_speed import triage_figures

    return {
        "threads": (thread_figures, 120, 300),
        "tick_to_toast": (tick_to_toast_figures, 120, 600),
        "arrival": (arrival_figures, 120, 600),
        "notify_calls": (notify_call_figures, 300, 1200),
        "chat": (chat_figures, 600, 3600),
        "triage": (triage_figures, 180, 900),
        "ping": (ping_figures, 240, 600),
        "scale": (scale_figures, 240, 2400),
        "cli": (cli_figures, 120, 300),
        "desktop": (desktop_figures, 180, 400),
        "memory": (memory_figures, 300, 1800),
    }


async def run(opts: Options, names: list[str]) -> tuple[list[Row], dict[str, float]]:
    figures = _figures()
    rows: list[Row] = []
    took: dict[str, float] = {}
    for name in names:
        figure, quick_limit, full_limit = figures[name]
        limit = quick_limit if opts.quick else full_limit
        print(f"[bench] {name} (at most {limit:.0f} s) …", file=sys.stderr, flush=True)
        started = time.perf_counter()
        try:
            rows.extend(await bounded(figure(opts), limit, name))
        except Exception as exc:  # one failing figure does not stop the others
            traceback.print_exc(file=sys.stderr)
            rows.append(Row(name, "(failed)", "", error=f"{type(exc).__name__}: {exc}"))
        took[name] = round(time.perf_counter() - started, 1)
    return rows, took


def table(rows: list[Row]) -> str:
    head = ("figure", "what", "app: median [min–max]", "unit", "raw llama-cpp-python", "ratio")
    body = [
        (
            r.figure,
            r.what,
            r.error or fmt(r.samples),
            r.unit,
            fmt(r.raw) if r.raw else "",
            f"{r.ratio:.2f}" if r.ratio is not None else "",
        )
        for r in rows
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs; a few minutes")
    parser.add_argument("--only", help="comma-separated figures: " + ", ".join(_figures()))
    parser.add_argument("--model", type=Path, help="a GGUF file (default: the embedded model)")
    parser.add_argument("--runs", type=int, help="repetitions of each figure")
    parser.add_argument("--json", type=Path, help="where to write the results")
    args = parser.parse_args(argv)
    names = list(_figures())
    if args.only:
        asked = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in asked if n not in names]
        if unknown:
            parser.error(f"unknown figure(s) {', '.join(unknown)}; choose from {', '.join(names)}")
        names = asked
    opts = Options(model=args.model, quick=args.quick, runs=args.runs)
    os.environ.setdefault("TIC_ALLOW_MODEL_REQUESTS", "1")
    started = datetime.now(UTC)
    where = machine()
    rows, took = asyncio.run(run(opts, names))
    model = str(opts.model or "embedded SmolLM2-135M-Instruct")
    print(f"model: {model}; {'--quick' if opts.quick else 'full run'}; {os.cpu_count()} CPUs")
    print(table(rows))
    out = args.json or RESULTS / f"bench{'-quick' if opts.quick else ''}.json"
    report = {
        "command": "python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": started.isoformat(timespec="seconds"),
        "model": model,
        "quick": opts.quick,
        "machine": where,
        "seconds": took,
        "figures": [r.to_json() for r in rows],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return 1 if any(r.error for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
