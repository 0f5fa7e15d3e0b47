"""llama-cpp-python backend. One ``Llama`` lives on one dedicated worker thread: it is loaded
there and every call runs there (a ``Llama`` is not thread-safe, and running it on another
thread than the one that loaded it is much slower). The asyncio loop only awaits."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, cast

from engine.errors import ModelError
from engine.llm.base import (
    Capability,
    Completion,
    JsonSchema,
    LanguageModel,
    Message,
    TokenCallback,
    threadsafe,
)
from engine.llm.gguf import from_size_label, parameter_count
from engine.llm.guard import check_allowed

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_types import (
        ChatCompletionRequestMessage,
        ChatCompletionRequestResponseFormat,
        CreateChatCompletionStreamResponse,
    )

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
CAPABLE_PARAMETERS = 1_000_000_000
"""Below about a billion parameters a model is tiny: it is not trusted to judge rules."""
TINY_FILE_BYTES = 1_200_000_000
"""When the header tells nothing: a GGUF file smaller than this holds a tiny model."""


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


class LlamaCppModel(LanguageModel):
    def __init__(
        self,
        path: Path,
        *,
        context_size: int = 8192,
        threads: int | None = None,
        repeat_penalty: float = 1.15,
    ):
        self.path = validate_model_file(path)
        self.name = self.path.stem
        self.context_size = context_size
        self.threads = threads
        # Small models loop on greedy decoding ("ask for help, ask for help, ...").
        self.repeat_penalty = repeat_penalty
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        self._llama: Llama | None = None
        self._load_lock = asyncio.Lock()
        self._cancel = threading.Event()
        self._capability: Capability | None = None

    def detect_capability(self) -> Capability:
        """Tiny under about a billion parameters: from the loaded model's metadata, else the
        file's header, else its size."""
        if self._capability is None:
            count: int | None = None
            if self._llama is not None:
                label = self._llama.metadata.get("general.size_label", "")
                count = from_size_label(label) if label else None
            if count is None:
                count = parameter_count(self.path)
            if count is None:
                tiny = self.path.stat().st_size < TINY_FILE_BYTES
            else:
                tiny = count < CAPABLE_PARAMETERS
            self._capability = "tiny" if tiny else "capable"
        return self._capability

    def _load_sync(self) -> Llama:
        if self._llama is not None:
            return self._llama
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ModelError(f"llama-cpp-python is not installed ({exc})") from None
        try:
            self._llama = Llama(
                model_path=str(self.path),
                n_ctx=self.context_size,
                n_threads=self.threads,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"cannot load model {self.path.name}: {exc}") from None
        return self._llama

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
        llama = self._load_sync()
        response_format: ChatCompletionRequestResponseFormat | None = None
        if schema is not None:
            response_format = {"type": "json_object", "schema": schema}
        started = time.monotonic()
        pieces: list[str] = []
        try:
            chunks = llama.create_chat_completion(
                # Our messages are a subset of llama.cpp's message types.
                messages=cast("list[ChatCompletionRequestMessage]", messages),
                max_tokens=max_tokens,
                temperature=temperature,
                repeat_penalty=self.repeat_penalty,
                response_format=response_format,
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
        loop = asyncio.get_running_loop()
        emit = threadsafe(on_token)
        return await loop.run_in_executor(
            self._executor,
            self._generate_sync,
            messages,
            schema,
            max_tokens,
            temperature,
            emit,
        )

    async def close(self) -> None:
        self._cancel.set()
        loop = asyncio.get_running_loop()

        def _free() -> None:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

        await loop.run_in_executor(self._executor, _free)
        self._executor.shutdown(wait=True)
