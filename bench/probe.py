"""Looking inside model calls from outside: a ``LanguageModel`` wrapper that records every
call the engine makes (prompt tokens, how many of them llama.cpp had to evaluate, prompt
time, time to the first streamed piece, decode speed), and the raw llama-cpp-python reference
that replays the same calls with the same model, context, threads and grammar."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.llm.base import Completion, LanguageModel, Message, TokenCallback

REPEAT_PENALTY = 1.15  # what the app's llama.cpp backend samples with


@dataclass
class Call:
    """One model call, as the engine made it (or as the raw reference replayed it)."""

    messages: list[Message]
    schema: dict[str, Any] | None
    max_tokens: int
    wall_ms: float = 0.0
    first_piece_ms: float | None = None
    text_start_ms: float | None = None  # when a reply action's ``text`` began to stream
    prompt_tokens: int = 0  # the whole prompt
    evaluated: int = 0  # prompt tokens llama.cpp evaluated (the rest came from its cache)
    prompt_ms: float = 0.0
    pieces: int = 0
    text: str = ""
    threads: tuple[int, int] | None = None

    @property
    def decode_tok_s(self) -> float | None:
        """Streamed decode speed: pieces after the first over the time they took."""
        if self.first_piece_ms is None or self.pieces < 8:
            return None
        seconds = (self.wall_ms - self.first_piece_ms) / 1000
        return (self.pieces - 1) / seconds if seconds > 0 else None


def perf_totals(llama: Any) -> tuple[float, int]:
    """llama.cpp's running totals: (prompt eval ms, prompt tokens evaluated). A call's share
    is the difference around it only when no other call ran meanwhile: calls made at once
    queue for the model's one thread, and the difference around the later one holds both."""
    if llama is None:
        return (0.0, 0)
    import llama_cpp

    data = llama_cpp.llama_perf_context(llama.ctx)
    return float(data.t_p_eval_ms), int(data.n_p_eval)


def inner_llama(model: LanguageModel) -> Any:
    """The ``Llama`` object behind an engine model (None for other backends)."""
    current = getattr(model, "current", model)
    return getattr(current, "_llama", None)


def threads_of(model: LanguageModel) -> tuple[int, int] | None:
    """(decode, prompt) threads the engine's llama.cpp model runs with right now."""
    current = getattr(model, "current", model)
    chosen = getattr(current, "threads_in_use", None)
    if chosen:
        return (int(chosen[0]), int(chosen[1]))
    llama = inner_llama(model)
    if llama is None:
        return None
    return (int(llama.n_threads), int(llama.n_threads_batch))


class _TextStart:
    """Notes when the reply's text starts in a streamed JSON action (what the user sees as
    the first token: the app's ``ReplyStreamer`` emits nothing before it)."""

    def __init__(self, call: Call, started: float):
        from engine.agent.actions import ReplyStreamer

        self.call, self.started = call, started
        self.streamer = ReplyStreamer(self._emitted)

    def feed(self, piece: str) -> None:
        if self.call.text_start_ms is None:
            self.streamer.feed(piece)

    def _emitted(self, _text: str) -> None:
        if self.call.text_start_ms is None:
            self.call.text_start_ms = (time.perf_counter() - self.started) * 1000


