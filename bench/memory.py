"""Memory of the engine as the app runs it, in a process of its own: RSS after start, after
the model is loaded, after one model call, and after 100 turns (chat turns, with a tick
delivering notifications every tenth); and RSS after load for each context size, the figure
behind the ``context_size`` default.

    python -m bench.memory --probe [--turns 100] [--capability tiny] [--context 4096]

runs one probe and prints its JSON (``python -m bench --only memory`` runs them all)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from bench.common import Options, Row, env_for, rss_mb, run_process, scratch_home

CONTEXTS = (2048, 4096, 8192)


async def probe(
    model: Path | None, turns: int, capability: str, context: int | None
) -> dict[str, Any]:
    from bench.chat_turns import CONVERSATION
    from bench.tick_to_toast import notifiable_events
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.workspace import Workspace

    settings: dict[str, Any] = {"model_capability": capability}
    if model is not None:
        settings["model_path"] = str(model)
    if context is not None:
        settings["context_size"] = context
    out: dict[str, Any] = {}
    with scratch_home(settings) as home:
        workspace = Workspace.open(home)
        engine = Engine.open(workspace)
        await engine.start(schedule=False)
        try:
            out["rss_start"] = rss_mb()
            error = await engine.load_model()
            if error:
                raise RuntimeError(error)
            out["rss_loaded"] = rss_mb()
            await engine._model.complete(  # one call: the context's buffers in use
                [{"role": "user", "content": "Say hello."}], max_tokens=8
            )
            out["rss_called"] = rss_mb()
            for turn in range(turns):
                if turn % 10 == 9:
                    engine.ingest([parse_event(e) for e in notifiable_events(turn, 2)])
                    await engine.check_now(timeout=600)
                await engine.send(CONVERSATION[turn % len(CONVERSATION)])
            out["rss_turns"] = rss_mb()
            out["turns"] = turns
        finally:
            await engine.stop()
    return out


def _run_probe(opts: Options, turns: int, capability: str, context: int | None) -> dict[str, Any]:
    args = [sys.executable, "-m", "bench.memory", "--probe", "--turns", str(turns)]
    args += ["--capability", capability]
    if context is not None:
        args += ["--context", str(context)]
    if opts.model is not None:
        args += ["--model", str(opts.model)]
    with scratch_home() as home:
        _ms, done = run_process(args, env=env_for(home), timeout=1500)
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed: {done.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def memory_figures(opts: Options) -> list[Row]:
    runs = opts.repeat(full=2, quick=1)
    rows: list[Row] = []
    kinds = ["tiny"] if opts.quick else ["tiny", "capable"]
    for capability in kinds:
        found = [
            await asyncio.to_thread(_run_probe, opts, 100, capability, None) for _ in range(runs)
        ]
        label = f"{capability}:"
        for key, what in (
            ("rss_start", "RSS after start"),
            ("rss_loaded", "RSS after the model is loaded"),
            ("rss_called", "RSS after one model call"),
            ("rss_turns", "RSS after 100 turns"),
        ):
            rows.append(Row("memory", f"{label} {what}", "MB", [f[key] for f in found]))
    for context in CONTEXTS:
        found = [await asyncio.to_thread(_run_probe, opts, 0, "tiny", context) for _ in range(runs)]
        rows.append(
            Row(
                "memory",
                f"RSS after one model call, n_ctx {context}",
                "MB",
                [f["rss_called"] for f in found],
            )
        )
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", action="store_true", required=True)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--capability", default="tiny")
    parser.add_argument("--context", type=int)
    parser.add_argument("--model", type=Path)
    a = parser.parse_args()
    result = asyncio.run(probe(a.model, a.turns, a.capability, a.context))
    print(json.dumps(result))
