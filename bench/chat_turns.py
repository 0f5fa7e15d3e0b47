"""Chat: time to the first reply token and to the end of the turn on turns 1, 5 and 20 of one
conversation, the prompt tokens of each model call, how much of each prompt llama.cpp could
take from its cache, and the same calls replayed on raw llama-cpp-python. The app warms the
model up after loading it (``Engine.warm_up``), as the tray app and ``tic-desktop chat`` do;
the raw replay of turn 1 is cold, as a script's first call is. Before turn 6 a notification
reply comes in between (a call that opens differently), and turn 6 shows what switching back
costs.

On the tiny (embedded) model the chat makes no model call (what code recognises is answered
from the tool's result, the rest is an honest composed answer), so the model path is measured
with ``model_capability = "capable"`` forced on the same GGUF; the tiny path is measured too."""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from typing import Any

from bench.common import Options, Row, scratch_home
from bench.probe import Call, CountingModel, RawLlama, threads_of

MEASURED_TURNS = (1, 5, 20)
AFTER_NOTIFICATION = 6  # a notification reply comes in before this turn
NOTIFICATION = {
    "source": "email",
    "event_type": "email.received",
    "summary": "Anna Berg asked whether the contract can be signed on Friday.",
    "refs": {"event_id": "bench:anna"},
}
PACE_SECONDS = 90  # a person's pace: the engine's clock moves on this much between turns

# Open questions no intent of the chat recognises, so each reaches the model.
CONVERSATION = [
    "I have a dentist appointment on Thursday and I keep forgetting things. Any tips?",
    "Can you suggest a name for a small bakery?",
    "Why is the sky blue? One sentence.",
    "Write a two-line poem about the sea.",
    "How many legs does a spider have?",
    "Which is bigger, a lake or a pond?",
    "Give me one idea for a quick vegetarian dinner.",
    "What does a notary do?",
    "Summarise what we talked about so far in one sentence.",
    "How do I politely decline a meeting invitation?",
    "What colour do you get from mixing blue and yellow?",
    "Suggest a title for a talk about gardening.",
    "What is the capital of Portugal?",
    "Is it better to walk or cycle to work?",
    "Name three fruits that are red.",
    "What should I pack for a weekend trip to the mountains?",
    "How do I say good morning in Spanish?",
    "Tell me a fun fact about octopuses.",
    "What is a good way to start a difficult conversation with a colleague?",
    "Thanks for the chat. Any last advice for a productive week?",
]


async def _conversation(
    opts: Options, turns: int, capable: bool, replay: set[int]
) -> dict[int, dict[str, Any]]:
    """One conversation; per turn: first token, total, the app's calls and the raw replays."""
    from engine.agent.draft import NotificationDraft
    from engine.bus import ReplyFinished
    from engine.clock import utcnow
    from engine.engine import Engine
    from engine.llm.loading import load_model
    from engine.settings import Settings
    from engine.workspace import Workspace

    path = opts.model_path()
    settings_dict = {"model_path": str(path), "model_capability": "capable" if capable else "tiny"}
    out: dict[int, dict[str, Any]] = {}
    with scratch_home(settings_dict) as home:
        workspace = Workspace.open(home)
        settings = Settings.load(workspace.settings_file)
        model = CountingModel(load_model(workspace, settings, None))
        pace = [0.0]
        engine = Engine(
            workspace,
            settings,
            model,
            clock=lambda: utcnow() + timedelta(seconds=pace[0]),
        )
        raw: RawLlama | None = None
        finished: list[ReplyFinished] = []
        engine.bus.subscribe(lambda m: finished.append(m) if isinstance(m, ReplyFinished) else None)
        await engine.start(schedule=False)
        try:
            error = await engine.load_model()
            if error:
                raise RuntimeError(error)
            await engine.warm_up()
            out[0] = {"warm": list(model.prefills)}
            if capable and replay:
                threads = threads_of(model) or (1, 1)
                raw = RawLlama(path, int(model.context_size), threads)
                await raw.load()
            for turn in range(1, turns + 1):
                pace[0] += PACE_SECONDS
                if turn == AFTER_NOTIFICATION and capable:
                    note = NotificationDraft.from_payload(NOTIFICATION)
                    await engine.hub.notify(note)  # a reply of another kind between
                    if not await engine.hub.drain(timeout=300):
                        raise RuntimeError("the notification was not delivered")
                if raw is not None and turn in replay and model.calls:
                    await raw.replay(model.calls[-1])  # raw's cache as the app's: untimed
                first_call = len(model.calls)
                finished.clear()
                started = time.perf_counter()
                await engine.send(CONVERSATION[(turn - 1) % len(CONVERSATION)])
                send_ms = (time.perf_counter() - started) * 1000
                calls = model.calls[first_call:]
                reply = next((f for f in finished if f.kind == "user"), None)
                row: dict[str, Any] = {
                    "first_token_ms": reply.first_token_ms if reply else None,
                    "total_ms": reply.total_ms if reply and reply.total_ms else send_ms,
                    "calls": calls,
                }
                if raw is not None and turn in replay:
                    row["raw"] = [await raw.replay(c) for c in calls]  # interleaved
                out[turn] = row
        finally:
            await engine.stop()
            if raw is not None:
                await raw.close()
    return out


