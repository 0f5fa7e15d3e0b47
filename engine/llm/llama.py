"""llama-cpp-python backend. One ``Llama`` lives on one dedicated worker thread: it is loaded
there and every call runs there (a ``Llama`` is not thread-safe, and running it on another
thread than the one that loaded it is much slower). The asyncio loop only awaits.

Before each call the threads are chosen for the machine's current load
(:mod:`engine.llm.threads`); a JSON schema's grammar is built once; with ``keep_loaded``
off the weights are freed after ``IDLE_UNLOAD_SECONDS`` without a call and loaded again on
the next one. With a ``state_dir``, the evaluated prompt of each kind of call is saved there
and read back when that kind comes again (:mod:`engine.llm.prefix_states`)."""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from engine.errors import ModelError
from engine.llm.base import (
    Completion,
    JsonSchema,
    LanguageModel,
    Message,
    TokenCallback,
    threadsafe,
)
from engine.llm.capability import gguf_capability
from engine.llm.guard import check_allowed
from engine.llm.prefix_states import PrefixStates, opening_key
from engine.llm.threads import ThreadPolicy
from engine.modeltypes import Capability

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar
    from llama_cpp.llama_types import (
        ChatCompletionRequestMessage,
        CreateChatCompletionStreamResponse,
    )

log = logging.getLogger(__name__)
T = TypeVar("T")

GGUF_MAGIC = b"GGUF"
DEFAULT_CONTEXT = 4096  # TIC's prompts stay under ~3 000 tokens; each 4 096 more cost ~90 MB
IDLE_UNLOAD_SECONDS = 300.0


def validate_model_file(path: Path) -> Path:
    """Fail with a one-line ModelError unless ``path`` is a readable GGUF file."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ModelError(f"model file not found: {path}")
    if not path.is_file():
        raise ModelError(f"model path is not a file: {path}")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelError(f"model file unreadable: {path} ({exc.strerror or exc})") from None
    if magic != GGUF_MAGIC:
        raise ModelError(f"not a GGUF model file: {path}")
    return path


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, where there is one (not on musl, macOS or Windows)."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def return_freed_memory() -> None:
    """Hand the heap's free pages back to the system. Each call's sampler, grammar and
    buffers are freed but stay in the process's heap: without this, 100 chat turns on the
    embedded model grew its memory by ~145 MB (``python -m bench --only memory``)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


GRAMMAR_MAX_STRING = 1000
"""The longest string bound llama.cpp's grammar parser takes: it refuses (and llama-cpp-python
then crashes on) a string bounded by much more. A longer bound (a reply covering a batch of
notifications) is left out of the grammar: ``max_tokens`` ends the string, and the bound is
still checked when the step is read."""


def grammar_schema(schema: Any) -> Any:
    """``schema`` with every string bound above ``GRAMMAR_MAX_STRING`` dropped."""
    if isinstance(schema, list):
        return [grammar_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: grammar_schema(v) for k, v in schema.items()}
    bound = out.get("maxLength")
    if isinstance(bound, int) and bound > GRAMMAR_MAX_STRING:
        del out["maxLength"]
    return out


@lru_cache(maxsize=64)
def schema_grammar(schema_json: str) -> LlamaGrammar:
    """A JSON schema's llama.cpp grammar, built once per schema (as llama-cpp-python's
    ``response_format`` builds it on every call: a schema it cannot convert falls back to
    plain JSON)."""
    from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

    schema_json = json.dumps(grammar_schema(json.loads(schema_json)), sort_keys=True)
    try:
        return LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception:  # what llama-cpp-python's own fallback catches
        return LlamaGrammar.from_string(JSON_GBNF, verbose=False)


