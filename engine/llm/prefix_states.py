"""Saved llama.cpp states, one per prompt opening, so that switching between agents costs
milliseconds instead of a prompt read.

llama.cpp keeps one evaluated prompt and reuses it up to the first token that differs. TIC's
calls open with a few different system messages (a chat turn, a notification reply, triage's
question about a rules line); each switch between them used to read the whole prompt again
(seconds on 2 cores). Before a call whose system message differs from the one in the cache,
the cache is written to a file named after that system message, and the file of the new one,
if there is one, is read back (a few ms for the embedded model; llama.cpp then reuses it up
to the first differing token, as always). The files live in the workspace's cache and outlive
the process, so the first chat turn after a restart is warm too.

Only this module and :mod:`engine.llm.llama` touch ``Llama``'s internals (its token buffer);
a llama-cpp-python without them turns the saved states off, not the model."""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from engine.llm.base import Message

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger(__name__)

SUFFIX = ".state"
KEEP_FILES = 4  # a chat turn, a notification reply, triage, and one spare


def opening_key(messages: list[Message]) -> str | None:
    """What names a prompt's opening: its first (system) message, or None without one."""
    if not messages or messages[0]["role"] != "system":
        return None
    return messages[0]["content"]


class PrefixStates:
    """The states of one model (file, context size) in ``directory``."""

    def __init__(self, directory: Path, model_path: Path, context_size: int):
        self.directory = directory
        stat = model_path.stat()
        self._model_id = f"{model_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{context_size}"
        self.current: str | None = None  # the opening the cache now starts with
        self.enabled = True
        self.restored = 0  # states read back (for tests and the bench)
        self.saved = 0

    def _file(self, opening: str) -> Path:
        digest = hashlib.sha256(f"{self._model_id}\n{opening}".encode()).hexdigest()[:24]
        return self.directory / f"{digest}{SUFFIX}"

    def switch(self, llama: Llama, opening: str | None) -> None:
        """Before a call that opens with ``opening``: keep the cache if it opens the same way,
        else save it and read back ``opening``'s saved state where there is one."""
        if not self.enabled or opening == self.current:
            return
        if self.current is not None:
            self.save(llama)
        self.current = opening  # None: a prompt without a system message, saved nowhere
        if opening is None:
            return
        path = self._file(opening)
        if path.exists():
            self._restore(llama, path)

    def save(self, llama: Llama) -> None:
        """Write the cache to the current opening's file (replacing it)."""
        if not self.enabled or self.current is None or llama.n_tokens == 0:
            return
        import llama_cpp

        started = time.monotonic()
        n = int(llama.n_tokens)
        tokens = (llama_cpp.llama_token * n)(*llama.input_ids[:n].tolist())
        path = self._file(self.current)
        partial = path.with_name(path.name + ".part")
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            written = llama_cpp.llama_state_seq_save_file(
                llama.ctx, os.fsencode(partial), 0, tokens, n
            )
            if not written:
                raise OSError("llama.cpp wrote nothing")
            partial.chmod(0o600)  # it holds what the prompt held
            partial.replace(path)
        except (OSError, AttributeError) as exc:
            partial.unlink(missing_ok=True)
            self._give_up(f"cannot save a model state in {self.directory}: {exc}")
            return
        self.saved += 1
        self._prune()
        log.debug(
            "model state of %d tokens saved in %.0f ms", n, (time.monotonic() - started) * 1000
        )

    def _restore(self, llama: Llama, path: Path) -> None:
        import llama_cpp

        started = time.monotonic()
        capacity = llama.n_ctx()
        tokens = (llama_cpp.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        read = llama_cpp.llama_state_seq_load_file(
            llama.ctx, os.fsencode(path), 0, tokens, capacity, ctypes.byref(count)
        )
        n = int(count.value)
        if not read or n == 0 or n > capacity:
            # Another llama.cpp's format, a truncated file: read the prompt instead.
            path.unlink(missing_ok=True)
            _empty(llama)
            log.info("a saved model state could not be read (%s); removed", path.name)
            return
        try:
            llama.input_ids[:n] = tokens[:n]
            llama.n_tokens = n
            llama._requires_eval = True  # the logits were not restored: evaluate a token
        except (AttributeError, ValueError) as exc:
            _empty(llama)
            self._give_up(f"this llama-cpp-python cannot restore model states ({exc})")
            return
        path.touch()  # the most recently used file is pruned last
        self.restored += 1
        log.debug(
            "model state of %d tokens restored in %.0f ms", n, (time.monotonic() - started) * 1000
        )

    def forget(self) -> None:
        """The cache was emptied (the model was freed): nothing is current any more."""
        self.current = None

    def _prune(self) -> None:
        files = sorted(
            self.directory.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in files[KEEP_FILES:]:
            old.unlink(missing_ok=True)

    def _give_up(self, why: str) -> None:
        self.enabled = False
        log.warning("%s; prompts will be read afresh after each switch", why)


def _empty(llama: Llama) -> None:
    """Nothing evaluated: the next call reads its whole prompt."""
    llama.n_tokens = 0
    llama._ctx.kv_cache_seq_rm(-1, 0, -1)