def _turn(t: int) -> str:
    if t == 1:
        return "turn 1 (after the warm-up)"
    if t == AFTER_NOTIFICATION:
        return f"turn {t} (after a notification reply)"
    return f"turn {t}"


def _first_text_ms(calls: list[Call]) -> float | None:
    """Time to the reply's first word over a turn's calls: every call before the last, then
    the last one until its ``text`` starts streaming."""
    if not calls or calls[-1].text_start_ms is None:
        return None
    return sum(c.wall_ms for c in calls[:-1]) + calls[-1].text_start_ms


async def chat_figures(opts: Options) -> list[Row]:
    runs = opts.repeat(full=3, quick=1)
    turns = max(MEASURED_TURNS)
    rows: dict[str, Row] = {}

    def add(key: str, what: str, unit: str, value: float | None, raw: float | None = None) -> None:
        row = rows.setdefault(key, Row("chat", what, unit, raw=[] if raw is not None else None))
        if value is not None:
            row.samples.append(value)
        if raw is not None and row.raw is not None:
            row.raw.append(raw)

    for _ in range(runs):
        convo = await _conversation(
            opts, turns, capable=True, replay={*MEASURED_TURNS, AFTER_NOTIFICATION}
        )
        warm: list[Call] = convo[0]["warm"]
        add(
            "warm",
            "capable: warm-up after load (both openings)",
            "ms",
            sum(c.wall_ms for c in warm),
        )
        add(
            "warmtokens",
            "capable: warm-up prompt tokens read",
            "tokens",
            sum(c.evaluated for c in warm),
        )
        cold = convo[1].get("raw") or []
        first_prompt_ms = cold[0].prompt_ms if cold else None  # turn 1 read cold
        for t in sorted({*MEASURED_TURNS, AFTER_NOTIFICATION}):
            turn = convo[t]
            calls: list[Call] = turn["calls"]
            replays: list[Call] = turn.get("raw", [])
            add(
                f"ttft{t}",
                f"capable: {_turn(t)} time to first token",
                "ms",
                turn["first_token_ms"],
                _first_text_ms(replays),
            )
            add(
                f"total{t}",
                f"capable: {_turn(t)} total",
                "ms",
                turn["total_ms"],
                sum(c.wall_ms for c in replays) if replays else None,
            )
            add(f"calls{t}", f"capable: {_turn(t)} model calls", "calls", len(calls))
            for c in calls:
                add(
                    f"prompt{t}",
                    f"capable: {_turn(t)} prompt tokens per call",
                    "tokens",
                    c.prompt_tokens,
                )
            if calls and first_prompt_ms:
                add(
                    f"evaluated{t}",
                    f"capable: {_turn(t)} prompt tokens evaluated (not from cache), first call",
                    "tokens",
                    calls[0].evaluated,
                )
                if t > 1 or warm:
                    add(
                        f"cache{t}",
                        f"capable: {_turn(t)} prompt time / a cold turn 1's",
                        "ratio",
                        calls[0].prompt_ms / first_prompt_ms,
                    )
        follow_ups = [convo[t] for t in range(2, turns + 1) if convo[t]["calls"]]
        for turn in follow_ups:
            first = turn["calls"][0]
            add("allttft", "capable: turns 2–20 time to first token", "ms", turn["first_token_ms"])
            add(
                "allevaluated",
                "capable: turns 2–20 prompt tokens evaluated, first call",
                "tokens",
                first.evaluated,
            )
            if first_prompt_ms:
                add(
                    "allcache",
                    "capable: turns 2–20 prompt time / a cold turn 1's",
                    "ratio",
                    first.prompt_ms / first_prompt_ms,
                )
        speeds = [c.decode_tok_s for t in MEASURED_TURNS for c in convo[t]["calls"]]
        raw_speeds = [c.decode_tok_s for t in MEASURED_TURNS for c in convo[t].get("raw", [])]
        app = [s for s in speeds if s]
        ref = [s for s in raw_speeds if s]
        if app and ref:
            add(
                "decode",
                "capable: streamed decode (same grammar)",
                "tok/s",
                statistics.median(app),
                statistics.median(ref),
            )

    tiny = await _conversation(opts, turns, capable=False, replay=set())
    for t in MEASURED_TURNS:
        add(
            f"tiny{t}", f"tiny: turn {t} total (composed, no model call)", "ms", tiny[t]["total_ms"]
        )
        add(f"tinycalls{t}", f"tiny: turn {t} model calls", "calls", len(tiny[t]["calls"]))
    return list(rows.values())