class LlamaCppModel(LanguageModel):
    def __init__(
        self,
        path: Path,
        *,
        context_size: int = DEFAULT_CONTEXT,
        threads: int | None = None,
        repeat_penalty: float = 1.15,
        keep_loaded: bool = True,
        state_dir: Path | None = None,
    ):
        self.path = validate_model_file(path)
        self.name = self.path.stem
        self._capability = gguf_capability(self.path)
        self.context_size = context_size
        self.threads = threads  # None: chosen before each call for the current load
        self._policy = ThreadPolicy(threads)
        self.threads_in_use: tuple[int, int] | None = None  # (decode, prompt), once loaded
        # Small models loop on greedy decoding ("ask for help, ask for help, ...").
        self.repeat_penalty = repeat_penalty
        self.keep_loaded = keep_loaded
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        self._llama: Llama | None = None
        self._load_lock = asyncio.Lock()
        self._cancel = threading.Event()
        self._idle: asyncio.TimerHandle | None = None
        self._busy = 0
        self.states = (
            PrefixStates(state_dir, self.path, context_size) if state_dir is not None else None
        )

    def context_tokens(self) -> int | None:
        return self.context_size

    def _load_sync(self) -> Llama:
        if self._llama is not None:
            return self._llama
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ModelError(f"llama-cpp-python is not installed ({exc})") from None
        choice = self._policy.choose()
        try:
            self._llama = Llama(
                model_path=str(self.path),
                n_ctx=self.context_size,
                n_threads=choice.decode,
                n_threads_batch=choice.prompt,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"cannot load model {self.path.name}: {exc}") from None
        self.threads_in_use = (choice.decode, choice.prompt)
        log.info("model %s loaded: %s", self.path.name, choice.why)
        return self._llama

    def _ready_for(self, messages: list[Message]) -> Llama:
        """The loaded model, with this call's threads and its opening's saved state."""
        llama = self._load_sync()
        self._use_threads(llama)
        if self.states is not None:
            self.states.switch(llama, opening_key(messages))
        return llama

    def _use_threads(self, llama: Llama) -> None:
        """The threads for this call, changed only when the load changed the choice."""
        choice = self._policy.choose()
        wanted = (choice.decode, choice.prompt)
        if wanted != self.threads_in_use:
            from llama_cpp import llama_set_n_threads

            llama_set_n_threads(llama.ctx, choice.decode, choice.prompt)
            self.threads_in_use = wanted
            log.debug("model threads now: %s", choice.why)

    @property
    def capability(self) -> Capability:
        return self._capability

    async def load(self) -> None:
        check_allowed(f"load {self.path.name}")
        async with self._load_lock:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._load_sync)

    def _generate_sync(
        self,
        messages: list[Message],
        schema: JsonSchema | None,
        max_tokens: int,
        temperature: float,
        emit: TokenCallback | None,
    ) -> Completion:
        llama = self._ready_for(messages)
        grammar = schema_grammar(json.dumps(schema, sort_keys=True)) if schema else None
        started = time.monotonic()
        pieces: list[str] = []
        try:
            chunks = llama.create_chat_completion(
                # Our messages are a subset of llama.cpp's message types.
                messages=cast("list[ChatCompletionRequestMessage]", messages),
                max_tokens=max_tokens,
                temperature=temperature,
                repeat_penalty=self.repeat_penalty,
                grammar=grammar,
                stream=True,
            )
            for chunk in cast("Iterator[CreateChatCompletionStreamResponse]", chunks):
                if self._cancel.is_set():
                    break
                delta = chunk["choices"][0]["delta"].get("content")
                if isinstance(delta, str) and delta:
                    pieces.append(delta)
                    if emit is not None:
                        emit(delta)
        except ValueError as exc:
            raise ModelError(f"model {self.path.name} failed: {exc}") from None
        finally:
            return_freed_memory()  # ~1 ms
        n_total = llama.n_tokens
        completion_tokens = len(pieces)
        return Completion(
            text="".join(pieces),
            prompt_tokens=max(0, n_total - completion_tokens),
            completion_tokens=completion_tokens,
            duration_ms=int((time.monotonic() - started) * 1000),
        )

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: JsonSchema | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        check_allowed(f"generate with {self.path.name}")
        emit = threadsafe(on_token)
        return await self._on_model_thread(
            self._generate_sync, messages, schema, max_tokens, temperature, emit
        )

    def _prefill_sync(self, messages: list[Message]) -> None:
        """A one-token call reads the prompt in; its state is saved at once (so the next
        process starts warm too)."""
        self._generate_sync(messages, None, 1, 0.0, None)
        if self.states is not None and self._llama is not None:
            self.states.save(self._llama)

    async def prefill(self, messages: list[Message]) -> None:
        check_allowed(f"prefill with {self.path.name}")
        await self._on_model_thread(self._prefill_sync, messages)

    async def _on_model_thread(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work`` on the model's thread; the idle timer starts again after it."""
        self._busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)
        finally:
            self._busy -= 1
            self._idle_later()

    def _idle_later(self) -> None:
        """With ``keep_loaded`` off, free the weights once no call came for a while."""
        if self.keep_loaded or self._cancel.is_set():
            return
        if self._idle is not None:
            self._idle.cancel()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(IDLE_UNLOAD_SECONDS, self._unload_if_idle)

    def _unload_if_idle(self) -> None:
        self._idle = None
        if self._busy or self._cancel.is_set():
            return
        self._executor.submit(self._free)
        log.info("model %s freed after %.0f s idle", self.path.name, IDLE_UNLOAD_SECONDS)

    def _free(self) -> None:
        if self._llama is not None:
            if self.states is not None:
                self.states.save(self._llama)  # the next load starts warm
                self.states.forget()
            self._llama.close()
            self._llama = None

    async def close(self) -> None:
        self._cancel.set()
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._free)
        self._executor.shutdown(wait=True)
