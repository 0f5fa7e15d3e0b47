"""Model calls per notification batch: none on the tiny model (the reply is composed), at
most one on a capable one (``model_capability = "capable"`` forced on the same GGUF), with
the prompt tokens of each call, the tick commit → reply time, and the calls replayed on raw
llama-cpp-python."""

from __future__ import annotations

import itertools
import time
from typing import Any

from bench.common import Options, Row, scratch_home
from bench.probe import Call, CountingModel, RawLlama, inner_llama, perf_totals, threads_of
from bench.tick_to_toast import notifiable_events

# A line no compiler reads: on a capable model, triage asks whether it applies to each event
# no readable line decides, while the replies to what was notified are being written.
UNREADABLE_RULES = "## Always notify\n- Things my gut says matter\n"


async def _batches(
    opts: Options, capability: str, count: int, runs: int, replay: bool, rules: str = ""
) -> dict[str, list[Any]]:
    from engine.bus import ReplyFinished, TickFinished
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.llm.loading import load_model
    from engine.settings import Settings
    from engine.workspace import Workspace

    path = opts.model_path()
    found: dict[str, list[Any]] = {
        "calls": [],
        "batches": [],
        "reply_ms": [],
        "raw": [],
        "tick_prompt": [],  # (prompt ms, prompt tokens evaluated) over the whole tick
    }
    settings_dict = {"model_path": str(path), "model_capability": capability}
    with scratch_home(settings_dict, rules) as home:
        workspace = Workspace.open(home)
        settings = Settings.load(workspace.settings_file)
        model = CountingModel(load_model(workspace, settings, None))
        engine = Engine(workspace, settings, model)
        marks: dict[str, float] = {}
        replies: list[ReplyFinished] = []

        def on_bus(message: object) -> None:
            if isinstance(message, TickFinished):
                marks["committed"] = time.perf_counter()
            elif isinstance(message, ReplyFinished) and message.kind == "notification":
                replies.append(message)
                marks["replied"] = time.perf_counter()

        engine.bus.subscribe(on_bus)
        await engine.start(schedule=False)
        raw: RawLlama | None = None
        try:
            error = await engine.load_model()
            if error:
                raise RuntimeError(error)
            await engine.warm_up()  # as the tray app does once the model is loaded
            if replay:
                raw = RawLlama(path, int(model.context_size), threads_of(model) or (1, 1))
                await raw.load()
            for run in range(runs):
                replies.clear()
                before = len(model.calls)
                engine.ingest([parse_event(e) for e in notifiable_events(1000 + run, count)])
                before_tick = perf_totals(inner_llama(model))
                await engine.check_now(timeout=600)
                after_tick = perf_totals(inner_llama(model))
                found["tick_prompt"].append(
                    (after_tick[0] - before_tick[0], after_tick[1] - before_tick[1])
                )
                calls: list[Call] = model.calls[before:]
                found["calls"].append(calls)
                found["batches"].append(len(replies))
                found["reply_ms"].append((marks["replied"] - marks["committed"]) * 1000)
                if raw is not None:
                    found["raw"].append([await raw.replay(c) for c in calls])
        finally:
            await engine.stop()
            if raw is not None:
                await raw.close()
    return found


async def notify_call_figures(opts: Options) -> list[Row]:
    runs = opts.repeat(full=5, quick=2)
    rows: list[Row] = []
    tiny = await _batches(opts, "tiny", 10, runs, replay=False)
    rows.append(
        Row(
            "notify_calls",
            "tiny: model calls per notification batch (10 events)",
            "calls",
            [len(c) / max(1, b) for c, b in zip(tiny["calls"], tiny["batches"], strict=True)],
        )
    )
    for count in (1, 10):
        cap = await _batches(opts, "capable", count, runs, replay=True)
        rows.append(
            Row(
                "notify_calls",
                f"capable: model calls per notification batch ({count} events)",
                "calls",
                [len(c) / max(1, b) for c, b in zip(cap["calls"], cap["batches"], strict=True)],
                note=f"{statistics_text(cap['batches'])} batch(es) a tick",
            )
        )
        prompts = [c.prompt_tokens for calls in cap["calls"] for c in calls]
        if prompts:
            rows.append(
                Row(
                    "notify_calls",
                    f"capable: prompt tokens per call ({count} events)",
                    "tokens",
                    [float(p) for p in prompts],
                )
            )
        rows.append(
            Row(
                "notify_calls",
                f"capable: tick commit → reply ({count} events)",
                "ms",
                cap["reply_ms"],
                raw=[sum(c.wall_ms for c in calls) for calls in cap["raw"]] or None,
                note="raw: the same calls on llama-cpp-python",
            )
        )
    rows += await _interleaved_figures(opts)
    return rows


async def _interleaved_figures(opts: Options) -> list[Row]:
    """Triage's questions and notification replies on one model: each opens with its own
    system message, and the app reads a saved state back where raw llama.cpp, keeping one
    evaluated prompt, reads the whole prompt again at each switch."""
    count = 60  # TIC decides 50 a batch: the first batch's replies go out during the second
    found = await _batches(opts, "capable", count, 1, replay=True, rules=UNREADABLE_RULES)
    calls: list[Call] = found["calls"][0]
    raw: list[Call] = found["raw"][0]
    prompt_ms, evaluated = found["tick_prompt"][0]  # triage and replies overlap: totals only
    openings = [c.messages[0]["content"] if c.messages else "" for c in calls]
    switches = sum(1 for a, b in itertools.pairwise(openings) if a != b)
    what = f"capable: a {count}-event tick asking the model about a rules line as replies go out"
    return [
        Row(
            "notify_calls",
            f"{what}: model calls",
            "calls",
            [float(len(calls))],
            note=f"{switches} switches between kinds of call",
        ),
        Row(
            "notify_calls",
            f"{what}: prompt tokens evaluated, all calls",
            "tokens",
            [float(evaluated)],
            raw=[float(sum(c.evaluated for c in raw))],
        ),
        Row(
            "notify_calls",
            f"{what}: prompt time, all calls",
            "ms",
            [prompt_ms],
            raw=[sum(c.prompt_ms for c in raw)],
        ),
    ]


def statistics_text(values: list[int]) -> str:
    return "–".join(str(v) for v in sorted(set(values)))