class CountingModel(LanguageModel):
    """Forwards every call to ``inner`` and records it (see :class:`Call`)."""

    def __init__(self, inner: LanguageModel):
        self.inner = inner
        self.name = inner.name
        self.calls: list[Call] = []
        self.prefills: list[Call] = []

    @property
    def capability(self) -> Any:
        return self.inner.capability

    def __getattr__(self, name: str) -> Any:  # context_size, threads_in_use, _llama, ...
        return getattr(self.__dict__["inner"], name)

    async def load(self) -> None:
        await self.inner.load()

    async def close(self) -> None:
        await self.inner.close()

    async def prefill(self, messages: list[Message]) -> None:
        """Forwarded, and recorded as a call without output (its prompt reading measured)."""
        call = Call(list(messages), None, 0)
        llama = inner_llama(self.inner)
        before = perf_totals(llama) if llama is not None else (0.0, 0)
        started = time.perf_counter()
        await self.inner.prefill(messages)
        call.wall_ms = (time.perf_counter() - started) * 1000
        llama = inner_llama(self.inner)
        if llama is not None:
            after = perf_totals(llama)
            call.prompt_ms, call.evaluated = after[0] - before[0], after[1] - before[1]
        self.prefills.append(call)

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        call = Call(list(messages), schema, max_tokens)
        started = time.perf_counter()
        watch = _TextStart(call, started)

        def piece(text: str) -> None:
            if call.first_piece_ms is None:
                call.first_piece_ms = (time.perf_counter() - started) * 1000
            call.pieces += 1
            watch.feed(text)
            if on_token is not None:
                on_token(text)

        llama = inner_llama(self.inner)
        before = perf_totals(llama) if llama is not None else None
        completion = await self.inner.complete(
            messages,
            schema=schema,
            max_tokens=max_tokens,
            temperature=temperature,
            on_token=piece,
        )
        call.wall_ms = (time.perf_counter() - started) * 1000
        call.text = completion.text
        call.prompt_tokens = completion.prompt_tokens
        llama = inner_llama(self.inner)
        if llama is not None:
            after = perf_totals(llama)
            start = before or (0.0, 0)
            call.prompt_ms = after[0] - start[0]
            call.evaluated = after[1] - start[1]
            call.threads = threads_of(self.inner)
        self.calls.append(call)
        return completion


class RawLlama:
    """llama-cpp-python as a script would use it: one ``Llama`` on its own thread, the same
    chat completion call the app's backend makes (json schema as the grammar, greedy, the
    same repeat penalty), nothing of TIC around it."""

    def __init__(self, path: Path, n_ctx: int, threads: tuple[int, int]):
        self.path, self.n_ctx, self.threads = path, n_ctx, threads
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="raw-llama")
        self._llama: Any = None

    def _load(self) -> None:
        from llama_cpp import Llama

        self._llama = Llama(
            model_path=str(self.path),
            n_ctx=self.n_ctx,
            n_threads=self.threads[0],
            n_threads_batch=self.threads[1],
            verbose=False,
        )

    async def load(self) -> float:
        """Load the model; returns the load time in ms."""
        started = time.perf_counter()
        await asyncio.get_running_loop().run_in_executor(self._executor, self._load)
        return (time.perf_counter() - started) * 1000

    def _call(self, call: Call, threads: tuple[int, int] | None) -> Call:
        import llama_cpp

        llama = self._llama
        if threads is not None:
            llama_cpp.llama_set_n_threads(llama.ctx, threads[0], threads[1])
        out = Call(call.messages, call.schema, call.max_tokens, threads=threads)
        before = perf_totals(llama)
        started = time.perf_counter()
        response_format = (
            {"type": "json_object", "schema": call.schema} if call.schema is not None else None
        )
        pieces: list[str] = []
        watch = _TextStart(out, started)
        for chunk in llama.create_chat_completion(
            messages=call.messages,
            max_tokens=call.max_tokens,
            temperature=0.0,
            repeat_penalty=REPEAT_PENALTY,
            response_format=response_format,
            stream=True,
        ):
            delta = chunk["choices"][0]["delta"].get("content")
            if isinstance(delta, str) and delta:
                if out.first_piece_ms is None:
                    out.first_piece_ms = (time.perf_counter() - started) * 1000
                pieces.append(delta)
                watch.feed(delta)
        out.wall_ms = (time.perf_counter() - started) * 1000
        after = perf_totals(llama)
        out.prompt_ms, out.evaluated = after[0] - before[0], after[1] - before[1]
        out.pieces, out.text = len(pieces), "".join(pieces)
        out.prompt_tokens = max(0, int(llama.n_tokens) - len(pieces))
        return out

    async def replay(self, call: Call) -> Call:
        """The same call on the raw model (with the threads the app used for it)."""
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, self._call, call, call.threads or self.threads
        )

    async def close(self) -> None:
        def free() -> None:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

        await asyncio.get_running_loop().run_in_executor(self._executor, free)
        self._executor.shutdown(wait=True)
