"""The terminal chat's screen: replies, notifications and tool calls printed so that the
line the user is typing at the ``> `` prompt survives.

Input is read in a thread while the engine runs on the event loop, so a notification can
arrive while the user is typing. On a terminal (readline available) it is printed above the
prompt, and the prompt with the half-typed line is drawn again below it. Anywhere else
(a pipe, a file) everything is printed plainly, with no prompt and no escape codes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TextIO

from engine.bus import ReplyFinished, ReplyStarted, ReplyToken, ToolCalled, TurnFailed
from engine.engine import tool_label

PROMPT = "> "
CLEAR_LINE = "\r\x1b[K"


class LineEditor(Protocol):
    """The part of the ``readline`` module the console uses."""

    def get_line_buffer(self) -> str: ...

    def redisplay(self) -> None: ...

    def set_pre_input_hook(self, function: Callable[[], object] | None = None, /) -> None: ...


def describe_tool_call(name: str, arguments: dict[str, Any], status: str) -> str | None:
    """The line a finished tool call gets, where one helps (``engine.chat.labels``):
    ``  · Rule added to Never notify``; look-ups get none (``tic-desktop history`` lists
    every call with its arguments)."""
    label = tool_label(name, arguments, status)
    return f"  · {label}" if label else None


def _label(kind: str) -> str:
    return "assistant (notification)" if kind == "notification" else "assistant"


class ChatConsole:
    """Prints the bus's chat events (call :meth:`on_event` on the loop's thread) and reads the
    user's lines (:meth:`read_line`, in a thread of its own)."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        editor: LineEditor | None = None,
        input_fn: Callable[[str], str] = input,
        *,
        stream: bool = True,
    ):
        self.out = out
        self.stream = stream  # False: a reply is printed whole once stored, never its tokens
        self.err = err
        self.editor = editor
        self.prompt = PROMPT if editor is not None else ""
        self._input = input_fn
        self._lock = threading.RLock()
        self._at_prompt = False
        self._label = _label("user")
        self._streamed: list[str] = []
        self._live = False  # a reply's label and tokens are on the current line
        if editor is not None:
            editor.set_pre_input_hook(self.prompt_shown)

    @classmethod
    def for_terminal(cls) -> ChatConsole:
        """readline on an interactive terminal, plain lines otherwise."""
        editor: LineEditor | None = None
        if sys.stdin.isatty() and sys.stdout.isatty():
            with contextlib.suppress(ImportError):
                import readline

                editor = readline
        if editor is not None:
            return cls(sys.stdout, sys.stderr, editor)
        try:
            return cls(sys.stdout, sys.stderr, None, FdLines(sys.stdin.fileno()))
        except (AttributeError, ValueError, OSError):  # no real stdin (embedded, tests)
            return cls(sys.stdout, sys.stderr, None)

    # the user's side ------------------------------------------------------------------

    def prompt_shown(self) -> None:
        """readline's pre-input hook: the prompt is on screen and the user may type."""
        with self._lock:
            self._at_prompt = True

    def read_line(self) -> str:
        """One line from the user (blocking; raises EOFError at the end of input)."""
        if self.editor is None:
            self.prompt_shown()
        try:
            return self._input(self.prompt)
        finally:
            with self._lock:
                self._at_prompt = False

    async def next_line(self) -> str:
        """:meth:`read_line` in a daemon thread, so Ctrl-C or /quit never waits for it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def settle(value: str | None, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value or "")

        def read() -> None:
            value, error = None, None
            try:
                value = self.read_line()
            except BaseException as exc:  # EOFError, KeyboardInterrupt: the loop decides
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(settle, value, error)

        threading.Thread(target=read, name="tic-chat-input", daemon=True).start()
        return await future

    def close(self) -> None:
        if self.editor is not None:
            self.editor.set_pre_input_hook(None)

    @contextlib.contextmanager
    def session(self) -> Iterator[ChatConsole]:
        """The terminal's settings are restored at the end, even when the user leaves with
        Ctrl-C while readline has the terminal."""
        saved = _terminal_state() if self.editor is not None else None
        try:
            yield self
        finally:
            self.close()
            if saved is not None:
                _restore_terminal(saved)

    # what the engine says ---------------------------------------------------------------

    def say(self, text: str, *, error: bool = False) -> None:
        """A line of the chat's own (a command's result, an error)."""
        with self._lock:
            self._end_live_reply()
            self._emit(text, self.err if error else self.out)

    def on_event(self, event: Any) -> None:
        with self._lock:
            if isinstance(event, ReplyStarted):
                self._end_live_reply()
                self._label = _label(event.kind)
                self._streamed = []
            elif isinstance(event, ReplyToken):
                self._token(event.text)
            elif isinstance(event, ToolCalled):
                line = describe_tool_call(event.name, event.arguments, event.status)
                if line is not None:
                    self.say(line)
            elif isinstance(event, ReplyFinished):
                self._finished(event)
            elif isinstance(event, TurnFailed):
                self.say(f"[{event.kind} turn failed: {event.error}]", error=True)

    def _token(self, text: str) -> None:
        """Stream while the user waits for a reply; at the prompt, keep it for the end."""
        if not self.stream:
            return
        self._streamed.append(text)
        if self._at_prompt:
            return
        if not self._live:
            self._live = True
            self.out.write(f"{self._label}: {''.join(self._streamed).lstrip()}")
        else:
            self.out.write(text)
        self.out.flush()

    def _finished(self, event: ReplyFinished) -> None:
        text = event.text.strip()
        said = "".join(self._streamed).strip()
        if self._live and text.startswith(said):  # finish the streamed line
            self._live = False
            self.out.write(text[len(said) :].rstrip() + "\n")
            self.out.flush()
        elif text:  # not streamed, or the stored reply differs from the stream: show it all
            self._end_live_reply()
            self._emit(f"{_label(event.kind)}: {text}", self.out)
        self._end_live_reply()
        self._streamed = []

    def _end_live_reply(self) -> None:
        """Something else must be printed mid-reply: finish the reply's line first."""
        if self._live:
            self.out.write("\n")
            self.out.flush()
            self._live = False
            self._streamed = []

    def _emit(self, text: str, stream: TextIO) -> None:
        if not (self._at_prompt and self.editor is not None):
            stream.write(text + "\n")
            stream.flush()
            return
        typed = self.editor.get_line_buffer()
        self.out.write(CLEAR_LINE)
        self.out.flush()
        stream.write(text + "\n")
        stream.flush()
        self.out.write(self.prompt + typed)
        self.out.flush()
        self.editor.redisplay()


class FdLines:
    """``input()`` for a pipe or a file, read from the descriptor itself. A thread blocked in
    ``input()`` on a pipe holds ``sys.stdin``'s lock, and a process that ends meanwhile (the
    app a chat is attached to quit) aborts with "could not acquire lock ... at interpreter
    shutdown"; blocked here it holds none, and the process ends cleanly."""

    def __init__(self, fd: int):
        self.fd = fd
        self._pending = b""

    def __call__(self, _prompt: str) -> str:
        while b"\n" not in self._pending:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                if not self._pending:
                    raise EOFError
                line, self._pending = self._pending, b""
                return line.decode("utf-8", "replace")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "replace").removesuffix("\r")


def _terminal_state() -> Any:
    try:
        import termios

        return termios.tcgetattr(sys.stdin.fileno())
    except (ImportError, OSError, ValueError):
        return None


def _restore_terminal(state: Any) -> None:
    with contextlib.suppress(ImportError, OSError, ValueError):
        import termios

        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, state)
