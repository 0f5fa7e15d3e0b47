"""Threads for llama.cpp, measured rather than defaulted: prompt (batch) and decode speed of
raw llama-cpp-python on this machine, now, with 1 thread and with every CPU, interleaved, and
what the engine chose for the same moment (``engine.llm.threads``)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from bench.common import Options, Row

PROMPT = " ".join(
    f"Line {i}: the quarterly report for the northern office is due on Friday." for i in range(30)
)


def _speeds(llama: Any, threads: int) -> tuple[float, float]:
    """(prompt tok/s, decode tok/s) with ``threads`` for both."""
    import llama_cpp

    llama_cpp.llama_set_n_threads(llama.ctx, threads, threads)
    llama.reset()  # no prefix from the previous run
    before = llama_cpp.llama_perf_context(llama.ctx)
    p0, np0, e0, ne0 = before.t_p_eval_ms, before.n_p_eval, before.t_eval_ms, before.n_eval
    llama.create_completion(PROMPT, max_tokens=64, temperature=0.0)
    after = llama_cpp.llama_perf_context(llama.ctx)
    prompt = (after.n_p_eval - np0) / max(1e-9, (after.t_p_eval_ms - p0) / 1000)
    decode = (after.n_eval - ne0) / max(1e-9, (after.t_eval_ms - e0) / 1000)
    return prompt, decode


def _measure(path: str, runs: int) -> dict[int, list[tuple[float, float]]]:
    from llama_cpp import Llama

    cpus = len(os.sched_getaffinity(0))
    llama = Llama(model_path=path, n_ctx=2048, verbose=False)
    try:
        found: dict[int, list[tuple[float, float]]] = {1: [], cpus: []}
        for _ in range(runs):
            for threads in found:  # interleaved: the same load for both
                found[threads].append(_speeds(llama, threads))
        return found
    finally:
        llama.close()


async def thread_figures(opts: Options) -> list[Row]:
    runs = opts.repeat(full=5, quick=2)
    found = await asyncio.to_thread(_measure, str(opts.model_path()), runs)
    rows = []
    for threads, speeds in found.items():
        rows.append(
            Row(
                "threads", f"raw prompt speed, {threads} thread(s)", "tok/s", [p for p, _ in speeds]
            )
        )
        rows.append(
            Row(
                "threads", f"raw decode speed, {threads} thread(s)", "tok/s", [d for _, d in speeds]
            )
        )
    try:
        from engine.llm.threads import ThreadPolicy
    except ImportError:  # an engine that leaves it to llama-cpp-python's defaults
        cpus = os.cpu_count() or 1
        rows.append(
            Row(
                "threads",
                "the engine's choice (decode threads)",
                "threads",
                [float(max(1, cpus // 2))],
                note=f"llama-cpp-python's default: "
                f"{max(1, cpus // 2)} for decoding, {cpus} for prompts",
            )
        )
        return rows
    chosen = await asyncio.to_thread(ThreadPolicy().choose)  # as the engine at load
    rows.append(
        Row(
            "threads",
            "the engine's choice (decode threads)",
            "threads",
            [float(chosen.decode)],
            note=chosen.why,
        )
    )
    return rows
